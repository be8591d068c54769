// The window's hooks (core/bugs.h): the correct loop's answers, each planted piece changing
// exactly its one decision and passing the others through, a run's hooks picked from its
// config (and combined as its switches combine), and every piece's story found in the content.
// The window's runs themselves are gtest_engine's and gtest_equivalence's.
#include "core/bugs.h"
#include "core/content/content.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// Optimizer settings the plans are asked about: none, a clip norm and a warmup of their own.
std::vector<OptimizerConfig> optimizerGrid()
{
    OptimizerConfig plain;
    OptimizerConfig set;
    set.clipNorm = 0.5;
    set.lrWarmup = 3;
    return {plain, set};
}

const char *place(LoopPlace p) { return p == LoopPlace::Step ? "step" : "every-micro"; }

// Every answer of `h` over a grid of questions (windows 0..2, micro-batches 0..4, N 1..5, both
// optimizer settings, three scales), one string per decision.
std::map<std::string, std::string> answers(const WindowHooks &h)
{
    std::map<std::string, std::ostringstream> out;
    for (int64_t n = 1; n <= 5; ++n) {
        out["lossDivisor"] << h.lossDivisor(n) << ' ';
        for (int64_t k = 0; k < n; ++k)
            out["runsMicro"] << h.runsMicro(k, n) << ' ';
    }
    for (int64_t w = 0; w < 3; ++w)
        for (int64_t k = 0; k < 5; ++k) {
            out["zeroGradBefore"] << h.zeroGradBefore(w, k) << ' ';
            out["lossFactor"] << h.lossFactor(w, k) << ' ';
        }
    for (int64_t k = 0; k < 5; ++k)
        out["passes"] << h.passes(k) << ' ';
    out["dropsOverflowedMicro"] << h.dropsOverflowedMicro();
    for (const auto &o : optimizerGrid()) {
        const ClipPlan c = h.clip(o);
        out["clip"] << place(c.at) << ' ' << c.maxNorm << ' ';
        const SchedulePlan s = h.schedule(o);
        out["schedule"] << place(s.at) << ' ' << s.warmup << ' ';
    }
    out["stepAt"] << place(h.stepAt());
    out["unscaleAt"] << place(h.unscaleAt());
    out["updateAt"] << place(h.updateAt());
    for (double scale : {1.0, 1024.0, 65536.0})
        out["loggedLossFactor"] << h.loggedLossFactor(scale) << ' ';
    std::map<std::string, std::string> flat;
    for (auto &[k, v] : out)
        flat[k] = v.str();
    return flat;
}

// The decisions on which `a` and `b` answer differently.
std::set<std::string> differing(const WindowHooks &a, const WindowHooks &b)
{
    const auto x = answers(a);
    const auto y = answers(b);
    std::set<std::string> d;
    for (const auto &[k, v] : x)
        if (y.at(k) != v)
            d.insert(k);
    return d;
}

TEST(WindowHooks, CorrectLoopAnswersAsTheLessonWritesIt)
{
    const auto h = correctLoop();
    // zero_grad() once, when the window opens; every micro-batch runs once, divided by N.
    for (int64_t w = 0; w < 3; ++w) {
        EXPECT_TRUE(h->zeroGradBefore(w, 0));
        EXPECT_FALSE(h->zeroGradBefore(w, 1));
    }
    EXPECT_TRUE(h->runsMicro(3, 4));
    EXPECT_EQ(h->lossDivisor(4), 4.0);
    EXPECT_EQ(h->lossFactor(0, 0), 1.0);
    EXPECT_EQ(h->passes(0), 1);
    EXPECT_FALSE(h->dropsOverflowedMicro());
    // Clip, step, schedule, unscale_ and update at the step point; the raw loss logged.
    OptimizerConfig o;
    o.clipNorm = 0.5;
    o.lrWarmup = 3;
    EXPECT_EQ(h->clip(o).at, LoopPlace::Step);
    EXPECT_EQ(h->clip(o).maxNorm, 0.5);
    EXPECT_EQ(h->clip(OptimizerConfig{}).maxNorm, 0.0); // no clip norm: no clipping
    EXPECT_EQ(h->schedule(o).at, LoopPlace::Step);
    EXPECT_EQ(h->schedule(o).warmup, 3);
    EXPECT_EQ(h->schedule(OptimizerConfig{}).warmup, 0);
    EXPECT_EQ(h->stepAt(), LoopPlace::Step);
    EXPECT_EQ(h->unscaleAt(), LoopPlace::Step);
    EXPECT_EQ(h->updateAt(), LoopPlace::Step);
    EXPECT_EQ(h->loggedLossFactor(65536.0), 1.0);
}

