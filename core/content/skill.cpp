// The skill recipe: its template (resources/content/skill.<lang>.md) filled with this run's
// measured figures. Only computation here: the words are content, the numbers go through
// formatNumber in the reader's style.
#include "core/content/skill.h"

#include "core/content/content.h"
#include "core/content/loop_code.h"

namespace accumlab {

namespace {

const char *const kWords = "skill.json";

// A run-dependent word ("/scaling/divide") in the reader's language. Markdown keeps its
// backticks, so the text is filled, not rendered (markCode is for widgets).
std::string word(const std::string &pointer, const NumberStyle &style, const TextArgs &args = {})
{
    return fillTemplate(contentText(kWords, pointer).in(style.language), args, style);
}

// A value that stays code ("float32", "cpu"), as the language writes code in prose.
std::string codeValue(const std::string &value, const NumberStyle &style)
{
    if (value.empty())
        return value;
    TextArgs args;
    args.strings["name"] = value;
    return word("/code_value", style, args);
}

std::string frontMatter(const char *key) { return contentJson(kWords).at("front_matter").at(key).get<std::string>(); }

std::string sweepTable(const SweepResult &sweep, const NumberStyle &style)
{
    const auto &columns = contentJson(kWords).at("sweep_columns");
    std::string header = "|";
    std::string rule = "|";
    for (const auto &column : columns) {
        header.append(" ").append(fillTemplate(localizedText(column).in(style.language), {}, style)).append(" |");
        rule += "---|";
    }
    std::string table = header + "\n" + rule;
    const double plateau = sweep.plateauSamplesPerSec();
    for (const auto &p : sweep.points) {
        const std::string cells[] = {
            formatNumber(static_cast<double>(p.effectiveBatch), "d", style),
            formatNumber(static_cast<double>(p.accumSteps), "d", style),
            formatNumber(static_cast<double>(p.microBatch), "d", style),
            formatNumber(p.samplesPerSec, ".1f", style),
            formatNumber(plateau > 0 ? p.samplesPerSec / plateau : 0.0, ".0%", style),
            formatNumber(p.medianStepMs, ".3f", style),
            formatNumber(static_cast<double>(p.syncCalls), "d", style),
            p.diverged ? word("/diverged", style) : formatNumber(p.avgLoss, ".4f", style),
        };
        table += "\n|";
        for (const auto &cell : cells)
            table += " " + cell + " |";
    }
    return table;
}

// For a right-to-left language: the body (after the front matter, which tools read) in
// <div dir="rtl">, each fenced code block in <div dir="ltr"> at the fence's indent, with the
// blank lines that let the Markdown inside still render.
std::string withDirection(const std::string &md)
{
    size_t bodyStart = 0;
    if (md.rfind("---\n", 0) == 0)
        if (const auto end = md.find("\n---\n", 3); end != std::string::npos)
            bodyStart = end + 5;
    std::string body = "\n<div dir=\"rtl\">\n";
    bool inCode = false;
    bool needBlank = false; // after a closing </div>: the HTML block must end before the next line
    for (size_t at = bodyStart; at < md.size();) {
        auto end = md.find('\n', at);
        if (end == std::string::npos)
            end = md.size();
        const std::string line = md.substr(at, end - at);
        at = end + 1;
        const auto indentEnd = line.find_first_not_of(' ');
        const bool blank = indentEnd == std::string::npos;
        const bool fence = !blank && line.compare(indentEnd, 3, "```") == 0;
        if (needBlank && !blank)
            body += "\n";
        needBlank = false;
        if (fence && !inCode) {
            const std::string indent = line.substr(0, indentEnd);
            body += "\n" + indent + "<div dir=\"ltr\">\n\n" + line + "\n";
            inCode = true;
        } else if (fence) {
            body += line + "\n\n" + line.substr(0, indentEnd) + "</div>\n";
            inCode = false;
            needBlank = true;
        } else {
            body += line + "\n";
        }
    }
    return md.substr(0, bodyStart) + body + "\n</div>\n";
}

// The content's digits and decimal sign of `lang` written as Latin ones (the template's own
// numbering; the figures are already formatted in the style's digits).
std::string latinDigits(std::string text, const LanguageInfo &lang)
{
    const auto replaceAll = [&text](const std::string &from, const std::string &to) {
        if (from.empty() || from == to)
            return;
        for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    };
    for (size_t d = 0; d < lang.digits.size(); ++d)
        replaceAll(lang.digits[d], std::string(1, static_cast<char>('0' + d)));
    replaceAll(lang.decimal, ".");
    return text;
}

} // namespace

std::string skillMarkdown(const EquivalenceResult &eq, const SweepResult &sweep)
{
    return skillMarkdown(eq, sweep, NumberStyle{});
}

std::string skillMarkdown(const EquivalenceResult &eq, const SweepResult &sweep, const NumberStyle &style)
{
    const LanguageInfo &lang = languageInfo(style.language);
    const auto &c = eq.config;
    const auto &s = sweep.config;
    TextArgs args;
    auto &n = args.numbers;
    auto &w = args.strings;
    w["version"] = frontMatter("version");
    w["tags"] = frontMatter("tags");

    n["in_features"] = static_cast<double>(c.run.modelShape().inFeatures);
    n["hidden"] = static_cast<double>(c.run.modelShape().hidden);
    n["classes"] = static_cast<double>(c.run.modelShape().classes);
    n["big_batch"] = static_cast<double>(c.bigBatch());
    n["accum_steps"] = static_cast<double>(c.run.accumSteps);
    n["micro_batch"] = static_cast<double>(c.run.microBatch);
    w["optimizer"] = word("/optimizer/" + toString(c.run.optimizer.kind), style);
    n["lr"] = c.run.optimizer.lr;
    w["dtype"] = codeValue(toString(c.run.dtype), style);
    w["scaling"] = word("/scaling/" + toString(c.run.scaling), style);

    n["max_grad_diff"] = eq.maxGradDiff;
    n["max_param_diff"] = eq.maxParamDiff;
    w["params_init_match"] = word(eq.paramsInitMatch ? "/yes" : "/no", style);
    n["update_ratio"] = eq.updateRatio;
    n["tolerance"] = c.fixedTolerance;
    w["within_lesson_bound"] = word(eq.withinLessonBound ? "/yes" : "/no", style);
    n["twin_diff"] = eq.largestTwinDiff();
    n["twin_tolerance"] = kTwinTolerance;
    // The verdict in words, with its sentence where it has one (a failure's cause, or why a
    // planted bug had no effect): the run's own, never the fixture's.
    const std::string sentence = eq.cause(style);
    w["verdict"] = word("/verdict/" + toString(eq.verdict()), style) + (sentence.empty() ? "" : ": " + sentence);
    w["planted"] = plantsABug(c.run) ? codeValue(plantedBugNames(c.run), style) : word("/no", style);

    w["model"] = word("/model/" + toString(s.base.preset), style);
    n["sweep_micro_batch"] = static_cast<double>(s.base.microBatch);
    n["timed_steps"] = static_cast<double>(s.numSteps);
    n["warmup_steps"] = static_cast<double>(s.warmupSteps);
    w["sweep_optimizer"] = word("/optimizer/" + toString(s.base.optimizer.kind), style);
    w["device"] = codeValue(sweep.points.empty() ? "" : sweep.points.front().device, style);
    n["threads"] = sweep.points.empty() ? 0.0 : static_cast<double>(sweep.points.front().threads);
    w["sweep_table"] = sweepTable(sweep, style);
    // The recipe's loop is the code panel's (core/content/loop_code.h), correct and in its data-parallel
    // form, with the run's optimizer, clipping and schedule, indented into its list item.
    AccumConfig correct = c.run;
    correct.bug = AccumBug::None;
    correct.scaling = Scaling::Divide;
    correct.stepEveryMicro = false;
    correct.lossScaler = {};
    correct.dtype = DType::Float32;
    std::string code;
    const std::string source = loopSource(loopListing(correct, style, LoopForm::DataParallel));
    for (size_t at = 0; at < source.size();) {
        const size_t end = source.find('\n', at);
        code += (code.empty() ? "   " : "\n   ") + source.substr(at, end - at);
        at = end == std::string::npos ? source.size() : end + 1;
    }
    w["loop_code"] = code;

    std::string md = fillTemplate(contentFile("skill." + style.language + ".md"), args, style);
    if (style.latinDigits)
        md = latinDigits(md, lang);
    return lang.rightToLeft ? withDirection(md) : md;
}

} // namespace accumlab
