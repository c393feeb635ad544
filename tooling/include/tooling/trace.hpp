// A trace: the boxes of a real simulation, recorded once and replayed frame by frame, so
// every broad phase of a bench run sees the same physical input (bodies colliding, piling
// up under gravity, clustering) rather than straight-line motion. It holds frames x n boxes,
// so its size is checked against a limit before anything is recorded. A trace can be saved
// and loaded again, so that several bench invocations replay one recording.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collide/world.hpp"

namespace collide {

// The most bytes of boxes a trace may hold (1M bodies x 103 frames in 3D is 2.5 GB).
inline constexpr std::uint64_t kMaxTraceBytes = 3ull << 30;

// Bytes of boxes for n bodies over `frames` frames.
template <int D>
constexpr std::uint64_t trace_bytes(std::uint64_t n, std::uint64_t frames) {
    return n * frames * sizeof(Aabb<D>);
}

template <int D>
class Trace {
public:
    // Steps `world` `frames` times with its own broad phase, keeping each step's boxes.
    static Trace record(World<D>& world, int frames);

    std::size_t size() const { return is_static_.size(); }
    int frames() const { return frames_; }
    std::span<const Aabb<D>> boxes(int frame) const {
        return std::span<const Aabb<D>>(boxes_).subspan(static_cast<std::size_t>(frame) * size(),
                                                        size());
    }
    std::span<const std::uint8_t> is_static() const { return is_static_; }

    // A binary file: a header (magic, version, dimension, n, frames), the static flags, the
    // boxes as floats. Throws InputError naming the file.
    void save(const std::string& path) const;
    // Reads a file that save() wrote; anything else (another dimension, a short or long file,
    // a flag that is not 0 or 1, a box that is not finite or has lo > hi) is an InputError
    // naming the file and the problem.
    static Trace load(const std::string& path);

private:
    int frames_ = 0;
    std::vector<std::uint8_t> is_static_;
    std::vector<Aabb<D>> boxes_;  // frame after frame
};

}  // namespace collide