// One planted piece and the one decision it gets wrong.
struct PieceRow {
    std::string name;
    std::string decision;
};

std::vector<PieceRow> pieceRows()
{
    return {{"zero-every-micro", "zeroGradBefore"},     {"never-zero", "zeroGradBefore"},
            {"divide-by-n-plus-1", "lossDivisor"},      {"skip-last-micro", "runsMicro"},
            {"count-micro-twice", "passes"},            {"clip-each-micro", "clip"},
            {"schedule-every-micro", "schedule"},       {"no-division", "lossDivisor"},
            {"step-every-micro", "stepAt"},             {"unscale-every-micro", "unscaleAt"},
            {"update-every-micro", "updateAt"},         {"skip-overflowed-micro", "dropsOverflowedMicro"},
            {"log-scaled-loss", "loggedLossFactor"},    {"planted-overflow", "lossFactor"}};
}

class PlantedPieces : public testing::TestWithParam<PieceRow> {};

TEST_P(PlantedPieces, ChangesExactlyItsOneDecision)
{
    const PieceRow &row = GetParam();
    const auto correct = correctLoop();
    const auto planted = plantedPiece(row.name).plant(correctLoop());
    EXPECT_EQ(differing(*planted, *correct), std::set<std::string>{row.decision});
}

TEST_P(PlantedPieces, PassesTheOtherDecisionsToTheHooksBelow)
{
    // On top of another piece, this one keeps the other's answer everywhere but its own decision.
    const PieceRow &row = GetParam();
    for (const auto &other : pieceRows()) {
        if (other.decision == row.decision)
            continue;
        SCOPED_TRACE(other.name);
        const auto below = plantedPiece(other.name).plant(correctLoop());
        const auto both = plantedPiece(row.name).plant(plantedPiece(other.name).plant(correctLoop()));
        EXPECT_EQ(differing(*both, *below), std::set<std::string>{row.decision});
    }
}

TEST_P(PlantedPieces, NamesItsStoryInTheContent)
{
    const PlantedPiece &piece = plantedPiece(GetParam().name);
    const nlohmann::json &file = contentJson(piece.story.file);
    const nlohmann::json::json_pointer pointer(piece.story.pointer);
    ASSERT_TRUE(file.contains(pointer)) << piece.story.file << piece.story.pointer;
    EXPECT_FALSE(contentText(piece.story.file, piece.story.pointer).in("en").empty());
}

INSTANTIATE_TEST_SUITE_P(Rows, PlantedPieces, testing::ValuesIn(pieceRows()), test::ByName());

TEST(WindowHooks, EveryPieceIsInTheTable)
{
    std::set<std::string> listed;
    for (const auto &row : pieceRows())
        listed.insert(row.name);
    std::set<std::string> pieces;
    for (const auto &p : plantedPieces())
        pieces.insert(p.name);
    EXPECT_EQ(pieces, listed);
}

TEST(WindowHooks, EveryBugOfTheConfigHasItsPiece)
{
    for (const auto &name : accumBugNames())
        if (name != "none")
            EXPECT_NO_THROW(plantedPiece(name)) << name;
    for (const auto &name : scalerBugNames())
        if (name != "none")
            EXPECT_NO_THROW(plantedPiece(name)) << name;
    EXPECT_THROW(plantedPiece("none"), std::out_of_range);
}

// A config's switches and the decisions its hooks answer differently from the correct loop's.
struct ConfigRow {
    std::string name;
    AccumConfig config;
    std::set<std::string> decisions;
};

