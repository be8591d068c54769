// The lesson's loop as PyTorch code for one run's settings (core/content/loop_code.h): the content's
// lines whose tags the run has, the setup filled from its settings, the notes in the reader's
// language. Plain C++: no torch.
#include "core/content/loop_code.h"

#include <cstdio>
#include <cstdlib>
#include <set>

namespace accumlab {

namespace {

const char *const kLoopFile = "code/loop.json";

const std::pair<LoopStatement, const char *> kStatements[] = {
    {LoopStatement::ZeroGrad, "zero_grad"}, {LoopStatement::Forward, "forward"},   {LoopStatement::Backward, "backward"},
    {LoopStatement::Retry, "retry"},        {LoopStatement::NoSync, "no_sync"},    {LoopStatement::Sync, "sync"},
    {LoopStatement::Clip, "clip"},          {LoopStatement::Step, "step"},         {LoopStatement::Scheduler, "scheduler"},
    {LoopStatement::Unscale, "unscale"},    {LoopStatement::Update, "update"},
};

LoopStatement statementFromString(const std::string &name)
{
    for (const auto &[s, n] : kStatements)
        if (name == n)
            return s;
    throw ContentError(std::string(kLoopFile) + ": unknown statement '" + name + "'");
}

// The tags a run's settings give its loop: the planted bug's name, no-division,
// step-every-micro, clip (a max_norm, the configured one or the clip bug's), ddp, scaler (a
// dynamic loss scaler) and the scaler's pitfall by name.
std::set<std::string> tagsOf(const AccumConfig &c, LoopForm form)
{
    std::set<std::string> tags;
    if (c.bug != AccumBug::None)
        tags.insert(toString(c.bug));
    if (c.scaling == Scaling::None)
        tags.insert("no-division");
    if (c.stepEveryMicro)
        tags.insert("step-every-micro");
    if (effectiveClipNorm(c.optimizer, c.bug) > 0.0)
        tags.insert("clip");
    if (form == LoopForm::DataParallel || (c.worldSize > 1 && c.noSync))
        tags.insert("ddp");
    if (c.lossScaler.enabled)
        tags.insert("scaler");
    if (c.lossScaler.enabled && c.lossScaler.bug != ScalerBug::None)
        tags.insert(toString(c.lossScaler.bug));
    return tags;
}

bool holds(const nlohmann::json &line, const std::set<std::string> &tags)
{
    if (!line.contains("when"))
        return true;
    for (const auto &w : line.at("when")) {
        const std::string tag = w.get<std::string>();
        const bool negated = !tag.empty() && tag[0] == '!';
        const bool present = tags.count(negated ? tag.substr(1) : tag) > 0;
        if (present == negated)
            return false;
    }
    return true;
}

std::string optimizerCode(const OptimizerConfig &o)
{
    std::string s;
    switch (o.kind) {
    case OptimizerKind::Sgd:
    case OptimizerKind::Momentum:
        s = "torch.optim.SGD(model.parameters(), lr=" + pythonNumber(o.lr);
        if (o.kind == OptimizerKind::Momentum)
            s += ", momentum=" + pythonNumber(o.momentum);
        if (o.weightDecay > 0.0)
            s += ", weight_decay=" + pythonNumber(o.weightDecay);
        return s + ")";
    case OptimizerKind::AdamW:
        return "torch.optim.AdamW(model.parameters(), lr=" + pythonNumber(o.lr) + ", betas=(" + pythonNumber(o.beta1) +
               ", " + pythonNumber(o.beta2) + "), eps=" + pythonNumber(o.eps) +
               ", weight_decay=" + pythonNumber(o.adamWeightDecay) + ")";
    }
    return s;
}

// torch.amp.GradScaler("cpu"), with the arguments where the run's scaler differs from
// PyTorch's defaults (which are the engine's: 65536, x2, x0.5, 2000).
std::string scalerCode(const LossScalerConfig &s)
{
    std::string args = "\"cpu\"";
    if (s.initScale != kDefaultInitScale)
        args += ", init_scale=" + pythonNumber(s.initScale);
    if (s.growthFactor != kDefaultGrowthFactor)
        args += ", growth_factor=" + pythonNumber(s.growthFactor);
    if (s.backoffFactor != kDefaultBackoffFactor)
        args += ", backoff_factor=" + pythonNumber(s.backoffFactor);
    if (s.growthInterval != kDefaultGrowthInterval)
        args += ", growth_interval=" + std::to_string(s.growthInterval);
    return "torch.amp.GradScaler(" + args + ")";
}

} // namespace

const char *toString(LoopStatement s)
{
    for (const auto &[v, n] : kStatements)
        if (v == s)
            return n;
    return "?";
}

std::string bugTitle(AccumBug bug, const NumberStyle &style)
{
    return renderText("bugs.json", "/bugs/" + toString(bug) + "/title", {}, style);
}

std::string bugStory(AccumBug bug, const NumberStyle &style)
{
    TextArgs args;
    args.numbers["bug_clip_norm"] = kBugClipNorm;
    putInteger(args, "bug_warmup", kBugLrWarmup);
    return renderText("bugs.json", "/bugs/" + toString(bug) + "/story", args, style);
}

std::string scalerBugTitle(ScalerBug bug, const NumberStyle &style)
{
    return renderText("bugs.json", "/scaler-bugs/" + toString(bug) + "/title", {}, style);
}

std::string scalerBugStory(ScalerBug bug, const NumberStyle &style)
{
    return renderText("bugs.json", "/scaler-bugs/" + toString(bug) + "/story", {}, style);
}

std::string pythonNumber(double value)
{
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, value);
        if (std::strtod(buf, nullptr) == value)
            break;
    }
    return buf;
}

