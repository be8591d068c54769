// Guided experiments: the lesson's five exercises, seven pitfalls that real trainers hit and
// the next chapter's resume inside a window,
// each measured live on real tensors with fixed seeds. An experiment returns named numbers,
// optional curves, and claims whose verdicts are computed from those numbers by a stated
// criterion; nothing here is a stored figure. The CLI (`accumlab-cli experiment`) and the
// desktop app call the same functions. The words (titles, summaries, claim statements,
// explanations, value labels) are data: resources/content/experiments/<id>.json, filled with
// the result's values by core/content/content.h in the reader's language and digits. Not here: any
// UI, any prose, and any claim checked against a remembered result. Plain C++ (no torch, no
// Qt): safe to include from the Qt side. Its room is core/experiments/ (catalog.cpp, the
// lesson's five; pitfalls.cpp; loss_scaling.cpp; resume.cpp; internal.h between them).
#pragma once

#include "core/config.h"
#include "core/content/content.h"
#include "core/observer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace accumlab {

class GradSync;

// A statement about the measured values and whether it holds. Its sentence is the content's
// experiments/<experiment>.json at /claims/<id> (claimStatement()).
struct ExperimentClaim {
    std::string id;
    std::string criterion;   // how `holds` is computed from the values (identifiers, not translated)
    bool holds = false;
    // Based on wall-clock timings: reported, but machine- and load-dependent; tests check
    // its structure, never its verdict.
    bool timing = false;
    // A timing claim whose measured spread (the interleaved blocks' slowest to fastest) allows
    // neither verdict; `holds` is false and the result does not count it as failed.
    bool inconclusive = false;
    // True by construction of the code that measured it (a counter read back, an identity):
    // shown with its figures, without a verdict; `holds` is true and means "observed".
    bool observation = false;

    // "holds", "does not hold", "inconclusive" or "observation".
    std::string outcome() const;
};

struct ExperimentValue {
    std::string name; // snake_case key of the JSON "values" object
    double value = 0.0;
};

// A curve, e.g. loss per effective step.
struct ExperimentSeries {
    std::string name;
    std::string xLabel;
    std::string yLabel;
    std::vector<double> x;
    std::vector<double> y;
};

// How a result's claims came out: verdicts (claims that are not observations), how many of
// them hold, how many timing claims were inconclusive, and the observations.
struct ClaimTally {
    int verdicts = 0;
    int holding = 0;
    int inconclusive = 0;
    int observations = 0;
};

// The settings of an experiment that the lab's controls can show (model, micro-batch,
// accumulation steps, optimizer and rate, scaling, the planted bug, no-sync, dtype, seed, and a
// sweep's grid). Each runner builds its configuration from these; where it compares several
// runs, they are the one run the window shows (sync-count: the largest window with a sync on
// every micro-batch), and the runner records that run as it ran it (ExperimentResult::ran).
struct ExperimentLabSettings {
    AccumConfig config;
    // A throughput sweep over accumulation steps (sweep-flattening): its grid and timed steps
    // per point; config.accumSteps is then overridden point by point. Empty: no sweep.
    std::vector<int64_t> accumGrid;
    int64_t sweepSteps = 0;
};

struct ExperimentResult {
    std::string id;
    // The run of experimentLabSettings() as the engine, the equivalence check or the
    // experiment's own loop read it back; unset for an experiment the controls cannot express.
    std::optional<ExperimentLabSettings> ran;
    // The named variant of the content's /explanation that fits this run ("one_rank"), empty
    // when the explanation is one text (explanationVariants()).
    std::string explanationVariant;
    std::vector<ExperimentValue> values;
    // Placeholders of the texts that are not numbers: code tokens ("adamw"), the same in every
    // language. Numbers are always values, so that every figure a sentence quotes is shown.
    std::map<std::string, std::string> textStrings;
    std::vector<ExperimentSeries> series;
    std::vector<ExperimentClaim> claims;

    bool holds() const; // no verdict failed (observations and inconclusive timing claims aside)
    ClaimTally tally() const;
    // The named value; throws std::out_of_range when absent.
    double value(const std::string &name) const;
    const ExperimentClaim &claim(const std::string &id) const;
    // The values and textStrings as a template's arguments.
    TextArgs textArgs() const;
};

