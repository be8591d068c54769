// Teaching mode's data-parallel ranks as threads (core/distributed/thread_ranks.h): a window of N ranks
// against one rank running the same global batch, the buffers' fills against the full batch
// of every rank's samples, the sync count with and without no_sync, checkpoints of every
// rank and a failed save, a cancel before the ranks start, and a failing rank.
#include "core/distributed/thread_ranks.h"

#include "core/io/checkpoint.h"
#include "core/engine.h"

#include "support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

constexpr int64_t kMicro = 2;  // samples per rank's micro-batch
constexpr int64_t kAccum = 3;  // micro-batches per window
constexpr int64_t kWindows = 2;

AccumConfig rankConfig(int64_t world, bool noSync)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = kMicro;
    c.accumSteps = kAccum;
    c.worldSize = world;
    c.noSync = noSync;
    c.device = DeviceRequest::Cpu;
    c.seed = 5;
    return c;
}

// The same global batch on one rank: micro x N samples per micro-batch.
AccumConfig oneRankOf(const AccumConfig &c)
{
    AccumConfig one = c;
    one.microBatch = c.microBatch * c.worldSize;
    one.worldSize = 1;
    return one;
}

struct Recorder : EngineObserver {
    bool wantsMicroBatchDetail() const override { return true; }
    void onMicroBatch(const MicroBatchEvent &e) override { micro.push_back(e); }
    std::vector<MicroBatchEvent> micro;
};

// One window of the group as teaching mode runs it: the marker first, then micro-batch by
// micro-batch until the window closes. (A failed check returns from here.)
void runWindow(ThreadRanks &ranks, Recorder &rec)
{
    ranks.referenceGradNorms();
    for (int64_t i = 0; i < kAccum; ++i)
        ASSERT_EQ(ranks.microStep(&rec), i == kAccum - 1) << "micro-batch " << i;
}

// ---- windowOfNRanksIsTheGlobalBatch ----------------------------------------------------------

struct WorldRow {
    std::string name;
    int64_t world;
    bool noSync;
};

std::vector<WorldRow> worldRows()
{
    std::vector<WorldRow> rows;
    for (int64_t n : {1, 2, 4}) {
        rows.push_back({std::to_string(n) + " ranks no_sync on", n, true});
        rows.push_back({std::to_string(n) + " ranks no_sync off", n, false});
    }
    return rows;
}

class WindowOfNRanksIsTheGlobalBatch : public testing::TestWithParam<WorldRow> {};

