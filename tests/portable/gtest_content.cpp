// The content layer (core/content/content.h): the one number formatter in every language and digit
// setting, template filling, and the validation of the embedded content, which must hold for
// the shipped files and must fail for each fault it exists to catch, planted in a copy.
#include "core/content/content.h"
#include "core/content/errors.h"
#include "core/experiments/experiments.h"
#include "core/content/quiz.h"

#include "support.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// The shipped content with one file replaced (or added, or with `text` empty: removed).
std::map<std::string, std::string> withFile(const std::string &path, const std::string &text)
{
    auto files = embeddedContent();
    if (text.empty())
        files.erase(path);
    else
        files[path] = text;
    return files;
}

using test::contains;

struct NumberRow {
    std::string name;
    double value;
    std::string spec;
    std::string language;
    bool latin;
    std::string expected;
};

std::vector<NumberRow> numberRows()
{
    const std::string lrm = "\u200e";
    return {
        {"fixed en", 4.0, ".4f", "en", false, "4.0000"},
        {"fixed fa", 4.0, ".4f", "fa", false, "۴٫۰۰۰۰"},
        {"fixed fa latin", 4.0, ".4f", "fa", true, "4.0000"},
        {"exponent en", 7.45e-9, ".2e", "en", false, "7.45×10⁻⁹"},
        {"exponent fa", 7.45e-9, ".2e", "fa", false, lrm + "۷٫۴۵×۱۰⁻⁹" + lrm},
        {"exponent fa latin", 7.45e-9, ".2e", "fa", true, lrm + "7.45×10⁻⁹" + lrm},
        {"positive exponent", 12345.0, ".1e", "en", false, "1.2×10⁴"},
        {"general small", 3.7e-9, "", "en", false, "3.7×10⁻⁹"},
        {"general plain", 0.25, "", "en", false, "0.25"},
        {"general integer", 16.0, "", "fa", false, "۱۶"},
        {"significant", 0.0123456, ".3g", "en", false, "0.0123"},
        {"percent en", 0.94, ".0%", "en", false, "94%"},
        {"percent fa", 0.94, ".0%", "fa", false, "۹۴٪"},
        {"integer", 15.6, "d", "fa", false, "۱۶"},
        {"negative fa", -1.5, ".1f", "fa", false, lrm + "−۱٫۵" + lrm},
        {"negative zero", -0.00001, ".2f", "en", false, "0.00"},
        {"infinity", std::numeric_limits<double>::infinity(), ".2f", "en", false, "∞"},
    };
}

class FormatsNumbers : public testing::TestWithParam<NumberRow> {};

TEST_P(FormatsNumbers, InEveryLanguageAndDigitSetting)
{
    const NumberRow &row = GetParam();
    const std::string got = formatNumber(row.value, row.spec, {row.language, row.latin});
    EXPECT_EQ(got, row.expected);
    // No caret and no C exponent survives in any form.
    EXPECT_FALSE(contains(got, "^"));
    EXPECT_FALSE(contains(got, "e-"));
}

INSTANTIATE_TEST_SUITE_P(Rows, FormatsNumbers, testing::ValuesIn(numberRows()), test::ByName());

struct SpecRow {
    std::string name;
    std::string spec;
};

void PrintTo(const SpecRow &r, std::ostream *os) { *os << r.name << " '" << r.spec << "'"; }

class RefusesUnknownSpecs : public testing::TestWithParam<SpecRow> {};

TEST_P(RefusesUnknownSpecs, WithAContentError) { EXPECT_THROW(formatNumber(1.0, GetParam().spec), ContentError); }

INSTANTIATE_TEST_SUITE_P(Rows, RefusesUnknownSpecs,
                         testing::ValuesIn(std::vector<SpecRow>{
                             {"printf", "%.4f"},
                             {"no precision", ".f"},
                             {"unknown kind", ".2x"},
                         }),
                         test::ByName());

