// The memory lab's results in words: the out-of-memory demo's, the trade-off sweep's and the
// micro-batch finder's sentences, one a line, in one reader's language and digits. The words
// are content (resources/content/memory_lab.json), filled by the one number formatter; the CLI
// prints the English ones and the window's Memory tab the ones in its language, so the two say
// the same thing. Not here: the runs themselves (memory_lab.h), the CLI's table of points, the
// window's bars and its estimate (ui/panels/memoryview.cpp). Plain C++, no torch.
#pragma once

#include "core/content/content.h"
#include "core/memory/memory_lab.h"

#include <string>
#include <vector>

namespace accumlab {

// The content file of these sentences.
inline constexpr const char *kMemorySentencesFile = "memory_lab.json";

// The device as the reader is told it. Empty: LibTorch's name as the result holds it ("cpu",
// "cuda:0"), as the CLI prints it; the window passes its own words ("processor (CPU)").
struct MemorySentenceWords {
    std::string device;
};

// The demo: the budget, the full batch in one pass (and its peak's parts), the accumulation,
// the one verdict and the run's own parameter difference, where the full batch's hill crosses
// the budget on the timeline, and LibTorch's own words last.
std::vector<std::string> oomDemoSentences(const OomDemoResult &r, const NumberStyle &style,
                                          const MemorySentenceWords &words = {});
// The sweep: how many points fit, the fastest that fits, the smallest point's peak in its parts,
// and what sets the peaks.
std::vector<std::string> tradeoffSentences(const TradeoffResult &r, const NumberStyle &style,
                                           const MemorySentenceWords &words = {});
// The finder: the largest micro-batch that fits and its accum_steps (or that none fits), then
// every micro-batch tried.
std::vector<std::string> finderSentences(const MicroBatchFinding &f, const NumberStyle &style);

} // namespace accumlab
