// Strict text-to-number parsing for the edges (CLI flags, scene files): the whole string
// must be the number, and floats must be finite. Returns nothing on any failure so the
// caller can name the offending value in its message.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <istream>
#include <optional>
#include <string>
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

// The length of the UTF-8 character starting at s[i] (1 to 4), or 0 where the bytes there
// are not UTF-8 (a stray continuation byte, a truncated or overlong sequence, a surrogate,
// a code point above U+10FFFF).
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = byte(0);
    if (c < 0x80) return 1;
    const std::size_t len = c >= 0xC2 && c <= 0xDF   ? 2
                            : c >= 0xE0 && c <= 0xEF ? 3
                            : c >= 0xF0 && c <= 0xF4 ? 4
                                                     : 0;
    if (len == 0 || i + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        if ((byte(k) & 0xC0) != 0x80) return 0;
    }
    // The second byte's range that rules out overlong forms, surrogates and > U+10FFFF.
    if ((c == 0xE0 && byte(1) < 0xA0) || (c == 0xED && byte(1) > 0x9F) ||
        (c == 0xF0 && byte(1) < 0x90) || (c == 0xF4 && byte(1) > 0x8F))
        return 0;
    return len;
}

// Where a file is not text: the first byte that is a control character or not UTF-8, or
// nothing. Tab and carriage return are text.
inline std::optional<std::size_t> first_binary_byte(std::string_view line) {
    for (std::size_t i = 0; i < line.size();) {
        const auto c = static_cast<unsigned char>(line[i]);
        const std::size_t len = utf8_length(line, i);
        if (len == 0 || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7F) return i;
        i += len;
    }
    return std::nullopt;
}

// What is wrong with the byte at `at` of `line` (first_binary_byte found it), for a message:
// "byte 0x03 is a control character" or "byte 0xE9 is not UTF-8".
inline std::string describe_byte(std::string_view line, std::size_t at) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(line[at]));
    return std::string("byte ") + hex +
           (utf8_length(line, at) == 1 ? " is a control character" : " is not UTF-8");
}

// Reads the next line, without its newline, into `line`, at most `cap` + 1 bytes of it, so
// that a file without newlines (/dev/zero) cannot take all memory: line.size() > cap says it
// was longer. False at the end of the input; `newline` says whether a newline ended the line
// (the last line of a file cut short has none).
inline bool read_capped_line(std::istream& in, std::string& line, std::size_t cap, bool& newline) {
    line.clear();
    std::streambuf& buf = *in.rdbuf();
    int c = buf.sbumpc();
    if (c == std::char_traits<char>::eof()) return false;
    while (c != std::char_traits<char>::eof() && c != '\n' && line.size() <= cap) {
        line.push_back(static_cast<char>(c));
        c = buf.sbumpc();
    }
    newline = c == '\n';
    return true;
}

// `s` as a message may quote it: at most `limit` bytes (cut on a character boundary, "..."
// added), control bytes and bytes that are not UTF-8 written as \xNN, so a binary file or
// argument never reaches the terminal raw.
inline std::string excerpt(std::string_view s, std::size_t limit = 40) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t len = utf8_length(s, i);
        const bool raw = len != 0 && c >= 0x20 && c != 0x7F;
        if (i + (raw ? len : 1) > limit) break;  // keeps a character whole
        if (raw) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
            ++i;
        }
    }
    if (i < s.size()) out += "...";
    return out;
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
