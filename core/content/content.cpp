// The embedded content, the one number formatter of core's texts, template filling and the
// content's validation (core/content/content.h).
#include "core/content/content.h"

#include "core/io/json_reader.h"

#include <algorithm>
#include <optional>
#include <functional>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <regex>
#include <set>

namespace accumlab {

namespace content_data {
const std::map<std::string, std::string> &files(); // generated: content_data.cpp
}

namespace {

// A content file's text as JSON through the one JSON reader (core/io/json_reader.h): at most
// kMaxContentFileBytes and kMaxContentJsonDepth deep (the lesson nests 7 deep, the quiz is about
// 39 KB), refused in one sentence that names the file. A file nested 100,000 deep once reached
// the validation's recursive walk, whose stack it overflowed.
nlohmann::json parseContentJson(const std::string &path, const std::string &text)
{
    if (text.size() > kMaxContentFileBytes)
        throw ContentError("content file \"" + path + "\" has " + std::to_string(text.size()) +
                           " bytes, more than a content file may have (" + std::to_string(kMaxContentFileBytes) + ")");
    try {
        return parseJson(text, kMaxContentJsonDepth);
    } catch (const JsonRefusal &r) {
        if (r.kind == JsonRefusal::TooDeep)
            throw ContentError("content file \"" + path + "\" is nested deeper than " +
                               std::to_string(kMaxContentJsonDepth) + " levels");
        throw ContentError("content file \"" + path + "\" is not JSON: " + r.reason);
    }
}

const char *const kLanguagesFile = "languages.json";
const char *const kGlossaryFile = "glossary.json";
const char *const kLessonFile = "lesson.json";
const char *const kLrm = "\u200e"; // LEFT-TO-RIGHT MARK

std::vector<LanguageInfo> parseLanguages(const nlohmann::json &doc)
{
    std::vector<LanguageInfo> out;
    if (!doc.contains("languages") || !doc["languages"].is_array())
        throw ContentError("languages.json has no \"languages\" array");
    for (const auto &l : doc["languages"]) {
        LanguageInfo info;
        info.code = l.at("code").get<std::string>();
        info.name = l.at("name").get<std::string>();
        info.locale = l.at("locale").get<std::string>();
        info.rightToLeft = l.at("direction").get<std::string>() == "rtl";
        // Ten digits, each one UTF-8 character.
        const std::string digits = l.at("digits").get<std::string>();
        for (size_t i = 0; i < digits.size();) {
            size_t len = 1;
            const auto c = static_cast<unsigned char>(digits[i]);
            if (c >= 0xF0)
                len = 4;
            else if (c >= 0xE0)
                len = 3;
            else if (c >= 0xC0)
                len = 2;
            info.digits.push_back(digits.substr(i, len));
            i += len;
        }
        if (info.digits.size() != 10)
            throw ContentError("language " + info.code + " in languages.json does not list ten digits");
        info.decimal = l.at("decimal").get<std::string>();
        info.group = l.at("group").get<std::string>();
        info.minus = l.at("minus").get<std::string>();
        info.percent = l.at("percent").get<std::string>();
        info.list = l.at("list").get<std::string>();
        info.byteUnits = l.at("byte_units").get<std::vector<std::string>>();
        if (info.byteUnits.size() != 5)
            throw ContentError("language " + info.code + " in languages.json does not name five byte units");
        info.times = l.at("times").get<std::string>();
        out.push_back(std::move(info));
    }
    if (out.empty() || out.front().code != "en")
        throw ContentError("languages.json must list English first");
    return out;
}

std::string superscript(int exponent)
{
    static const char *const kSup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string digits = std::to_string(std::abs(exponent));
    std::string out = exponent < 0 ? "⁻" : "";
    for (char c : digits)
        out += kSup[c - '0'];
    return out;
}

// Latin digits, '.', '-' and '%' in the reader's characters.
std::string localizeDigits(const std::string &latin, const LanguageInfo &lang, bool latinDigits)
{
    if (latinDigits)
        return latin;
    std::string out;
    for (char c : latin) {
        if (c >= '0' && c <= '9')
            out += lang.digits[static_cast<size_t>(c - '0')];
        else if (c == '.')
            out += lang.decimal;
        else if (c == '-')
            out += lang.minus;
        else if (c == '%')
            out += lang.percent;
        else
            out += c;
    }
    return out;
}

struct Spec {
    char kind = 'g'; // 'g' default, 'f', 'e', '%', 'd'
    int precision = -1;
};

Spec parseSpec(const std::string &spec)
{
    Spec s;
    if (spec.empty())
        return s;
    if (spec == "d" || spec == "B") {
        s.kind = spec[0];
        return s;
    }
    static const std::regex kForm(R"(\.([0-9]{1,2})([fe%g]))");
    std::smatch m;
    if (!std::regex_match(spec, m, kForm))
        throw ContentError("unknown number format \"" + spec + "\" (use .Nf, .Ne, .Ng, .N%, d or B)");
    s.precision = std::stoi(m[1].str());
    s.kind = m[2].str()[0];
    return s;
}

// "7.45e-09" -> mantissa "7.45" and exponent -9; no 'e': the text itself.
std::string readableExponent(const std::string &latin, const std::string &times, bool *scientific)
{
    const auto e = latin.find_first_of("eE");
    *scientific = e != std::string::npos;
    if (!*scientific)
        return latin;
    const int exponent = std::stoi(latin.substr(e + 1));
    return latin.substr(0, e) + times + "10" + superscript(exponent);
}

} // namespace

const std::string &LocalizedText::in(const std::string &language) const
{
    static const std::string kEmpty;
    auto it = byLanguage.find(language);
    if (it != byLanguage.end() && !it->second.empty())
        return it->second;
    it = byLanguage.find("en");
    return it != byLanguage.end() ? it->second : kEmpty;
}

const std::vector<LanguageInfo> &contentLanguages()
{
    static const std::vector<LanguageInfo> languages = parseLanguages(contentJson(kLanguagesFile));
    return languages;
}

const LanguageInfo &languageInfo(const std::string &code)
{
    for (const auto &l : contentLanguages())
        if (l.code == code)
            return l;
    throw ContentError("the content has no language \"" + code + "\"");
}

std::string formatNumber(double value, const std::string &specText, const NumberStyle &style)
{
    const LanguageInfo &lang = languageInfo(style.language);
    const Spec spec = parseSpec(specText);
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return localizeDigits(value < 0 ? "-∞" : "∞", lang, style.latinDigits);

    char buf[64];
    std::string latin;
    if (spec.kind == 'B') {
        double v = value;
        size_t unit = 0;
        while (std::abs(v) >= 1024.0 && unit + 1 < lang.byteUnits.size()) {
            v /= 1024.0;
            ++unit;
        }
        std::snprintf(buf, sizeof buf, "%.*f", unit == 0 ? 0 : 1, v);
        std::string number = localizeDigits(buf, lang, style.latinDigits);
        if (lang.rightToLeft && value < 0)
            number = kLrm + number + kLrm;
        return number + " " + lang.byteUnits[unit];
    }
    switch (spec.kind) {
    case 'd':
        std::snprintf(buf, sizeof buf, "%.0f", std::round(value));
        latin = buf;
        break;
    case 'f':
        std::snprintf(buf, sizeof buf, "%.*f", spec.precision, value);
        latin = buf;
        break;
    case 'e':
        std::snprintf(buf, sizeof buf, "%.*e", spec.precision, value);
        latin = buf;
        break;
    case '%':
        std::snprintf(buf, sizeof buf, "%.*f%%", spec.precision, 100.0 * value);
        latin = buf;
        break;
    default:
        std::snprintf(buf, sizeof buf, "%.*g", spec.precision < 0 ? 6 : std::max(spec.precision, 1), value);
        latin = buf;
        break;
    }
    if (latin == "-0" || latin.rfind("-0.", 0) == 0) {
        // A negative zero, or a small negative rounded to zero, reads as zero.
        const bool allZero = latin.find_first_of("123456789") == std::string::npos;
        if (allZero)
            latin.erase(0, 1);
    }
    bool scientific = false;
    latin = readableExponent(latin, lang.times, &scientific);
    std::string out = localizeDigits(latin, lang, style.latinDigits);
    // In right-to-left text a leading minus or an exponent would be reordered: keep the
    // number's own order with a mark on each side.
    if (lang.rightToLeft && (scientific || value < 0))
        out = kLrm + out + kLrm;
    return out;
}

std::string fillTemplate(const std::string &tmpl, const TextArgs &args, const NumberStyle &style)
{
    std::string out;
    out.reserve(tmpl.size() + 32);
    for (size_t i = 0; i < tmpl.size(); ++i) {
        const char c = tmpl[i];
        if (c == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
        }
        if (c == '}' && i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
            out += '}';
            ++i;
            continue;
        }
        if (c != '{') {
            out += c;
            continue;
        }
        const auto close = tmpl.find('}', i);
        if (close == std::string::npos)
            throw ContentError("a placeholder is not closed: \"" + tmpl.substr(i, 40) + "\"");
        const std::string inner = tmpl.substr(i + 1, close - i - 1);
        const auto colon = inner.find(':');
        const std::string name = inner.substr(0, colon);
        const std::string spec = colon == std::string::npos ? "" : inner.substr(colon + 1);
        if (const auto n = args.numbers.find(name); n != args.numbers.end())
            out += formatNumber(n->second, spec, style);
        else if (const auto s = args.strings.find(name); s != args.strings.end())
            out += s->second;
        else
            throw ContentError("placeholder {" + name + "} has no value");
        i = close;
    }
    return out;
}

std::vector<std::string> placeholderNames(const std::string &tmpl)
{
    std::vector<std::string> names;
    for (size_t i = 0; i < tmpl.size(); ++i) {
        if (tmpl[i] == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
            ++i;
            continue;
        }
        if (tmpl[i] != '{')
            continue;
        const auto close = tmpl.find('}', i);
        if (close == std::string::npos)
            break;
        const std::string inner = tmpl.substr(i + 1, close - i - 1);
        const std::string name = inner.substr(0, inner.find(':'));
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
        i = close;
    }
    return names;
}

std::vector<std::string> contentPaths()
{
    std::vector<std::string> paths;
    for (const auto &[path, text] : content_data::files())
        paths.push_back(path);
    return paths;
}

const std::string &contentFile(const std::string &path)
{
    const auto &files = content_data::files();
    const auto it = files.find(path);
    if (it == files.end())
        throw ContentError("no content file \"" + path + "\"");
    return it->second;
}

const nlohmann::json &contentJson(const std::string &path)
{
    // Parsed once per file; content never changes while the program runs. Guarded: the worker
    // thread and the window may read it at the same time.
    static std::mutex mutex;
    static std::map<std::string, nlohmann::json> parsed;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = parsed.find(path);
    if (it == parsed.end()) {
        it = parsed.emplace(path, parseContentJson(path, contentFile(path))).first;
    }
    return it->second;
}

LocalizedText localizedText(const nlohmann::json &object)
{
    if (!object.is_object() || !object.contains("en"))
        throw ContentError("not a text in every language: " + object.dump().substr(0, 80));
    LocalizedText text;
    for (const auto &[code, value] : object.items())
        if (value.is_string())
            text.byLanguage[code] = value.get<std::string>();
    return text;
}

LocalizedText contentText(const std::string &path, const std::string &pointer)
{
    const auto &doc = contentJson(path);
    const nlohmann::json::json_pointer ptr(pointer);
    if (!doc.contains(ptr))
        throw ContentError("content file \"" + path + "\" has no text at " + pointer);
    return localizedText(doc.at(ptr));
}

std::string markCode(const std::string &text, const NumberStyle &style)
{
    const LanguageInfo &lang = languageInfo(style.language);
    const bool rtl = lang.rightToLeft;
    std::string out;
    out.reserve(text.size() + 16);
    bool inCode = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '`') {
            if (rtl)
                out += kLrm;
            inCode = !inCode;
            continue;
        }
        if (style.latinDigits && !inCode && (static_cast<unsigned char>(c) & 0x80)) {
            bool replaced = false;
            for (size_t d = 0; d < 10 && !replaced; ++d)
                if (lang.digits[d] != std::string(1, static_cast<char>('0' + d)) && text.compare(i, lang.digits[d].size(), lang.digits[d]) == 0) {
                    out += static_cast<char>('0' + d);
                    i += lang.digits[d].size() - 1;
                    replaced = true;
                }
            if (!replaced && lang.decimal != "." && text.compare(i, lang.decimal.size(), lang.decimal) == 0) {
                out += '.';
                i += lang.decimal.size() - 1;
                replaced = true;
            }
            if (replaced)
                continue;
        }
        out += c;
    }
    if (inCode)
        throw ContentError("a code span is not closed: \"" + text.substr(0, 60) + "\"");
    return out;
}

