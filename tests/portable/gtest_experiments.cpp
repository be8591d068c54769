// The guided experiments: every claim's verdict from a fresh run with fixed seeds, the
// catalog, the JSON and text forms, the sync-count hook for more than one rank, cancellation.
#include "core/experiments/experiments.h"
#include "core/experiments/internal.h"
#include "core/distributed/grad_sync.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// The statements true by the way they are measured: shown as observations, never with a mark.
const std::set<std::string> &observations()
{
    static const std::set<std::string> ids{"one-sync-per-step", "micro-batches-k-times-n", "counter-matches-issued",
                                           "divide-by-n-under-weights"};
    return ids;
}

ExperimentOptions fastOptions()
{
    ExperimentOptions o;
    o.fast = true;
    return o;
}

std::string describe(const ExperimentResult &r) { return toText(r); }

// UTF-8 text as code points in a wide string (wchar_t holds a whole code point on the
// platforms core builds on), an invalid sequence read as U+FFFD, as the window reads it.
std::wstring wideFromUtf8(const std::string &text)
{
    const std::u32string points = test::codePoints(text);
    return {points.begin(), points.end()};
}

// QString::trimmed().isEmpty(): nothing but white space (QChar::isSpace).
bool blank(const std::wstring &text)
{
    return std::all_of(text.begin(), text.end(), [](wchar_t c) {
        return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
               (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
               c == 0x3000;
    });
}

// The numbers a text states, in order of appearance ("2x8" gives 2 and 8, "1e-4" one number).
std::vector<std::string> numbersIn(const std::string &text)
{
    static const std::regex number("[0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
        out.push_back(it->str());
    std::sort(out.begin(), out.end());
    return out;
}

// The Persian text of a claim or an explanation, rendered from the content: present, written
// in Persian script (not a copy of the English), its figures in Persian digits, and, rendered
// with the Latin-digits setting, stating the same figures as the English.
void verifyPersian(const std::string &en, const std::string &fa, const std::string &faLatin, const std::string &what)
{
    const std::wstring f = wideFromUtf8(fa);
    EXPECT_FALSE(blank(f)) << what << ": no Persian text";
    static const std::wregex persianWord(L"[\u0600-\u06FF]{3}");
    EXPECT_TRUE(std::regex_search(f, persianWord)) << what << ": the Persian text has no Persian words: " << fa;
    // A Latin digit in Persian text is one the Persian-digits setting did not reach, unless it
    // belongs to an identifier (float32, 2x8 in code). (std::regex has no look-behind: the
    // digits' left neighbour, when there is one, is matched as a character that is not one.)
    static const std::wregex latinDigits(L"(^|[^A-Za-z_0-9])[0-9]+(?![A-Za-z_0-9])");
    EXPECT_FALSE(std::regex_search(f, latinDigits)) << what << ": Latin digits in the Persian text: " << fa;
    EXPECT_EQ(numbersIn(faLatin), numbersIn(en)) << what;
}

// "%.17g": a rate that reads back as the same double.
std::string exactDouble(double v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The settings the lab's controls show, field by field ("dtype=bfloat16"), so that a difference
// names its field.
std::vector<std::string> fieldsOf(const ExperimentLabSettings &s)
{
    const AccumConfig &c = s.config;
    const ModelShape w = c.modelShape();
    std::string grid;
    for (int64_t a : s.accumGrid)
        grid += (grid.empty() ? "" : ",") + std::to_string(a);
    return {"model=" + toString(c.preset),
            "widths=" + std::to_string(w.inFeatures) + "," + std::to_string(w.hidden) + "," +
                std::to_string(w.classes),
            "micro_batch=" + std::to_string(c.microBatch),
            "accum_steps=" + std::to_string(c.accumSteps),
            "optimizer=" + toString(c.optimizer.kind),
            "lr=" + exactDouble(c.optimizer.lr),
            "scaling=" + toString(c.scaling),
            "step_every_micro=" + std::to_string(int(c.stepEveryMicro)),
            "bug=" + toString(c.bug),
            "no_sync=" + std::to_string(int(c.noSync)),
            "dtype=" + toString(c.dtype),
            "seed=" + std::to_string(c.seed),
            "accum_grid=" + grid,
            "sweep_steps=" + std::to_string(s.sweepSteps)};
}

// "a|b" -> {"a", "b"}.
std::vector<std::string> splitAt(const std::string &text, char sep)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t end; (end = text.find(sep, start)) != std::string::npos; start = end + 1)
        parts.push_back(text.substr(start, end - start));
    parts.push_back(text.substr(start));
    return parts;
}

// A two-rank stand-in for a process group: it reports rank 0 of 2 and leaves the buffer as
// it is, so the engine shards the data as on a real rank and every sync call is observable.
class TwoRankSync final : public GradSync {
public:
    int64_t worldSize() const override { return 2; }
    int64_t rank() const override { return 0; }
    void allReduceMean(torch::Tensor &) override { ++calls; }
    int64_t calls = 0;
};

} // namespace

