// The skill recipe: its front matter, the recipe's steps, and this run's measured figures, in
// every language of the content (resources/content/skill.<lang>.md, skill.json).
#include "core/content/content.h"
#include "core/content/loop_code.h"
#include "core/content/skill.h"

#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

NumberStyle styleOf(const std::string &language, bool latinDigits)
{
    NumberStyle style;
    style.language = language;
    style.latinDigits = latinDigits;
    return style;
}

using test::contains;
bool startsWith(const std::string &s, const std::string &prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Occurrences of `needle`, overlapping ones too (QString::count).
int countOf(const std::string &haystack, const std::string &needle)
{
    int n = 0;
    for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
        ++n;
    return n;
}

// Every occurrence of `from` replaced by `to`, left to right (QString::replace).
void replaceAll(std::string &text, const std::string &from, const std::string &to)
{
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

// The pieces of `text` between the separators, empty ones included.
std::vector<std::string> split(const std::string &text, const std::string &sep)
{
    std::vector<std::string> parts;
    size_t from = 0;
    for (size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, from)) {
        parts.push_back(text.substr(from, at - from));
        from = at + sep.size();
    }
    parts.push_back(text.substr(from));
    return parts;
}

// Fields `start` to `end` (negative: from the last) of the text split at `sep`, joined by it
// again; empty when there are no such fields (QString::section).
std::string section(const std::string &text, const std::string &sep, int start, int end = -1)
{
    const std::vector<std::string> fields = split(text, sep);
    const int n = int(fields.size());
    if (start < 0)
        start += n;
    if (end < 0)
        end += n;
    if (start >= n || end < 0 || start > end)
        return {};
    std::string out = fields[start];
    for (int i = start + 1; i <= end; ++i)
        out += sep + fields[i];
    return out;
}

// The characters of UTF-8 text, each as its bytes.
std::vector<std::string> utf8Chars(const std::string &text)
{
    std::vector<std::string> chars;
    for (size_t i = 0; i < text.size();) {
        size_t len = 1;
        while (i + len < text.size() && (static_cast<unsigned char>(text[i + len]) & 0xC0) == 0x80)
            ++len;
        chars.push_back(text.substr(i, len));
        i += len;
    }
    return chars;
}

// The fenced code blocks of a document, as written.
std::vector<std::string> codeBlocks(const std::string &md)
{
    static const std::string open = "```python\n";
    std::vector<std::string> blocks;
    for (size_t at = md.find(open); at != std::string::npos;) {
        const size_t begin = at + open.size();
        const size_t close = md.find("```", begin);
        if (close == std::string::npos)
            break;
        blocks.push_back(md.substr(begin, close - begin));
        at = md.find(open, close + 3);
    }
    return blocks;
}

// A line that is a comment: spaces, "# ", anything.
bool isCommentLine(const std::string &line)
{
    const size_t hash = line.find_first_not_of(' ');
    return hash != std::string::npos && line.compare(hash, 2, "# ") == 0;
}

// The code blocks without their comment lines, which are in the reader's language (the code
// panel's loop): the code itself is every language's.
std::vector<std::string> codeOf(const std::string &md)
{
    std::vector<std::string> blocks = codeBlocks(md);
    for (std::string &b : blocks) {
        std::string kept;
        size_t from = 0;
        for (size_t nl = b.find('\n'); nl != std::string::npos; nl = b.find('\n', from)) {
            const std::string line = b.substr(from, nl - from);
            if (!isCommentLine(line))
                kept += line + '\n';
            from = nl + 1;
        }
        kept += b.substr(from); // a last line without its newline stays, comment or not
        b = kept;
    }
    return blocks;
}

// What a person reads as text: the front matter's description and the body, without the
// direction markup (<div dir="rtl">, </div>), which is HTML, not words.
std::string proseOf(const std::string &md)
{
    const std::string frontMatter = section(md, "---\n", 1, 1);
    const std::string body = section(md, "\n---\n", 1);
    std::string description;
    for (const std::string &line : split(frontMatter, "\n"))
        if (startsWith(line, "description:"))
            description = line;
    std::vector<std::string> lines = split(description + '\n' + body, "\n");
    std::string prose;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string &line = lines[i];
        const std::string markup = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (markup == "<div dir=\"rtl\">" || markup == "<div dir=\"ltr\">" || markup == "</div>")
            line.clear(); // the markup goes, its line stays
        prose += (i ? "\n" : "") + line;
    }
    return prose;
}

