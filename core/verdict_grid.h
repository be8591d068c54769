// The verdict's own evidence: a seeded sample of equivalence checks over every setting a teacher
// can dial (optimizer, dtype, a rate anywhere on the slider, split, seed, labels, warmup,
// clipping) and every planted bug where it bites, each judged by the one verdict
// (core/equivalence.h). A correct loop must hold and a planted bug must fail; anything else is
// counted and named. `accumlab-cli verdict-grid` prints its table (docs/cli.md, "How the verdict is
// derived"); another seed is a hold-out grid. Not a timing: the runs' wall time is not read.
#pragma once

#include "core/observer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

struct VerdictGridConfig {
    int64_t runs = 3000;
    uint64_t seed = 1; // of the sample; another seed draws another grid
};

// One planted bug (or the correct loop), over every dtype.
struct VerdictGridRow {
    std::string bug;            // "none" for the correct loop, else the flag that plants it
    int64_t runs = 0;
    int64_t asExpected = 0;     // holds for the correct loop, fails for a planted bug
    double largestTwinDiff = 0.0;  // over the row's runs: the float64 twin's relative difference
    double smallestTwinDiff = 0.0;
};

struct VerdictGridResult {
    VerdictGridConfig config;
    std::vector<VerdictGridRow> rows;
    int64_t falseFails = 0; // a correct loop called anything but holds
    int64_t slipped = 0;    // a planted bug called anything but fails
    std::vector<std::string> misses; // each, with its settings
    // A Markdown table: bug, runs, as expected, largest and smallest twin difference.
    std::string table() const;
};

VerdictGridResult runVerdictGrid(const VerdictGridConfig &config, const CancelToken *cancel = nullptr);

} // namespace accumlab