TEST(Experiments, CatalogListsTheExperiments)
{
    const std::vector<std::string> expected{"sweep-flattening", "no-division",     "adamw-state",    "sync-count",
                                            "split-tolerance",  "variable-length", "partial-window", "batchnorm",
                                            "clipping",         "lr-schedule",     "linear-scaling", "loss-scaling",
                                            "resume-mid-window"};
    const auto &catalog = experimentCatalog();
    ASSERT_EQ(catalog.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto &info = catalog[i];
        EXPECT_EQ(info.id, expected[i]);
        EXPECT_EQ(info.number, int(i) + 1);
        EXPECT_EQ(info.lessonExercise, i < 5);
        for (const char *lang : {"en", "fa"}) {
            EXPECT_FALSE(experimentTitle(info.id, {lang, false}).empty()) << info.id << " " << lang;
            EXPECT_FALSE(experimentSummary(info, {lang, false}).empty()) << info.id << " " << lang;
        }
        EXPECT_EQ(findExperiment(info.id), &info);
    }
    EXPECT_EQ(findExperiment("no-such-experiment"), nullptr);
}

namespace {

struct VerdictRow {
    const char *name;
    std::string id;
    std::vector<std::string> claims;
};

const std::vector<VerdictRow> &verdictRows()
{
    static const std::vector<VerdictRow> rows{
        {"sweep-flattening", "sweep-flattening", {"follows-the-model", "one-sync-per-step", "points-complete"}},
        {"no-division",
         "no-division",
         {"sgd-update-n-times", "adamw-update-about-one", "grad-norm-n-times", "logged-loss-n-times",
          "division-restores"}},
        {"adamw-state",
         "adamw-state",
         {"state-step-is-k", "micro-batches-k-times-n", "every-micro-counts-k-times-n", "right-matches-full-batch",
          "every-micro-lands-away"}},
        {"sync-count", "sync-count", {"no-sync-on-one-per-step", "no-sync-off-one-per-micro", "counter-matches-issued"}},
        {"split-tolerance",
         "split-tolerance",
         {"float32-few-ulps", "float32-fixed-holds", "bfloat16-fixed-fails", "float32-verdict-holds",
          "bfloat16-verdict-holds"}},
        {"variable-length", "variable-length", {"mean-over-n-differs", "window-tokens-match"}},
        {"partial-window",
         "partial-window",
         {"divide-by-n-under-weights", "weight-by-samples-exact", "ragged-micro-count-wrong",
          "ragged-weight-by-samples-exact"}},
        {"batchnorm", "batchnorm", {"batchnorm-breaks", "layernorm-keeps"}},
        {"clipping", "clipping", {"clipping-active", "clip-each-micro-differs", "clip-once-matches"}},
        {"lr-schedule",
         "lr-schedule",
         {"per-micro-ends-n-times-early", "per-step-matches-full-batch", "per-micro-drifts"}},
        {"linear-scaling", "linear-scaling", {"scaled-beats-unscaled", "scaled-tracks-small-batch", "all-runs-learn"}},
        {"loss-scaling",
         "loss-scaling",
         {"loss-over-n-underflows", "scaler-keeps-gradients", "scaled-within-float16-bound", "overflow-skips-window",
          "skip-overflowed-micro-steps", "skip-overflowed-micro-harms", "unscale-every-micro-raises",
          "update-every-micro-raises",
          "logged-scaled-loss-scale-times"}},
        {"resume-mid-window",
         "resume-mid-window",
         {"mid-window-identical", "window-end-identical", "without-buffers-drifts", "restarted-count-drifts",
          "without-optimizer-state-drifts"}},
    };
    return rows;
}

} // namespace

// Every claim that does not depend on wall-clock timings holds; timing claims are present,
// stated and marked. The claim ids are listed so that an experiment cannot pass by
// reporting no claims.
class Verdicts : public testing::TestWithParam<VerdictRow> {};