// Lines that start with "#"s and a space: the headings (and a code block's comments, alike in
// every language).
int headingLines(const std::string &md)
{
    int n = 0;
    for (const std::string &line : split(md, "\n")) {
        const size_t hashes = line.find_first_not_of('#');
        n += hashes != 0 && hashes != std::string::npos && line[hashes] == ' ';
    }
    return n;
}

// The section after the last heading: this run's measured figures.
std::string measuredSection(const std::string &md)
{
    const size_t at = md.rfind("\n## ");
    return md.substr(at == std::string::npos ? 0 : at);
}

bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// The numbers of a text in reading order, whatever digits they are written in: Persian digits,
// the Persian decimal sign, minus and percent, "×10⁻⁹" exponents. Code spans and digits inside
// identifiers ("float32", "cuda:0") are not figures.
std::vector<double> figures(std::string text)
{
    replaceAll(text, "\u200e", "");
    // Code spans: a backtick to the next one.
    for (size_t open = text.find('`'); open != std::string::npos; open = text.find('`', open)) {
        const size_t close = text.find('`', open + 1);
        if (close == std::string::npos)
            break;
        text.erase(open, close + 1 - open);
    }
    const std::vector<std::string> persian = utf8Chars("۰۱۲۳۴۵۶۷۸۹");
    const std::vector<std::string> superscript = utf8Chars("⁰¹²³⁴⁵⁶⁷⁸⁹");
    for (int d = 0; d < 10; ++d) {
        replaceAll(text, persian[d], std::string(1, char('0' + d)));
        replaceAll(text, superscript[d], std::string(1, char('0' + d)));
    }
    replaceAll(text, "\u066b", "."); // ٫
    replaceAll(text, "\u2212", "-"); // −
    replaceAll(text, "\u207b", "-"); // ⁻
    replaceAll(text, "×10", "e");
    // -?\d+(?:\.\d+)?(?:e-?\d+)? not preceded by [A-Za-z_0-9.:], matched left to right.
    std::vector<double> out;
    const size_t n = text.size();
    for (size_t p = 0; p < n;) {
        if (p > 0) {
            const char before = text[p - 1];
            if ((before >= 'A' && before <= 'Z') || (before >= 'a' && before <= 'z') || isAsciiDigit(before) ||
                before == '_' || before == '.' || before == ':') {
                ++p;
                continue;
            }
        }
        size_t q = p;
        if (text[q] == '-')
            ++q;
        if (q >= n || !isAsciiDigit(text[q])) {
            ++p;
            continue;
        }
        while (q < n && isAsciiDigit(text[q]))
            ++q;
        if (q + 1 < n && text[q] == '.' && isAsciiDigit(text[q + 1])) {
            q += 2;
            while (q < n && isAsciiDigit(text[q]))
                ++q;
        }
        if (q < n && text[q] == 'e') {
            const size_t digits = q + 1 < n && text[q + 1] == '-' ? q + 2 : q + 1;
            if (digits < n && isAsciiDigit(text[digits])) {
                q = digits;
                while (q < n && isAsciiDigit(text[q]))
                    ++q;
            }
        }
        double value = 0;
        std::from_chars(text.data() + p, text.data() + q, value);
        out.push_back(value);
        p = q;
    }
    return out;
}

// The first `count` entries (fewer when there are fewer), from `start` (QList::mid).
std::vector<double> mid(const std::vector<double> &list, size_t start, size_t count)
{
    if (start >= list.size())
        return {};
    return {list.begin() + start, list.begin() + std::min(list.size(), start + count)};
}

// The content files the recipe is made of, and the ones validateContent needs beside them.
std::map<std::string, std::string> skillContent()
{
    std::map<std::string, std::string> files;
    for (const auto &[path, text] : embeddedContent())
        if (path == "languages.json" || path == "glossary.json" || path.rfind("skill.", 0) == 0)
            files[path] = text;
    return files;
}

