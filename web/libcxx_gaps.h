// Force-included into every C++ source of the browser build: the C++17/20 library pieces the
// engine and the parsers use that Emscripten 3.1.6's libc++ does not have yet. Each steps
// aside where the library has its own, so a newer Emscripten uses the real one.
#pragma once

#ifdef __cplusplus
#include <version>

#include <cstring>
#include <type_traits>

#ifndef __cpp_lib_bit_cast
namespace std {
template <typename To, typename From>
To bit_cast(const From& from) noexcept {
    static_assert(sizeof(To) == sizeof(From) && is_trivially_copyable_v<From> &&
                  is_trivially_copyable_v<To>);
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}
}  // namespace std
#endif

#ifndef __cpp_lib_atomic_ref
#include <atomic>
namespace std {
// The members the engine calls, on the compiler's atomic builtins.
template <typename T>
class atomic_ref {
public:
    explicit atomic_ref(T& value) : p_(&value) {}
    T load(memory_order order = memory_order_seq_cst) const {
        T out;
        __atomic_load(p_, &out, static_cast<int>(order));
        return out;
    }
    bool compare_exchange_weak(T& expected, T desired, memory_order order = memory_order_seq_cst) {
        return __atomic_compare_exchange(p_, &expected, &desired, true, static_cast<int>(order),
                                         static_cast<int>(memory_order_relaxed));
    }
    T fetch_add(T add, memory_order order = memory_order_seq_cst) {
        static_assert(is_integral_v<T>);
        return __atomic_fetch_add(p_, add, static_cast<int>(order));
    }

private:
    T* p_;
};
}  // namespace std
#endif
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 200000
// from_chars for float and double (libc++ 20 has them): strtod on a terminated copy, with
// from_chars's stricter grammar (no leading space or '+', no "0x").
#include <cerrno>
#include <cstdio>
#include <charconv>
#include <cstdlib>
#include <string>
namespace std {
namespace libcxx_gaps {
template <typename T>
from_chars_result parse_float(const char* first, const char* last, T& value) {
    const bool starts_right = first != last && *first != '+' && *first != ' ' &&
                              *first != '\t' && *first != '\n';
    const string text(first, last);
    const size_t skip = !text.empty() && text[0] == '-' ? 1 : 0;
    const bool hex = text.size() > skip + 1 && text[skip] == '0' &&
                     (text[skip + 1] == 'x' || text[skip + 1] == 'X');
    if (!starts_right || hex) return {first, errc::invalid_argument};
    char* end = nullptr;
    errno = 0;
    const T parsed = is_same_v<T, float> ? strtof(text.c_str(), &end) : strtod(text.c_str(), &end);
    if (end == text.c_str()) return {first, errc::invalid_argument};
    const char* ptr = first + (end - text.c_str());
    if (errno == ERANGE) return {ptr, errc::result_out_of_range};
    value = parsed;
    return {ptr, errc()};
}
// The shortest %g form that reads back as the same value (to_chars's promise; its choice
// between fixed and scientific may differ).
template <typename T>
to_chars_result print_float(char* first, char* last, T value) {
    char text[40];
    int length = 0;
    for (int digits = is_same_v<T, float> ? 6 : 15; digits <= 17; ++digits) {
        length = snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
        T back{};
        const char* end = text + length;
        if (parse_float(text, end, back).ec == errc() && back == value) break;
    }
    if (length > last - first) return {last, errc::value_too_large};
    memcpy(first, text, static_cast<size_t>(length));
    return {first + length, errc()};
}
}  // namespace libcxx_gaps
inline to_chars_result to_chars(char* first, char* last, float value) {
    return libcxx_gaps::print_float(first, last, value);
}
inline to_chars_result to_chars(char* first, char* last, double value) {
    return libcxx_gaps::print_float(first, last, value);
}
inline from_chars_result from_chars(const char* first, const char* last, float& value) {
    return libcxx_gaps::parse_float(first, last, value);
}
inline from_chars_result from_chars(const char* first, const char* last, double& value) {
    return libcxx_gaps::parse_float(first, last, value);
}
}  // namespace std
#endif
#endif
