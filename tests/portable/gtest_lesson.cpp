// The lesson's main job under faults: cancelled in each phase (equivalence, sweep, export) it
// leaves no half-written file and the next run works; a diverged point is reported in a
// sentence and marked in the JSON while the rest of the sweep runs; exports that cannot be
// written (a full disk, a folder that vanished) fail in a sentence and keep the earlier files.
#include "core/io/export.h"
#include "core/lesson.h"

#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace accumlab;
using accumlab::test::TempDir;
namespace test = accumlab::test;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// Measured at seed 0: accum 16 without division diverges from lr 0.5 up, accum 1 trains up to lr 1.
constexpr double kDivergingLr = 0.7;
constexpr size_t kLimitBytes = 512; // below either export's size

LessonOptions smallLesson(const fs::path &outDir)
{
    LessonOptions o;
    o.sweep.base.preset = ModelPreset::Fixture;
    o.sweep.base.device = DeviceRequest::Cpu;
    o.sweep.accumGrid = {1, 2};
    o.sweep.numSteps = 2;
    o.sweep.warmupSteps = 0;
    o.sweep.threads = 1;
    o.outDir = outDir;
    return o;
}

// The names directly inside `dir`, sorted; an empty list when it is no folder.
std::vector<std::string> entries(const fs::path &dir)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// The two exports, as a folder listing shows them.
std::vector<std::string> bothExports() { return {kCurveFileName, kSkillFileName}; }

// Cancels its token when the lesson reaches `phase`, or after the first sweep point.
struct CancelAt : EngineObserver {
    CancelToken *token = nullptr;
    std::optional<LessonPhase> phase;
    bool afterFirstPoint = false;
    std::vector<LessonPhase> seen;
    void onPhase(LessonPhase p) override
    {
        seen.push_back(p);
        if (phase && *phase == p)
            token->cancel();
    }
    void onSweepPoint(const SweepPoint &) override
    {
        if (afterFirstPoint)
            token->cancel();
    }
};

// Lowers this process's file-size limit for its lifetime: writes past `bytes` fail with
// EFBIG, as on a full disk (SIGXFSZ ignored so write() returns the error instead of killing).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_saved);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = m_saved;
        lowered.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &lowered);
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_oldHandler);
    }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;

private:
    rlimit m_saved{};
    void (*m_oldHandler)(int) = nullptr;
};

} // namespace

TEST(Lesson, PhasesInOrder)
{
    TempDir dir;
    CancelToken token;
    CancelAt obs;
    obs.token = &token;
    std::ostringstream out, err;
    EXPECT_EQ(runLesson(smallLesson(dir / "out"), out, err, &obs, &token), 0);
    const std::vector<LessonPhase> expected{LessonPhase::Equivalence, LessonPhase::Sweep, LessonPhase::Export};
    EXPECT_TRUE(obs.seen == expected);
    EXPECT_EQ(entries(dir / "out"), bothExports());
}

namespace {

struct CancelRow {
    const char *name;
    int phase; // -1: after the first sweep point
};

const std::vector<CancelRow> &cancelRows()
{
    static const std::vector<CancelRow> rows{
        {"equivalence", int(LessonPhase::Equivalence)},
        {"sweep start", int(LessonPhase::Sweep)},
        {"mid-sweep", -1},
        {"export", int(LessonPhase::Export)},
    };
    return rows;
}

} // namespace

class CancelInEachPhase : public testing::TestWithParam<CancelRow> {};

