// The one way the programs read JSON they did not write themselves in this process (a settings
// record, a preset, a curve, a checkpoint's manifest): the text parsed with its nesting depth
// refused while parsing (before a structure that deep exists), a value quoted in a refusal by a
// short excerpt (never a recursive dump, never a 5 MB string, never cut at a NUL byte), and
// every number checked into its C++ type (type, range, integrality: no signed overflow, no
// silent truncation, no double rounding 2^63 - 1 into 2^63). Each caller words the refusal in
// its own terms (the file and field, the option); this file holds no sentence.
// Not here: reading the bytes (core/io/regular_file.h does, bounded), any schema. Torch-free and
// Qt-free: the curve reader that uses it is fuzzed without LibTorch (tests/fuzz/).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

namespace accumlab {

// Text that is not JSON, or JSON nested deeper than the caller's bound.
struct JsonRefusal {
    enum Kind { NotJson, TooDeep } kind = NotJson;
    std::string reason;   // for NotJson: the parser's words, as an excerpt
    std::size_t byte = 0; // for NotJson: where parsing stopped (0 when not known)
};

// `text` parsed, nested at most `maxDepth` deep (an array or object is one level); throws
// JsonRefusal. As nlohmann::json (keys sorted) or, where a checksum covers the text as written,
// nlohmann::ordered_json (keys in the file's order).
template <class Json = nlohmann::json>
Json parseJson(std::string_view text, int maxDepth);

// A JSON value as a refusal quotes it: at most kExcerptChars characters of its text, a structure
// two levels deep at most ("[[...]]"), a string cut at a character's boundary.
constexpr std::size_t kExcerptChars = 60;
std::string jsonExcerpt(const nlohmann::json &value);
// Text as a refusal quotes it: the first `n` bytes, cut at a UTF-8 character's boundary, with
// "..." where it was cut; control characters (a NUL byte among them) written as \u00XX, so that
// a sentence is never cut short or split over lines by what it quotes.
std::string textExcerpt(const std::string &text, std::size_t n = kExcerptChars);

// Why a JSON value is not a T.
enum class NumberFault {
    None,
    WrongType,  // not a number (a string "16", an array, true, null) where T is one; or not a
                // boolean / string where T is bool / std::string
    NotWhole,   // a fraction (12.5) where T is an integer
    OutOfRange, // outside T's range: 2^63 for an int64_t, -1 for a uint64_t, 1e39 for a float
};

// The one checked conversion: `v` into `out` when it is a T, unchanged otherwise. A whole number
// written as a double (16.0) is that integer when T holds it exactly; a float T takes a finite
// number within float's range (a double, any finite number).
template <class T, class Json>
NumberFault jsonNumberInto(const Json &v, T &out)
{
    if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean())
            return NumberFault::WrongType;
        out = v.template get<bool>();
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string())
            return NumberFault::WrongType;
        out = v.template get<std::string>();
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!v.is_number())
            return NumberFault::WrongType;
        const double d = v.template get<double>();
        if (!std::isfinite(d) || std::abs(d) > double(std::numeric_limits<T>::max()))
            return NumberFault::OutOfRange;
        out = static_cast<T>(d);
    } else {
        static_assert(std::is_integral_v<T>);
        if (!v.is_number())
            return NumberFault::WrongType;
        if (v.is_number_float()) {
            const double d = v.template get<double>();
            if (!std::isfinite(d))
                return NumberFault::OutOfRange;
            if (d != std::floor(d))
                return NumberFault::NotWhole;
            // T's bounds as doubles: lowest is a power of two (or 0), max + 1 is one.
            const double lo = double(std::numeric_limits<T>::lowest());
            const double hiExclusive = std::ldexp(1.0, std::numeric_limits<T>::digits);
            if (d < lo || d >= hiExclusive)
                return NumberFault::OutOfRange;
            out = static_cast<T>(d);
        } else if (v.is_number_unsigned()) {
            const uint64_t u = v.template get<uint64_t>();
            if (u > uint64_t(std::numeric_limits<T>::max()))
                return NumberFault::OutOfRange;
            out = static_cast<T>(u);
        } else {
            const int64_t i = v.template get<int64_t>();
            if constexpr (std::is_unsigned_v<T>) {
                if (i < 0 || uint64_t(i) > uint64_t(std::numeric_limits<T>::max()))
                    return NumberFault::OutOfRange;
            } else {
                if (i < int64_t(std::numeric_limits<T>::lowest()) || i > int64_t(std::numeric_limits<T>::max()))
                    return NumberFault::OutOfRange;
            }
            out = static_cast<T>(i);
        }
    }
    return NumberFault::None;
}

} // namespace accumlab