TEST(Content, FillsTemplates)
{
    TextArgs args;
    args.numbers["ratio"] = 16.0;
    args.strings["optimizer"] = "adamw";
    EXPECT_EQ(fillTemplate("{optimizer}: {ratio:.2f}x {{literal}}", args), std::string("adamw: 16.00x {literal}"));
    EXPECT_EQ(fillTemplate("{ratio:.2f} برابر", args, {"fa", false}), std::string("۱۶٫۰۰ برابر"));
    // A placeholder with no value is an error, never a silent blank.
    EXPECT_THROW(fillTemplate("{missing:.2f}", args), ContentError);
    // A backtick inside a value is part of the value, not a code span (an OS message or a
    // path may hold one); the template's own spans are still marked.
    TextArgs odd;
    odd.strings["path"] = "/tmp/a`b";
    EXPECT_EQ(renderLocalized(LocalizedText{{{"en", "`x` at {path}"}, {"fa", "`x` در {path}"}}}, odd, {"en", false}),
              std::string("x at /tmp/a`b"));
    EXPECT_EQ(placeholderNames("{a} {b:.2f} {a:d} {{c}}"), (std::vector<std::string>{"a", "b"}));
}

TEST(Content, MarksCodeAndDigits)
{
    const std::string lrm = "\u200e";
    EXPECT_EQ(markCode("call `backward()` once", {"en", false}), std::string("call backward() once"));
    EXPECT_EQ(markCode("`backward()` را", {"fa", false}), lrm + "backward()" + lrm + " را");
    // The Latin-digits setting reaches digits written in the content itself.
    EXPECT_EQ(markCode("۳ از ۴ و ۰٫۵", {"fa", true}), std::string("3 از 4 و 0.5"));
    EXPECT_EQ(markCode("۳ از ۴", {"fa", false}), std::string("۳ از ۴"));
    EXPECT_THROW(markCode("an `open span", {"en", false}), ContentError);
}

TEST(Content, ShippedContentIsComplete)
{
    const auto problems = validateContent(embeddedContent());
    EXPECT_TRUE(problems.empty()) << test::joinLines(problems);
    // Every experiment of the catalog has its file, title and summary in every language.
    for (const auto &info : experimentCatalog())
        for (const auto &lang : contentLanguages()) {
            EXPECT_FALSE(experimentTitle(info.id, {lang.code, false}).empty()) << info.id << " " << lang.code;
            EXPECT_FALSE(experimentSummary(info, {lang.code, false}).empty()) << info.id << " " << lang.code;
        }
    EXPECT_FALSE(quizQuestions().empty());
}

// Every error code of the content renders in every language (a placeholder named in a
// translation but never given by core would throw here), and a coded error's what() is its
// English sentence while text() follows the reader.
TEST(Content, EveryErrorCodeRenders)
{
    int codes = 0;
    for (const auto &path : contentPaths()) {
        if (path.rfind("errors/", 0) != 0)
            continue;
        const std::string group = path.substr(7, path.size() - 7 - 5);
        for (const auto &[key, text] : contentJson(path).items()) {
            if (!text.is_object())
                continue;
            const std::string code = group + "/" + key;
            // Arguments for every placeholder: a number where the English gives a format.
            TextArgs args;
            const std::string en = text.at("en").get<std::string>();
            for (const auto &name : placeholderNames(en)) {
                const bool numeric = en.find("{" + name + ":") != std::string::npos;
                if (numeric)
                    args.numbers[name] = 16;
                else
                    args.strings[name] = "x";
            }
            for (const auto &lang : contentLanguages()) {
                const std::string sentence = errorSentence(code, args, {lang.code, false});
                EXPECT_FALSE(sentence.empty()) << code;
            }
            const CodedError e(code, args);
            EXPECT_EQ(std::string(e.what()), errorSentence(code, args, {"en", false}));
            ++codes;
        }
    }
    EXPECT_GT(codes, 0);
    EXPECT_THROW(CodedError("preset/no-such-code", {}), ContentError);
    EXPECT_THROW(CodedError("no-group", {}), ContentError);
}