// The run every test reads: a two-point sweep of the fixture model on the CPU and the
// lesson's equivalence check, measured once for the whole executable.
struct Measured {
    EquivalenceResult eq;
    SweepResult sweep;
};

const Measured &measured()
{
    static const Measured m = [] {
        SweepConfig s;
        s.base.preset = ModelPreset::Fixture;
        s.base.device = DeviceRequest::Cpu;
        s.accumGrid = {1, 4};
        s.numSteps = 3;
        Measured r;
        r.sweep = runSweep(s);
        r.eq = runEquivalence(EquivalenceConfig{});
        return r;
    }();
    return m;
}

class Skill : public testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(measured().sweep.points.size(), 2u); }
    const EquivalenceResult &m_eq = measured().eq;
    const SweepResult &m_sweep = measured().sweep;
};

TEST_F(Skill, Content)
{
    const auto &eq = m_eq;
    const auto &sweep = m_sweep;
    const std::string md = skillMarkdown(eq, sweep);

    EXPECT_TRUE(startsWith(md, "---\nname: gradient-accumulation\n"));
    for (const char *key : {"description:", "version: 1.0.0", "tags: [training,"})
        EXPECT_TRUE(contains(section(md, "---", 1, 1), key)) << key;
    for (const char *heading : {"## When to use it", "## The recipe", "## What to log", "## Failure modes",
                                "## Measured in this run"})
        EXPECT_TRUE(contains(md, heading)) << heading;
    for (const char *needle : {"accum_steps = effective_batch // (micro_batch * world_size)", "assert", "no_sync",
                               "/ accum_steps", "optimizer.step()", "scheduler.step()"})
        EXPECT_TRUE(contains(md, needle)) << needle;
    // Every placeholder was filled; English carries no direction markup.
    EXPECT_FALSE(contains(md, "{"));
    EXPECT_FALSE(contains(md, "<div"));

    // The measured figures appear as measured.
    const std::string gradDiff = formatNumber(eq.maxGradDiff, ".3e");
    EXPECT_TRUE(contains(md, "| max abs grad diff | " + gradDiff + " |")) << gradDiff;
    char buf[96];
    for (const auto &p : sweep.points) {
        std::snprintf(buf, sizeof buf, "| %lld | %lld | %lld | %.1f |", static_cast<long long>(p.effectiveBatch),
                      static_cast<long long>(p.accumSteps), static_cast<long long>(p.microBatch), p.samplesPerSec);
        EXPECT_TRUE(contains(md, buf)) << buf;
    }
    EXPECT_TRUE(contains(md, "| verdict | equivalent (holds) |"));
    EXPECT_TRUE(contains(md, "| lesson's yardstick, max abs diff < ")) << md;
    std::snprintf(buf, sizeof buf, "; sgd lr %g; float32; loss scaling divide; planted bug: no):", eq.config.run.optimizer.lr);
    EXPECT_TRUE(contains(md, buf)) << buf;
    EXPECT_TRUE(contains(md, "Throughput sweep (fixture model, "));
}

struct LanguageRow {
    std::string name;
    std::string language;
};

// The recipe's loop is the code panel's, line for line (the code tests/pytorch/check_loop_code.py
// runs against the engine): the correct loop in its data-parallel form, even when the run
// it reports had a bug planted, with its comments in the recipe's language.
class EmbedsTheCodePanelsLoop : public Skill, public testing::WithParamInterface<LanguageRow> {};

TEST_P(EmbedsTheCodePanelsLoop, LineForLine)
{
    const NumberStyle style{GetParam().language, false};
    EquivalenceResult planted = m_eq;
    planted.config.run.bug = AccumBug::ZeroEveryMicro;
    const std::string md = skillMarkdown(planted, m_sweep, style);
    const LoopListing listing = loopListing(m_eq.config.run, style, LoopForm::DataParallel);
    EXPECT_GT(listing.lines.size(), 10u);
    for (const std::string &line : split(loopSource(listing), "\n"))
        if (!line.empty())
            EXPECT_TRUE(contains(md, "\n   " + line + "\n")) << line;
    EXPECT_TRUE(contains(md, "with model.no_sync() if k < accum_steps - 1 else contextlib.nullcontext():"));
    EXPECT_TRUE(!contains(md, "# bug:") && !contains(md, "# خطا:")); // no planted line
}