struct ExperimentInfo {
    std::string id;         // "no-division"
    int number = 0;         // 1..12, the order in the lesson
    bool lessonExercise = false; // 1-5 come from the lesson, 6-12 are pitfalls beyond it
    LocalizedText title;
    LocalizedText summary;  // what the experiment shows, two or three sentences (a template)
    TextArgs settings;      // the experiment's settings the summary quotes ("{accum_steps}")
};

// Creates the gradient sync the engine-based experiments use (nullptr = one rank, no
// collectives). With a real process group of W ranks, every rank runs the experiment and
// the sync-count experiment counts the all-reduces actually issued through it.
using SyncFactory = std::function<std::shared_ptr<GradSync>()>;

// The most sweep steps an experiment accepts: sweep-flattening's accum_steps 1 runs 16 times as
// many, which must stay within a sweep's kMaxNumSteps.
constexpr int64_t kMaxSweepSteps = kMaxNumSteps / 16;

struct ExperimentOptions {
    bool fast = false;         // smaller runs for tests (every claim still measured)
    uint64_t seed = 7;         // seed for every model and data stream
    // sweep-flattening: timed steps at the largest accum_steps (fast: 6); a point with N runs
    // proportionally more (SweepConfig::equalWork), so its twenty timing blocks take about 50 ms
    // each at every N (the whole experiment about 7 s). With 1000 steps at every point the
    // blocks at N = 1 took about 20 ms; docs/cli.md ("Sweep") gives the verdicts' tally on an idle 2-core VM
    // (scripts/bench/flagship-stability.sh).
    int64_t sweepSteps = 500;
    int threads = 0;           // sweep-flattening: LibTorch intra-op threads, 0 = automatic (threadsFor, core/config.h)
    SyncFactory makeSync;      // sync-count: see SyncFactory
    // Tests only: run each pitfall experiment's correct arm with the pitfall it exists to catch
    // planted (variable-length, partial-window, batchnorm, clipping, lr-schedule, linear-scaling,
    // adamw-state, resume-mid-window; the experiment's own wrong arm, reused), so its claims
    // that the correct arm holds must fail. The others ignore it.
    bool plantPitfall = false;
};

// Every experiment, in the lesson's order.
const std::vector<ExperimentInfo> &experimentCatalog();
// nullptr when unknown.
const ExperimentInfo *findExperiment(const std::string &id);

// Throws ConfigError for an unknown id; Cancelled when the token is set.
ExperimentResult runExperiment(const std::string &id, const ExperimentOptions &options = {},
                               const CancelToken *cancel = nullptr);

// The settings experiment `id` runs with under `options`, as far as the lab's controls can
// express them; nothing for an experiment with a model of its own (variable-length). Throws
// ConfigError for an unknown id.
std::optional<ExperimentLabSettings> experimentLabSettings(const std::string &id, const ExperimentOptions &options = {});

// The content file of an experiment's words: "experiments/<id>.json".
std::string experimentContentPath(const std::string &id);
// The words of an experiment for one reader, filled with its figures in the reader's digits.
// Throw ContentError when the content lacks the text or a placeholder has no value.
std::string experimentTitle(const std::string &id, const NumberStyle &style = {});
std::string experimentSummary(const ExperimentInfo &info, const NumberStyle &style = {});
std::string claimStatement(const ExperimentResult &r, const ExperimentClaim &c, const NumberStyle &style = {});
// The content's /explanation, or its variant /explanation/<r.explanationVariant>.
std::string explanation(const ExperimentResult &r, const NumberStyle &style = {});
// The names of the variants of an experiment's explanation ({"one_rank": {...}, "multi_rank":
// {...}}), by name; empty when the explanation is one text.
std::vector<std::string> explanationVariants(const std::string &experimentId);
// A value's name as a reader reads it ("SGD update ratio", "samples/sec at accum_steps 4"):
// the content's /values/<name>, or a pattern with {n} standing for a trailing number
// ("samples_per_sec_accum_{n}"). Empty when the content has no label for it.
std::string valueLabel(const std::string &experimentId, const std::string &valueName, const NumberStyle &style = {});

// {"id", "title", "values": {...},
//  "claims": [{"id","statement","statement_fa","criterion","holds","timing","outcome"}],
//  "holds", "explanation", "explanation_fa", "series": [...]}
// The English and Persian texts are rendered from the content (Persian digits in Persian).
nlohmann::ordered_json toJson(const ExperimentResult &);
// A readable summary in English: title, values, each claim with its verdict, the explanation.
std::string toText(const ExperimentResult &);

} // namespace accumlab
