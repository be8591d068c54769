// The throughput sweep: one point per grid entry with the lesson's fields filled from
// measurement, sync counts, warm-up excluded, observer callbacks and cancellation.
#include "core/export.h"
#include "core/sweep.h"

#include <QtTest>

#include <numeric>

using namespace accumlab;

namespace {

SweepConfig smallSweep()
{
    SweepConfig s;
    s.base.preset = ModelPreset::Fixture;
    s.base.device = DeviceRequest::Cpu;
    s.base.microBatch = 4;
    s.accumGrid = {1, 2, 4};
    s.numSteps = 6;
    s.warmupSteps = 2;
    return s;
}

struct PointRecorder : EngineObserver {
    void onSweepPointStarted(int64_t index, int64_t accum) override { started.push_back({index, accum}); }
    void onSweepBlock(int64_t index, int64_t block) override { blocks.push_back({index, block}); }
    void onSweepBlockDone(int64_t index, const SweepPoint &p) override { soFar.push_back({index, p}); }
    void onSweepPoint(const SweepPoint &p) override { points.push_back(p); }
    void onStep(const StepResult &) override { ++steps; }
    std::vector<std::pair<int64_t, int64_t>> started;
    std::vector<std::pair<int64_t, SweepPoint>> soFar; // (point, as its blocks so far measured it)
    std::vector<std::pair<int64_t, int64_t>> blocks; // (point, block) in the order they ran
    std::vector<SweepPoint> points;
    int steps = 0;
};

double meanOf(const std::vector<double> &v, size_t from, size_t count)
{
    double s = 0.0;
    for (size_t i = from; i < from + count; ++i)
        s += v[i];
    return s / static_cast<double>(count);
}

} // namespace

class TestSweep : public QObject {
    Q_OBJECT
private slots:
    void pointsAndFields_data()
    {
        QTest::addColumn<bool>("noSync");
        QTest::newRow("no-sync on") << true;
        QTest::newRow("no-sync off") << false;
    }
    void pointsAndFields()
    {
        QFETCH(bool, noSync);
        auto s = smallSweep();
        s.base.noSync = noSync;
        PointRecorder rec;
        const auto result = runSweep(s, &rec);
        QCOMPARE(result.points.size(), s.accumGrid.size());
        QCOMPARE(rec.points.size(), s.accumGrid.size());
        QCOMPARE(rec.started.size(), s.accumGrid.size());
        QCOMPARE(rec.steps, int(s.accumGrid.size() * s.numSteps)); // warm-up steps are not reported
        for (size_t i = 0; i < result.points.size(); ++i) {
            const auto &p = result.points[i];
            const int64_t accum = s.accumGrid[i];
            QCOMPARE(p.accumSteps, accum);
            QCOMPARE(p.microBatch, s.base.microBatch);
            QCOMPARE(p.effectiveBatch, s.base.microBatch * accum);
            QCOMPARE(p.steps, s.numSteps);
            QCOMPARE(p.microBatches, s.numSteps * accum);
            QCOMPARE(p.syncCalls, noSync ? s.numSteps : s.numSteps * accum);
            QCOMPARE(p.optimizerStateStep, s.numSteps + s.warmupSteps);
            QCOMPARE(p.losses.size(), size_t(s.numSteps));
            QVERIFY(p.samplesPerSec > 0.0);
            QVERIFY(p.medianStepMs > 0.0);
            QVERIFY(p.wallS > 0.0);
            // samples/sec is samples over the wall time of the whole timed region.
            QVERIFY(qAbs(p.samplesPerSec - double(p.steps * p.effectiveBatch) / p.wallS) < 1e-6 * p.samplesPerSec);
            // Each step is part of the wall time, so the median step cannot exceed wall / steps by much.
            QVERIFY(p.medianStepMs * 1e-3 * 0.5 <= p.wallS);
            double mean = 0;
            for (double l : p.losses)
                mean += l / double(p.losses.size());
            QCOMPARE(p.avgLoss, mean);
            QVERIFY(!p.diverged);
            QCOMPARE(QString::fromStdString(p.device), QStringLiteral("cpu"));
        }
        QVERIFY(result.plateauSamplesPerSec() >= result.points.front().samplesPerSec);
    }

