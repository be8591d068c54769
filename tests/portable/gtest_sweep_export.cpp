// A tiny throughput sweep and the two exports it feeds: each point counts the steps and samples
// it was asked for, accum-curve.json parses as accum-curve.v1 with the sweep's numbers in it,
// the skill recipe carries the measured section, and the curve reader takes our file back and
// refuses a corrupted copy of it, naming what is wrong.
#include "core/io/curve_io.h"
#include "core/lesson.h"
#include "core/version.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <string>

using namespace accumlab;
using accumlab::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// The tiny sweep on the CPU, one LibTorch thread.
SweepConfig tinySweep()
{
    SweepConfig s = test::tinySweep(DeviceRequest::Cpu);
    s.threads = 1;
    return s;
}

struct LessonRun {
    SweepResult sweep;
    EquivalenceResult equivalence;
};

// Computed once per test process (CTest runs each test in a process of its own).
const LessonRun &lessonRun()
{
    static const LessonRun run{runSweep(tinySweep()), runEquivalence(EquivalenceConfig{})};
    return run;
}

// ---- The sweep -------------------------------------------------------------------------------

TEST(Sweep, EachPointCountsWhatItWasAskedFor)
{
    const SweepConfig s = tinySweep();
    const SweepResult &result = lessonRun().sweep;
    ASSERT_EQ(result.points.size(), s.accumGrid.size());
    for (size_t i = 0; i < result.points.size(); ++i) {
        SCOPED_TRACE("point " + std::to_string(i));
        const SweepPoint &p = result.points[i];
        const int64_t accum = s.accumGrid[i];
        EXPECT_EQ(p.accumSteps, accum);
        EXPECT_EQ(p.microBatch, s.base.microBatch);
        EXPECT_EQ(p.effectiveBatch, s.base.microBatch * accum);
        EXPECT_EQ(p.steps, s.numSteps);                                // timed optimizer steps
        EXPECT_EQ(p.optimizerStateStep, s.numSteps + s.warmupSteps);   // the optimizer also saw the warm-up
        EXPECT_EQ(p.warmupSteps, s.warmupSteps);
        EXPECT_EQ(p.microBatches, s.numSteps * accum);
        EXPECT_EQ(p.syncCalls, s.numSteps); // no-sync on: one sync per window
        EXPECT_EQ(p.losses.size(), size_t(s.numSteps));
        EXPECT_FALSE(p.diverged);
        EXPECT_EQ(p.device, "cpu");
        ASSERT_TRUE(std::isfinite(p.samplesPerSec));
        EXPECT_GT(p.samplesPerSec, 0.0);
        ASSERT_GT(p.wallS, 0.0);
        // samples/sec is the timed region's samples over its wall time.
        EXPECT_NEAR(p.samplesPerSec, double(p.steps * p.effectiveBatch) / p.wallS, 1e-9 * p.samplesPerSec);
        for (double loss : p.losses)
            EXPECT_TRUE(std::isfinite(loss) && loss > 0.0) << loss;
    }
}

// The divergence verdict both ways: the sweep above did not diverge; no division and the
// largest learning rate the config allows make the loss overflow, and the point says where.
TEST(Sweep, PlantedBlowUpIsMarkedDiverged)
{
    SweepConfig s = tinySweep();
    s.base.scaling = Scaling::None;
    s.base.optimizer.lr = 1e3;
    s.accumGrid = {16};
    s.numSteps = 30;
    const SweepPoint p = runSweep(s).points.front();
    EXPECT_TRUE(p.diverged);
    EXPECT_GE(p.divergedAtStep, 1);
    EXPECT_LE(p.divergedAtStep, s.warmupSteps + s.numSteps);
    EXPECT_LT(p.steps, s.numSteps); // the point stopped there
    EXPECT_EQ(divergenceSentence(p).rfind("diverged at step " + std::to_string(p.divergedAtStep), 0), 0u);
}

// ---- The exports -----------------------------------------------------------------------------