std::string renderLocalized(const LocalizedText &text, const TextArgs &args, const NumberStyle &style)
{
    // Code spans are marked in the template, before the arguments go in: a backtick inside a
    // value (a path, LibTorch's message) is part of the value, never markup.
    return fillTemplate(markCode(text.in(style.language), style), args, style);
}

std::string renderText(const std::string &path, const std::string &pointer, const TextArgs &args,
                       const NumberStyle &style)
{
    return renderLocalized(contentText(path, pointer), args, style);
}

namespace {

// Latin words in right-to-left text that are neither code, identifiers, placeholders nor kept
// terms: English prose left in a translation.
// The text with code, placeholders and links blanked out: what is left is prose.
std::string proseOnly(std::string text)
{
    static const std::regex kFenced("```[\\s\\S]*?```");
    static const std::regex kInline("`[^`]*`");
    static const std::regex kPlaceholder("\\{[A-Za-z0-9_]+(:[^}]*)?\\}");
    static const std::regex kUrl("https?://\\S+");
    for (const auto *re : {&kFenced, &kInline, &kPlaceholder, &kUrl})
        text = std::regex_replace(text, *re, " ");
    return text;
}

std::vector<std::string> englishWords(const std::string &source, const std::set<std::string> &kept)
{
    static const std::regex kYamlKey("(^|\\n)[a-z_]+:");
    static const std::regex kWord("[A-Za-z][A-Za-z0-9_.()'\\-/]*");
    const std::string text = std::regex_replace(proseOnly(source), kYamlKey, " ");
    std::vector<std::string> words;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kWord); it != std::sregex_iterator(); ++it) {
        std::string w = it->str();
        // A member or a file suffix (".grad", ".json"): code.
        const auto at = static_cast<size_t>(it->position());
        if (at > 0 && text[at - 1] == '.')
            continue;
        while (!w.empty() && (w.back() == '.' || w.back() == '\'' || w.back() == '-' || w.back() == '/'))
            w.pop_back();
        // Identifiers and code: snake_case, calls, dotted names, hyphenated ids, dtypes.
        if (w.find_first_of("_()./-0123456789") != std::string::npos)
            continue;
        if (kept.count(w))
            continue;
        words.push_back(w);
    }
    return words;
}