INSTANTIATE_TEST_SUITE_P(Rows, EmbedsTheCodePanelsLoop,
                         testing::ValuesIn(std::vector<LanguageRow>{{"en", "en"}, {"fa", "fa"}}), test::ByName());

// The Persian recipe: the same structure in Persian, code left as code (and left to right),
// the same figures in Persian digits.
TEST_F(Skill, Persian)
{
    const auto &eq = m_eq;
    const auto &sweep = m_sweep;
    const NumberStyle fa = styleOf("fa", false);
    const std::string md = skillMarkdown(eq, sweep, NumberStyle{"fa", false});
    const std::string en = skillMarkdown(eq, sweep);
    // The Language API is the "fa" style with the language's digits.
    EXPECT_EQ(md, skillMarkdown(eq, sweep, fa));

    // Same front-matter keys and skill name: tools read them.
    EXPECT_TRUE(startsWith(md, "---\nname: gradient-accumulation\n"));
    const auto tagLines = [](const std::string &doc) {
        std::vector<std::string> lines;
        for (const std::string &line : split(section(doc, "---", 1, 1), "\n"))
            if (contains(line, "tags:"))
                lines.push_back(line);
        return lines;
    };
    EXPECT_EQ(tagLines(md), tagLines(en));
    for (const char *key : {"description:", "version: 1.0.0", "tags:"})
        EXPECT_TRUE(contains(section(md, "---", 1, 1), key)) << key;
    const char *headings[] = {"# انباشت گرادیان", "## چه وقت به کارش ببریم", "## دستورالعمل",
                              "## چه چیزهایی را ثبت کنیم", "## خطاهای رایج", "## در مخزن خودتان بررسی کنید",
                              "## اندازه‌گیری‌شده در این اجرا"};
    for (const char *heading : headings)
        EXPECT_TRUE(contains(md, heading)) << heading;
    // As many headings as the English recipe, and no English heading left behind.
    EXPECT_EQ(headingLines(md), headingLines(en));
    EXPECT_FALSE(contains(md, "## The recipe"));
    EXPECT_FALSE(contains(md, "## Measured in this run"));
    EXPECT_FALSE(contains(md, "{"));

    // A direction hint: the body right to left (the front matter first, as tools expect),
    // each code block left to right, blank lines around so the Markdown inside renders.
    EXPECT_TRUE(contains(md, "---\n\n<div dir=\"rtl\">\n\n# "));
    EXPECT_TRUE(endsWith(md, "\n\n</div>\n"));
    EXPECT_EQ(countOf(md, "<div dir=\"ltr\">\n\n   ```python\n"), 2);
    EXPECT_EQ(countOf(md, "   ```\n\n   </div>\n\n"), 2);
    EXPECT_EQ(countOf(md, "<div"), countOf(md, "</div>"));

    // Code blocks are the English recipe's, their comments in Persian.
    EXPECT_EQ(codeBlocks(md).size(), 2u);
    EXPECT_EQ(codeOf(md), codeOf(en));
    EXPECT_TRUE(codeBlocks(md) != codeBlocks(en));

    // The measured figures, as measured, in Persian digits.
    EXPECT_TRUE(contains(md, formatNumber(eq.maxGradDiff, ".3e", fa)));
    EXPECT_TRUE(contains(md, formatNumber(eq.updateRatio, ".4f", fa)));
    for (const auto &p : sweep.points) {
        const std::string row = "| " + formatNumber(static_cast<double>(p.effectiveBatch), "d", fa) + " | " +
                                formatNumber(static_cast<double>(p.accumSteps), "d", fa) + " | " +
                                formatNumber(static_cast<double>(p.microBatch), "d", fa) + " | " +
                                formatNumber(p.samplesPerSec, ".1f", fa) + " |";
        EXPECT_TRUE(contains(md, row)) << row;
    }
    EXPECT_TRUE(contains(md, "| داوری | هم‌ارز (برقرار است) |"));
    // The settings in Persian words: no "sgd", "divide" or "fixture" as prose.
    EXPECT_TRUE(contains(md, "؛ SGD با نرخ یادگیری "));
    EXPECT_TRUE(contains(md, "مقیاس‌دهی زیان: تقسیم بر `accum_steps`؛ باگ کاشته‌شده: خیر)")) << md;
    EXPECT_TRUE(contains(md, "(مدل کوچکِ آزمون‌ها (`fixture`)، "));
}

