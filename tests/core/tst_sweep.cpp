// The throughput sweep: one point per grid entry with the lesson's fields filled from
// measurement, sync counts, warm-up excluded, observer callbacks and cancellation.
#include "core/export.h"
#include "core/sweep.h"

#include <QtTest>

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
    void onSweepPoint(const SweepPoint &p) override { points.push_back(p); }
    void onStep(const StepResult &) override { ++steps; }
    std::vector<std::pair<int64_t, int64_t>> started;
    std::vector<SweepPoint> points;
    int steps = 0;
};

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