    // The logged loss is what the lesson's loop prints (scaled.item() * accum_steps): the raw
    // mean with division, N times it without, N/(N+1) of it with that divisor, so a student who
    // debugs by the log sees the bug. Same samples, same steps: only the scaling differs.
    void loggedLossShowsTheScaling_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::newRow("division") << "divide";
        QTest::newRow("no division") << "none";
        QTest::newRow("divide by N+1") << "n-plus-1";
    }
    void loggedLossShowsTheScaling()
    {
        QFETCH(QString, variant);
        SweepConfig s = smallSweep();
        s.accumGrid = {1, 4, 16};
        s.base.optimizer.lr = 1e-4; // keep every variant finite
        if (variant == "none")
            s.base.scaling = Scaling::None;
        if (variant == "n-plus-1")
            s.base.bug = AccumBug::DivideByNPlusOne;
        const SweepResult r = runSweep(s);
        for (const SweepPoint &p : r.points) {
            const double n = double(p.accumSteps);
            const double expected = variant == "divide" ? 1.0 : variant == "none" ? n : n / (n + 1.0);
            QVERIFY2(std::abs(p.avgLoggedLoss / p.avgLoss - expected) < 1e-9 * expected,
                     qPrintable(QStringLiteral("accum %1: logged %2, raw %3").arg(n).arg(p.avgLoggedLoss).arg(p.avgLoss)));
        }
        // Written and read back with the point.
        const CurveFile back = parseCurveJson(curveJson(r).dump());
        QCOMPARE(back.points.back().avgLoggedLoss, r.points.back().avgLoggedLoss);
    }

    // The default sweep visibly learns: at every point the mean of the last five timed losses
    // is at least 10% of ln(classes) below the mean of the first five. Random labels, the
    // lesson's flat line, are the planted case: nothing falls there.
    void defaultSweepVisiblyLearns_data()
    {
        QTest::addColumn<QString>("labels");
        QTest::newRow("teacher (default)") << "teacher";
        QTest::newRow("random") << "random";
    }
    void defaultSweepVisiblyLearns()
    {
        QFETCH(QString, labels);
        SweepConfig s; // the CLI's and the window's defaults: lesson MLP, micro 4, grid 1..16, 25 steps
        s.base.device = DeviceRequest::Cpu;
        s.base.labels = labelsFromString(labels.toStdString());
        const SweepResult r = runSweep(s);
        const double lnC = std::log(double(s.base.modelShape().classes));
        for (const SweepPoint &p : r.points) {
            QCOMPARE(p.losses.size(), size_t(25));
            const double first = meanOf(p.losses, 0, 5), last = meanOf(p.losses, p.losses.size() - 5, 5);
            const QString what = QStringLiteral("accum %1: %2 -> %3").arg(p.accumSteps).arg(first).arg(last);
            if (labels == "teacher")
                QVERIFY2(first - last >= 0.1 * lnC, qPrintable(what));
            else
                QVERIFY2(first - last < 0.1 * lnC && std::abs(last - lnC) < 0.1 * lnC, qPrintable(what));
        }
    }

    // The timed steps run in blocks interleaved across the grid (block 0 of every point, then
    // block 1, ...), split as evenly as the blocks allow; each block gives one figure and the
    // point reports their spread. A sweep that ran the points one after the other, or that
    // kept one figure a point, fails here. With equal work (grid 1, 2, 4), numSteps is the
    // largest point's and a point with N runs numSteps * 4 / N, rounded up.
    void blocksInterleaveAcrossTheGrid_data()
    {
        QTest::addColumn<int>("numSteps");
        QTest::addColumn<int>("repeats");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<bool>("equalWork");
        QTest::addColumn<QList<int>>("steps"); // per point of the grid 1, 2, 4
        QTest::newRow("7 steps in 3 blocks") << 7 << 3 << 3 << false << QList<int>{7, 7, 7};
        QTest::newRow("one block") << 6 << 1 << 1 << false << QList<int>{6, 6, 6};
        QTest::newRow("more repeats than steps") << 2 << 5 << 2 << false << QList<int>{2, 2, 2};
        QTest::newRow("equal work, 3 steps at N = 4 in 3 blocks") << 3 << 3 << 3 << true << QList<int>{12, 6, 3};
        QTest::newRow("equal work, more repeats than steps") << 2 << 5 << 2 << true << QList<int>{8, 4, 2};
    }
    void blocksInterleaveAcrossTheGrid()
    {
        QFETCH(int, numSteps);
        QFETCH(int, repeats);
        QFETCH(int, blocks);
        QFETCH(bool, equalWork);
        QFETCH(QList<int>, steps);
        auto s = smallSweep();
        s.numSteps = numSteps;
        s.repeats = repeats;
        s.equalWork = equalWork;
        QCOMPARE(s.blocks(), int64_t(blocks));
        PointRecorder rec;
        const SweepResult r = runSweep(s, &rec);
        std::vector<std::pair<int64_t, int64_t>> expected;
        for (int b = 0; b < blocks; ++b)
            for (size_t i = 0; i < s.accumGrid.size(); ++i)
                expected.push_back({int64_t(i), b});
        QCOMPARE(rec.blocks, expected);
        QCOMPARE(rec.steps, std::accumulate(steps.begin(), steps.end(), 0));
        for (size_t i = 0; i < r.points.size(); ++i) {
            const SweepPoint &p = r.points[i];
            QCOMPARE(p.steps, int64_t(steps[int(i)]));
            QCOMPARE(s.stepsAt(p.accumSteps), p.steps);
            QCOMPARE(p.microBatches, p.steps * p.accumSteps);
            QCOMPARE(p.blockSamplesPerSec.size(), size_t(blocks));
            QVERIFY(p.blockMin() <= p.blockQuantile(0.25) && p.blockQuantile(0.25) <= p.blockMedian());
            QVERIFY(p.blockMedian() <= p.blockQuantile(0.75) && p.blockQuantile(0.75) <= p.blockMax());
            QVERIFY(p.blockMin() > 0.0);
        }
        // Each block but a point's last shows the point as measured so far: its blocks up to
        // there (the final point's first ones), its steps, samples/sec over them, no losses.
        QCOMPARE(rec.soFar.size(), size_t(blocks - 1) * s.accumGrid.size());
        for (size_t k = 0; k < rec.soFar.size(); ++k) {
            const auto &[index, p] = rec.soFar[k];
            const size_t block = k / s.accumGrid.size();
            QCOMPARE(index, int64_t(k % s.accumGrid.size()));
            const SweepPoint &final = r.points[size_t(index)];
            QCOMPARE(p.effectiveBatch, final.effectiveBatch);
            QCOMPARE(p.blockSamplesPerSec.size(), block + 1);
            QVERIFY(std::equal(p.blockSamplesPerSec.begin(), p.blockSamplesPerSec.end(), final.blockSamplesPerSec.begin()));
            int64_t timed = 0;
            for (size_t b = 0; b <= block; ++b)
                timed += final.steps / blocks + (int64_t(b) < final.steps % blocks ? 1 : 0);
            QCOMPARE(p.steps, timed);
            QVERIFY(p.samplesPerSec > 0.0 && p.medianStepMs > 0.0);
            QVERIFY(p.losses.empty());
        }
        // Written and read back with the point.
        const CurveFile back = parseCurveJson(curveJson(r).dump());
        QCOMPARE(back.points.front().blockSamplesPerSec, r.points.front().blockSamplesPerSec);
    }

    // Quantiles interpolate between order statistics: planted figures with known answers.
    void blockQuantiles()
    {
        SweepPoint p;
        p.samplesPerSec = 7.0;
        QCOMPARE(p.blockMedian(), 7.0); // a lesson file has no blocks: the one figure
        p.blockSamplesPerSec = {40, 10, 30, 20, 50};
        QCOMPARE(p.blockMin(), 10.0);
        QCOMPARE(p.blockMax(), 50.0);
        QCOMPARE(p.blockMedian(), 30.0);
        QCOMPARE(p.blockQuantile(0.25), 20.0);
        QCOMPARE(p.blockQuantile(0.75), 40.0);
        p.blockSamplesPerSec = {10, 20};
        QCOMPARE(p.blockMedian(), 15.0);
        QCOMPARE(p.blockQuantile(0.25), 12.5);
    }

    // The cost model from planted block costs: each block's costs are the points' means in it,
    // samples per micro-batch come from the points (micro x ranks), and a point without phase
    // timing leaves no model.
    void costModelPredictsFromTheBlocks()
    {
        std::vector<SweepPoint> points(2);
        points[0].accumSteps = 1;
        points[0].effectiveBatch = 8; // micro 4 on 2 ranks
        points[0].blockMicroMs = {1.0, 2.0};
        points[0].blockWindowMs = {3.0, 6.0};
        points[1].accumSteps = 4;
        points[1].effectiveBatch = 32;
        points[1].blockMicroMs = {3.0, 4.0};
        points[1].blockWindowMs = {5.0, 6.0};
        const SweepCostModel m = costModelOf(points);
        QCOMPARE(m.blocks(), size_t(2));
        QCOMPARE(m.samplesPerMicroBatch, 8.0);
        QCOMPARE(m.tMicroMs, (std::vector<double>{2.0, 3.0}));
        QCOMPARE(m.tWindowMs, (std::vector<double>{4.0, 6.0}));
        QCOMPARE(m.predicted(4, 0), 1000.0 * 4 * 8 / (4 * 2.0 + 4.0));
        QCOMPARE(m.predicted(2.5, 1), 1000.0 * 2.5 * 8 / (2.5 * 3.0 + 6.0));
        QCOMPARE(m.predictedMedian(4), (m.predicted(4, 0) + m.predicted(4, 1)) / 2);
        points[1].blockMicroMs.clear();
        QCOMPARE(costModelOf(points).blocks(), size_t(0));
        QCOMPARE(costModelOf({}).blocks(), size_t(0));
    }

    // skip-last-micro at accum_steps 1 runs no micro-batch: refused in words, not shown as a
    // divergence; from accum_steps 2 it runs and trains on N - 1 micro-batches.
    void skipLastMicroNeedsTwoMicroBatches()
    {
        auto s = smallSweep();
        s.base.bug = AccumBug::SkipLastMicro;
        try {
            runSweep(s);
            QFAIL("a grid starting at 1 was accepted");
        } catch (const ConfigError &e) {
            QVERIFY2(QString(e.what()).contains("runs no micro-batch"), e.what());
        }
        s.accumGrid = {2, 4};
        const SweepResult r = runSweep(s);
        for (const SweepPoint &p : r.points) {
            QVERIFY(!p.diverged);
            QCOMPARE(p.microBatches, p.steps * p.accumSteps); // drawn and counted; the last one never runs
        }
    }

    void cancelStopsTheSweep()
    {
        auto s = smallSweep();
        s.numSteps = 1000;
        CancelToken token;
        struct CancelOnThirdStep : EngineObserver {
            CancelToken *token;
            int n = 0;
            void onStep(const StepResult &) override
            {
                if (++n == 3)
                    token->cancel();
            }
        } obs;
        obs.token = &token;
        QVERIFY_THROWS_EXCEPTION(Cancelled, runSweep(s, &obs, &token));
        QCOMPARE(obs.n, 3);
    }

    void divergenceIsMarked()
    {
        auto s = smallSweep();
        s.base.scaling = Scaling::None;
        s.base.optimizer.lr = 1e3; // no division and a huge step: the loss overflows
        s.accumGrid = {16};
        s.numSteps = 30;
        const auto result = runSweep(s);
        const auto &p = result.points.front();
        QVERIFY(p.diverged);
        // 1-based over the point's steps, warm-up first; the point stops at that step.
        QVERIFY(p.divergedAtStep >= 1 && p.divergedAtStep <= s.warmupSteps + s.numSteps);
        QCOMPARE(p.steps, std::max<int64_t>(0, p.divergedAtStep - s.warmupSteps));
        QCOMPARE(divergenceSentence(p).rfind("diverged at step " + std::to_string(p.divergedAtStep) +
                                                 " of effective batch 64",
                                             0),
                 size_t(0));
    }

    // Divergence in the warm-up is caught there: no timed step runs on NaN weights.
    void divergenceInWarmUp()
    {
        auto s = smallSweep();
        s.base.scaling = Scaling::None;
        s.base.optimizer.lr = 1e3; // the largest the config allows
        s.accumGrid = {16};
        s.warmupSteps = 50;
        const auto p = runSweep(s).points.front();
        QVERIFY(p.diverged);
        QVERIFY(p.divergedAtStep >= 1 && p.divergedAtStep <= s.warmupSteps);
        QCOMPARE(p.steps, 0);
        QVERIFY(std::isnan(p.avgLoss));
        QCOMPARE(p.samplesPerSec, 0.0);
    }

    void rejectsBadGrid()
    {
        auto s = smallSweep();
        s.accumGrid = {};
        QVERIFY_THROWS_EXCEPTION(ConfigError, runSweep(s));
        s.accumGrid = {1, 0};
        QVERIFY_THROWS_EXCEPTION(ConfigError, runSweep(s));
    }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
