#include "tooling/trace.hpp"

#include <cassert>
#include <cmath>
#include <cstring>
#include <fstream>

#include "tooling/input_error.hpp"

namespace collide {

namespace {

constexpr char kMagic[8] = {'C', 'L', 'D', 'T', 'R', 'A', 'C', 'E'};
constexpr std::uint32_t kVersion = 1;

struct Header {
    char magic[8];
    std::uint32_t version;
    std::uint32_t dim;
    std::uint64_t n;
    std::uint64_t frames;
};

}  // namespace

template <int D>
Trace<D> Trace<D>::record(World<D>& world, int frames) {
    assert(frames >= 0);
    Trace t;
    t.frames_ = frames;
    t.is_static_ = world.bodies().is_static;
    t.boxes_.reserve(static_cast<std::size_t>(frames) * t.size());
    for (int f = 0; f < frames; ++f) {
        world.step();
        const auto boxes = world.boxes();
        t.boxes_.insert(t.boxes_.end(), boxes.begin(), boxes.end());
    }
    return t;
}

template <int D>
void Trace<D>::save(const std::string& path) const {
    std::ofstream file(path, std::ios::binary);
    Header h{{}, kVersion, D, size(), static_cast<std::uint64_t>(frames_)};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    file.write(reinterpret_cast<const char*>(&h), sizeof h);
    file.write(reinterpret_cast<const char*>(is_static_.data()),
               static_cast<std::streamsize>(is_static_.size()));
    file.write(reinterpret_cast<const char*>(boxes_.data()),
               static_cast<std::streamsize>(boxes_.size() * sizeof(Aabb<D>)));
    if (!file.flush()) throw InputError(path + ": cannot write the trace");
}

template <int D>
Trace<D> Trace<D>::load(const std::string& path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw InputError(path + ": cannot read the trace");
    const auto bytes = static_cast<std::uint64_t>(file.tellg());
    file.seekg(0);
    Header h{};
    if (bytes < sizeof h || !file.read(reinterpret_cast<char*>(&h), sizeof h) ||
        std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
        throw InputError(path + ": not a trace file");
    if (h.version != kVersion)
        throw InputError(path + ": trace version " + std::to_string(h.version) + ", not " +
                         std::to_string(kVersion));
    if (h.dim != D)
        throw InputError(path + ": a " + std::to_string(h.dim) + "D trace, not " +
                         std::to_string(D) + "D");
    // Checked before anything is allocated: sizes that overflow or disagree with the file.
    const std::uint64_t limit = kMaxTraceBytes / sizeof(Aabb<D>);
    if (h.n > limit || h.frames > limit || (h.n > 0 && h.frames > limit / h.n) ||
        bytes != sizeof h + h.n + h.n * h.frames * sizeof(Aabb<D>))
        throw InputError(path + ": " + std::to_string(bytes) + " bytes do not hold " +
                         std::to_string(h.n) + " bodies x " + std::to_string(h.frames) + " frames");
    Trace t;
    t.frames_ = static_cast<int>(h.frames);
    t.is_static_.resize(h.n);
    t.boxes_.resize(h.n * h.frames);
    file.read(reinterpret_cast<char*>(t.is_static_.data()), static_cast<std::streamsize>(h.n));
    file.read(reinterpret_cast<char*>(t.boxes_.data()),
              static_cast<std::streamsize>(t.boxes_.size() * sizeof(Aabb<D>)));
    if (!file) throw InputError(path + ": cannot read the trace");
    for (std::uint8_t s : t.is_static_) {
        if (s > 1) throw InputError(path + ": a static flag " + std::to_string(s) + ", not 0 or 1");
    }
    for (std::size_t i = 0; i < t.boxes_.size(); ++i) {
        const Aabb<D>& b = t.boxes_[i];
        for (int k = 0; k < D; ++k) {
            if (!std::isfinite(b.lo[k]) || !std::isfinite(b.hi[k]) || b.lo[k] > b.hi[k])
                throw InputError(path + ": box " + std::to_string(i % h.n) + " of frame " +
                                 std::to_string(i / h.n) + " is not finite or has lo > hi");
        }
    }
    return t;
}

template class Trace<2>;
template class Trace<3>;

}  // namespace collide
