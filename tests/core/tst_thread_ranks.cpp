// Teaching mode's data-parallel ranks as threads (core/thread_ranks.h): a window of N ranks
// against one rank running the same global batch, the buffers' fills against the full batch
// of every rank's samples, the sync count with and without no_sync, checkpoints of every
// rank and a failed save, a cancel before the ranks start, and a failing rank.
#include "core/thread_ranks.h"

#include "core/checkpoint.h"
#include "core/engine.h"

#include "common.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <stdexcept>

using namespace accumlab;

namespace {

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
// micro-batch until the window closes.
void runWindow(ThreadRanks &ranks, Recorder &rec)
{
    ranks.referenceGradNorms();
    for (int64_t i = 0; i < kAccum; ++i)
        QCOMPARE(ranks.microStep(&rec), i == kAccum - 1);
}

} // namespace

class TestThreadRanks : public QObject {
    Q_OBJECT
private slots:
    void windowOfNRanksIsTheGlobalBatch_data();
    void windowOfNRanksIsTheGlobalBatch();
    void checkpointOfEveryRankResumes_data();
    void checkpointOfEveryRankResumes();
    void failedSaveLeavesTheGroupRunning();
    void cancelStopsBeforeAnyRank();
    void failingRankBreaksTheGroup();
};

void TestThreadRanks::windowOfNRanksIsTheGlobalBatch_data()
{
    QTest::addColumn<qint64>("world");
    QTest::addColumn<bool>("noSync");
    for (qint64 n : {1, 2, 4}) {
        QTest::addRow("%lld ranks no_sync on", static_cast<long long>(n)) << n << true;
        QTest::addRow("%lld ranks no_sync off", static_cast<long long>(n)) << n << false;
    }
}

void TestThreadRanks::windowOfNRanksIsTheGlobalBatch()
{
    QFETCH(qint64, world);
    QFETCH(bool, noSync);
    const AccumConfig c = rankConfig(world, noSync);
    ThreadRanks ranks(c);
    QCOMPARE(ranks.worldSize(), world);
    AccumEngine one(oneRankOf(c));
    for (int64_t w = 0; w < kWindows; ++w) {
        // The marker is the full batch of every rank's samples: the one rank's own.
        const std::vector<double> expected = one.referenceGradNorms();
        const std::vector<double> marker = ranks.referenceGradNorms();
        QCOMPARE(marker.size(), expected.size());
        for (size_t i = 0; i < marker.size(); ++i)
            ACCUMLAB_COMPARE_REL(marker[i], expected[i], 1e-5);
        Recorder rec;
        runWindow(ranks, rec);
        one.step();
        QCOMPARE(qint64(rec.micro.size()), kAccum);
        // After the window's sync rank 0's buffers hold the mean: the bars end on the marker.
        ACCUMLAB_COMPARE_REL(rec.micro.back().fillTotal, 1.0, 1e-5);
        for (double f : rec.micro.back().fills)
            ACCUMLAB_COMPARE_REL(f, 1.0, 1e-4);
        for (const MicroBatchEvent &e : rec.micro)
            QCOMPARE(e.synced, !noSync || e.microIndex == kAccum - 1);
    }
    for (int64_t r = 0; r < world; ++r) {
        AccumEngine &e = ranks.engine(r);
        ACCUMLAB_VERIFY_BELOW(e.maxAbsParamDiff(one), 1e-5);
        QCOMPARE(e.syncCalls(), noSync ? kWindows : kWindows * kAccum);
        QCOMPARE(e.optimizerSteps(), kWindows);
        QCOMPARE(e.microBatches(), kWindows * kAccum);
    }
}

// Every rank saves at the same micro-batch (saveCheckpoint meets the others once); a new group
// resumed from it ends where the uninterrupted one does, bit for bit.
void TestThreadRanks::checkpointOfEveryRankResumes_data()
{
    QTest::addColumn<qint64>("world");
    QTest::addColumn<qint64>("savedAt"); // micro-batches done
    QTest::newRow("2 ranks mid-window") << qint64(2) << qint64(kAccum + 1);
    QTest::newRow("4 ranks at a window's end") << qint64(4) << qint64(kAccum);
}

void TestThreadRanks::checkpointOfEveryRankResumes()
{
    QFETCH(qint64, world);
    QFETCH(qint64, savedAt);
    const AccumConfig c = rankConfig(world, true);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::filesystem::path path = dir.path().toStdString();
    ThreadRanks straight(c);
    for (int64_t i = 0; i < savedAt; ++i)
        straight.microStep();
    straight.saveCheckpoint(path);
    for (int64_t i = savedAt; i < kWindows * kAccum; ++i)
        straight.microStep();

    ThreadRanks resumed(c);
    const CheckpointSummary found = resumed.loadCheckpoint(path);
    QCOMPARE(found.microBatches, savedAt);
    QCOMPARE(found.worldSize, world);
    for (int64_t r = 0; r < world; ++r)
        QCOMPARE(resumed.engine(r).microBatches(), savedAt);
    for (int64_t i = savedAt; i < kWindows * kAccum; ++i)
        resumed.microStep();
    for (int64_t r = 0; r < world; ++r)
        QCOMPARE(resumed.engine(r).paramsSha256(), straight.engine(r).paramsSha256());
}

// A save that cannot write (its folder would be inside a file) is refused in words, and the
// ranks go on in step: their next window is the one an unsaved group runs.
void TestThreadRanks::failedSaveLeavesTheGroupRunning()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("a-file"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const AccumConfig c = rankConfig(2, true);
    ThreadRanks ranks(c);
    ThreadRanks unsaved(c);
    ranks.microStep();
    unsaved.microStep();
    QVERIFY_THROWS_EXCEPTION(CheckpointError, ranks.saveCheckpoint(std::filesystem::path(file.toStdString()) / "run"));
    for (int64_t i = 1; i < kAccum; ++i) {
        ranks.microStep();
        unsaved.microStep();
    }
    QCOMPARE(ranks.rank0().optimizerSteps(), 1);
    QCOMPARE(ranks.rank0().paramsSha256(), unsaved.rank0().paramsSha256());
}

// The token is read once, before any rank starts: a cancelled step runs no rank at all, and the
// group goes on afterwards in step.
void TestThreadRanks::cancelStopsBeforeAnyRank()
{
    ThreadRanks ranks(rankConfig(3, true));
    ranks.microStep();
    CancelToken cancel;
    cancel.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, ranks.microStep(nullptr, &cancel));
    for (int64_t r = 0; r < 3; ++r)
        QCOMPARE(ranks.engine(r).microBatches(), 1);
    QVERIFY(!ranks.microStep());
    QVERIFY(ranks.microStep());
    QCOMPARE(ranks.rank0().syncCalls(), 1);
}

// A rank that fails while the others wait for it in a collective: the others stop, the failing
// rank's own error comes back (not their stop), and the broken group says so again later.
void TestThreadRanks::failingRankBreaksTheGroup()
{
    ThreadRanks ranks(rankConfig(3, true));
    auto job = [](AccumEngine &e) {
        if (e.rank() == 2)
            throw std::runtime_error("rank 2 failed");
        e.rendezvous(); // waits for rank 2
    };
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, ranks.onEveryRank(job));
    try {
        ranks.microStep();
        QFAIL("a broken group ran a micro-batch");
    } catch (const std::runtime_error &e) {
        QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("rank 2 failed"));
    }
    QCOMPARE(ranks.rank0().microBatches(), 0);
}

QTEST_GUILESS_MAIN(TestThreadRanks)
#include "tst_thread_ranks.moc"
