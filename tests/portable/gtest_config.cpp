// Settings a user types, refused in words before any tensor exists: validate() field by field
// and parseGrid() on the text of --accum-grid. Each table holds rows that must be accepted
// beside the rows that must be refused, so a validator that refuses everything fails too.
// Parsing and validation of user-supplied settings: grids, splits, enums, ranges; and every
// refusal is a code of the content, worded in every language.
#include "core/config.h"
#include "core/content/content.h"
#include "core/device.h"
#include "core/experiments/experiments.h"
#include "core/lesson.h"
#include "core/content/quiz.h"

#include "support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

template <typename Config>
struct ValidateCase {
    const char *name;
    std::function<void(Config &)> change;
    const char *refusal; // words the ConfigError must contain; nullptr: the config is accepted
};

template <typename Config>
void PrintTo(const ValidateCase<Config> &c, std::ostream *os)
{
    *os << c.name;
}

template <typename Config>
std::string caseName(const testing::TestParamInfo<ValidateCase<Config>> &info)
{
    return info.param.name;
}

// Changes the default config as the row says (a setter may refuse it already) and runs
// validate() on it; compares the outcome with the row.
template <typename Config>
void checkValidate(const ValidateCase<Config> &row)
{
    Config c;
    std::string message;
    bool refused = false;
    try {
        row.change(c);
        validate(c);
    } catch (const ConfigError &e) {
        refused = true;
        message = e.what();
    }
    if (!row.refusal) {
        EXPECT_FALSE(refused) << "refused: " << message;
        return;
    }
    ASSERT_TRUE(refused) << "accepted a config that should be refused for '" << row.refusal << "'";
    EXPECT_NE(message.find(row.refusal), std::string::npos) << message;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using AccumCase = ValidateCase<AccumConfig>;
class ValidateAccum : public testing::TestWithParam<AccumCase> {};

TEST_P(ValidateAccum, AcceptsOrRefusesInWords) { checkValidate(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Fields, ValidateAccum,
    testing::Values(AccumCase{"defaults", [](AccumConfig &) {}, nullptr},
                    AccumCase{"micro_batch_1", [](AccumConfig &c) { c.microBatch = 1; }, nullptr},
                    AccumCase{"micro_batch_max", [](AccumConfig &c) { c.microBatch = kMaxMicroBatch; }, nullptr},
                    AccumCase{"micro_batch_0", [](AccumConfig &c) { c.microBatch = 0; }, "micro-batch"},
                    AccumCase{"micro_batch_above_max", [](AccumConfig &c) { c.microBatch = kMaxMicroBatch + 1; },
                              "micro-batch"},
                    AccumCase{"accum_steps_0", [](AccumConfig &c) { c.accumSteps = 0; }, "accum_steps"},
                    AccumCase{"accum_steps_above_max", [](AccumConfig &c) { c.accumSteps = kMaxAccumSteps + 1; },
                              "accum_steps"},
                    AccumCase{"lr_0", [](AccumConfig &c) { c.optimizer.lr = 0.0; }, "learning rate"},
                    AccumCase{"lr_nan", [](AccumConfig &c) { c.optimizer.lr = kNaN; }, "learning rate"},
                    AccumCase{"momentum_1", [](AccumConfig &c) { c.optimizer.momentum = 1.0; }, "momentum"},
                    AccumCase{"beta2_nan", [](AccumConfig &c) { c.optimizer.beta2 = kNaN; }, "betas"},
                    AccumCase{"eps_0", [](AccumConfig &c) { c.optimizer.eps = 0.0; }, "epsilon"},
                    AccumCase{"weight_decay_negative", [](AccumConfig &c) { c.optimizer.weightDecay = -0.1; },
                              "weight decay"},
                    AccumCase{"hidden_0", [](AccumConfig &c) { c.shape = ModelShape{64, 0, 16}; }, "hidden width"},
                    AccumCase{"one_class", [](AccumConfig &c) { c.shape = ModelShape{64, 128, 1}; },
                              "number of classes"},
                    // The wide preset's 4096-wide activations at 16385 samples pass 2^26 elements.
                    AccumCase{"activations_too_large",
                              [](AccumConfig &c) {
                                  c.preset = ModelPreset::Wide;
                                  c.microBatch = 16385;
                              },
                              "choose a smaller micro-batch"}),
    caseName<AccumConfig>);

using SweepCase = ValidateCase<SweepConfig>;
class ValidateSweep : public testing::TestWithParam<SweepCase> {};

TEST_P(ValidateSweep, AcceptsOrRefusesInWords) { checkValidate(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Fields, ValidateSweep,
    testing::Values(SweepCase{"defaults", [](SweepConfig &) {}, nullptr},
                    SweepCase{"no_warmup", [](SweepConfig &c) { c.warmupSteps = 0; }, nullptr},
                    SweepCase{"empty_grid", [](SweepConfig &c) { c.accumGrid.clear(); }, "grid is empty"},
                    SweepCase{"grid_entry_0", [](SweepConfig &c) { c.accumGrid = {1, 0}; }, "accum_steps in the grid"},
                    SweepCase{"num_steps_0", [](SweepConfig &c) { c.numSteps = 0; }, "num_steps"},
                    SweepCase{"warmup_negative", [](SweepConfig &c) { c.warmupSteps = -1; }, "warm-up steps"},
                    SweepCase{"base_micro_batch_0", [](SweepConfig &c) { c.base.microBatch = 0; }, "micro-batch"}),
    caseName<SweepConfig>);

using EquivalenceCase = ValidateCase<EquivalenceConfig>;
class ValidateEquivalence : public testing::TestWithParam<EquivalenceCase> {};

TEST_P(ValidateEquivalence, AcceptsOrRefusesInWords) { checkValidate(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Fields, ValidateEquivalence,
    testing::Values(EquivalenceCase{"defaults", [](EquivalenceConfig &) {}, nullptr},
                    EquivalenceCase{"compare_2x8", [](EquivalenceConfig &c) { c.compareSplit = Split{2, 8}; }, nullptr},
                    EquivalenceCase{"16_in_3", [](EquivalenceConfig &c) { c.run.accumSteps = 3; setBigBatch(c, 16); }, "does not divide"},
                    EquivalenceCase{"compare_3x5", [](EquivalenceConfig &c) { c.compareSplit = Split{3, 5}; },
                                    "does not cover"},
                    EquivalenceCase{"tolerance_0", [](EquivalenceConfig &c) { c.fixedTolerance = 0.0; },
                                    "tolerances must be positive"}),
    caseName<EquivalenceConfig>);

struct GridCase {
    const char *name;
    std::string text;
    std::vector<int64_t> expected; // empty: the text is refused
};

void PrintTo(const GridCase &c, std::ostream *os) { *os << c.name << " '" << c.text << "'"; }

class ParseGrid : public testing::TestWithParam<GridCase> {};

TEST_P(ParseGrid, AcceptsOrRefuses)
{
    const GridCase &row = GetParam();
    if (!row.expected.empty()) {
        std::vector<int64_t> grid;
        ASSERT_NO_THROW(grid = parseGrid(row.text));
        EXPECT_EQ(grid, row.expected);
        return;
    }
    try {
        const auto grid = parseGrid(row.text);
        ADD_FAILURE() << "accepted '" << row.text << "' as " << grid.size() << " entries";
    } catch (const ConfigError &e) {
        EXPECT_GT(std::string(e.what()).size(), 10u) << "a refusal is a sentence: '" << e.what() << "'";
    }
}

INSTANTIATE_TEST_SUITE_P(Texts, ParseGrid,
                         testing::Values(GridCase{"powers", "1,2,4", {1, 2, 4}},
                                         GridCase{"spaces", " 1, 3 ,5", {1, 3, 5}},
                                         GridCase{"empty", "", {}},
                                         GridCase{"empty_entry", "1,,2", {}},
                                         GridCase{"trailing_comma", "1,2,", {}},
                                         GridCase{"zero", "0", {}},
                                         GridCase{"negative", "-1", {}},
                                         GridCase{"word", "x", {}},
                                         GridCase{"overflow", "99999999999999999999", {}}),
                         [](const testing::TestParamInfo<GridCase> &info) { return std::string(info.param.name); });

// The parseGrid table, its rows under their labels. Its rows "spaces", "empty",
// "empty entry" and "trailing comma" were the same texts with the same verdicts as the rows of
// `Texts` above and are kept there only.
const std::vector<GridCase> &gridRows()
{
    static const std::vector<GridCase> rows{
        {"lesson", "1,2,4,8,16", {1, 2, 4, 8, 16}},
        {"single", "64", {64}},
        {"zero", "0,1", {}},
        {"negative", "-2", {}},
        {"word", "1,two", {}},
        {"fraction", "1.5", {}},
        {"overflow", "99999999999999999999999", {}},
    };
    return rows;
}

INSTANTIATE_TEST_SUITE_P(Rows, ParseGrid, testing::ValuesIn(gridRows()), test::ByName());

struct SplitRow {
    const char *name;
    std::string text;
    int64_t accum;
    int64_t micro;
    bool valid;
};

void PrintTo(const SplitRow &r, std::ostream *os) { *os << r.name << " '" << r.text << "'"; }

class ParseSplit : public testing::TestWithParam<SplitRow> {};

TEST_P(ParseSplit, AcceptsOrRefuses)
{
    const SplitRow &row = GetParam();
    try {
        const Split s = parseSplit(row.text);
        ASSERT_TRUE(row.valid);
        EXPECT_EQ(s.accumSteps, row.accum);
        EXPECT_EQ(s.microBatch, row.micro);
    } catch (const ConfigError &) {
        EXPECT_FALSE(row.valid);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, ParseSplit,
                         testing::ValuesIn(std::vector<SplitRow>{
                             {"4x4", "4x4", 4, 4, true},
                             {"2x8", "2x8", 2, 8, true},
                             {"8X2", "8X2", 8, 2, true},
                             {"no x", "44", 0, 0, false},
                             {"zero", "0x16", 0, 0, false},
                             {"word", "axb", 0, 0, false},
                         }),
                         test::ByName());

TEST(Config, Enums)
{
    for (auto k : {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::AdamW})
        EXPECT_TRUE(optimizerFromString(toString(k)) == k);
    for (auto d : {DType::Float32, DType::Float64, DType::BFloat16})
        EXPECT_TRUE(dtypeFromString(toString(d)) == d);
    for (auto p : {ModelPreset::Lesson, ModelPreset::Wide, ModelPreset::Fixture})
        EXPECT_TRUE(presetFromString(toString(p)) == p);
    EXPECT_THROW(dtypeFromString("float8"), ConfigError);
    EXPECT_THROW(deviceFromString("tpu"), ConfigError);
    EXPECT_GE(shapeOf(ModelPreset::Wide).hidden, 1024);
    EXPECT_EQ(shapeOf(ModelPreset::Lesson).inFeatures, 64);
    EXPECT_EQ(shapeOf(ModelPreset::Lesson).hidden, 128);
    EXPECT_EQ(shapeOf(ModelPreset::Lesson).classes, 16);
}

TEST(Config, EffectiveBatchIdentity)
{
    AccumConfig c;
    c.microBatch = 4;
    c.accumSteps = 16;
    c.worldSize = 2;
    EXPECT_EQ(c.effectiveBatch(), 128);
}

// The validateAccum table: micro-batch, accum_steps and learning rate set, accepted
// or refused. Its "defaults" row (4, 1, 0.05: the default config, accepted) is kept as
// Fields/ValidateAccum.AcceptsOrRefusesInWords/defaults above.
struct AccumRangeRow {
    const char *name;
    int64_t micro;
    int64_t accum;
    double lr;
    bool valid;
};

class ValidateAccumRange : public testing::TestWithParam<AccumRangeRow> {};

TEST_P(ValidateAccumRange, AcceptsOrRefuses)
{
    const AccumRangeRow &row = GetParam();
    AccumConfig c;
    c.microBatch = row.micro;
    c.accumSteps = row.accum;
    c.optimizer.lr = row.lr;
    bool threw = false;
    try {
        validate(c);
    } catch (const ConfigError &) {
        threw = true;
    }
    EXPECT_EQ(threw, !row.valid);
}

INSTANTIATE_TEST_SUITE_P(Rows, ValidateAccumRange,
                         testing::ValuesIn(std::vector<AccumRangeRow>{
                             {"micro 0", 0, 1, 0.05, false},
                             {"micro -1", -1, 1, 0.05, false},
                             {"micro 1e9", 1000000000, 1, 0.05, false},
                             {"accum 0", 4, 0, 0.05, false},
                             {"accum 1e6", 4, 1000000, 0.05, false},
                             {"lr 0", 4, 1, 0.0, false},
                             {"lr nan", 4, 1, std::nan(""), false},
                         }),
                         test::ByName());

// Sizes that would end in an allocation failure are refused in words, at the boundaries.
struct SizeRow {
    const char *name;
    ModelPreset preset;
    int64_t hidden; // 0: the preset's
    int64_t micro;
    int64_t accum;
    bool valid;
};

class ValidateSizes : public testing::TestWithParam<SizeRow> {};

TEST_P(ValidateSizes, RefusedInWordsAtTheBoundaries)
{
    const SizeRow &row = GetParam();
    SweepConfig c;
    c.base.preset = row.preset;
    if (row.hidden) {
        ModelShape shape = shapeOf(c.base.preset);
        shape.hidden = row.hidden;
        c.base.shape = shape;
    }
    c.base.microBatch = row.micro;
    c.accumGrid = {row.accum};
    std::string message;
    try {
        validate(c);
    } catch (const ConfigError &e) {
        message = e.what();
    }
    ASSERT_EQ(message.empty(), row.valid) << message;
    if (!row.valid)
        EXPECT_TRUE(message.find("choose a smaller") != std::string::npos ||
                    message.find("too large") != std::string::npos)
            << message;
}

INSTANTIATE_TEST_SUITE_P(Rows, ValidateSizes,
                         testing::ValuesIn(std::vector<SizeRow>{
                             {"lesson window 2^28", ModelPreset::Lesson, 0, 65536, 64, true},
                             {"lesson window 2^29", ModelPreset::Lesson, 0, 65536, 128, false},
                             {"wide activations 2^26", ModelPreset::Wide, 0, 16384, 1, true},
                             {"wide activations above", ModelPreset::Wide, 0, 16385, 1, false},
                             {"wide window 2^28", ModelPreset::Wide, 0, 4096, 64, true},
                             {"wide window above", ModelPreset::Wide, 0, 4096, 65, false},
                             {"hidden 8192", ModelPreset::Lesson, 8192, 4, 1, true},
                             {"hidden 16384 parameters", ModelPreset::Lesson, 16384, 4, 1, false},
                         }),
                         test::ByName());

// NaN fails every hyper-parameter check (a comparison with NaN is false both ways).
TEST(Config, NanHyperParameters)
{
    for (double OptimizerConfig::*field : {&OptimizerConfig::momentum, &OptimizerConfig::beta1,
                                           &OptimizerConfig::beta2, &OptimizerConfig::eps,
                                           &OptimizerConfig::weightDecay, &OptimizerConfig::adamWeightDecay}) {
        AccumConfig c;
        c.optimizer.*field = std::nan("");
        EXPECT_THROW(validate(c), ConfigError);
    }
}

struct EquivalenceSplitRow {
    const char *name;
    int64_t bigBatch;
    int64_t accum;
    std::string compare; // empty: no second split
    bool valid;
};

class ValidateEquivalenceSplit : public testing::TestWithParam<EquivalenceSplitRow> {};

TEST_P(ValidateEquivalenceSplit, AcceptsOrRefuses)
{
    const EquivalenceSplitRow &row = GetParam();
    EquivalenceConfig c;
    c.run.accumSteps = row.accum;
    if (!row.compare.empty())
        c.compareSplit = parseSplit(row.compare);
    bool threw = false;
    try {
        setBigBatch(c, row.bigBatch);
        validate(c);
    } catch (const ConfigError &) {
        threw = true;
    }
    EXPECT_EQ(threw, !row.valid);
}

INSTANTIATE_TEST_SUITE_P(Rows, ValidateEquivalenceSplit,
                         testing::ValuesIn(std::vector<EquivalenceSplitRow>{
                             {"16 in 4", 16, 4, "", true},
                             {"16 in 3", 16, 3, "", false},
                             {"compare 2x8", 16, 4, "2x8", true},
                             {"compare 3x5", 16, 4, "3x5", false},
                         }),
                         test::ByName());

AccumConfig accumWith(const std::function<void(AccumConfig &)> &change)
{
    AccumConfig c;
    change(c);
    return c;
}
EquivalenceConfig equivalenceWith(const std::function<void(EquivalenceConfig &)> &change)
{
    EquivalenceConfig c;
    change(c);
    return c;
}
SweepConfig sweepWith(const std::function<void(SweepConfig &)> &change)
{
    SweepConfig c;
    change(c);
    return c;
}

// True when the UTF-8 text holds a character in [first, last].
bool hasCodePointIn(const std::string &text, char32_t first, char32_t last)
{
    for (const char32_t c : test::codePoints(text))
        if (c >= first && c <= last)
            return true;
    return false;
}

std::string joinedWords(const std::vector<std::string> &words)
{
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

// A call that must be refused with a ConfigError of the content's code.
struct RefusalRow {
    const char *name;
    std::string code;
    std::function<void()> refusal;
};

void PrintTo(const RefusalRow &r, std::ostream *os) { *os << r.name << " (" << r.code << ")"; }

std::vector<RefusalRow> refusalRows()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<RefusalRow> rows;
    auto row = [&rows](const char *name, const char *code, std::function<void()> refusal) {
        rows.push_back({name, code, std::move(refusal)});
    };
    row("grid trailing comma", "config/grid-trailing-comma", [] { parseGrid("1,,"); });
    row("grid empty entry", "config/grid-empty-entry", [] { parseGrid("1,,2"); });
    row("grid empty", "config/grid-empty", [] { parseGrid(""); });
    row("grid word", "config/grid-entry-not-whole", [] { parseGrid("1,two"); });
    row("grid zero", "config/grid-entry-not-positive", [] { parseGrid("0"); });
    row("grid overflow", "config/grid-entry-out-of-range", [] { parseGrid("99999999999999999999"); });
    row("split form", "config/split-form", [] { parseSplit("44"); });
    row("split zero accum", "config/split-accum-steps-not-positive", [] { parseSplit("0x4"); });
    row("split word accum", "config/split-accum-steps-not-whole", [] { parseSplit("ax4"); });
    row("split overflow accum", "config/split-accum-steps-out-of-range", [] { parseSplit("99999999999999999999x4"); });
    row("split negative micro", "config/split-micro-batch-not-positive", [] { parseSplit("4x-2"); });
    row("split word micro", "config/split-micro-batch-not-whole", [] { parseSplit("4xb"); });
    row("split overflow micro", "config/split-micro-batch-out-of-range", [] { parseSplit("4x99999999999999999999"); });
    row("unknown optimizer", "config/unknown-optimizer", [] { optimizerFromString("lion"); });
    row("unknown scaling", "config/unknown-scaling", [] { scalingFromString("half"); });
    row("unknown bug", "config/unknown-bug", [] { accumBugFromString("off-by-two"); });
    row("unknown dtype", "config/unknown-dtype", [] { dtypeFromString("float8"); });
    row("unknown device", "config/unknown-device", [] { deviceFromString("tpu"); });
    row("unknown labels", "config/unknown-label-kind", [] { labelsFromString("noisy"); });
    row("unknown preset", "config/unknown-model-preset", [] { presetFromString("huge"); });
    row("micro-batch 0", "config/range-micro-batch",
        [] { validate(accumWith([](AccumConfig &c) { c.microBatch = 0; })); });
    row("accum_steps 5000", "config/range-accum-steps",
        [] { validate(accumWith([](AccumConfig &c) { c.accumSteps = 5000; })); });
    row("world size 0", "config/range-world-size",
        [] { validate(accumWith([](AccumConfig &c) { c.worldSize = 0; })); });
    row("input features 0", "config/range-input-features",
        [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{0, 8, 2}; })); });
    row("hidden width -3", "config/range-hidden-width",
        [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, -3, 2}; })); });
    row("one class", "config/range-classes",
        [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, 8, 1}; })); });
    row("model too large", "config/model-too-large",
        [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, 1 << 16, 2}; })); });
    row("activations too large", "config/activations-too-large", [] {
        validate(accumWith([](AccumConfig &c) {
            c.preset = ModelPreset::Wide;
            c.microBatch = 1 << 16;
        }));
    });
    row("lr 0", "config/lr-out-of-range", [] { validate(accumWith([](AccumConfig &c) { c.optimizer.lr = 0.0; })); });
    row("momentum 1", "config/momentum-out-of-range",
        [] { validate(accumWith([](AccumConfig &c) { c.optimizer.momentum = 1.0; })); });
    row("beta1 NaN", "config/adam-betas-out-of-range",
        [nan] { validate(accumWith([nan](AccumConfig &c) { c.optimizer.beta1 = nan; })); });
    row("eps 0", "config/adam-eps-not-positive",
        [] { validate(accumWith([](AccumConfig &c) { c.optimizer.eps = 0.0; })); });
    row("weight decay -1", "config/weight-decay-negative",
        [] { validate(accumWith([](AccumConfig &c) { c.optimizer.weightDecay = -1.0; })); });
    row("clip norm -1", "config/clip-norm-invalid",
        [] { validate(accumWith([](AccumConfig &c) { c.optimizer.clipNorm = -1.0; })); });
    row("lr warmup -1", "config/lr-warmup-out-of-range",
        [] { validate(accumWith([](AccumConfig &c) { c.optimizer.lrWarmup = -1; })); });
    row("big batch 0", "config/range-big-batch",
        [] { validate(equivalenceWith([](EquivalenceConfig &c) { setBigBatch(c, 0); })); });
    row("16 in 3", "config/batch-does-not-divide", [] {
        validate(equivalenceWith([](EquivalenceConfig &c) {
            c.run.accumSteps = 3;
            setBigBatch(c, 16);
        }));
    });
    row("split 3x5", "config/split-does-not-cover",
        [] { validate(equivalenceWith([](EquivalenceConfig &c) { c.compareSplit = Split{3, 5}; })); });
    row("tolerance 0", "config/tolerances-not-positive",
        [] { validate(equivalenceWith([](EquivalenceConfig &c) { c.fixedTolerance = 0.0; })); });
    row("sweep grid empty", "config/sweep-grid-empty",
        [] { validate(sweepWith([](SweepConfig &c) { c.accumGrid.clear(); })); });
    row("grid accum 5000", "config/range-grid-accum-steps",
        [] { validate(sweepWith([](SweepConfig &c) { c.accumGrid = {1, 5000}; })); });
    row("skip-last-micro at 1", "config/skip-last-micro-at-one",
        [] { validate(sweepWith([](SweepConfig &c) { c.base.bug = AccumBug::SkipLastMicro; })); });
    row("effective batch too large", "config/effective-batch-too-large", [] {
        validate(sweepWith([](SweepConfig &c) {
            c.base.microBatch = 1 << 16;
            c.accumGrid = {128};
        }));
    });
    row("num_steps 0", "config/range-num-steps", [] { validate(sweepWith([](SweepConfig &c) { c.numSteps = 0; })); });
    row("warm-up -1", "config/range-warmup-steps",
        [] { validate(sweepWith([](SweepConfig &c) { c.warmupSteps = -1; })); });
    row("repeats 0", "config/range-repeats", [] { validate(sweepWith([](SweepConfig &c) { c.repeats = 0; })); });
    row("threads 2000", "config/range-threads", [] { validate(sweepWith([](SweepConfig &c) { c.threads = 2000; })); });
    row("quiz stage", "quiz/unknown-stage", [] { quizStageFromString("final"); });
    row("unknown experiment", "experiments/unknown-experiment", [] { runExperiment("no-such-experiment"); });
    row("sweep steps 0", "experiments/sweep-steps-not-positive", [] {
        ExperimentOptions options;
        options.sweepSteps = 0;
        runExperiment(experimentCatalog().front().id, options);
    });
    row("sweep steps over the most", "experiments/sweep-steps-too-many", [] {
        ExperimentOptions options;
        options.sweepSteps = kMaxSweepSteps + 1;
        runExperiment(experimentCatalog().front().id, options);
    });
    row("LOCAL_RANK -1", "device/local-rank-without-gpu", [] { setCudaDeviceIndex(-1); });
    row("output folder is a file", "lesson/output-not-a-folder", [] {
        test::TempDir dir;
        const auto file = dir / "file";
        test::writeFile(file, "");
        ASSERT_TRUE(std::filesystem::is_regular_file(file));
        requireWritableDir(file);
    });
    return rows;
}