// An object `levels` deep, with a text at its bottom: {"a": {"a": ... {"en": "x", "fa": "x"}}}.
std::string nested(int levels)
{
    std::string text;
    for (int i = 1; i < levels; ++i)
        text += R"({"a": )";
    text += R"({"en": "x", "fa": "ایکس"})";
    text += std::string(size_t(levels - 1), '}');
    return text;
}

// A content file planted beside (or over) the shipped ones, and the problem it must raise.
struct PlantedRow {
    std::string name;
    std::string path;
    std::string text;
    std::string expected;
};

// Each fault the validation exists to catch, planted in a copy of the shipped content.
class PlantedFaultsAreReported : public testing::TestWithParam<PlantedRow> {};

TEST_P(PlantedFaultsAreReported, InTheProblems)
{
    const PlantedRow &row = GetParam();
    auto files = withFile(row.path, row.text);
    if (row.path == "planted.fa.md")
        files["planted.en.md"] = "{a} {b}";
    const std::string problems = test::joinLines(validateContent(files));
    EXPECT_TRUE(contains(problems, row.expected)) << "expected \"" << row.expected << "\" in:\n" << problems;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PlantedFaultsAreReported,
    testing::ValuesIn(std::vector<PlantedRow>{
        {"a language missing", "experiments/planted.json", R"({"title": {"en": "A title"}})", "no text in \"fa\""},
        {"an empty translation", "experiments/planted.json", R"({"title": {"en": "A title", "fa": ""}})",
         "no text in \"fa\""},
        {"placeholders differ", "experiments/planted.json",
         R"({"claims": {"c": {"en": "ratio {ratio:.2f}", "fa": "نسبت {other:.2f}"}}})",
         "placeholders of \"fa\" differ"},
        {"English prose in Persian", "experiments/planted.json",
         R"({"explanation": {"en": "the update is too large", "fa": "the update is too large"}})",
         "English words in \"fa\""},
        {"English beside Persian", "experiments/planted.json",
         R"({"explanation": {"en": "the model lesson", "fa": "مدل lesson"}})",
         "English words in \"fa\": lesson"},
        {"Latin digits in Persian", "experiments/planted.json",
         R"({"summary": {"en": "4.0000 times", "fa": "4.0000 برابر"}})",
         "Latin digits in \"fa\": 4.0000"},
        {"an explanation variant missing a language", "experiments/planted.json",
         R"({"explanation": {"one_rank": {"en": "A text", "fa": "متن"}, "multi_rank": {"en": "A text"}}})",
         "/explanation/multi_rank: no text in \"fa\""},
        {"an explanation variant that is not a text", "experiments/planted.json",
         R"({"explanation": {"one_rank": {"en": "A text", "fa": "متن"}, "multi_rank": "A text"}})",
         "/explanation/multi_rank: a variant that is not a text"},
        {"an explanation of no text", "experiments/planted.json", R"({"explanation": "A text"})",
         "/explanation: neither a text"},
        {"a Markdown language missing", "planted2.en.md", "text", "planted2.fa.md: no text in \"fa\""},
        {"Markdown placeholders differ", "planted.fa.md", "{a}", "planted.fa.md: the placeholders of \"fa\" differ"},
        {"not JSON", "experiments/planted.json", "{", "not JSON"},
        // Through the one JSON reader, bounded (issue 60): each refused in a sentence naming the file.
        {"nested deeper than content nests", "experiments/planted.json", nested(17),
         "content file \"experiments/planted.json\" is nested deeper than 16 levels"},
        {"nested 100000 deep", "experiments/planted.json", nested(100000),
         "content file \"experiments/planted.json\" is nested deeper than 16 levels"},
        {"larger than a content file", "experiments/planted.json",
         R"({"pad": ")" + std::string(size_t(1) << 20, 'x') + R"("})",
         "content file \"experiments/planted.json\" has 1048587 bytes, more than a content file may have (1048576)"},
    }),
    test::ByName());