// Latin digits in right-to-left text outside code, placeholders and identifiers ("float32"):
// a number that the Persian-digits setting could not reach. Write it in the language's digits
// (the Latin-digits setting turns them back) or as a placeholder.
std::vector<std::string> latinNumbers(const std::string &source)
{
    const std::string text = proseOnly(source);
    const auto isWordChar = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
    std::vector<std::string> found;
    for (size_t i = 0; i < text.size();) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
            ++j;
        const bool attached = (i > 0 && isWordChar(text[i - 1])) || (j < text.size() && isWordChar(text[j]));
        if (!attached)
            found.push_back(text.substr(i, j - i));
        i = j;
    }
    return found;
}

std::string joined(const std::vector<std::string> &items)
{
    std::string list;
    for (const auto &w : items)
        list += (list.empty() ? "" : ", ") + w;
    return list;
}

std::set<std::string> keysOf(const std::vector<std::string> &v) { return {v.begin(), v.end()}; }

// One text in every language, the one per-language check of JSON texts and Markdown pairs: each
// language has a non-empty string with English's placeholders, and a right-to-left one has no
// English words and no Latin digits. `textIn` gives a language's string (nullopt: none);
// `where` names the place of a language's string in a problem.
void checkLanguages(const std::string &english, const std::vector<LanguageInfo> &languages,
                    const std::set<std::string> &kept,
                    const std::function<std::optional<std::string>(const LanguageInfo &)> &textIn,
                    const std::function<std::string(const LanguageInfo &)> &where, std::vector<std::string> &problems)
{
    const auto enNames = keysOf(placeholderNames(english));
    for (const auto &lang : languages) {
        const std::optional<std::string> text = textIn(lang);
        const std::string at = where(lang) + ": ";
        const std::string quoted = "\"" + lang.code + "\"";
        if (!text || text->empty()) {
            problems.push_back(at + "no text in " + quoted);
            continue;
        }
        if (keysOf(placeholderNames(*text)) != enNames)
            problems.push_back(at + "the placeholders of " + quoted + " differ from English's");
        if (lang.rightToLeft) {
            if (const auto words = englishWords(*text, kept); !words.empty())
                problems.push_back(at + "English words in " + quoted + ": " + joined(words));
            if (const auto numbers = latinNumbers(*text); !numbers.empty())
                problems.push_back(at + "Latin digits in " + quoted + ": " + joined(numbers));
        }
    }
}