struct DigitsRow {
    std::string name;
    std::string language;
    bool latinDigits;
};

// A right-to-left recipe reads in its language: no English word outside code, no Latin
// digit outside code unless the reader chose Latin digits (then no Persian digit at all).
class RtlProseInItsLanguage : public Skill, public testing::WithParamInterface<DigitsRow> {};

TEST_P(RtlProseInItsLanguage, OutsideCode)
{
    const DigitsRow &row = GetParam();
    const NumberStyle style = styleOf(row.language, row.latinDigits);
    const std::string md = skillMarkdown(m_eq, m_sweep, style);
    const std::string en = skillMarkdown(m_eq, m_sweep);

    // The rendered documents as if they were templates: the content check reads them.
    auto files = skillContent();
    files.erase("skill.json");
    files["skill.en.md"] = proseOf(en);
    files["skill." + style.language + ".md"] = proseOf(md);
    const auto problems = validateContent(files);
    if (!row.latinDigits) {
        EXPECT_TRUE(problems.empty()) << test::joinLines(problems);
        return;
    }
    for (const auto &p : problems)
        EXPECT_TRUE(contains(p, ": Latin digits in \"fa\": ")) << p;
    EXPECT_FALSE(problems.empty()); // the figures are there, in Latin digits
    const LanguageInfo &lang = languageInfo(style.language);
    for (const auto &d : lang.digits)
        EXPECT_FALSE(contains(md, d)) << d;
    EXPECT_FALSE(contains(md, lang.decimal));
    EXPECT_EQ(codeOf(md), codeOf(en));
}

INSTANTIATE_TEST_SUITE_P(Rows, RtlProseInItsLanguage,
                         testing::ValuesIn(std::vector<DigitsRow>{{"fa", "fa", false},
                                                                  {"fa, Latin digits", "fa", true}}),
                         test::ByName());

std::vector<DigitsRow> everyLanguage()
{
    std::vector<DigitsRow> rows;
    for (const auto &lang : contentLanguages()) {
        rows.push_back({lang.code, lang.code, false});
        rows.push_back({lang.code + ", Latin digits", lang.code, true});
    }
    return rows;
}

// Every language carries the same measured figures: read back from each document, they are
// the English ones, in the same order, and they are what was measured.
class SameFiguresInEveryLanguage : public Skill, public testing::WithParamInterface<DigitsRow> {};