TEST_P(CancelInEachPhase, Row)
{
    const int phase = GetParam().phase;
    TempDir dir;
    const fs::path out = dir / "out";
    ASSERT_TRUE(fs::create_directories(out));
    // An earlier run's exports, which a cancelled run must leave exactly as they were.
    const std::string earlierCurve = "{\"earlier\": true}\n";
    const std::string earlierSkill = "# earlier recipe\n";
    writeFileAtomic(out / kCurveFileName, earlierCurve);
    writeFileAtomic(out / kSkillFileName, earlierSkill);

    CancelToken token;
    CancelAt obs;
    obs.token = &token;
    if (phase >= 0)
        obs.phase = LessonPhase(phase);
    else
        obs.afterFirstPoint = true;
    std::ostringstream sink, err;
    const LessonOptions options = smallLesson(out);
    EXPECT_THROW(runLesson(options, sink, err, &obs, &token), Cancelled);
    EXPECT_EQ(entries(out), bothExports()); // no temp file left
    EXPECT_EQ(test::readFile(out / kCurveFileName), earlierCurve);
    EXPECT_EQ(test::readFile(out / kSkillFileName), earlierSkill);

    // The next run, with the same token reset, works and replaces both files whole.
    token.reset();
    CancelAt quiet;
    quiet.token = &token;
    std::ostringstream out2, err2;
    EXPECT_EQ(runLesson(options, out2, err2, &quiet, &token), 0);
    const CurveFile file = parseCurveJson(test::readFile(out / kCurveFileName));
    EXPECT_EQ(file.points.size(), options.sweep.accumGrid.size());
    EXPECT_TRUE(test::readFile(out / kSkillFileName).find("earlier") == std::string::npos);
    EXPECT_EQ(entries(out), bothExports());
}

INSTANTIATE_TEST_SUITE_P(Rows, CancelInEachPhase, testing::ValuesIn(cancelRows()), test::ByName());

// No division with a high learning rate: accum 16 multiplies SGD's step by 16 and the
// point diverges; accum 1 (where no division changes nothing) runs on after it.
TEST(Lesson, DivergedPointIsReportedAndTheSweepCarriesOn)
{
    TempDir dir;
    LessonOptions o = smallLesson(dir / "out");
    o.sweep.base.scaling = Scaling::None;
    o.sweep.base.optimizer.lr = kDivergingLr;
    o.sweep.accumGrid = {16, 1};
    o.sweep.numSteps = 20;
    o.sweep.warmupSteps = 1;
    std::ostringstream out, err;
    // No division is a planted bug: shown first, then swept with it (kExitBugShown).
    EXPECT_EQ(runLesson(o, out, err), kExitBugShown);

    const CurveFile file = parseCurveJson(test::readFile(dir / "out/accum-curve.json"));
    ASSERT_EQ(file.points.size(), size_t(2));
    EXPECT_EQ(file.raw.at("equivalence").at("verdict").get<std::string>(), "fails");
    const SweepPoint &bad = file.points[0];
    EXPECT_TRUE(bad.diverged);
    EXPECT_TRUE(bad.divergedAtStep >= 1 && bad.divergedAtStep <= o.sweep.warmupSteps + o.sweep.numSteps);
    EXPECT_EQ(bad.steps, std::max<int64_t>(0, bad.divergedAtStep - o.sweep.warmupSteps));
    EXPECT_EQ(file.raw.at("points")[0].at("diverged_at_step").get<int64_t>(), bad.divergedAtStep);
    // The next point ran all its steps and stayed finite.
    const SweepPoint &good = file.points[1];
    EXPECT_TRUE(!good.diverged);
    EXPECT_EQ(good.steps, o.sweep.numSteps);
    EXPECT_TRUE(std::isfinite(good.avgLoss));
    EXPECT_TRUE(!file.raw.at("points")[1].contains("diverged_at_step"));

    const std::string sentence =
        "diverged at step " + std::to_string(bad.divergedAtStep) + " of effective batch 64";
    EXPECT_TRUE(err.str().find("warning: " + sentence) != std::string::npos) << err.str();
    EXPECT_TRUE(out.str().find(sentence) != std::string::npos) << out.str();
    const std::string errText = err.str().substr(err.str().find("warning: "));
    EXPECT_EQ(std::count(errText.begin(), errText.end(), '\n'), 1); // one line per diverged point
    EXPECT_EQ(err.str().rfind("equivalence does not hold, as planted (--scaling none): ", 0), 0u) << err.str();
}