TEST(Exports, WritesBothFilesAndNothingElse)
{
    TempDir dir;
    const LessonRun &run = lessonRun();
    const ExportPaths paths = writeExports(dir.path(), run.sweep, run.equivalence);
    EXPECT_EQ(paths.curve, dir / kCurveFileName);
    EXPECT_EQ(paths.skill, dir / kSkillFileName);
    // Staged temp files are renamed into place, none is left beside them.
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"accum-curve.json", "skill-gradient-accumulation.md"}));

    const json j = json::parse(accumlab::test::readFile(paths.curve));
    EXPECT_EQ(j.at("schema"), "accum-curve.v1");
    EXPECT_EQ(j.at("environment").at("accumlab_version"), kVersion);
    ASSERT_EQ(j.at("points").size(), run.sweep.points.size());
    for (size_t i = 0; i < run.sweep.points.size(); ++i) {
        const json &pj = j.at("points")[i];
        const SweepPoint &p = run.sweep.points[i];
        EXPECT_EQ(pj.at("effective_batch"), p.effectiveBatch);
        EXPECT_EQ(pj.at("accum_steps"), p.accumSteps);
        EXPECT_EQ(pj.at("micro_batch"), p.microBatch);
        EXPECT_EQ(pj.at("steps"), p.steps);
        EXPECT_EQ(pj.at("sync_calls"), p.syncCalls);
        EXPECT_EQ(pj.at("samples_per_sec").get<double>(), p.samplesPerSec);
        EXPECT_EQ(pj.at("avg_loss").get<double>(), p.avgLoss);
    }
    EXPECT_EQ(j.at("config").at("accum_grid"), json(tinySweep().accumGrid));
    EXPECT_TRUE(j.at("equivalence").at("holds").get<bool>());
    EXPECT_EQ(j.at("equivalence").at("max_grad_diff").get<double>(), run.equivalence.maxGradDiff);

    const std::string skill = accumlab::test::readFile(paths.skill);
    EXPECT_EQ(skill.rfind("---\nname: gradient-accumulation\n", 0), 0u) << skill.substr(0, 80);
    EXPECT_NE(skill.find("# Gradient accumulation"), std::string::npos);
    EXPECT_NE(skill.find("## Measured in this run"), std::string::npos);
}

TEST(Exports, CurveReaderReadsOurFileBack)
{
    TempDir dir;
    const LessonRun &run = lessonRun();
    const ExportPaths paths = writeExports(dir.path(), run.sweep, run.equivalence);
    const CurveFile file = parseCurveJson(accumlab::test::readFile(paths.curve));
    ASSERT_EQ(file.points.size(), run.sweep.points.size());
    for (size_t i = 0; i < file.points.size(); ++i) {
        const SweepPoint &read = file.points[i];
        const SweepPoint &p = run.sweep.points[i];
        EXPECT_EQ(read.effectiveBatch, p.effectiveBatch);
        EXPECT_EQ(read.accumSteps, p.accumSteps);
        EXPECT_EQ(read.steps, p.steps);
        EXPECT_EQ(read.optimizerStateStep, p.optimizerStateStep);
        EXPECT_EQ(read.samplesPerSec, p.samplesPerSec);
        EXPECT_EQ(read.avgLoss, p.avgLoss);
        EXPECT_EQ(read.losses, p.losses);
    }
}

// One corruption of our own accum-curve.json, and the reason the reader must give.
struct Corruption {
    const char *name;
    std::function<std::string(const std::string &text)> corrupt;
    CurveErrorCode code;
};

// Edits the parsed file and writes it out again.
std::function<std::string(const std::string &)> edit(std::function<void(json &)> change)
{
    return [change](const std::string &text) {
        json j = json::parse(text);
        change(j);
        return j.dump(2);
    };
}

class CorruptedCurve : public testing::TestWithParam<Corruption> {};

TEST_P(CorruptedCurve, IsRefusedWithItsReason)
{
    TempDir dir;
    const LessonRun &run = lessonRun();
    const ExportPaths paths = writeExports(dir.path(), run.sweep, run.equivalence);
    const fs::path copy = dir / "corrupted.json";
    accumlab::test::writeFile(copy, GetParam().corrupt(accumlab::test::readFile(paths.curve)));
    try {
        const CurveFile file = parseCurveJson(accumlab::test::readFile(copy));
        ADD_FAILURE() << "a corrupted copy was read as " << file.points.size() << " points";
    } catch (const CurveFormatError &e) {
        EXPECT_EQ(int(e.code()), int(GetParam().code)) << e.what();
        EXPECT_GT(std::string(e.what()).size(), 10u);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Copies, CorruptedCurve,
    testing::Values(
        Corruption{"truncated", [](const std::string &t) { return t.substr(0, t.size() / 2); },
                   CurveErrorCode::NotJson},
        Corruption{"wrong_schema", edit([](json &j) { j["schema"] = "accum-curve.v0"; }),
                   CurveErrorCode::WrongSchema},
        Corruption{"no_points", edit([](json &j) { j.erase("points"); }), CurveErrorCode::NoPoints},
        Corruption{"empty_points", edit([](json &j) { j["points"] = json::array(); }), CurveErrorCode::EmptyPoints},
        Corruption{"missing_samples_per_sec", edit([](json &j) { j["points"][0].erase("samples_per_sec"); }),
                   CurveErrorCode::MissingField},
        Corruption{"steps_as_text", edit([](json &j) { j["points"][0]["steps"] = "3"; }),
                   CurveErrorCode::NotANumber},
        Corruption{"fractional_steps", edit([](json &j) { j["points"][0]["steps"] = 2.5; }),
                   CurveErrorCode::NotAWholeNumber},
        Corruption{"negative_samples_per_sec", edit([](json &j) { j["points"][1]["samples_per_sec"] = -1.0; }),
                   CurveErrorCode::Negative},
        Corruption{"effective_batch_not_micro_times_accum",
                   edit([](json &j) { j["points"][1]["effective_batch"] = 7; }), CurveErrorCode::BatchIdentity}),
    [](const testing::TestParamInfo<Corruption> &info) { return std::string(info.param.name); });

} // namespace
