// See json_reader.h.
#include "core/io/json_reader.h"

#include <functional>

namespace accumlab {

using json = nlohmann::json;

template <class Json>
Json parseJson(std::string_view text, int maxDepth)
{
    // The depth is refused while parsing, before a structure that deep exists.
    const auto depthGuard = [maxDepth](int depth, typename Json::parse_event_t, Json &) {
        if (depth > maxDepth)
            throw JsonRefusal{JsonRefusal::TooDeep, {}, 0};
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), depthGuard);
    } catch (const json::parse_error &e) {
        // nlohmann's sentence quotes the last token it read: at most a short excerpt of it.
        throw JsonRefusal{JsonRefusal::NotJson, textExcerpt(e.what(), 2 * kExcerptChars), e.byte};
    } catch (const json::exception &e) {
        throw JsonRefusal{JsonRefusal::NotJson, textExcerpt(e.what(), 2 * kExcerptChars), 0};
    }
}
template nlohmann::json parseJson<nlohmann::json>(std::string_view, int);
template nlohmann::ordered_json parseJson<nlohmann::ordered_json>(std::string_view, int);

namespace {

// The first `n` bytes of `s`, cut at a UTF-8 character's boundary, "..." where it was cut.
std::string cut(const std::string &s, size_t n)
{
    if (s.size() <= n)
        return s;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return s.substr(0, n) + "...";
}

} // namespace

std::string textExcerpt(const std::string &s, size_t n)
{
    const std::string text = cut(s, n);
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7F) {
            static const char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        } else {
            out += ch;
        }
    }
    return out;
}

std::string jsonExcerpt(const json &value)
{
    // Built by hand, two levels deep at most: a dump of a value nested 100,000 deep recursed
    // until the stack ran out, and a 5 MB string was echoed whole.
    // A string as JSON writes it (control characters escaped), cut short first.
    const auto quoted = [](const std::string &s) {
        return json(cut(s, kExcerptChars)).dump(-1, ' ', false, json::error_handler_t::replace);
    };
    std::string out;
    const std::function<void(const json &, int)> add = [&](const json &v, int level) {
        if (out.size() > kExcerptChars)
            return;
        if (v.is_string()) {
            out += quoted(v.get_ref<const std::string &>());
        } else if (v.is_object() || v.is_array()) {
            const bool object = v.is_object();
            out += object ? '{' : '[';
            if (level >= 2) {
                out += v.empty() ? "" : "...";
            } else {
                bool first = true;
                for (auto it = v.begin(); it != v.end() && out.size() <= kExcerptChars; ++it, first = false) {
                    if (!first)
                        out += ',';
                    if (object)
                        out += quoted(it.key()) + ':';
                    add(*it, level + 1);
                }
            }
            out += object ? '}' : ']';
        } else {
            out += v.dump(); // a number, a boolean or null
        }
    };
    add(value, 0);
    return cut(out, kExcerptChars);
}

} // namespace accumlab
