// FNV-1a, 64 bits, over raw bytes: the bit-for-bit fingerprint of a state (the app's session
// hashes, the scenes' compiler check). The types hashed must have no padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collide {

class Fnv1a {
public:
    void add(const void* data, std::size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < size; ++i) hash_ = (hash_ ^ bytes[i]) * 0x100000001b3ULL;
    }
    template <typename T>
    void add(const std::vector<T>& v) {
        add(v.data(), v.size() * sizeof(T));
    }
    std::uint64_t value() const { return hash_; }

private:
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace collide
