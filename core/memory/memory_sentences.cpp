// The memory lab's results in words, from resources/content/memory_lab.json
// (core/memory/memory_sentences.h).
#include "core/memory/memory_sentences.h"

#include <algorithm>

namespace accumlab {
namespace {

const char *const kLri = "\u2066"; // LEFT-TO-RIGHT ISOLATE
const char *const kPdi = "\u2069"; // POP DIRECTIONAL ISOLATE

std::string say(const std::string &pointer, const TextArgs &args, const NumberStyle &style)
{
    return renderText(kMemorySentencesFile, pointer, args, style);
}

std::string deviceOf(const std::string &device, const MemorySentenceWords &words)
{
    return words.device.empty() ? device : words.device;
}

void putBytes(TextArgs &args, const std::string &name, int64_t bytes) { args.numbers[name] = static_cast<double>(bytes); }

// A run's peak in its parts: what the engine holds and, above it, the transient split.
std::string peakParts(const WindowMemory &m, const NumberStyle &style)
{
    TextArgs a;
    putBytes(a, "weights", m.held.weights);
    putBytes(a, "gradients", m.held.gradients);
    putBytes(a, "state", m.held.optimizerState);
    putBytes(a, "samples", m.held.windowSamples);
    putBytes(a, "activations", m.transient->activations);
    putBytes(a, "step", m.transient->stepTemporaries);
    return say("/peak/parts", a, style);
}

// "Its peak: ...; ... set it.", after the sentence that names the run; empty where the
// transient split was not measured.
void addPeakSentence(std::vector<std::string> &lines, const WindowMemory &m, const NumberStyle &style)
{
    if (!m.transient)
        return;
    TextArgs a;
    a.strings["parts"] = peakParts(m, style);
    lines.push_back(say(m.transient->stepSetsPeak() ? "/peak/set-by-step" : "/peak/set-by-activations", a, style));
}

} // namespace

std::vector<std::string> oomDemoSentences(const OomDemoResult &r, const NumberStyle &style, const MemorySentenceWords &words)
{
    std::vector<std::string> lines;
    TextArgs budget;
    putBytes(budget, "budget", r.budgetBytes);
    budget.strings["device"] = deviceOf(r.device, words);
    putInteger(budget, "fails_after", r.failsAfterSamples);
    lines.push_back(say(r.failsAfterSamples > 0 ? "/oom-demo/budget-measured" : "/oom-demo/budget-chosen", budget, style));

    TextArgs full;
    putInteger(full, "effective", r.effectiveBatch);
    putBytes(full, "peak", r.fullBatch.peakBytes);
    lines.push_back(say(r.fullBatchOutOfMemory ? "/oom-demo/full-batch-out-of-memory" : "/oom-demo/full-batch-fitted", full, style));
    addPeakSentence(lines, r.fullBatch, style);

    if (r.accumulationSucceeded) {
        TextArgs acc;
        putInteger(acc, "accum", r.accumSteps);
        putInteger(acc, "micro", r.microBatch);
        putBytes(acc, "peak", r.accumulation.peakBytes);
        lines.push_back(say("/oom-demo/accumulation-fits", acc, style));
        addPeakSentence(lines, r.accumulation, style);
    } else {
        lines.push_back(say("/oom-demo/accumulation-out-of-memory", {}, style));
    }

    // The one verdict on this loop (its float64 twin's), then this run's own figure beside the
    // lesson's yardstick, with why they differ where they do.
    if (r.equivalence) {
        const EquivalenceResult &eq = *r.equivalence;
        TextArgs v;
        v.strings["criterion"] = eq.criterion(style);
        v.strings["cause"] = eq.cause(style);
        const Verdict verdict = eq.verdict();
        lines.push_back(say(verdict == Verdict::Holds   ? "/oom-demo/verdict-holds"
                            : verdict == Verdict::Fails ? "/oom-demo/verdict-fails"
                                                        : "/oom-demo/verdict-no-effect",
                            v, style));
        TextArgs p;
        p.numbers["diff"] = r.maxParamDiff;
        p.numbers["bound"] = r.paramTolerance;
        std::string figures = say("/oom-demo/parameters", p, style);
        if (const std::string why = eq.explanation(style); !why.empty())
            figures += " " + why;
        lines.push_back(figures);
    }

    // The timeline in a sentence: where the full batch's hill crosses the budget.
    if (const auto crossing = r.fullBatchCrossingPercent(); crossing && r.accumulationSucceeded) {
        TextArgs t;
        t.numbers["percent"] = *crossing;
        putInteger(t, "accum", r.accumSteps);
        putBytes(t, "floor", r.accumulationTimeline.floor.total());
        lines.push_back(say("/oom-demo/timeline", t, style));
    }

    // LibTorch's own message, as it came, on a line of its own after the sentences (left to
    // right inside a right-to-left sentence).
    const bool rtl = languageInfo(style.language).rightToLeft;
    std::string said;
    for (const std::string *message : {&r.fullBatchError, &r.accumulationError})
        if (!message->empty())
            said += (said.empty() ? "" : " ") + (rtl ? kLri + *message + kPdi : *message);
    if (!said.empty()) {
        TextArgs w;
        w.strings["words"] = said;
        lines.push_back(say("/oom-demo/libtorch-words", w, style));
    }
    return lines;
}

std::vector<std::string> tradeoffSentences(const TradeoffResult &r, const NumberStyle &style, const MemorySentenceWords &words)
{
    std::vector<std::string> lines;
    int64_t fitted = 0;
    const TradeoffPoint *fastest = nullptr;
    for (const TradeoffPoint &p : r.points) {
        if (p.outOfMemory)
            continue;
        ++fitted;
        if (!fastest || p.stepMsMedian < fastest->stepMsMedian)
            fastest = &p;
    }
    TextArgs summary;
    putInteger(summary, "effective", r.config.lab.effectiveBatch);
    summary.strings["device"] = deviceOf(r.device, words);
    putInteger(summary, "fitted", fitted);
    putInteger(summary, "points", static_cast<int64_t>(r.points.size()));
    putBytes(summary, "budget", r.budgetBytes);
    lines.push_back(say(r.budgetBytes > 0 ? "/tradeoff/summary" : "/tradeoff/summary-no-budget", summary, style));

    if (fastest) {
        TextArgs f;
        putInteger(f, "micro", fastest->microBatch);
        putInteger(f, "accum", fastest->accumSteps);
        f.numbers["ms"] = fastest->stepMsMedian;
        lines.push_back(say("/tradeoff/fastest", f, style));
    }
    // Why the line has the shape it has: the smallest micro-batch's peak in its parts, and where
    // the step's temporaries, not the activations, set it (a flat stretch).
    const auto smallest = std::find_if(r.points.begin(), r.points.end(),
                                       [](const TradeoffPoint &p) { return !p.outOfMemory && p.memory.transient; });
    if (smallest != r.points.end()) {
        TextArgs s;
        putInteger(s, "micro", smallest->microBatch);
        putBytes(s, "peak", smallest->memory.peakBytes);
        s.strings["parts"] = peakParts(smallest->memory, style);
        lines.push_back(say("/tradeoff/peak-at", s, style));
    }
    if (const std::vector<int64_t> flat = r.stepSetPeakAt(); !flat.empty()) {
        TextArgs f;
        putInteger(f, "from", flat.front());
        putInteger(f, "to", flat.back());
        lines.push_back(say("/tradeoff/flat", f, style));
    } else if (smallest != r.points.end()) {
        lines.push_back(say("/tradeoff/activations-set-every-peak", {}, style));
    }
    return lines;
}

std::vector<std::string> finderSentences(const MicroBatchFinding &f, const NumberStyle &style)
{
    std::vector<std::string> lines;
    TextArgs found;
    putBytes(found, "budget", f.budgetBytes);
    if (f.microBatch > 0) {
        putInteger(found, "micro", f.microBatch);
        putInteger(found, "effective", f.effectiveBatch);
        putInteger(found, "accum", f.accumSteps);
        putInteger(found, "world", f.worldSize);
        lines.push_back(say(f.microBatch == 1 ? "/finder/found-one" : "/finder/found", found, style));
    } else {
        lines.push_back(say("/finder/none-fits", found, style));
    }
    std::string tried;
    const std::string separator = say("/finder/list-separator", {}, style);
    for (const auto &[micro, fits] : f.tried) {
        TextArgs t;
        putInteger(t, "micro", micro);
        tried += (tried.empty() ? "" : separator) + say(fits ? "/finder/tried-fits" : "/finder/tried-does-not-fit", t, style);
    }
    if (!tried.empty()) {
        TextArgs t;
        t.strings["list"] = tried;
        lines.push_back(say("/finder/tried", t, style));
    }
    return lines;
}

} // namespace accumlab