TEST_P(Verdicts, Row)
{
    const std::string &id = GetParam().id;
    const std::vector<std::string> &claims = GetParam().claims;
    const ExperimentResult r = runExperiment(id, fastOptions());
    EXPECT_EQ(r.id, id);
    const NumberStyle en{"en", false}, fa{"fa", false}, faLatin{"fa", true};
    EXPECT_FALSE(explanation(r, en).empty());
    std::vector<std::string> got;
    for (const auto &c : r.claims)
        got.push_back(c.id);
    EXPECT_EQ(got, claims);
    bool all = true;
    // Every variant of the explanation renders in every language with this run's figures; the
    // run picks one of them, or none when the explanation is one text.
    const std::vector<std::string> variants = explanationVariants(r.id);
    if (variants.empty()) {
        EXPECT_TRUE(r.explanationVariant.empty());
    } else {
        EXPECT_EQ(std::count(variants.begin(), variants.end(), r.explanationVariant), 1)
            << id << ": the run picks no variant of the explanation";
    }
    for (const std::string &variant : variants.empty() ? std::vector<std::string>{""} : variants) {
        ExperimentResult shown = r;
        shown.explanationVariant = variant;
        verifyPersian(explanation(shown, en), explanation(shown, fa), explanation(shown, faLatin),
                      id + " explanation " + variant);
    }
    // Every value is labelled in the reader's words in every language, its code spans
    // rendered (no backtick reaches the table) and its Persian free of English prose.
    for (const auto &v : r.values) {
        for (const auto *style : {&en, &fa}) {
            const std::string label = valueLabel(r.id, v.name, *style);
            EXPECT_FALSE(label.empty()) << id << ": no " << style->language << " label for " << v.name;
            EXPECT_TRUE(label.find('`') == std::string::npos) << id << ": a backtick shows in the label of " << v.name;
        }
        verifyPersian(valueLabel(r.id, v.name, en), valueLabel(r.id, v.name, fa), valueLabel(r.id, v.name, faLatin),
                      id + " value " + v.name);
    }
    for (const auto &c : r.claims) {
        EXPECT_TRUE(!claimStatement(r, c, en).empty() && !c.criterion.empty()) << c.id;
        verifyPersian(claimStatement(r, c, en), claimStatement(r, c, fa), claimStatement(r, c, faLatin),
                      id + "/" + c.id);
        all = all && (c.holds || c.inconclusive || c.observation);
        if (!c.timing) {
            EXPECT_TRUE(c.holds) << "claim " << c.id << " does not hold:\n" << describe(r);
        }
        // Only timing claims may be inconclusive; only the statements true by the way they
        // are measured are observations, shown without a verdict.
        EXPECT_TRUE(!c.inconclusive || c.timing) << c.id;
        EXPECT_EQ(c.observation, observations().count(c.id) == 1) << c.id;
        EXPECT_EQ(c.outcome(), c.observation    ? "observation"
                               : c.inconclusive ? "inconclusive"
                               : c.holds        ? "holds"
                                                : "does not hold");
    }
    EXPECT_EQ(r.holds(), all);
    std::set<std::string> names;
    for (const auto &v : r.values) {
        EXPECT_TRUE(std::isfinite(v.value)) << v.name;
        EXPECT_TRUE(names.insert(v.name).second) << v.name;
    }
    for (const auto &s : r.series) {
        EXPECT_EQ(s.x.size(), s.y.size()) << s.name;
        EXPECT_FALSE(s.x.empty()) << s.name;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, Verdicts, testing::ValuesIn(verdictRows()), test::ByName());

namespace {

struct StatedRow {
    const char *name;
    std::string id;
    std::string accumValue;
    std::string microValue;
    std::string lrValue;
    std::string stepsValue;
};

const std::vector<StatedRow> &statedRows()
{
    static const std::vector<StatedRow> rows{
        {"sweep-flattening", "sweep-flattening", "", "micro_batch", "", "steps_at_largest_accum"},
        {"no-division", "no-division", "accum_steps", "", "", ""},
        {"adamw-state", "adamw-state", "window_accum_steps", "", "", ""},
        {"sync-count", "sync-count", "largest_accum_steps", "", "", ""},
        {"split-tolerance", "split-tolerance", "", "", "", ""},
        {"variable-length", "variable-length", "", "", "", ""},
        {"partial-window", "partial-window", "accum_steps", "", "", ""},
        {"batchnorm", "batchnorm", "accum_steps", "", "", ""},
        {"clipping", "clipping", "accum_steps", "", "", ""},
        {"lr-schedule", "lr-schedule", "accum_steps", "", "peak_lr", ""},
        {"linear-scaling", "linear-scaling", "accum_steps", "micro_batch", "scaled_lr", ""},
        {"loss-scaling", "loss-scaling", "accum_steps", "micro_batch", "", ""},
        {"resume-mid-window", "resume-mid-window", "accum_steps", "", "", ""},
    };
    return rows;
}

} // namespace

// Core states each experiment's settings once (experimentLabSettings), the window shows
// them, and the runner records the run they describe as the engine, the equivalence check
// or its own loop read it back: the two must agree field by field. Figures the result
// reports itself (named in the table, "" for none) must agree with the stated ones too.
class StatedSettingsAreTheOnesRun : public testing::TestWithParam<StatedRow> {};

TEST_P(StatedSettingsAreTheOnesRun, Row)
{
    const StatedRow &row = GetParam();
    const ExperimentOptions options = fastOptions();
    const std::optional<ExperimentLabSettings> stated = experimentLabSettings(row.id, options);
    const ExperimentResult r = runExperiment(row.id, options);
    ASSERT_EQ(r.ran.has_value(), stated.has_value());
    if (!stated) {
        EXPECT_EQ(row.id, "variable-length"); // a token model of its own
        return;
    }
    EXPECT_EQ(fieldsOf(*r.ran), fieldsOf(*stated));
    EXPECT_EQ(stated->config.seed, options.seed);
    if (!row.accumValue.empty()) {
        EXPECT_DOUBLE_EQ(r.value(row.accumValue), double(stated->config.accumSteps));
    }
    if (!row.microValue.empty()) {
        EXPECT_DOUBLE_EQ(r.value(row.microValue), double(stated->config.microBatch));
    }
    if (!row.lrValue.empty()) {
        EXPECT_DOUBLE_EQ(r.value(row.lrValue), stated->config.optimizer.lr);
    }
    if (!row.stepsValue.empty()) {
        EXPECT_DOUBLE_EQ(r.value(row.stepsValue), double(stated->sweepSteps));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, StatedSettingsAreTheOnesRun, testing::ValuesIn(statedRows()), test::ByName());

namespace {

struct PlantRow {
    const char *name;
    int plant;
    std::string claim; // the verdict the plant exists to fail ("|": and another)
};

const std::vector<PlantRow> &plantRows()
{
    static const std::vector<PlantRow> rows{
        // Without float16 rounding nothing underflows, so the scaler has nothing to keep either.
        {"float32 where float16 should round", 0, "loss-over-n-underflows|scaler-keeps-gradients"},
        // Without the scaler the unscaled difference can stay under the float16 bound; the elements
        // float16 zeroed cannot.
        {"the scaler off in the scaled run", 1, "scaler-keeps-gradients|scaled-within-float16-bound"},
        {"no loss / N in the scaled run", 2, "scaled-within-float16-bound"},
        {"only the overflowed micro-batch skipped", 3, "overflow-skips-window"},
        {"the harm's windows without the pitfall", 4, "skip-overflowed-micro-harms"},
        {"the pitfall run without its pitfall", 5, "skip-overflowed-micro-steps"},
        {"no double-unscale check", 6, "unscale-every-micro-raises"},
        {"update once per window in the pitfall run", 7, "update-every-micro-raises"},
        {"the raw loss in the pitfall's log", 8, "logged-scaled-loss-scale-times"},
    };
    return rows;
}

} // namespace

// Each loss-scaling verdict fails when the run it judges is replaced by the wrong one it exists
// to catch; the others still hold.
class LossScalingVerdictsFailOnPlantedRuns : public testing::TestWithParam<PlantRow> {};

TEST_P(LossScalingVerdictsFailOnPlantedRuns, Row)
{
    const PlantRow &row = GetParam();
    experiments::LossScalingRuns runs;
    switch (row.plant) {
    case 0: runs.unscaledDtype = DType::Float32; break;
    case 1: runs.scaledRunScaler = false; break;
    case 2: runs.scaledRunScaling = Scaling::None; break;
    case 3: runs.skipRunBug = ScalerBug::SkipOverflowedMicro; break;
    case 4: runs.harmRunBug = ScalerBug::None; break;
    case 5: runs.droppedRunBug = ScalerBug::None; break;
    case 6: runs.doubleUnscaleRunBug = ScalerBug::None; break;
    case 7: runs.updateRunBug = ScalerBug::None; break;
    case 8: runs.logRunBug = ScalerBug::None; break;
    }
    ExperimentResult r = experiments::lossScalingWith(fastOptions(), nullptr, runs);
    r.id = "loss-scaling";
    const std::vector<std::string> plantedClaims = splitAt(row.claim, '|');
    for (const auto &c : r.claims) {
        const bool planted = std::count(plantedClaims.begin(), plantedClaims.end(), c.id) > 0;
        EXPECT_TRUE(c.holds != planted) << c.id << " " << (planted ? "holds" : "fails") << " under the plant:\n"
                                        << describe(r);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, LossScalingVerdictsFailOnPlantedRuns, testing::ValuesIn(plantRows()),
                         test::ByName());

namespace {

struct PitfallRow {
    const char *name;
    std::string id;
    std::string claim;
};

const std::vector<PitfallRow> &pitfallRows()
{
    static const std::vector<PitfallRow> rows{
        // Each micro-batch's per-token mean divided by N instead of the window's token count.
        {"variable-length: mean over N", "variable-length", "window-tokens-match"},
        // The short window divided by N; the ragged one by the micro-batches seen.
        {"partial-window: divide by N", "partial-window", "weight-by-samples-exact"},
        {"partial-window: divide by the micro-batches seen", "partial-window", "ragged-weight-by-samples-exact"},
        // BatchNorm where the arm should have LayerNorm.
        {"batchnorm: BatchNorm kept", "batchnorm", "layernorm-keeps"},
        {"clipping: clip each micro-batch", "clipping", "clip-once-matches"},
        // scheduler.step() in the micro-batch loop: the warmup ends N times early and drifts.
        {"lr-schedule: warmup length", "lr-schedule", "per-micro-ends-n-times-early"},
        {"lr-schedule: schedule every micro-batch", "lr-schedule", "per-step-matches-full-batch"},
        // The 4x batch at the small batch's rate.
        {"linear-scaling: rate not scaled, beats", "linear-scaling", "scaled-beats-unscaled"},
        {"linear-scaling: rate not scaled, tracks", "linear-scaling", "scaled-tracks-small-batch"},
        // step() on every micro-batch.
        {"adamw-state: state step", "adamw-state", "state-step-is-k"},
        {"adamw-state: equivalence", "adamw-state", "right-matches-full-batch"},
        // Resumed without the window's partial buffers; at a window's end, without the optimizer's state.
        {"resume-mid-window: buffers dropped", "resume-mid-window", "mid-window-identical"},
        {"resume-mid-window: optimizer state dropped", "resume-mid-window", "window-end-identical"},
    };
    return rows;
}

} // namespace

// Each pitfall experiment's claim that its correct arm holds fails when that arm runs with
// the pitfall the experiment exists to catch (ExperimentOptions::plantPitfall: the
// experiment's own wrong arm, reused): a verdict that does not hold, neither an
// observation nor inconclusive.
class PitfallClaimsFailWithThePitfallPlanted : public testing::TestWithParam<PitfallRow> {};

TEST_P(PitfallClaimsFailWithThePitfallPlanted, Row)
{
    const PitfallRow &row = GetParam();
    // One planted run per experiment, shared by its rows (when they run in one process).
    static std::map<std::string, ExperimentResult> runs;
    if (!runs.count(row.id)) {
        ExperimentOptions o = fastOptions();
        o.plantPitfall = true;
        runs.emplace(row.id, runExperiment(row.id, o));
    }
    const ExperimentResult &r = runs.at(row.id);
    const ExperimentClaim &c = r.claim(row.claim);
    EXPECT_FALSE(c.observation);
    EXPECT_FALSE(c.inconclusive);
    EXPECT_FALSE(c.holds) << row.claim << " holds with the pitfall planted:\n" << describe(r);
    EXPECT_EQ(c.outcome(), "does not hold");
    EXPECT_FALSE(r.holds());
}

INSTANTIATE_TEST_SUITE_P(Rows, PitfallClaimsFailWithThePitfallPlanted, testing::ValuesIn(pitfallRows()),
                         test::ByName());

TEST(Experiments, LabSettingsFollowTheOptions)
{
    ExperimentOptions o;
    o.seed = 11;
    o.sweepSteps = 40;
    const auto sweep = experimentLabSettings("sweep-flattening", o);
    ASSERT_TRUE(sweep.has_value());
    EXPECT_EQ(sweep->config.seed, uint64_t{11});
    EXPECT_EQ(sweep->sweepSteps, int64_t{40});
    o.fast = true;
    EXPECT_EQ(experimentLabSettings("sweep-flattening", o).value().sweepSteps, int64_t{6});
    EXPECT_FALSE(experimentLabSettings("variable-length", o).has_value());
    EXPECT_THROW(experimentLabSettings("no-such-experiment", o), ConfigError);
}

// The sync-count explanation is chosen by world size: the one-rank sentence with one rank,
// the multi-rank one with several. A missing or unknown variant is a content error, never
// a silent pick.
TEST(Experiments, SyncCountExplanationFollowsTheWorldSize)
{
    const auto one = runExperiment("sync-count", fastOptions());
    EXPECT_EQ(one.explanationVariant, "one_rank");
    ExperimentOptions o = fastOptions();
    o.makeSync = [] { return std::make_shared<TwoRankSync>(); };
    const auto two = runExperiment("sync-count", o);
    EXPECT_EQ(two.explanationVariant, "multi_rank");
    EXPECT_NE(explanation(one), explanation(two));
    ExperimentResult shown = one;
    shown.explanationVariant.clear();
    EXPECT_THROW(explanation(shown), ContentError);
    shown.explanationVariant = "no-such-variant";
    EXPECT_THROW(explanation(shown), ContentError);
    EXPECT_EQ(explanationVariants("sync-count"), (std::vector<std::string>{"multi_rank", "one_rank"}));
    EXPECT_TRUE(explanationVariants("no-division").empty());
}

namespace {

struct JudgedRow {
    const char *name;
    double tMicro;  // ms
    double tWindow; // ms
    int offPoint;   // the point whose speed is planted off (-1: none)
    double offset;
    double spread;
    double slowdown;
    std::string outcome;
};

const std::vector<JudgedRow> &judgedRows()
{
    static const std::vector<JudgedRow> rows{
        {"a slow window: rises, as the costs say", 0.2, 0.6, -1, 0.0, 0.01, 1.0, "holds"},
        {"a fast window: flat, as the costs say", 0.2, 0.02, -1, 0.0, 0.01, 1.0, "holds"},
        {"planted: accum 1 runs 40% faster", 0.2, 0.6, 0, 0.4, 0.01, 1.0, "does not hold"},
        {"planted: accum 16 runs 40% slower", 0.2, 0.02, 4, -0.4, 0.01, 1.0, "does not hold"},
        {"noise as wide as the error", 0.2, 0.6, 0, 0.25, 0.5, 1.0, "inconclusive"},
        {"a machine slowing in two rounds", 0.2, 0.02, -1, 0.0, 0.01, 1.8, "holds"},
        {"planted: accum 16 40% slower on a slowing machine", 0.2, 0.02, 4, -0.4, 0.01, 1.8, "does not hold"},
    };
    return rows;
}

} // namespace

// The flagship's model verdict, judged against planted timings: blocks whose measured
// costs (t_micro, t_window) predict their samples/sec hold; a point that runs at another
// speed than its costs say fails; noise as wide as the error is inconclusive. Per point
// the blocks are m * (1 + d * spread), d over -1..1, m = the model's figure times
// (1 + offset) at the planted point. A machine that slows `slowdown` times in rounds 2 and
// 4 slows those rounds' costs and samples/sec alike: each block is judged against its own
// round's costs, so that holds (a median against a median saw two wide spreads).
class SweepFlatteningJudgedAgainstTheModel : public testing::TestWithParam<JudgedRow> {};

TEST_P(SweepFlatteningJudgedAgainstTheModel, Row)
{
    const JudgedRow &row = GetParam();
    const double tMicro = row.tMicro, tWindow = row.tWindow;
    SweepResult sweep;
    sweep.config.numSteps = 5;
    sweep.config.repeats = 5;
    sweep.config.base.microBatch = 4;
    for (int i = 0; i < 5; ++i) {
        SweepPoint p;
        p.accumSteps = int64_t(1) << i;
        p.microBatch = 4;
        p.effectiveBatch = 4 * p.accumSteps;
        p.steps = 5;
        p.syncCalls = 5;
        const double n = static_cast<double>(p.accumSteps);
        const double m = 1000.0 * n * 4.0 / (n * tMicro + tWindow) * (i == row.offPoint ? 1.0 + row.offset : 1.0);
        int round = 0;
        for (double d : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
            const double slow = round++ % 2 == 1 ? row.slowdown : 1.0;
            p.blockSamplesPerSec.push_back(m * (1.0 + d * row.spread) / slow);
            p.blockMicroMs.push_back(tMicro * slow);
            p.blockWindowMs.push_back(tWindow * slow);
        }
        p.samplesPerSec = m;
        sweep.points.push_back(p);
    }
    const ExperimentResult r = experiments::judgeSweepFlattening(sweep);
    EXPECT_EQ(r.claim("follows-the-model").outcome(), row.outcome);
    EXPECT_DOUBLE_EQ(r.value("t_micro_ms"), tMicro);
    EXPECT_DOUBLE_EQ(r.value("t_window_ms"), tWindow);
    EXPECT_TRUE(test::relNear(r.value("plateau_model_samples_per_sec"), 4000.0 / tMicro, 1e-12));
    EXPECT_TRUE(test::relNear(r.value("window_share_at_1"), tWindow / (tMicro + tWindow), 1e-12));
    EXPECT_TRUE(test::relNear(r.value("predicted_samples_per_sec_accum_16"), 1000.0 * 64.0 / (16.0 * tMicro + tWindow),
                              1e-12));
    // The prediction is drawn beside the measured points.
    ASSERT_EQ(r.series.size(), size_t(3));
    EXPECT_EQ(r.series[1].name, "predicted_samples_per_sec");
    EXPECT_EQ(r.series[1].yLabel, r.series[0].yLabel);
    // An inconclusive claim is not a failure; a failed one is.
    EXPECT_EQ(r.holds(), row.outcome != "does not hold");
}

INSTANTIATE_TEST_SUITE_P(Rows, SweepFlatteningJudgedAgainstTheModel, testing::ValuesIn(judgedRows()),
                         test::ByName());

// Only the sweep's claims read clocks; every other verdict is a function of tensors alone.
TEST(Experiments, OnlyTheSweepHasTimingClaims)
{
    for (const auto &info : experimentCatalog()) {
        if (info.id == "sweep-flattening")
            continue;
        const auto r = runExperiment(info.id, fastOptions());
        for (const auto &c : r.claims)
            EXPECT_FALSE(c.timing) << c.id;
    }
}

// The headline numbers, read back against the arithmetic the lesson states.
TEST(Experiments, NoDivisionRatios)
{
    const auto r = runExperiment("no-division", fastOptions());
    const double n = r.value("accum_steps");
    EXPECT_DOUBLE_EQ(n, 4.0);
    EXPECT_TRUE(test::relNear(r.value("sgd_update_ratio"), n, 1e-4));
    EXPECT_TRUE(test::relNear(r.value("adamw_update_ratio"), 1.0, 1e-4));
    EXPECT_TRUE(test::relNear(r.value("logged_loss_undivided"), n * r.value("true_mean_loss"), 1e-5));
    EXPECT_TRUE(test::relNear(r.value("logged_loss_divided"), r.value("true_mean_loss"), 1e-5));
}

TEST(Experiments, SweepPointsShareOfPlateau)
{
    const auto r = runExperiment("sweep-flattening", fastOptions());
    for (int a : {1, 2, 4, 8, 16}) {
        const std::string at = "_accum_" + std::to_string(a);
        SCOPED_TRACE(at);
        const double share = r.value("share_of_plateau" + at);
        EXPECT_TRUE(share > 0.0 && share <= 1.0) << share;
        EXPECT_TRUE(r.value("share_of_plateau_q25" + at) <= share && share <= r.value("share_of_plateau_q75" + at));
        // Equal work: every point timed the same micro-batches, one sync per step.
        EXPECT_DOUBLE_EQ(r.value("timed_steps" + at), r.value("steps_at_largest_accum") * 16 / a);
        EXPECT_DOUBLE_EQ(r.value("sync_calls" + at), r.value("timed_steps" + at));
        // Each point's costs were measured, and its prediction follows from the pooled ones.
        EXPECT_TRUE(r.value("t_micro_ms" + at) > 0.0 && r.value("t_window_ms" + at) > 0.0);
        EXPECT_TRUE(test::relNear(r.value("predicted_samples_per_sec" + at),
                                  1000.0 * a * 4.0 / (a * r.value("t_micro_ms") + r.value("t_window_ms")), 0.2));
    }
    ASSERT_EQ(r.series.size(), size_t(3)); // measured, predicted, share of the plateau
    EXPECT_EQ(r.series[0].x, (std::vector<double>{4, 8, 16, 32, 64}));
    EXPECT_EQ(r.series[1].x, r.series[0].x);
}

TEST(Experiments, SplitToleranceUlps)
{
    const auto r = runExperiment("split-tolerance", fastOptions());
    // One ulp of max|g| in float32 is 2^(floor(log2 max|g|) - 23).
    const double m = r.value("float32_max_abs_grad");
    EXPECT_DOUBLE_EQ(r.value("float32_ulp_of_max_abs_grad"), std::ldexp(1.0, std::ilogb(m) - 23));
    EXPECT_GT(r.value("bfloat16_max_grad_diff_vs_full"), r.value("fixed_tolerance"));
    EXPECT_LT(r.value("float32_max_grad_diff_vs_full"), r.value("fixed_tolerance"));
}

TEST(Experiments, LrScheduleWarmupLengths)
{
    const auto r = runExperiment("lr-schedule", fastOptions());
    const double w = r.value("warmup_steps"), n = r.value("accum_steps");
    EXPECT_DOUBLE_EQ(r.value("warmup_done_at_step_full_batch"), w);
    EXPECT_DOUBLE_EQ(r.value("warmup_done_at_step_per_effective_step"), w);
    EXPECT_DOUBLE_EQ(r.value("warmup_done_at_step_per_micro_batch"), w / n);
    ASSERT_EQ(r.series.size(), size_t(3));
    // Per effective step the schedule is the full-batch one, rate for rate.
    EXPECT_EQ(r.series[1].y, r.series[0].y);
    EXPECT_NE(r.series[2].y, r.series[0].y);
}

TEST(Experiments, LinearScalingCurvesShareTheSampleAxis)
{
    const auto r = runExperiment("linear-scaling", fastOptions());
    ASSERT_EQ(r.series.size(), size_t(3));
    EXPECT_EQ(r.series[0].x, r.series[1].x);
    EXPECT_EQ(r.series[1].x, r.series[2].x);
    ASSERT_FALSE(r.series[0].x.empty() || r.series[0].y.empty() || r.series[1].y.empty() || r.series[2].y.empty());
    EXPECT_DOUBLE_EQ(r.series[0].x.back(), r.value("samples_seen"));
    EXPECT_DOUBLE_EQ(r.series[1].y.back(), r.value("final_eval_loss_scaled_lr"));
    EXPECT_DOUBLE_EQ(r.series[2].y.back(), r.value("final_eval_loss_unscaled_lr"));
    EXPECT_DOUBLE_EQ(r.series[0].y.front(), r.series[1].y.front()); // one seed, one starting model
}

// The hook for real ranks: sync-count takes its gradient sync from a factory and counts
// the calls that reach it; with two ranks the counts are per rank and unchanged.
TEST(Experiments, SyncCountWithTwoRanks)
{
    std::vector<std::shared_ptr<TwoRankSync>> made;
    ExperimentOptions o = fastOptions();
    o.makeSync = [&made] {
        made.push_back(std::make_shared<TwoRankSync>());
        return made.back();
    };
    const auto r = runExperiment("sync-count", o);
    EXPECT_DOUBLE_EQ(r.value("world_size"), 2.0);
    EXPECT_TRUE(r.holds()) << describe(r);
    ASSERT_EQ(made.size(), size_t(8)); // 4 accumulation settings x no-sync on/off
    EXPECT_EQ(made[0]->calls, int64_t(r.value("allreduces_issued_no_sync_on_accum_1")));
    EXPECT_EQ(made[7]->calls, int64_t(r.value("allreduces_issued_no_sync_off_accum_8")));
    EXPECT_EQ(made[7]->calls, int64_t(4 * 8));
}

TEST(Experiments, SameSeedSameFigures)
{
    const auto a = runExperiment("clipping", fastOptions());
    const auto b = runExperiment("clipping", fastOptions());
    ASSERT_EQ(a.values.size(), b.values.size());
    for (size_t i = 0; i < a.values.size(); ++i)
        EXPECT_DOUBLE_EQ(a.values[i].value, b.values[i].value) << a.values[i].name;
}

TEST(Experiments, JsonForm)
{
    const auto r = runExperiment("partial-window", fastOptions());
    const auto parsed = nlohmann::json::parse(toJson(r).dump());
    EXPECT_EQ(parsed.at("id").get<std::string>(), r.id);
    EXPECT_EQ(parsed.at("title").get<std::string>(), experimentTitle(r.id));
    EXPECT_EQ(parsed.at("holds").get<bool>(), r.holds());
    EXPECT_EQ(parsed.at("values").size(), r.values.size());
    for (const auto &v : r.values)
        EXPECT_DOUBLE_EQ(parsed.at("values").at(v.name).get<double>(), v.value) << v.name;
    ASSERT_EQ(parsed.at("claims").size(), r.claims.size());
    for (size_t i = 0; i < r.claims.size(); ++i) {
        const auto &c = parsed.at("claims")[i];
        EXPECT_EQ(c.at("id").get<std::string>(), r.claims[i].id);
        EXPECT_EQ(c.at("statement").get<std::string>(), claimStatement(r, r.claims[i], {"en", false}));
        EXPECT_EQ(c.at("statement_fa").get<std::string>(), claimStatement(r, r.claims[i], {"fa", false}));
        EXPECT_EQ(c.at("holds").get<bool>(), r.claims[i].holds);
    }
    EXPECT_EQ(parsed.at("explanation").get<std::string>(), explanation(r, {"en", false}));
    EXPECT_EQ(parsed.at("explanation_fa").get<std::string>(), explanation(r, {"fa", false}));
}

TEST(Experiments, TextForm)
{
    const auto r = runExperiment("batchnorm", fastOptions());
    const std::string text = toText(r);
    EXPECT_TRUE(text.find(experimentTitle(r.id)) != std::string::npos);
    for (const auto &c : r.claims)
        EXPECT_TRUE(text.find(claimStatement(r, c)) != std::string::npos) << c.id;
    EXPECT_TRUE(text.find("[holds]") != std::string::npos);
}

TEST(Experiments, UnknownIdIsAConfigError)
{
    EXPECT_THROW(runExperiment("no-such-experiment"), ConfigError);
}

TEST(Experiments, CancelledBeforeStart)
{
    CancelToken token;
    token.cancel();
    EXPECT_THROW(runExperiment("linear-scaling", fastOptions(), &token), Cancelled);
}
