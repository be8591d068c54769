// The lesson's main job, shared by the CLI and the desktop app's headless fallback:
// equivalence check, throughput sweep, both exports.
#pragma once

#include "core/equivalence.h"
#include "core/content/skill.h"
#include "core/sweep.h"

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

namespace accumlab {

extern const char *const kCurveFileName; // "accum-curve.json"
extern const char *const kSkillFileName; // "skill-gradient-accumulation.md"

struct LessonOptions {
    SweepConfig sweep; // the run: the check judges its settings (lessonCheck)
    bool write = true;
    std::filesystem::path outDir = "outputs";
    std::string language = "en"; // of the skill recipe, a code of languages.json; JSON keys stay English
    // This rank's process group when sweep.base.worldSize > 1 (joinProcessGroup); only rank 0
    // writes the exports.
    std::shared_ptr<GradSync> sync;
};

// The table the lesson prints: eff_batch accum micro sps median_ms syncs loss, then logged
// (the loss as the lesson's loop logs it, scaled x accum_steps).
std::string sweepTable(const SweepResult &sweep);

// The main job's equivalence check: the sweep's own settings (its model, optimizer, rate,
// dtype, device, seed, ranks and every planted bug) at its micro-batch and the grid's largest
// accum_steps, where a planted bug bites if it can.
EquivalenceConfig lessonCheck(const SweepConfig &sweep);

// The main job over `world` ranks: the sweep's effective batch becomes micro x accum x world,
// and its check (lessonCheck) splits the same windows over the ranks. Throws ConfigError when
// the sweep or its check does not fit that many ranks.
void setWorld(LessonOptions &options, int64_t world);

// Throws ConfigError when `dir` cannot be created or written (checked before any work runs).
void requireWritableDir(const std::filesystem::path &dir);

struct ExportPaths {
    std::filesystem::path curve;
    std::filesystem::path skill;
};
// Writes accum-curve.json and skill-gradient-accumulation.md atomically, both or neither.
// Throws ExportError when a file cannot be written, Cancelled when `cancel` is set before
// they are published; either way the destinations keep their earlier content.
ExportPaths writeExports(const std::filesystem::path &outDir, const SweepResult &sweep,
                         const EquivalenceResult &equivalence, const std::string &language = "en",
                         const CancelToken *cancel = nullptr);

// The exit codes of the programs that run the main job (accumlab-cli, and the window's
// terminal fallback): one table for both. A rank that failed or was lost is
// kExitDistributed (core/distributed/distributed.h).
constexpr int kExitFails = 1;       // equivalence does not hold for a loop with no planted bug
                                    // (nothing is swept or written): a defect
constexpr int kExitBugShown = 6;    // a planted bug was shown: the check failed as planted, the
                                    // sweep ran with the bug and the exports say so
constexpr int kExitBugNoEffect = 7; // a planted bug had no effect with these settings (the
                                    // sentence says why); the sweep ran and the exports say so
constexpr int kExitBadInput = 2;    // a setting or flag refused in words
constexpr int kExitWriteFailed = 4; // an export could not be written; earlier ones were kept
constexpr int kExitDiverged = 5;    // `train` diverged or never stepped (core/divergence.h)

// A verdict the program already explained on stderr (kExitFails, kExitDiverged, kExitBugShown,
// kExitBugNoEffect), as opposed to a failure of the program or its ranks.
constexpr bool isVerdictExitCode(int code)
{
    return code == kExitFails || code == kExitDiverged || code == kExitBugShown || code == kExitBugNoEffect;
}
// The main job ran its sweep and wrote its exports: 0, or a planted bug's code.
constexpr bool sweptExitCode(int code) { return code == 0 || code == kExitBugShown || code == kExitBugNoEffect; }

// Runs the whole lesson, printing as the lesson's script does. Returns the exit code:
// 0 when everything ran and the loop is equivalent; kExitFails when a loop with no planted bug
// is not (nothing is swept or written); kExitBugShown or kExitBugNoEffect when the settings
// plant a bug (the check's verdict and its figures on `err`, then the sweep and the exports).
// A diverged sweep point is a finding, not a failure: one warning line on `err` per point.
// `cancel` is honoured in every phase (observer->onPhase names them): Cancelled is thrown and
// no export is left half-written.
int runLesson(const LessonOptions &options, std::ostream &out, std::ostream &err,
              EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr);

// The `equivalence` command's verdict line on `err` and its exit code: 0 when it holds,
// kExitFails when it does not (a planted bug shown, or a defect), kExitBugNoEffect when a
// planted bug changed nothing here (the sentence says why).
int reportEquivalence(const EquivalenceResult &r, std::ostream &err);

// runLesson as a program's main job: a refusal is one line on `err`, "<program>: error: ...",
// and the exit code of the table above (a DistributedError: kExitDistributed).
int runLessonJob(const LessonOptions &options, const std::string &program, std::ostream &out, std::ostream &err);

} // namespace accumlab