// Every refusal of the settings is a code of the content: its English is what() (the CLI's
// sentence), and the Persian window words it in Persian, code and typed text left to right.
class RefusalsInEveryLanguage : public testing::TestWithParam<RefusalRow> {};

TEST_P(RefusalsInEveryLanguage, WordedInEachLanguage)
{
    const RefusalRow &row = GetParam();
    try {
        row.refusal();
        FAIL() << "not refused";
    } catch (const ConfigError &e) {
        EXPECT_EQ(e.code(), row.code);
        const std::string en = e.text({"en", false});
        EXPECT_EQ(en, std::string(e.what()));
        const std::string fa = e.text({"fa", false});
        EXPECT_FALSE(fa.empty());
        EXPECT_NE(fa, en);
        EXPECT_TRUE(hasCodePointIn(fa, 0x0600, 0x06FF)) << fa;
        const std::vector<std::string> stray = strayLatinWords(fa);
        EXPECT_TRUE(stray.empty()) << fa << " | English: " << joinedWords(stray);
        // With Latin digits the sentence keeps its words and writes its figures as Latin ones.
        const std::string faLatin = e.text({"fa", true});
        EXPECT_FALSE(hasCodePointIn(faLatin, 0x06F0, 0x06F9)) << faLatin;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, RefusalsInEveryLanguage, testing::ValuesIn(refusalRows()), test::ByName());

// A value beyond a double's exact integers still reads as it was given (std::to_string).
TEST(Config, HugeValuesReadAsGiven)
{
    try {
        validate(accumWith([](AccumConfig &c) { c.microBatch = (int64_t(1) << 53) + 1; }));
        FAIL() << "not refused";
    } catch (const ConfigError &e) {
        EXPECT_EQ(std::string(e.what()), "micro-batch must be between 1 and 65536, got 9007199254740993");
        EXPECT_TRUE(e.text({"fa", false}).find("9007199254740993") != std::string::npos);
    }
    try {
        validate(accumWith([](AccumConfig &c) { c.accumSteps = -7; }));
        FAIL() << "not refused";
    } catch (const ConfigError &e) {
        EXPECT_EQ(std::string(e.what()), "accum_steps must be between 1 and 4096, got -7");
    }
}

// threadsFor: a count the user names stands; 0 picks one thread for a CPU micro-batch whose
// widest matmul is under 2^20 multiply-adds, and LibTorch's default (0) otherwise, on a GPU, or
// where OMP_NUM_THREADS / MKL_NUM_THREADS names a count.
struct ThreadsRow {
    std::string name;
    std::optional<ModelShape> shape; // the lesson's preset when empty
    ModelPreset preset = ModelPreset::Lesson;
    int64_t micro = 4;
    int threads = 0;
    bool onCpu = true;
    bool environment = false;
    int64_t macs = 0;   // widestMatmulMacs
    int expected = 0;
};

std::vector<ThreadsRow> threadsRows()
{
    std::vector<ThreadsRow> rows;
    const ModelShape h256{64, 256, 16}, h512{64, 512, 16}, wideIn{4096, 64, 16}, wideOut{64, 64, 16384};
    // The lesson (64-128-16): hidden x hidden is its widest layer.
    rows.push_back({"lesson micro 4", {}, ModelPreset::Lesson, 4, 0, true, false, 65536, 1});
    rows.push_back({"lesson micro 16", {}, ModelPreset::Lesson, 16, 0, true, false, 262144, 1});
    rows.push_back({"lesson micro 63", {}, ModelPreset::Lesson, 63, 0, true, false, 1032192, 1});
    rows.push_back({"lesson micro 64, the boundary", {}, ModelPreset::Lesson, 64, 0, true, false, 1048576, 0});
    rows.push_back({"lesson micro 256", {}, ModelPreset::Lesson, 256, 0, true, false, 4194304, 0});
    rows.push_back({"hidden 256 micro 4", h256, ModelPreset::Lesson, 4, 0, true, false, 262144, 1});
    rows.push_back({"hidden 512 micro 4", h512, ModelPreset::Lesson, 4, 0, true, false, 1048576, 0});
    // The widest layer may be the first or the last.
    rows.push_back({"in x hidden widest", wideIn, ModelPreset::Lesson, 4, 0, true, false, 1048576, 0});
    rows.push_back({"hidden x classes widest", wideOut, ModelPreset::Lesson, 1, 0, true, false, 1048576, 0});
    rows.push_back({"fixture micro 4", {}, ModelPreset::Fixture, 4, 0, true, false, 9216, 1});
    rows.push_back({"wide micro 1", {}, ModelPreset::Wide, 1, 0, true, false, 16777216, 0});
    // What overrides the choice.
    rows.push_back({"named count stands", {}, ModelPreset::Lesson, 4, 3, true, false, 65536, 3});
    rows.push_back({"named count stands for the wide model", {}, ModelPreset::Wide, 64, 1, true, false, 1073741824, 1});
    rows.push_back({"on a GPU the default", {}, ModelPreset::Lesson, 4, 0, false, false, 65536, 0});
    rows.push_back({"OMP_NUM_THREADS stands", {}, ModelPreset::Lesson, 4, 0, true, true, 65536, 0});
    rows.push_back({"named count over the environment", {}, ModelPreset::Lesson, 4, 2, true, true, 65536, 2});
    return rows;
}

class ThreadsFor : public testing::TestWithParam<ThreadsRow> {};

TEST_P(ThreadsFor, OneThreadOnlyWhereNothingSplits)
{
    const ThreadsRow &r = GetParam();
    SweepConfig s;
    s.base.preset = r.preset;
    s.base.shape = r.shape;
    s.base.microBatch = r.micro;
    s.threads = r.threads;
    EXPECT_EQ(widestMatmulMacs(s.base.modelShape(), r.micro), r.macs);
    EXPECT_EQ(threadsFor(s, r.onCpu, r.environment), r.expected);
}

INSTANTIATE_TEST_SUITE_P(Rows, ThreadsFor, testing::ValuesIn(threadsRows()), test::ByName());

} // namespace