std::vector<ConfigRow> configRows()
{
    std::vector<ConfigRow> rows;
    rows.push_back({"default", AccumConfig{}, {}});
    for (const auto &row : pieceRows()) {
        AccumConfig c;
        if (row.name == "no-division")
            c.scaling = Scaling::None;
        else if (row.name == "step-every-micro")
            c.stepEveryMicro = true;
        else if (row.name == "planted-overflow")
            c.lossScaler.spikeWindow = 1;
        else if (row.name == "unscale-every-micro" || row.name == "update-every-micro" ||
                 row.name == "skip-overflowed-micro" || row.name == "log-scaled-loss") {
            c.lossScaler.enabled = true;
            c.lossScaler.bug = scalerBugFromString(row.name);
        } else
            c.bug = accumBugFromString(row.name);
        rows.push_back({row.name, c, {row.decision}});
    }
    // A scaler's pitfall without the scaler plants nothing: there is no scaler to get wrong.
    AccumConfig off;
    off.lossScaler.bug = ScalerBug::LogScaledLoss;
    rows.push_back({"scaler pitfall without the scaler", off, {}});
    // Switches combine: each piece answers its own decision.
    AccumConfig both;
    both.stepEveryMicro = true;
    both.bug = AccumBug::SkipLastMicro;
    both.lossScaler.enabled = true;
    both.lossScaler.bug = ScalerBug::SkipOverflowedMicro;
    rows.push_back({"step every micro, skip last, skip overflowed", both, {"stepAt", "runsMicro", "dropsOverflowedMicro"}});
    return rows;
}

class HooksFor : public testing::TestWithParam<ConfigRow> {};

TEST_P(HooksFor, PlantsTheConfigsPiecesOnTheCorrectLoop)
{
    const ConfigRow &row = GetParam();
    EXPECT_EQ(differing(*hooksFor(row.config), *correctLoop()), row.decisions);
}

INSTANTIATE_TEST_SUITE_P(Rows, HooksFor, testing::ValuesIn(configRows()), test::ByName());

TEST(WindowHooks, DivideByNPlusOneDecidesTheDivisorOverNoDivision)
{
    // Both switches set: the engine divided by N + 1 before the hooks, and still does.
    AccumConfig c;
    c.scaling = Scaling::None;
    c.bug = AccumBug::DivideByNPlusOne;
    EXPECT_EQ(hooksFor(c)->lossDivisor(4), 5.0);
    c.bug = AccumBug::None;
    EXPECT_EQ(hooksFor(c)->lossDivisor(4), 1.0);
}

TEST(WindowHooks, ThePlantedOverflowHitsItsOneMicroBatch)
{
    AccumConfig c;
    c.lossScaler.spikeWindow = 2;
    c.lossScaler.spikeMicro = 1;
    const auto h = hooksFor(c);
    EXPECT_EQ(h->lossFactor(2, 1), kSpikeFactor);
    EXPECT_EQ(h->lossFactor(2, 0), 1.0);
    EXPECT_EQ(h->lossFactor(1, 1), 1.0);
}

TEST(WindowHooks, TheBugsClipAndWarmUpWhereNothingIsSet)
{
    // clip-each-micro clips at kBugClipNorm and schedule-every-micro warms up over kBugLrWarmup
    // unless the run sets its own (core/config.h).
    const OptimizerConfig none;
    EXPECT_EQ(plantedPiece("clip-each-micro").plant(correctLoop())->clip(none).maxNorm, kBugClipNorm);
    EXPECT_EQ(plantedPiece("schedule-every-micro").plant(correctLoop())->schedule(none).warmup, kBugLrWarmup);
    OptimizerConfig set;
    set.clipNorm = 0.5;
    set.lrWarmup = 3;
    EXPECT_EQ(plantedPiece("clip-each-micro").plant(correctLoop())->clip(set).maxNorm, 0.5);
    EXPECT_EQ(plantedPiece("schedule-every-micro").plant(correctLoop())->schedule(set).warmup, 3);
}

} // namespace