void checkText(const std::string &where, const nlohmann::json &object, const std::vector<LanguageInfo> &languages,
               const std::set<std::string> &kept, std::vector<std::string> &problems)
{
    const auto &en = object.at("en");
    if (!en.is_string()) {
        problems.push_back(where + ": \"en\" is not a string");
        return;
    }
    checkLanguages(
        en.get<std::string>(), languages, kept,
        [&](const LanguageInfo &lang) -> std::optional<std::string> {
            if (!object.contains(lang.code) || !object.at(lang.code).is_string())
                return std::nullopt;
            return object.at(lang.code).get<std::string>();
        },
        [&](const LanguageInfo &) { return where; }, problems);
}

void walk(const std::string &where, const nlohmann::json &node, const std::vector<LanguageInfo> &languages,
          const std::set<std::string> &kept, std::vector<std::string> &problems)
{
    if (node.is_object()) {
        if (node.contains("en")) {
            checkText(where, node, languages, kept, problems);
            return;
        }
        for (const auto &[key, value] : node.items())
            walk(where + "/" + key, value, languages, kept, problems);
    } else if (node.is_array()) {
        for (size_t i = 0; i < node.size(); ++i)
            walk(where + "/" + std::to_string(i), node[i], languages, kept, problems);
    }
}

// The lesson panel's file (ui/panels/lessonpanel.cpp) has a shape the panel relies on: sections with a
// title, blocks of a known type and links that name a target. Its texts are checked by walk().
void checkLesson(const nlohmann::json &lesson, std::vector<std::string> &problems)
{
    const std::string where = std::string(kLessonFile) + ":";
    for (const char *key : {"title", "intro", "show_me"})
        if (!lesson.contains(key) || !lesson.at(key).is_object())
            problems.push_back(where + " no \"" + key + "\" text");
    if (!lesson.contains("sections") || !lesson.at("sections").is_array() || lesson.at("sections").empty()) {
        problems.push_back(where + " no \"sections\"");
        return;
    }
    const auto &sections = lesson.at("sections");
    for (size_t i = 0; i < sections.size(); ++i) {
        const auto &section = sections[i];
        const std::string at = where + "/sections/" + std::to_string(i);
        if (!section.is_object() || !section.contains("title") || !section.at("title").is_object()) {
            problems.push_back(at + ": no title");
            continue;
        }
        for (const char *key : {"blocks", "links"})
            if (!section.contains(key) || !section.at(key).is_array())
                problems.push_back(at + ": no \"" + key + "\" list");
        if (section.contains("blocks") && section.at("blocks").is_array())
            for (size_t b = 0; b < section.at("blocks").size(); ++b) {
                const auto &block = section.at("blocks")[b];
                const std::string blockAt = at + "/blocks/" + std::to_string(b);
                const std::string type = block.is_object() && block.contains("type") && block.at("type").is_string()
                                             ? block.at("type").get<std::string>()
                                             : "";
                const auto has = [&block](const char *key, bool (nlohmann::json::*kind)() const noexcept) {
                    return block.contains(key) && (block.at(key).*kind)();
                };
                bool ok = false;
                if (type == "paragraph")
                    ok = has("text", &nlohmann::json::is_object);
                else if (type == "code" || type == "formula")
                    ok = has("text", &nlohmann::json::is_string);
                else if (type == "list")
                    ok = has("items", &nlohmann::json::is_array);
                if (!ok)
                    problems.push_back(blockAt +
                                       ": not a paragraph (a text), code or formula (a string) or list (texts)");
            }
        if (section.contains("links") && section.at("links").is_array())
            for (size_t l = 0; l < section.at("links").size(); ++l) {
                const auto &link = section.at("links")[l];
                const bool target = link.is_object() && link.contains("target") && link.at("target").is_string() &&
                                    !link.at("target").get<std::string>().empty();
                if (!target || !link.contains("text") || !link.at("text").is_object())
                    problems.push_back(at + "/links/" + std::to_string(l) + ": a link needs a target and a text");
            }
    }
}

} // namespace