LoopListing loopListing(const AccumConfig &c, const NumberStyle &style, LoopForm form)
{
    const nlohmann::json &file = contentJson(kLoopFile);
    const std::set<std::string> tags = tagsOf(c, form);
    LoopListing out;
    const bool scalerPitfall = c.lossScaler.enabled && c.lossScaler.bug != ScalerBug::None;
    out.variant = c.bug != AccumBug::None ? toString(c.bug)
                  : c.scaling == Scaling::None ? "no-division"
                  : c.stepEveryMicro ? "step-every-micro"
                  : scalerPitfall    ? toString(c.lossScaler.bug)
                                     : "correct";
    // Code strings take the run's settings as Python literals; notes take them in the reader's digits.
    const int64_t warmup = effectiveLrWarmup(c.optimizer, c.bug);
    TextArgs codeArgs;
    codeArgs.strings = {
        {"optimizer", optimizerCode(c.optimizer)},
        {"schedule", warmup > 0 ? "lambda k: min(1.0, (k + 1) / " + std::to_string(warmup) + ")" : "lambda k: 1.0"},
        {"max_norm", pythonNumber(effectiveClipNorm(c.optimizer, c.bug))},
        {"accum_steps", std::to_string(c.accumSteps)},
        {"scaler", scalerCode(c.lossScaler)}};
    TextArgs noteArgs;
    putInteger(noteArgs, "micro_batch", c.microBatch);
    putInteger(noteArgs, "accum_steps", c.accumSteps);
    putInteger(noteArgs, "effective_batch", c.microBatch * c.accumSteps);
    const auto add = [&](const nlohmann::json &line, bool setup) {
        if (!holds(line, tags))
            return;
        CodeLine l;
        l.setup = setup;
        const std::string text = fillTemplate(line.at("code").get<std::string>(), codeArgs);
        // Under no_sync the micro-batch's forward and backward sit one level deeper.
        const int indent = line.value("indent", 0) + (line.value("body", false) && tags.count("ddp") ? 1 : 0);
        l.code = std::string(4 * indent, ' ') + text;
        if (line.contains("note")) // code spans lose their backticks, kept left to right by marks
            l.note = renderLocalized(localizedText(line.at("note")), noteArgs, style);
        for (const auto &s : line.value("line", nlohmann::json::array()))
            l.lit.push_back(statementFromString(s.get<std::string>()));
        l.planted = line.value("planted", false);
        out.lines.push_back(std::move(l));
    };
    for (const auto &line : file.at("setup"))
        add(line, true);
    for (const auto &line : file.at("loop"))
        add(line, false);
    if (c.dtype == DType::Float16)
        out.caveat = renderLocalized(localizedText(file.at("float16")), {}, style);
    else if (c.lossScaler.enabled && (c.bug != AccumBug::None || c.stepEveryMicro))
        out.caveat = renderLocalized(localizedText(file.at("scaler-combined")), {}, style);
    else if (c.stepEveryMicro && c.bug == AccumBug::SkipLastMicro)
        out.caveat = renderLocalized(localizedText(file.at("combined")), {}, style);
    return out;
}

std::string loopSource(const LoopListing &listing)
{
    std::string out;
    for (const auto &l : listing.lines) {
        if (!l.note.empty()) // the comment on the line above, at the line's indent
            out += l.code.substr(0, l.code.find_first_not_of(' ')) + "# " + l.note + '\n';
        out += l.code + '\n';
    }
    return out;
}

} // namespace accumlab