TEST_P(WindowOfNRanksIsTheGlobalBatch, OfOneRank)
{
    const int64_t world = GetParam().world;
    const bool noSync = GetParam().noSync;
    const AccumConfig c = rankConfig(world, noSync);
    ThreadRanks ranks(c);
    EXPECT_EQ(ranks.worldSize(), world);
    AccumEngine one(oneRankOf(c));
    for (int64_t w = 0; w < kWindows; ++w) {
        SCOPED_TRACE("window " + std::to_string(w));
        // The marker is the full batch of every rank's samples: the one rank's own.
        const std::vector<double> expected = one.referenceGradNorms();
        const std::vector<double> marker = ranks.referenceGradNorms();
        ASSERT_EQ(marker.size(), expected.size());
        for (size_t i = 0; i < marker.size(); ++i)
            EXPECT_TRUE(test::relNear(marker[i], expected[i], 1e-5)) << "tensor " << i;
        Recorder rec;
        runWindow(ranks, rec);
        one.step();
        ASSERT_EQ(int64_t(rec.micro.size()), kAccum);
        // After the window's sync rank 0's buffers hold the mean: the bars end on the marker.
        EXPECT_TRUE(test::relNear(rec.micro.back().fillTotal, 1.0, 1e-5));
        for (double f : rec.micro.back().fills)
            EXPECT_TRUE(test::relNear(f, 1.0, 1e-4));
        for (const MicroBatchEvent &e : rec.micro)
            EXPECT_EQ(e.synced, !noSync || e.microIndex == kAccum - 1) << "micro-batch " << e.microIndex;
    }
    for (int64_t r = 0; r < world; ++r) {
        SCOPED_TRACE("rank " + std::to_string(r));
        AccumEngine &e = ranks.engine(r);
        EXPECT_LT(e.maxAbsParamDiff(one), 1e-5);
        EXPECT_EQ(e.syncCalls(), noSync ? kWindows : kWindows * kAccum);
        EXPECT_EQ(e.optimizerSteps(), kWindows);
        EXPECT_EQ(e.microBatches(), kWindows * kAccum);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, WindowOfNRanksIsTheGlobalBatch, testing::ValuesIn(worldRows()), test::ByName());

// ---- checkpointOfEveryRankResumes ------------------------------------------------------------

// Every rank saves at the same micro-batch (saveCheckpoint meets the others once); a new group
// resumed from it ends where the uninterrupted one does, bit for bit.
struct SavedAtRow {
    const char *name;
    int64_t world;
    int64_t savedAt; // micro-batches done
};

class CheckpointOfEveryRankResumes : public testing::TestWithParam<SavedAtRow> {};

TEST_P(CheckpointOfEveryRankResumes, BitForBit)
{
    const int64_t world = GetParam().world;
    const int64_t savedAt = GetParam().savedAt;
    const AccumConfig c = rankConfig(world, true);
    test::TempDir dir; // throws where QTemporaryDir::isValid() was false
    const fs::path path = dir.path();
    ThreadRanks straight(c);
    for (int64_t i = 0; i < savedAt; ++i)
        straight.microStep();
    straight.saveCheckpoint(path);
    for (int64_t i = savedAt; i < kWindows * kAccum; ++i)
        straight.microStep();

    ThreadRanks resumed(c);
    const CheckpointSummary found = resumed.loadCheckpoint(path);
    EXPECT_EQ(found.microBatches, savedAt);
    EXPECT_EQ(found.worldSize, world);
    for (int64_t r = 0; r < world; ++r)
        EXPECT_EQ(resumed.engine(r).microBatches(), savedAt) << "rank " << r;
    for (int64_t i = savedAt; i < kWindows * kAccum; ++i)
        resumed.microStep();
    for (int64_t r = 0; r < world; ++r)
        EXPECT_EQ(resumed.engine(r).paramsSha256(), straight.engine(r).paramsSha256()) << "rank " << r;
}

INSTANTIATE_TEST_SUITE_P(Rows, CheckpointOfEveryRankResumes,
                         testing::ValuesIn(std::vector<SavedAtRow>{{"2 ranks mid-window", 2, kAccum + 1},
                                                                   {"4 ranks at a window's end", 4, kAccum}}),
                         test::ByName());

// ---- Single cases ----------------------------------------------------------------------------

// A save that cannot write (its folder would be inside a file) is refused in words, and the
// ranks go on in step: their next window is the one an unsaved group runs.
TEST(ThreadRanks, FailedSaveLeavesTheGroupRunning)
{
    test::TempDir dir;
    const fs::path file = dir / "a-file";
    test::writeFile(file, "");
    ASSERT_TRUE(fs::is_regular_file(file)) << file;
    const AccumConfig c = rankConfig(2, true);
    ThreadRanks ranks(c);
    ThreadRanks unsaved(c);
    ranks.microStep();
    unsaved.microStep();
    EXPECT_THROW(ranks.saveCheckpoint(file / "run"), CheckpointError);
    for (int64_t i = 1; i < kAccum; ++i) {
        ranks.microStep();
        unsaved.microStep();
    }
    EXPECT_EQ(ranks.rank0().optimizerSteps(), 1);
    EXPECT_EQ(ranks.rank0().paramsSha256(), unsaved.rank0().paramsSha256());
}

// The token is read once, before any rank starts: a cancelled step runs no rank at all, and the
// group goes on afterwards in step.
TEST(ThreadRanks, CancelStopsBeforeAnyRank)
{
    ThreadRanks ranks(rankConfig(3, true));
    ranks.microStep();
    CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(ranks.microStep(nullptr, &cancel), Cancelled);
    for (int64_t r = 0; r < 3; ++r)
        EXPECT_EQ(ranks.engine(r).microBatches(), 1) << "rank " << r;
    EXPECT_FALSE(ranks.microStep());
    EXPECT_TRUE(ranks.microStep());
    EXPECT_EQ(ranks.rank0().syncCalls(), 1);
}

// A rank that fails while the others wait for it in a collective: the others stop, the failing
// rank's own error comes back (not their stop), and the broken group says so again later.
TEST(ThreadRanks, FailingRankBreaksTheGroup)
{
    ThreadRanks ranks(rankConfig(3, true));
    auto job = [](AccumEngine &e) {
        if (e.rank() == 2)
            throw std::runtime_error("rank 2 failed");
        e.rendezvous(); // waits for rank 2
    };
    EXPECT_THROW(ranks.onEveryRank(job), std::runtime_error);
    try {
        ranks.microStep();
        FAIL() << "a broken group ran a micro-batch";
    } catch (const std::runtime_error &e) {
        EXPECT_EQ(std::string(e.what()), "rank 2 failed");
    }
    EXPECT_EQ(ranks.rank0().microBatches(), 0);
}

} // namespace