std::string screenProse(const std::string &rendered)
{
    // Blank out LRM ... LRM spans and LRI (U+2066) / FSI (U+2068) ... PDI (U+2069) isolates.
    const std::string lrm = "\u200e", lri = "\u2066", fsi = "\u2068", pdi = "\u2069";
    std::string prose;
    bool inMarks = false;
    int isolates = 0;
    for (size_t i = 0; i < rendered.size();) {
        const auto at = [&](const std::string &mark) { return rendered.compare(i, mark.size(), mark) == 0; };
        if (at(lrm)) {
            inMarks = !inMarks;
            i += lrm.size();
        } else if (at(lri) || at(fsi)) {
            ++isolates;
            i += lri.size();
        } else if (at(pdi)) {
            isolates = std::max(0, isolates - 1);
            i += pdi.size();
        } else {
            prose += inMarks || isolates > 0 ? ' ' : rendered[i];
            ++i;
            continue;
        }
        prose += ' ';
    }
    // Identifiers and code as the content check knows them (snake_case, calls, dotted names,
    // hyphenated ids, dtypes, file names): accum_steps, backward(), fc1.weight, float32.
    static const std::regex kToken("[A-Za-z][A-Za-z0-9_.()\\-]*[A-Za-z0-9_)]|[A-Za-z]");
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), kToken); it != std::sregex_iterator(); ++it) {
        const std::string token = it->str();
        const auto at = static_cast<size_t>(it->position());
        out += prose.substr(last, at - last);
        const bool code = token.find_first_of("_()./-0123456789") != std::string::npos;
        out += code ? std::string(token.size(), ' ') : token;
        last = at + token.size();
    }
    out += prose.substr(last);
    return out;
}