// A full disk at the end of a run: one sentence, and both earlier exports stay whole.
TEST(Lesson, FullDiskKeepsEarlierExports)
{
    TempDir dir;
    const fs::path out = dir / "out";
    const LessonOptions options = smallLesson(out);
    std::ostringstream sink, err;
    EXPECT_EQ(runLesson(options, sink, err), 0);
    const std::string curve = test::readFile(out / kCurveFileName);
    const std::string skill = test::readFile(out / kSkillFileName);
    EXPECT_TRUE(curve.size() > kLimitBytes && skill.size() > kLimitBytes);
    try {
        FileSizeLimit limit(kLimitBytes);
        runLesson(options, sink, err);
        FAIL() << "the exports were written past the file-size limit";
    } catch (const ExportError &e) {
        EXPECT_TRUE(std::string(e.what()).find("cannot write") != std::string::npos) << e.what();
    }
    EXPECT_EQ(test::readFile(out / kCurveFileName), curve);
    EXPECT_EQ(test::readFile(out / kSkillFileName), skill);
    EXPECT_EQ(entries(out), bothExports());
}

// The output folder checked at the start and gone by the end, a file in its place.
TEST(Lesson, OutputFolderReplacedByAFile)
{
    TempDir dir;
    const fs::path out = dir / "out";
    const LessonOptions options = smallLesson(out);
    requireWritableDir(options.outDir);
    std::error_code ec;
    fs::remove_all(out, ec);
    ASSERT_FALSE(ec) << ec.message();
    test::writeFile(out, "");
    ASSERT_TRUE(fs::is_regular_file(out));
    SweepResult sweep;
    sweep.config = options.sweep;
    sweep.points = runSweep(options.sweep).points;
    const EquivalenceResult eq = runEquivalence(lessonCheck(options.sweep));
    EXPECT_THROW(writeExports(options.outDir, sweep, eq), ExportError);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out"});
    ASSERT_TRUE(fs::is_regular_file(out));
    EXPECT_EQ(fs::file_size(out), 0u);
}

namespace {

struct JobRow {
    const char *name;
    std::string fault;
    int code;
};

const std::vector<JobRow> &jobRows()
{
    static const std::vector<JobRow> rows{
        {"runs", "none", 0},
        {"a refused setting", "setting", kExitBadInput},
        {"an export that cannot be written", "export", kExitWriteFailed},
    };
    return rows;
}

} // namespace

// The main job as a program runs it: a refusal is one "<program>: error:" line and the
// exit code of core's table (the window's terminal fallback and the CLI share it).
class JobExitCodes : public testing::TestWithParam<JobRow> {};

TEST_P(JobExitCodes, Row)
{
    const JobRow &row = GetParam();
    TempDir dir;
    const fs::path out = dir / "out";
    LessonOptions o = smallLesson(out);
    if (row.fault == "setting")
        o.sweep.base.microBatch = 0;
    if (row.fault == "export") { // a folder where accum-curve.json goes: the write fails after the sweep
        ASSERT_TRUE(fs::create_directories(out / kCurveFileName));
    }
    std::ostringstream so, se;
    EXPECT_EQ(runLessonJob(o, "prog", so, se), row.code);
    EXPECT_EQ(se.str().find("prog: error: ") != std::string::npos, row.code != 0);
}

INSTANTIATE_TEST_SUITE_P(Rows, JobExitCodes, testing::ValuesIn(jobRows()), test::ByName());

// setWorld, the main job over ranks: the sweep's run and its check take the world size (the
// check splits the same windows over the ranks); a world beyond the ranks a job may have is
// refused as a setting.
TEST(Lesson, SetWorldSplitsTheJobOverRanks)
{
    LessonOptions o;
    setWorld(o, 2);
    EXPECT_EQ(o.sweep.base.worldSize, 2);
    EXPECT_EQ(lessonCheck(o.sweep).run.worldSize, 2);
    LessonOptions beyond;
    EXPECT_THROW(setWorld(beyond, kMaxWorldSize + 1), ConfigError);
}
