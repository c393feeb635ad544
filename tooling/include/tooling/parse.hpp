// Strict text-to-number parsing for the edges (CLI flags, scene files): the whole string
// must be the number, and floats must be finite. Returns nothing on any failure so the
// caller can name the offending value in its message.
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace collide {

template <typename T>
std::optional<T> parse_number(std::string_view s) {
    static_assert(std::is_arithmetic_v<T>);
    if (s.empty()) return std::nullopt;
    if constexpr (std::is_unsigned_v<T>) {
        if (s.front() == '-') return std::nullopt;  // from_chars would wrap "-1"
    }
    T value{};
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    if constexpr (std::is_floating_point_v<T>) {
        if (!std::isfinite(value)) return std::nullopt;
    }
    return value;
}

// Why `s` is not a finite number (for messages): "is out of range", "is not finite" or
// "is not a number".
inline const char* number_problem(std::string_view s) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ptr != s.data() + s.size() || s.empty()) return "is not a number";
    if (ec == std::errc::result_out_of_range) return "is out of range";
    if (ec != std::errc()) return "is not a number";
    return std::isfinite(v) ? "is out of range" : "is not finite";
}

// Splits on `sep`, keeping empty fields (so "a,,b" has three).
inline std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    for (;;) {
        const std::size_t at = s.find(sep);
        out.push_back(s.substr(0, at));
        if (at == std::string_view::npos) return out;
        s.remove_prefix(at + 1);
    }
}

}  // namespace collide
