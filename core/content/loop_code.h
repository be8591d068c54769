// The lesson's loop as the PyTorch code a student writes, for the settings one run has: the
// correct window, or the one a planted bug gets wrong with that line marked. The lines are
// content (resources/content/code/loop.json); this picks the ones a run's settings call for,
// fills the setup lines with its optimizer, schedule and sizes, and names the engine statements
// (core/observer.h LoopStatement) that light each line. The Lab's code panel shows it, the
// skill recipe embeds it, and tests/pytorch/check_loop_code.py runs it with PyTorch on the
// engine's own model, data and seed (docs/ranks-and-checkpoints.md, "The loop in PyTorch").
// Not here: torch, Qt, the engine's run (core/training.h recordLoopRun).
#pragma once

#include "core/config.h"
#include "core/content/content.h"
#include "core/observer.h"

#include <string>
#include <vector>

namespace accumlab {

struct CodeLine {
    std::string code;                // Python, indented with spaces; never translated
    std::string note;                // its comment in the reader's language ("" for none)
    std::vector<LoopStatement> lit;  // the engine statements that light it
    bool planted = false;            // the line a planted bug gets wrong
    bool setup = false;              // a line of the set-up above the loop
};

struct LoopListing {
    std::vector<CodeLine> lines;
    std::string variant; // "correct", or the planted bug's or the scaler pitfall's name ("no-division", ...)
    // When the code cannot be the run's (float16's per-layer casts, a loss scaler with a planted
    // bug of the zoo, or a combination the loop above does not write), why, in the reader's
    // language; the lines then show the loop without what it cannot write.
    std::string caveat;
    bool shownAsRun() const { return caveat.empty(); }
};

enum class LoopForm {
    AsConfigured, // no_sync where the run has several ranks and skips their syncs
    DataParallel  // with model.no_sync() whatever the ranks (the recipe's form)
};

// The listing for `config`'s loop, its notes in `style`'s language (code always in Latin
// characters). Throws ContentError for a broken content file.
LoopListing loopListing(const AccumConfig &config, const NumberStyle &style = {}, LoopForm form = LoopForm::AsConfigured);

// The listing as Python source: each line, with its note as a comment on the line above at
// the same indent ("# once per window").
std::string loopSource(const LoopListing &listing);

// The zoo's bugs in words (resources/content/bugs.json): each one's short title (the control
// panel's list) and its one-line story (accumlab-cli --bug list), rendered for `style`. Throws
// ContentError for a bug the content lacks.
std::string bugTitle(AccumBug bug, const NumberStyle &style = {});
std::string bugStory(AccumBug bug, const NumberStyle &style = {});
// The loss scaler's pitfalls the same way (bugs.json's scaler-bugs): the control panel's list.
std::string scalerBugTitle(ScalerBug bug, const NumberStyle &style = {});
std::string scalerBugStory(ScalerBug bug, const NumberStyle &style = {});

// A number as Python writes the shortest literal that reads back as the same double ("0.05",
// "1e-08", "0.999").
std::string pythonNumber(double value);

} // namespace accumlab