TEST_P(SameFiguresInEveryLanguage, AsMeasured)
{
    const DigitsRow &param = GetParam();
    const std::vector<double> en = figures(measuredSection(skillMarkdown(m_eq, m_sweep)));
    const std::vector<double> other =
        figures(measuredSection(skillMarkdown(m_eq, m_sweep, styleOf(param.language, param.latinDigits))));
    EXPECT_EQ(other, en);

    // Read back: the equivalence setting, its table, then each sweep point's row.
    const auto &c = m_eq.config;
    const std::vector<double> setting{double(c.run.modelShape().inFeatures), double(c.run.modelShape().hidden),
                                      double(c.run.modelShape().classes),    double(c.bigBatch()),
                                      double(c.run.accumSteps),              double(c.run.microBatch),
                                      c.run.optimizer.lr};
    EXPECT_EQ(mid(other, 0, setting.size()), setting);
    const auto close = [](double read, double measured) {
        return std::abs(read - measured) <= 1e-3 * std::abs(measured) + 1e-300;
    };
    ASSERT_GE(other.size(), 12u); // the table's figures are there to index
    EXPECT_TRUE(close(other.at(7), m_eq.maxGradDiff));
    EXPECT_TRUE(close(other.at(8), m_eq.maxParamDiff));
    EXPECT_TRUE(std::abs(other.at(9) - m_eq.updateRatio) <= 5e-5);
    EXPECT_TRUE(close(other.at(10), m_eq.largestTwinDiff()));
    EXPECT_TRUE(close(other.at(11), kTwinTolerance));
    EXPECT_TRUE(close(other.at(12), c.fixedTolerance));
    const int rowsStart = int(other.size()) - 8 * int(m_sweep.points.size());
    ASSERT_GE(rowsStart, 0); // a row of 8 figures for each sweep point
    for (size_t i = 0; i < m_sweep.points.size(); ++i) {
        const auto &p = m_sweep.points[i];
        const std::vector<double> row = mid(other, rowsStart + 8 * i, 8);
        EXPECT_DOUBLE_EQ(row.at(0), double(p.effectiveBatch));
        EXPECT_DOUBLE_EQ(row.at(1), double(p.accumSteps));
        EXPECT_DOUBLE_EQ(row.at(2), double(p.microBatch));
        EXPECT_TRUE(std::abs(row.at(3) - p.samplesPerSec) <= 0.05 + 1e-9 * p.samplesPerSec);
        EXPECT_DOUBLE_EQ(row.at(6), double(p.syncCalls));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, SameFiguresInEveryLanguage, testing::ValuesIn(everyLanguage()), test::ByName());

struct FaultRow {
    std::string name;
    std::string path; // empty: the files as shipped
    std::string from; // "*": the whole file emptied
    std::string to;
    std::string expected; // a problem containing this; empty: no problem
};

// The content check catches a broken recipe: a placeholder missing from one language, a
// word or a digit left in English, a missing language.
class PlantedFaultFails : public Skill, public testing::WithParamInterface<FaultRow> {};

TEST_P(PlantedFaultFails, InTheContentCheck)
{
    const FaultRow &row = GetParam();
    auto files = skillContent();
    ASSERT_TRUE(files.count("skill.en.md") && files.count("skill.fa.md") && files.count("skill.json"));
    if (!row.path.empty()) {
        std::string text = files.at(row.path);
        if (row.from == "*") {
            text.clear();
        } else {
            ASSERT_TRUE(contains(text, row.from)) << row.from;
            replaceAll(text, row.from, row.to);
        }
        files[row.path] = text;
    }
    const auto problems = validateContent(files);
    if (row.expected.empty()) {
        EXPECT_TRUE(problems.empty()) << test::joinLines(problems);
        return;
    }
    bool found = false;
    for (const auto &p : problems)
        found = found || contains(p, row.expected);
    EXPECT_TRUE(found) << "expected \"" << row.expected << "\" among:\n" << test::joinLines(problems);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PlantedFaultFails,
    testing::ValuesIn(std::vector<FaultRow>{
        {"as shipped", "", "", "", ""},
        {"fa lacks a placeholder", "skill.fa.md", "{max_grad_diff:.3e}", "",
         "skill.fa.md: the placeholders of \"fa\" differ"},
        {"fa has an extra placeholder", "skill.fa.md", "{verdict}", "{verdict} {seed}",
         "skill.fa.md: the placeholders of \"fa\" differ"},
        {"en lacks a placeholder", "skill.en.md", "{sweep_table}", "",
         "skill.fa.md: the placeholders of \"fa\" differ"},
        {"English word in fa", "skill.fa.md", "# انباشت گرادیان", "# Gradient accumulation",
         "skill.fa.md: English words in \"fa\": Gradient, accumulation"},
        {"Latin digit in fa", "skill.fa.md", "- **۱. ", "- **1. ", "skill.fa.md: Latin digits in \"fa\": 1."},
        {"fa missing", "skill.fa.md", "*", "", "skill.fa.md: no text in \"fa\""},
        {"setting left in English", "skill.json", "\"fa\": \"بدون تقسیم\"", "\"fa\": \"none\"",
         "skill.json:/scaling/none: English words in \"fa\": none"},
        {"column without fa", "skill.json", ",\n      \"fa\": \"میانگین زیان\"", "",
         "skill.json:/sweep_columns/7: no text in \"fa\""},
    }),
    test::ByName());

} // namespace
