// The verdict's grid: sampled settings, each run through runEquivalence and judged by its one
// verdict. Planted bugs are drawn where they bite (at least two micro-batches a window, and a
// clip norm that some micro-batch exceeds for clip-each-micro), so that "fails" is what a
// correct verdict must say of every one of them.
#include "core/verdict_grid.h"

#include "core/content/content.h"
#include "core/equivalence.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>

namespace accumlab {

namespace {

// The lab's learning-rate slider, 1-2-5 steps from its bottom to its top.
const double kSliderRates[] = {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01,
                               0.02,   0.05,   0.1,    0.2,   0.5,   1.0};
// A clip norm every micro-batch's gradient exceeds: clip-each-micro bites.
constexpr double kBitingClipNorm = 1e-3;

// The planted bugs the grid draws, as the flags name them, after the correct loop ("none").
const char *const kPlanted[] = {"none",           "--scaling none",       "--step-every-micro",
                                "zero-every-micro", "never-zero",         "divide-by-n-plus-1",
                                "skip-last-micro", "count-micro-twice",   "clip-each-micro",
                                "schedule-every-micro"};

template <class T, size_t N>
const T &pick(std::mt19937_64 &rng, const T (&items)[N])
{
    return items[std::uniform_int_distribution<size_t>(0, N - 1)(rng)];
}

std::string describe(const EquivalenceConfig &c, const std::string &bug)
{
    char text[256];
    std::snprintf(text, sizeof text, "%s %s %s lr %g micro %lld x accum %lld seed %llu labels %s warmup %lld clip %g",
                  bug.c_str(), toString(c.run.optimizer.kind).c_str(), toString(c.run.dtype).c_str(),
                  c.run.optimizer.lr, static_cast<long long>(c.run.microBatch), static_cast<long long>(c.run.accumSteps),
                  static_cast<unsigned long long>(c.run.seed), toString(c.run.labels).c_str(),
                  static_cast<long long>(c.run.optimizer.lrWarmup), c.run.optimizer.clipNorm);
    return text;
}

} // namespace

VerdictGridResult runVerdictGrid(const VerdictGridConfig &config, const CancelToken *cancel)
{
    VerdictGridResult out;
    out.config = config;
    for (const char *bug : kPlanted)
        out.rows.push_back({bug, 0, 0, 0.0, std::numeric_limits<double>::infinity()});
    std::mt19937_64 rng(config.seed);
    const OptimizerKind optimizers[] = {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::AdamW};
    const DType dtypes[] = {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16};
    const int64_t micros[] = {1, 2, 4, 8};
    const int64_t correctAccums[] = {1, 2, 4, 8, 16};
    const int64_t bitingAccums[] = {2, 4, 8, 16};
    for (int64_t i = 0; i < config.runs; ++i) {
        if (cancel && cancel->cancelled())
            throw Cancelled{};
        // Two runs in five are the correct loop; the rest plant one bug each, uniformly.
        const bool correct = std::uniform_int_distribution<int>(0, 4)(rng) < 2;
        const size_t row = correct ? 0 : std::uniform_int_distribution<size_t>(1, std::size(kPlanted) - 1)(rng);
        const std::string bug = kPlanted[row];
        EquivalenceConfig c;
        c.run.optimizer.kind = pick(rng, optimizers);
        c.run.dtype = pick(rng, dtypes);
        c.run.optimizer.lr = pick(rng, kSliderRates);
        c.run.microBatch = pick(rng, micros);
        c.run.accumSteps = correct ? pick(rng, correctAccums) : pick(rng, bitingAccums);
        c.run.seed = std::uniform_int_distribution<uint64_t>(0, 999)(rng);
        c.run.labels = std::uniform_int_distribution<int>(0, 1)(rng) ? LabelKind::Teacher : LabelKind::Random;
        c.run.optimizer.lrWarmup = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 4 : 0;
        c.run.optimizer.clipNorm = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 1.0 : 0.0;
        if (bug == "--scaling none")
            c.run.scaling = Scaling::None;
        else if (bug == "--step-every-micro")
            c.run.stepEveryMicro = true;
        else if (bug != "none")
            c.run.bug = accumBugFromString(bug);
        // Clipping rescales the window's sum to max_norm whatever its scale, and so hides a wrong
        // divisor (the verdict then says the bug had no effect here, and why): a planted bug is
        // drawn without it, but for clip-each-micro, drawn with a norm every micro-batch exceeds.
        if (!correct)
            c.run.optimizer.clipNorm = c.run.bug == AccumBug::ClipEachMicro ? kBitingClipNorm : 0.0;
        const EquivalenceResult r = runEquivalence(c, cancel);
        const Verdict expected = correct ? Verdict::Holds : Verdict::Fails;
        VerdictGridRow &g = out.rows[row];
        ++g.runs;
        const double twin = r.largestTwinDiff();
        g.largestTwinDiff = std::max(g.largestTwinDiff, twin);
        g.smallestTwinDiff = std::min(g.smallestTwinDiff, twin);
        if (r.verdict() == expected) {
            ++g.asExpected;
            continue;
        }
        (correct ? out.falseFails : out.slipped) += 1;
        out.misses.push_back(describe(c, bug) + ": " + toString(r.verdict()) + " " + r.cause());
    }
    return out;
}

std::string VerdictGridResult::table() const
{
    std::string t = "| planted bug | runs | as expected | largest twin difference | smallest twin difference |\n"
                    "|---|---:|---:|---:|---:|\n";
    for (const VerdictGridRow &r : rows) {
        char line[256];
        std::snprintf(line, sizeof line, "| %s | %lld | %lld (%s) | %.2g | %.2g |\n", r.bug.c_str(),
                      static_cast<long long>(r.runs), static_cast<long long>(r.asExpected),
                      r.bug == "none" ? "holds" : "fails", r.largestTwinDiff, r.runs ? r.smallestTwinDiff : 0.0);
        t += line;
    }
    return t;
}

} // namespace accumlab
