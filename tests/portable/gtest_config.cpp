// Settings a user types, refused in words before any tensor exists: validate() field by field
// and parseGrid() on the text of --accum-grid. Each table holds rows that must be accepted
// beside the rows that must be refused, so a validator that refuses everything fails too.
#include "core/config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace accumlab;

namespace {

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

} // namespace