std::vector<std::string> strayLatinWords(const std::string &rendered)
{
    static const std::set<std::string> kept = [] {
        std::set<std::string> words;
        for (const auto &w : contentJson(kGlossaryFile).at("kept_latin"))
            words.insert(w.get<std::string>());
        return words;
    }();
    static const std::regex kWord("[A-Za-z]+");
    const std::string prose = screenProse(rendered);
    std::vector<std::string> words;
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), kWord); it != std::sregex_iterator(); ++it)
        if (!kept.count(it->str()))
            words.push_back(it->str());
    return words;
}

std::vector<std::string> validateContent(const std::map<std::string, std::string> &files)
{
    std::vector<std::string> problems;
    std::map<std::string, nlohmann::json> docs;
    for (const auto &[path, text] : files) {
        if (path.size() < 5 || path.substr(path.size() - 5) != ".json")
            continue;
        try {
            docs[path] = parseContentJson(path, text);
        } catch (const ContentError &e) {
            problems.push_back(e.what());
        }
    }
    std::vector<LanguageInfo> languages;
    try {
        if (!docs.count(kLanguagesFile))
            throw ContentError("languages.json is missing");
        languages = parseLanguages(docs.at(kLanguagesFile));
    } catch (const std::exception &e) {
        problems.push_back(e.what());
        return problems;
    }
    std::set<std::string> kept;
    if (docs.count(kGlossaryFile) && docs.at(kGlossaryFile).contains("kept_latin"))
        for (const auto &w : docs.at(kGlossaryFile).at("kept_latin"))
            kept.insert(w.get<std::string>());

    for (const auto &[path, doc] : docs)
        if (path != kLanguagesFile)
            walk(path + ":", doc, languages, kept, problems);
    if (docs.count(kLessonFile))
        checkLesson(docs.at(kLessonFile), problems);

    // An experiment's explanation: one text, or named variants that are each a text (its run
    // picks one by name, ExperimentResult::explanationVariant); the walk checked their languages.
    for (const auto &[path, doc] : docs) {
        if (path.rfind("experiments/", 0) != 0 || !doc.is_object() || !doc.contains("explanation"))
            continue;
        const auto &e = doc.at("explanation");
        if (e.is_object() && e.contains("en"))
            continue;
        if (!e.is_object() || e.empty()) {
            problems.push_back(path + ":/explanation: neither a text nor named variants of one");
            continue;
        }
        for (const auto &[name, variant] : e.items())
            if (!variant.is_object() || !variant.contains("en"))
                problems.push_back(path + ":/explanation/" + name + ": a variant that is not a text");
    }

    // Markdown templates: NAME.en.md beside NAME.<code>.md for every language.
    for (const auto &[path, text] : files) {
        const std::string suffix = ".en.md";
        if (path.size() <= suffix.size() || path.substr(path.size() - suffix.size()) != suffix)
            continue;
        const std::string stem = path.substr(0, path.size() - suffix.size());
        checkLanguages(
            text, languages, kept,
            [&](const LanguageInfo &lang) -> std::optional<std::string> {
                const auto it = files.find(stem + "." + lang.code + ".md");
                return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
            },
            [&](const LanguageInfo &lang) { return stem + "." + lang.code + ".md"; }, problems);
    }
    return problems;
}

std::map<std::string, std::string> embeddedContent() { return content_data::files(); }

void putInteger(TextArgs &args, const std::string &name, int64_t value)
{
    constexpr int64_t kExact = int64_t(1) << 53;
    if (value >= -kExact && value <= kExact)
        args.numbers[name] = static_cast<double>(value);
    else
        args.strings[name] = std::to_string(value);
}

} // namespace accumlab
