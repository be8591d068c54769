// Teaching content as data: the experiment texts, the quiz, the lesson and the skill recipe
// live in files under resources/content/ (every language side by side), embedded into the
// program at build time. This is the one way core's words reach a person: a text is looked up by its file and
// key, and its named placeholders ("{sgd_update_ratio:.4f}") are filled with measured values
// by the one number formatter, in the reader's language and digits. Adding a language is adding
// data (languages.json and a text beside every "en"), not C++.
// Not here: which value a claim is judged on (the experiments), widgets (ui/). Plain C++.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace accumlab {

// A content file that is broken: a text missing a language, a placeholder with no value, an
// unknown file or key. A programming error in the content, never a user's mistake.
class ContentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A user-visible string in every language of the content: code ("en", "fa") -> UTF-8 text.
struct LocalizedText {
    std::map<std::string, std::string> byLanguage;
    // The text in `language`, else English, else empty.
    const std::string &in(const std::string &language) const;
};

// How one language writes: its direction and the characters of its numbers (languages.json).
struct LanguageInfo {
    std::string code;  // "fa"
    std::string name;  // "فارسی", in its own words (the window's language menu)
    std::string locale; // "fa_IR": the locale of the window's numbers and of Qt's own words
    bool rightToLeft = false;
    std::vector<std::string> digits; // ten UTF-8 strings, 0..9
    std::string decimal;  // "٫"
    std::string group;    // "٬" (not used in figures; kept for readers that want it)
    std::string minus;    // "−"
    std::string percent;  // "٪"
    std::string list;     // "،": between the items of a list of numbers (1،2،4)
    std::vector<std::string> byteUnits; // B, KiB, MiB, GiB, TiB in the language's words
    std::string times;    // "×", in exponents: 7.45×10⁻⁹
};

// The languages of the content, English first.
const std::vector<LanguageInfo> &contentLanguages();
// Throws ContentError for a language the content does not have.
const LanguageInfo &languageInfo(const std::string &code);

// How numbers are written for one reader.
struct NumberStyle {
    std::string language = "en";
    bool latinDigits = false; // the language's words with Latin digits and a dot (a teacher's setting)
};

// Named values a template's placeholders take.
struct TextArgs {
    std::map<std::string, double> numbers;
    std::map<std::string, std::string> strings; // inserted as they are (already in the reader's language)
};
// An integer for a sentence: a number (written in the reader's digits) where a double holds it
// exactly, else its decimal digits as they are, so that 2^63 - 1 never reads as ...808.
void putInteger(TextArgs &args, const std::string &name, int64_t value);

// The one number formatter of core's texts. `spec` is
//   ""     up to six significant digits, no trailing zeros ("0.25", "16")
//   ".Nf"  N decimals ("4.0000")
//   ".Ne"  a mantissa of N decimals times a power of ten, as a person writes it: "7.45×10⁻⁹",
//          "۷٫۴۵×۱۰⁻⁹" (superscript exponent, no caret, no leading zeros)
//   ".Ng"  N significant digits, scientific as above when the exponent is below -4 or >= N
//   ".N%"  the value times 100 with N decimals and the language's percent sign ("94%", "۹۴٪")
//   "d"    rounded to an integer ("16")
//   "B"    a byte count in binary units, one decimal above 1023 bytes, with the language's
//          unit ("485.8 KiB", "۴۸۵٫۸ کیلوبایت", "512 B"): the one byte formatter
// Throws ContentError for any other spec. Not-a-number and infinities read "NaN", "∞", "-∞".
std::string formatNumber(double value, const std::string &spec, const NumberStyle &style = {});

// Fills "{name}" and "{name:spec}" placeholders from `args` (numbers through formatNumber,
// strings as they are); "{{" and "}}" stand for single braces. Throws ContentError naming a
// placeholder that has no value.
std::string fillTemplate(const std::string &tmpl, const TextArgs &args, const NumberStyle &style = {});
// The names of a template's placeholders, in order of first use.
std::vector<std::string> placeholderNames(const std::string &tmpl);

// The embedded files, by path under resources/content/ ("experiments/no-division.json").
std::vector<std::string> contentPaths();
// Throws ContentError for an unknown path.
const std::string &contentFile(const std::string &path);
// The file parsed once as JSON; throws ContentError when it is not.
const nlohmann::json &contentJson(const std::string &path);

// An object {"en": "...", "fa": "..."} as a LocalizedText; throws ContentError otherwise.
LocalizedText localizedText(const nlohmann::json &object);
// contentJson(path) at a JSON pointer ("/claims/rises/statement") as a LocalizedText.
LocalizedText contentText(const std::string &path, const std::string &pointer);
// Code spans in a text shown to a person: the backticks of `accum_steps` are dropped, and in a
// right-to-left language the span keeps its left-to-right order (a mark on each side); with
// Latin digits chosen, the language's digits outside code spans become Latin ones. Throws
// ContentError for a span that is not closed. Markdown keeps its backticks: not for it.
std::string markCode(const std::string &text, const NumberStyle &style);
// A text for one reader: its language's string filled from `args`, code spans marked, and
// with Latin digits chosen, the language's own digits and decimal sign written as Latin ones.
std::string renderLocalized(const LocalizedText &text, const TextArgs &args, const NumberStyle &style);
// The text at `pointer` in the style's language, rendered as renderLocalized does.
std::string renderText(const std::string &path, const std::string &pointer, const TextArgs &args,
                       const NumberStyle &style);

// A text as a right-to-left reader sees it on screen (after renderLocalized, or a window's
// label), with its left-to-right spans blanked out: between a pair of left-to-right marks, or
// inside an LRI/FSI ... PDI isolate (where code, paths and formulas sit), and identifiers as
// the content check knows them (accum_steps, backward(), fc1.weight, float32). What is left
// is prose: its words and digits must be the reader's.
std::string screenProse(const std::string &rendered);
// The Latin words of screenProse(rendered), minus the kept terms of glossary.json. Empty for
// a sentence that is the reader's language all the way; the window walk and every refusal's
// test use this one check.
std::vector<std::string> strayLatinWords(const std::string &rendered);

// What is wrong with a set of content files (path -> text), one sentence each; empty when
// nothing is. Every object with an "en" key is a text: it must carry every language of
// `languages` (a non-empty string each) with the same placeholders as its English, and a text
// in a right-to-left language must not be English prose (Latin words other than the kept terms
// of glossary.json, code in backticks, identifiers and placeholders). An experiment's
// "explanation" is a text or an object of named variants that are each a text. A Markdown
// template NAME.en.md needs NAME.<code>.md for every language, with the same placeholders. The
// lesson (lesson.json) must also have the panel's shape: sections with a title, blocks of a
// known type and links with a target.
// A JSON file of more than kMaxContentFileBytes, nested deeper than kMaxContentJsonDepth, or not
// JSON is a problem of one sentence naming it (contentJson throws the same as ContentError).
std::vector<std::string> validateContent(const std::map<std::string, std::string> &files);
constexpr size_t kMaxContentFileBytes = size_t(1) << 20; // the largest, quiz.json, is about 39 KB
constexpr int kMaxContentJsonDepth = 16;                 // lesson.json nests 7 deep
// Every embedded file, path -> text (what validateContent checks in the build).
std::map<std::string, std::string> embeddedContent();

} // namespace accumlab