// A value planted in a copy of the shipped lesson.json, and the problem it must raise.
struct LessonRow {
    std::string name;
    std::string pointer;
    std::string value; // JSON; empty: the value at `pointer` is removed
    std::string expected;
};

// The lesson panel's file is checked like the rest: each fault planted in a copy of the
// shipped lesson.json (the value at `pointer` replaced, or removed when `value` is empty).
class LessonFaultsAreReported : public testing::TestWithParam<LessonRow> {};

TEST_P(LessonFaultsAreReported, InTheProblems)
{
    const LessonRow &row = GetParam();
    nlohmann::json lesson = contentJson("lesson.json");
    const nlohmann::json::json_pointer at(row.pointer);
    ASSERT_TRUE(lesson.contains(at)) << row.pointer; // the fault lands where the lesson has text
    if (row.value.empty())
        lesson.at(at.parent_pointer()).erase(at.back());
    else
        lesson[at] = nlohmann::json::parse(row.value);
    const std::string problems = test::joinLines(validateContent(withFile("lesson.json", lesson.dump())));
    EXPECT_TRUE(contains(problems, row.expected)) << "expected \"" << row.expected << "\" in:\n" << problems;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, LessonFaultsAreReported,
    testing::ValuesIn(std::vector<LessonRow>{
        {"a paragraph without Persian", "/sections/0/blocks/0/text/fa", "",
         "lesson.json:/sections/0/blocks/0/text: no text in \"fa\""},
        {"English prose in a Persian paragraph", "/sections/1/blocks/0/text/fa",
         R"("`backward()` adds to the gradient")",
         "lesson.json:/sections/1/blocks/0/text: English words in \"fa\": adds, to, the, gradient"},
        {"Latin digits in a Persian list item", "/sections/6/blocks/0/items/1/fa", R"("گویال و همکاران، 2017")",
         "lesson.json:/sections/6/blocks/0/items/1: Latin digits in \"fa\": 2017"},
        {"a link text without Persian", "/sections/2/links/0/text/fa", "",
         "lesson.json:/sections/2/links/0/text: no text in \"fa\""},
        {"the label without Persian", "/show_me/fa", "", "lesson.json:/show_me: no text in \"fa\""},
        {"an unknown block type", "/sections/1/blocks/1/type", R"("table")",
         "lesson.json:/sections/1/blocks/1: not a paragraph"},
        {"code as a text", "/sections/1/blocks/1/text", R"({"en": "x"})",
         "lesson.json:/sections/1/blocks/1: not a paragraph"},
        {"a link without a target", "/sections/0/links/2/target", "",
         "lesson.json:/sections/0/links/2: a link needs a target"},
        {"no sections", "/sections", "", "lesson.json: no \"sections\""},
    }),
    test::ByName());

struct KeptRow {
    std::string name;
    std::string fa;
};

// The things a Persian text may keep in Latin script are not reported.
class CodeAndKeptTermsPass : public testing::TestWithParam<KeptRow> {};

TEST_P(CodeAndKeptTermsPass, WithoutProblems)
{
    const std::string &fa = GetParam().fa;
    const std::string en = contains(fa, "{ratio") ? "ratio {ratio:.2f}" : "text";
    nlohmann::json doc = {{"t", {{"en", en}, {"fa", fa}}}};
    const auto problems = validateContent(withFile("experiments/planted.json", doc.dump()));
    EXPECT_TRUE(problems.empty()) << test::joinLines(problems);
}

INSTANTIATE_TEST_SUITE_P(Rows, CodeAndKeptTermsPass,
                         testing::ValuesIn(std::vector<KeptRow>{
                             {"code span", "پس از `backward()` هر میکروبچ"},
                             {"identifier", "با accum_steps برابر ۴"},
                             {"dtype", "در bfloat16 و float32"},
                             {"kept term", "به‌روزرسانی AdamW و SGD"},
                             {"placeholder", "نسبت {ratio:.2f}"},
                             {"member", "بافر ‎.grad‎ پارامتر"},
                         }),
                         test::ByName());

} // namespace
