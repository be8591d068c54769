// The worker thread and its controller: start, per-micro-batch updates, teaching mode on the
// chosen number of ranks, sweep points, finished, cancel mid-sweep within 200 ms, cancel in
// every kind of job the controller runs with the same kind of job then running to its end,
// destroying the controller mid-run, the out-of-memory demo answering in words on a machine
// without CUDA; a teaching session saved and resumed at any micro-batch continuing bit for
// bit, and a resume the checkpoint refuses leaving the running engine as it was.
#include "common.h"

#include "ui/worker/enginecontroller.h"
#include "ui/worker/engineworker.h"

#include "core/io/checkpoint.h"
#include "core/device.h"
#include "core/engine.h"

#include "wait_helpers.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace accumlab;
using namespace accumlab::ui;
using accumlab::ui::test::flushEngine;

namespace {

constexpr int kCancelBoundMs = 200;

AccumConfig smallConfig(int64_t accum)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 4;
    c.accumSteps = accum;
    c.device = DeviceRequest::Cpu;
    return c;
}

// A sweep long enough to be cancelled while it runs.
SweepConfig endlessSweep()
{
    SweepConfig s;
    s.base = smallConfig(1);
    s.accumGrid = {1, 2, 4, 8};
    s.numSteps = 1'000'000;
    s.warmupSteps = 0;
    return s;
}

// Stopping ranks waits for each child to exit (core/distributed/launcher.cpp gives them 3 s).
constexpr int kRanksCancelBoundMs = 4'000;
constexpr int kWaitMs = 60'000;

// An equivalence check of thousands of small micro-batches: it runs for seconds, and the
// engine looks at the token between every two of them.
EquivalenceConfig longEquivalence()
{
    EquivalenceConfig e;
    e.run.accumSteps = kMaxAccumSteps;
    e.run.microBatch = 16;
    return e;
}

// Queues `n` micro-batches of teaching mode, as n presses of Step; the worker runs queued
// calls in order, so a session request queued after them sees all of them done.
void stepTeaching(EngineController &controller, int n)
{
    for (int i = 0; i < n; ++i)
        controller.stepMicroBatch();
}

// Saves the controller's teaching run into `folder` and returns the answer.
SessionUpdate saveSession(EngineController &controller, const QString &folder)
{
    QSignalSpy spy(&controller, &EngineController::sessionFinished);
    controller.saveSession(folder);
    if (!spy.wait(kWaitMs))
        return {};
    return spy.at(0).first().value<SessionUpdate>();
}

} // namespace

class TestEngineController : public QObject {
    Q_OBJECT
private slots:
    void configureReportsEngineConfig();
    void microBatchUpdates_data();
    void microBatchUpdates();
    void sweepEmitsPointsAndFinishes();
    void sweepOnRealRanks_data();
    void sweepOnRealRanks();
    void teachingModeRunsTheChosenRanks_data();
    void teachingModeRunsTheChosenRanks();
    void cancelMidSweepWithin200ms();
    void cancelInEveryPhase_data();
    void cancelInEveryPhase();
    void memoryLabBadInputIsAnErrorInWords();
    void destroyMidRun();
    void equivalenceAnswersWithSerial();
    void sessionResumesBitForBit_data();
    void sessionResumesBitForBit();
    void refusedResumeKeepsTheRun();
};

void TestEngineController::configureReportsEngineConfig()
{
    EngineController controller;
    QSignalSpy spy(&controller, &EngineController::engineConfigured);
    AccumConfig c = smallConfig(6);
    c.scaling = Scaling::None;
    controller.setConfig(c);
    QVERIFY(spy.wait(10'000));
    QVERIFY(controller.engineInfo().has_value());
    QCOMPARE(controller.engineInfo()->config.accumSteps, 6);
    QVERIFY(controller.engineInfo()->config.scaling == Scaling::None);
    QCOMPARE(controller.engineInfo()->parameterNames.size(), 6); // 3 layers x (weight, bias)
    QCOMPARE(controller.engineInfo()->device, QStringLiteral("cpu"));
}

void TestEngineController::microBatchUpdates_data()
{
    QTest::addColumn<int>("accum");
    QTest::newRow("accum 1") << 1;
    QTest::newRow("accum 3") << 3;
    QTest::newRow("accum 8") << 8;
}

void TestEngineController::microBatchUpdates()
{
    QFETCH(int, accum);
    EngineController controller;
    controller.setConfig(smallConfig(accum));
    MicroBatchUpdate last;
    int received = 0;
    connect(&controller, &EngineController::microBatchDone, this, [&](const MicroBatchUpdate &u) {
        last = u;
        ++received;
    });
    // One micro-batch at a time, as the Step button does.
    for (int i = 0; i < accum; ++i) {
        controller.stepMicroBatch();
        QTRY_COMPARE_WITH_TIMEOUT(last.event.microBatches, int64_t(i + 1), 10'000);
        QCOMPARE(last.event.microIndex, int64_t(i));
        QCOMPARE(last.event.gradNorms.size(), size_t(6));
        QCOMPARE(last.referenceNorms.size(), 6);
    }
    QCOMPARE(received, accum);
    QVERIFY(last.event.optimizerStepped);
    QCOMPARE(last.event.optimizerSteps, int64_t(1));
    QCOMPARE(last.event.syncCalls, int64_t(1)); // no-sync: only the last micro-batch syncs
    // loss/N: after the window the buffers hold the full-batch gradient.
    for (int i = 0; i < 6; ++i)
        ACCUMLAB_COMPARE_REL(last.event.gradNorms[size_t(i)], last.referenceNorms[i], 1e-4);
}

void TestEngineController::sweepEmitsPointsAndFinishes()
{
    EngineController controller;
    QSignalSpy started(&controller, &EngineController::sweepPointStarted);
    QSignalSpy points(&controller, &EngineController::sweepPointDone);
    QSignalSpy steps(&controller, &EngineController::stepBatch);
    QSignalSpy finished(&controller, &EngineController::sweepFinished);
    SweepConfig s;
    s.base = smallConfig(1);
    s.accumGrid = {1, 2};
    s.numSteps = 4;
    s.warmupSteps = 1;
    controller.runSweep(s);
    QVERIFY(controller.isSweepRunning());
    QVERIFY(finished.wait(30'000));
    QVERIFY(!controller.isSweepRunning());
    QCOMPARE(started.count(), 2);
    QCOMPARE(points.count(), 2);
    QVERIFY(steps.count() >= 2);
    const auto done = finished.first().first().value<SweepDoneUpdate>();
    QVERIFY(!done.cancelled);
    QVERIFY(done.error.isEmpty());
    QCOMPARE(done.result.points.size(), size_t(2));
    QCOMPARE(done.result.points[1].effectiveBatch, 8);
    QCOMPARE(done.result.points[1].steps, 4);
    QVERIFY(done.result.points[0].samplesPerSec > 0.0);
    const auto p = points.first().first().value<SweepPointUpdate>();
    QCOMPARE(p.pointIndex, 0);
    QCOMPARE(p.pointCount, 2);
}

// World size > 1: the worker starts real ranks (accumlab-cli over c10d/Gloo); the points carry
// the collectives actually issued: one per step with no-sync on, one per micro-batch with it off.
void TestEngineController::sweepOnRealRanks_data()
{
    QTest::addColumn<bool>("noSync");
    QTest::newRow("no-sync on") << true;
    QTest::newRow("no-sync off") << false;
}

void TestEngineController::sweepOnRealRanks()
{
    QFETCH(bool, noSync);
    EngineController controller;
    QSignalSpy points(&controller, &EngineController::sweepPointDone);
    QSignalSpy finished(&controller, &EngineController::sweepFinished);
    SweepConfig s;
    s.base = smallConfig(1);
    s.base.worldSize = 2;
    s.base.noSync = noSync;
    s.accumGrid = {1, 3};
    s.numSteps = 3;
    s.warmupSteps = 0;
    controller.runSweep(s);
    QVERIFY(finished.wait(120'000));
    const auto done = finished.first().first().value<SweepDoneUpdate>();
    QVERIFY2(done.error.isEmpty(), qPrintable(done.error.english()));
    QCOMPARE(done.result.points.size(), size_t(2));
    QCOMPARE(points.count(), 2);
    for (const SweepPoint &p : done.result.points) {
        QCOMPARE(p.worldSize, 2);
        QCOMPARE(p.effectiveBatch, p.microBatch * p.accumSteps * 2);
        QCOMPARE(p.syncCalls, noSync ? s.numSteps : s.numSteps * p.accumSteps);
        QCOMPARE(p.allreduceCalls, p.syncCalls);
        QVERIFY(p.allreduceBytes > 0);
    }
}

// The Ranks setting reaches teaching mode: the worker runs that many ranks (threads meeting
// in an all-reduce), and Step shows rank 0: its sync count, its optimizer steps, its bars
// against the window's full batch of every rank's samples, the marker one rank's engine
// computes for that global batch.
void TestEngineController::teachingModeRunsTheChosenRanks_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<bool>("noSync");
    QTest::newRow("1 rank no-sync on") << 1 << true;
    QTest::newRow("2 ranks no-sync on") << 2 << true;
    QTest::newRow("2 ranks no-sync off") << 2 << false;
    QTest::newRow("4 ranks no-sync on") << 4 << true;
}

void TestEngineController::teachingModeRunsTheChosenRanks()
{
    QFETCH(int, world);
    QFETCH(bool, noSync);
    constexpr int kAccum = 3;
    constexpr int kWindows = 2;
    EngineController controller;
    QSignalSpy configured(&controller, &EngineController::engineConfigured);
    QSignalSpy stepped(&controller, &EngineController::teachingStepDone);
    AccumConfig c = smallConfig(kAccum);
    c.worldSize = world;
    c.noSync = noSync;
    controller.setConfig(c);
    QVERIFY(configured.wait(10'000));
    QCOMPARE(controller.engineInfo()->config.worldSize, world);
    // The full batch of the first window: micro x ranks samples per micro-batch on one rank.
    AccumConfig global = c;
    global.microBatch = c.microBatch * world;
    global.worldSize = 1;
    const std::vector<double> marker = AccumEngine(global).referenceGradNorms();

    std::vector<MicroBatchUpdate> updates;
    connect(&controller, &EngineController::microBatchDone, this, [&](const MicroBatchUpdate &u) { updates.push_back(u); });
    for (int i = 0; i < kAccum * kWindows; ++i) {
        controller.stepMicroBatch();
        QTRY_COMPARE_WITH_TIMEOUT(qsizetype(updates.size()), qsizetype(i + 1), 10'000);
    }
    QCOMPARE(size_t(updates.front().referenceNorms.size()), marker.size());
    for (size_t i = 0; i < marker.size(); ++i)
        ACCUMLAB_COMPARE_REL(updates.front().referenceNorms[qsizetype(i)], marker[i], 1e-5);
    const MicroBatchUpdate &last = updates.back();
    QCOMPARE(last.event.syncCalls, int64_t(noSync ? kWindows : kWindows * kAccum));
    QCOMPARE(last.event.optimizerSteps, int64_t(kWindows));
    QCOMPARE(last.event.microBatches, int64_t(kWindows * kAccum)); // rank 0's own
    ACCUMLAB_COMPARE_REL(last.event.fillTotal, 1.0, 1e-5);
    QTRY_COMPARE_WITH_TIMEOUT(stepped.count(), kWindows, 10'000);
    QCOMPARE(stepped.last().first().value<StepBatchUpdate>().effectiveBatch, c.microBatch * kAccum * world);
}

void TestEngineController::cancelMidSweepWithin200ms()
{
    EngineController controller;
    QSignalSpy steps(&controller, &EngineController::stepBatch);
    QSignalSpy finished(&controller, &EngineController::sweepFinished);
    controller.runSweep(endlessSweep());
    QVERIFY(steps.wait(30'000)); // the sweep is running
    QElapsedTimer clock;
    clock.start();
    controller.cancel();
    QVERIFY(finished.wait(5'000));
    ACCUMLAB_VERIFY_BELOW(clock.elapsed(), kCancelBoundMs);
    const auto done = finished.first().first().value<SweepDoneUpdate>();
    QVERIFY(done.cancelled);
    QVERIFY(!controller.isSweepRunning());

    // The controller stays usable after a cancel.
    QSignalSpy eq(&controller, &EngineController::equivalenceFinished);
    controller.requestEquivalence(EquivalenceConfig{});
    QVERIFY(eq.wait(30'000));
    QVERIFY(eq.first().first().value<EquivalenceUpdate>().ok);
}

// Every kind of job the controller runs, cancelled while it is running: the worker's own
// signal says the job has begun (teaching mode: a micro-batch arrived), then cancel() must
// bring its end (a cancelled answer, or the pause) within the bound, and the same kind of job
// then runs to its end. The Step button's single micro-batch has nothing to cancel inside it;
// play covers teaching mode. Exports are not the controller's: the window writes them in the
// GUI thread through QSaveFile (tst_mainwindow's failedExportLeavesNoFile).
void TestEngineController::cancelInEveryPhase_data()
{
    QTest::addColumn<QString>("phase");
    QTest::addColumn<int>("boundMs");
    QTest::newRow("teaching mode, playing") << QStringLiteral("play") << kCancelBoundMs;
    QTest::newRow("sweep") << QStringLiteral("sweep") << kCancelBoundMs;
    QTest::newRow("sweep on two ranks") << QStringLiteral("ranks") << kRanksCancelBoundMs;
    QTest::newRow("equivalence") << QStringLiteral("equivalence") << kCancelBoundMs;
    QTest::newRow("experiment") << QStringLiteral("experiment") << kCancelBoundMs;
}

void TestEngineController::cancelInEveryPhase()
{
    QFETCH(QString, phase);
    QFETCH(int, boundMs);
    EngineController controller;
    QSignalSpy started(&controller, &EngineController::jobStarted);
    QSignalSpy micro(&controller, &EngineController::microBatchDone);
    QSignalSpy playing(&controller, &EngineController::playingChanged);
    QSignalSpy sweepDone(&controller, &EngineController::sweepFinished);
    QSignalSpy equivalenceDone(&controller, &EngineController::equivalenceFinished);
    QSignalSpy experimentDone(&controller, &EngineController::experimentFinished);
    const QString experimentId = QStringLiteral("sweep-flattening");

    // 1. Start a job long enough to be cancelled, and wait for its phase signal.
    quint64 serial = 0;
    if (phase == QLatin1String("play")) {
        QSignalSpy configured(&controller, &EngineController::engineConfigured);
        controller.setConfig(smallConfig(4));
        QVERIFY(configured.wait(kWaitMs));
        controller.play(EngineWorker::kMaxUpdatesPerSecond);
        QVERIFY(micro.wait(kWaitMs)); // playing: micro-batches arrive
        QVERIFY(controller.isPlaying());
    } else {
        if (phase == QLatin1String("sweep")) {
            controller.runSweep(endlessSweep());
        } else if (phase == QLatin1String("ranks")) {
            SweepConfig s = endlessSweep();
            s.base.worldSize = 2;
            controller.runSweep(s);
        } else if (phase == QLatin1String("equivalence")) {
            serial = controller.requestEquivalence(longEquivalence());
        } else {
            ExperimentOptions o;
            o.sweepSteps = kMaxSweepSteps; // minutes a point: only cancelling ends it
            serial = controller.runExperiment(experimentId, o);
        }
        QVERIFY(started.wait(kWaitMs));
        const EngineJob expected = phase == QLatin1String("equivalence") ? EngineJob::Equivalence
                                   : phase == QLatin1String("experiment") ? EngineJob::Experiment
                                                                          : EngineJob::Sweep;
        QCOMPARE(int(started.first().at(0).value<EngineJob>()), int(expected));
        QCOMPARE(started.first().at(1).value<quint64>(), serial);
        if (phase == QLatin1String("sweep")) {
            QSignalSpy steps(&controller, &EngineController::stepBatch);
            QVERIFY(steps.wait(kWaitMs)); // and its optimizer steps run
        }
    }

    // 2. Cancel, and the job's end arrives within the bound, saying it was cancelled.
    QElapsedTimer clock;
    clock.start();
    controller.cancel();
    if (phase == QLatin1String("play")) {
        QTRY_VERIFY_WITH_TIMEOUT(!playing.isEmpty() && !playing.last().first().toBool(), 5'000);
        ACCUMLAB_VERIFY_BELOW(clock.elapsed(), boundMs);
        QVERIFY(!controller.isPlaying());
        // No micro-batch is stepped after the pause: once every update sent before the pause
        // has landed (the flush's answer), a play timer left running would step within this
        // span, sixty a second. A timed wait by design: "nothing happens" takes a span of time.
        QVERIFY(flushEngine(controller));
        const qsizetype after = micro.count();
        QTest::qWait(kCancelBoundMs); // timed by design: see above
        QVERIFY(flushEngine(controller));
        QCOMPARE(micro.count(), after);
    } else if (phase == QLatin1String("sweep") || phase == QLatin1String("ranks")) {
        QVERIFY(sweepDone.wait(10'000));
        ACCUMLAB_VERIFY_BELOW(clock.elapsed(), boundMs);
        QVERIFY(sweepDone.first().first().value<SweepDoneUpdate>().cancelled);
        QVERIFY(!controller.isSweepRunning());
    } else if (phase == QLatin1String("equivalence")) {
        QVERIFY(equivalenceDone.wait(10'000));
        ACCUMLAB_VERIFY_BELOW(clock.elapsed(), boundMs);
        const auto u = equivalenceDone.first().first().value<EquivalenceUpdate>();
        QCOMPARE(u.serial, serial);
        QVERIFY(!u.ok);
        QVERIFY2(u.error.english().contains(QStringLiteral("cancelled")), qPrintable(u.error.english()));
    } else {
        QVERIFY(experimentDone.wait(10'000));
        ACCUMLAB_VERIFY_BELOW(clock.elapsed(), boundMs);
        const auto u = experimentDone.first().first().value<ExperimentUpdate>();
        QCOMPARE(u.serial, serial);
        QVERIFY(u.cancelled && !u.ok);
        QVERIFY(!controller.isExperimentRunning());
    }

    // 3. The same kind of job then runs to its end.
    if (phase == QLatin1String("play")) {
        // A whole window of four micro-batches more, ending in an optimizer step (updates carry
        // running totals; a burst may be coalesced into its newest).
        const int64_t stepsBefore = micro.last().first().value<MicroBatchUpdate>().event.optimizerSteps;
        controller.play(EngineWorker::kMaxUpdatesPerSecond);
        QTRY_VERIFY_WITH_TIMEOUT(micro.last().first().value<MicroBatchUpdate>().event.optimizerSteps > stepsBefore, kWaitMs);
        controller.pause();
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isPlaying(), 5'000);
    } else if (phase == QLatin1String("sweep") || phase == QLatin1String("ranks")) {
        sweepDone.clear();
        SweepConfig s = endlessSweep();
        s.base.worldSize = phase == QLatin1String("ranks") ? 2 : 1;
        s.accumGrid = {1, 2};
        s.numSteps = 2;
        controller.runSweep(s);
        QVERIFY(sweepDone.wait(120'000));
        const auto done = sweepDone.first().first().value<SweepDoneUpdate>();
        QVERIFY2(!done.cancelled && done.error.isEmpty(), qPrintable(done.error.english()));
        QCOMPARE(done.result.points.size(), size_t(2));
        QCOMPARE(done.result.points[1].steps, 2);
    } else if (phase == QLatin1String("equivalence")) {
        equivalenceDone.clear();
        const quint64 next = controller.requestEquivalence(EquivalenceConfig{});
        QVERIFY(equivalenceDone.wait(kWaitMs));
        const auto u = equivalenceDone.first().first().value<EquivalenceUpdate>();
        QCOMPARE(u.serial, next);
        QVERIFY2(u.ok && u.result.holds, qPrintable(u.error.english()));
    } else {
        experimentDone.clear();
        ExperimentOptions o;
        o.fast = true;
        const quint64 next = controller.runExperiment(experimentId, o);
        QVERIFY(experimentDone.wait(120'000));
        const auto u = experimentDone.first().first().value<ExperimentUpdate>();
        QCOMPARE(u.serial, next);
        QVERIFY2(u.ok && !u.cancelled, qPrintable(u.error.english()));
    }
}

// Bad input to the memory lab is answered in words (core's sentence), and the controller
// stays usable; a good request measures on this machine.
void TestEngineController::memoryLabBadInputIsAnErrorInWords()
{
    EngineController controller;
    QSignalSpy finished(&controller, &EngineController::memoryLabFinished);
    MemoryLabRequest bad;
    bad.tradeoff.lab.base.device = DeviceRequest::Cpu;
    bad.tradeoff.lab.budgetBytes = 0;
    const quint64 serial = controller.runMemoryLab(bad);
    QVERIFY(controller.isMemoryLabRunning());
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(!controller.isMemoryLabRunning());
    const auto u = finished.first().first().value<MemoryLabUpdate>();
    QCOMPARE(u.serial, serial);
    QVERIFY(!u.ok && !u.cancelled);
    QVERIFY2(u.error.english().contains(QStringLiteral("zero bytes holds nothing")), qPrintable(u.error.english()));

    MemoryLabRequest good = bad;
    good.kind = MemoryLabKind::Finder;
    good.tradeoff.lab.budgetBytes.reset();
    good.tradeoff.lab.failsAfterSamples = 16;
    good.tradeoff.lab.base.microBatch = 16;
    controller.runMemoryLab(good);
    QVERIFY(finished.wait(kWaitMs));
    const auto g = finished.last().first().value<MemoryLabUpdate>();
    QVERIFY2(g.ok, qPrintable(g.error.english()));
    QCOMPARE(g.finding.microBatch, int64_t(16));

    QSignalSpy eq(&controller, &EngineController::equivalenceFinished);
    controller.requestEquivalence(EquivalenceConfig{});
    QVERIFY(eq.wait(kWaitMs));
    QVERIFY(eq.first().first().value<EquivalenceUpdate>().ok);
}

void TestEngineController::destroyMidRun()
{
    auto controller = std::make_unique<EngineController>();
    QSignalSpy steps(controller.get(), &EngineController::stepBatch);
    controller->runSweep(endlessSweep());
    controller->requestEquivalence(EquivalenceConfig{}); // queued behind the sweep
    QVERIFY(steps.wait(30'000));
    QElapsedTimer clock;
    clock.start();
    controller.reset(); // cancels, quits and joins the worker thread
    ACCUMLAB_VERIFY_BELOW(clock.elapsed(), kCancelBoundMs);
}

void TestEngineController::equivalenceAnswersWithSerial()
{
    EngineController controller;
    QSignalSpy spy(&controller, &EngineController::equivalenceFinished);
    EquivalenceConfig e;
    e.run.scaling = Scaling::None;
    const quint64 first = controller.requestEquivalence(EquivalenceConfig{});
    const quint64 second = controller.requestEquivalence(e);
    QVERIFY(second > first);
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 2, 30'000);
    const auto a = spy.at(0).first().value<EquivalenceUpdate>();
    const auto b = spy.at(1).first().value<EquivalenceUpdate>();
    QCOMPARE(a.serial, first);
    QVERIFY(a.ok && a.result.holds);
    QCOMPARE(b.serial, second);
    QVERIFY(b.ok && !b.result.holds);
    ACCUMLAB_COMPARE_REL(b.result.gradRatio, 4.0, 1e-4); // undivided: 4 chunks sum to 4x
}

void TestEngineController::sessionResumesBitForBit_data()
{
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<bool>("float16");
    QTest::addColumn<int>("savedAt"); // micro-batches before the save (windows of 4)
    QTest::addColumn<int>("world");   // teaching mode's ranks, one file each
    QTest::newRow("sgd, inside a window") << "sgd" << false << 6 << 1;
    QTest::newRow("momentum, first micro-batch") << "momentum" << false << 1 << 1;
    QTest::newRow("adamw, at a window's end") << "adamw" << false << 8 << 1;
    QTest::newRow("adamw, inside a window") << "adamw" << false << 7 << 1;
    QTest::newRow("adamw float16 + scaler, inside a window") << "adamw" << true << 6 << 1;
    QTest::newRow("sgd, 2 ranks, inside a window") << "sgd" << false << 6 << 2;
    QTest::newRow("adamw, 4 ranks, at a window's end") << "adamw" << false << 8 << 4;
}

// Save at `savedAt`, go on 7 micro-batches; another controller resumes the save and goes on
// the same 7: the parameters are bit-identical (params_sha256), the resumed view stands where
// the saved run stood, and the controls' run is the checkpoint's, its ranks (one file each) too.
void TestEngineController::sessionResumesBitForBit()
{
    QFETCH(QString, optimizer);
    QFETCH(bool, float16);
    QFETCH(int, savedAt);
    QFETCH(int, world);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString saved = dir.filePath(QStringLiteral("saved"));
    AccumConfig c = smallConfig(4);
    c.optimizer.kind = optimizerFromString(optimizer.toStdString());
    c.optimizer.lrWarmup = 3;
    c.worldSize = world;
    if (float16) {
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        c.lossScaler.growthInterval = 2; // the scale changes within the run
    }
    constexpr int kAfter = 7;

    EngineController first;
    first.setConfig(c);
    stepTeaching(first, savedAt);
    const SessionUpdate atSave = saveSession(first, saved);
    QVERIFY2(atSave.ok, qPrintable(atSave.error.english()));
    QCOMPARE(atSave.microBatches, qint64(savedAt));
    QCOMPARE(atSave.microIndex, qint64(savedAt % 4));
    stepTeaching(first, kAfter);
    const SessionUpdate uninterrupted = saveSession(first, dir.filePath(QStringLiteral("a")));
    QVERIFY(uninterrupted.ok);

    EngineController second;
    second.setConfig(smallConfig(2)); // another run, replaced by the resumed one
    QSignalSpy resumed(&second, &EngineController::sessionFinished);
    QSignalSpy views(&second, &EngineController::microBatchDone);
    second.resumeSession(checkpointConfig(saved.toStdString()), saved);
    QVERIFY(resumed.wait(kWaitMs));
    const auto r = resumed.at(0).first().value<SessionUpdate>();
    QVERIFY2(r.ok, qPrintable(r.error.english()));
    QCOMPARE(r.microBatches, qint64(savedAt));
    QCOMPARE(r.microIndex, qint64(savedAt % 4));
    QCOMPARE(r.paramsSha256, atSave.paramsSha256);
    QCOMPARE(second.config().accumSteps, c.accumSteps);
    QVERIFY(second.config().optimizer.kind == c.optimizer.kind);
    QVERIFY(second.config().dtype == c.dtype);
    QCOMPARE(second.config().worldSize, c.worldSize);
    QCOMPARE(second.engineInfo()->config.worldSize, c.worldSize);
    // Inside a window the bars are shown as the save left them: its micro-batches, its fill.
    if (savedAt % 4 != 0) {
        QVERIFY(!views.isEmpty());
        const auto view = views.last().first().value<MicroBatchUpdate>();
        QCOMPARE(view.event.microIndex, int64_t(savedAt % 4 - 1));
        QCOMPARE(view.event.microBatches, int64_t(savedAt));
        QCOMPARE(view.referenceNorms.size(), 6);
        QCOMPARE(view.event.fills.size(), size_t(6));
        QVERIFY(std::isfinite(view.event.microLoss));
        if (!float16) // a float16 window's buffers hold the scaled sum until it closes
            QVERIFY2(view.event.fillTotal > 0.0 && view.event.fillTotal < 1.0, qPrintable(QString::number(view.event.fillTotal)));
    }
    stepTeaching(second, kAfter);
    const SessionUpdate continued = saveSession(second, dir.filePath(QStringLiteral("b")));
    QVERIFY(continued.ok);
    QCOMPARE(continued.microBatches, uninterrupted.microBatches);
    QCOMPARE(continued.windowsDone, uninterrupted.windowsDone);
    QCOMPARE(continued.paramsSha256, uninterrupted.paramsSha256);
}

// A checkpoint of another world size (the CLI's two ranks) is refused in words, and the
// teaching run goes on as it was; so does a folder without a checkpoint.
void TestEngineController::refusedResumeKeepsTheRun()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EngineController controller;
    controller.setConfig(smallConfig(4));
    stepTeaching(controller, 3);
    const SessionUpdate before = saveSession(controller, dir.filePath(QStringLiteral("mine")));
    QVERIFY(before.ok);

    // The CLI's run of two ranks, as its latest.json says (tst_checkpoint does the same).
    const QString theirs = dir.filePath(QStringLiteral("theirs"));
    QVERIFY(saveSession(controller, theirs).ok);
    QFile latest(QDir(theirs).filePath(QStringLiteral("latest.json")));
    QVERIFY(latest.open(QIODevice::ReadOnly));
    QByteArray text = latest.readAll();
    latest.close();
    QVERIFY(text.contains("\"world_size\": 1"));
    text.replace("\"world_size\": 1", "\"world_size\": 2");
    QVERIFY(latest.open(QIODevice::WriteOnly | QIODevice::Truncate));
    latest.write(text);
    latest.close();
    QSignalSpy answers(&controller, &EngineController::sessionFinished);
    controller.resumeSession(checkpointConfig(theirs.toStdString()), theirs);
    controller.resumeSession(smallConfig(4), dir.filePath(QStringLiteral("nothing-here")));
    QTRY_COMPARE_WITH_TIMEOUT(answers.count(), 2, kWaitMs);
    for (int i = 0; i < 2; ++i) {
        const auto refused = answers.at(i).first().value<SessionUpdate>();
        QVERIFY(!refused.ok);
        QVERIFY2(!refused.error.code.empty(), qPrintable(refused.error.english()));
    }
    QCOMPARE(answers.at(0).first().value<SessionUpdate>().error.code, std::string("checkpoint/world-size-differs"));
    QCOMPARE(answers.at(1).first().value<SessionUpdate>().error.code, std::string("checkpoint/none"));
    const SessionUpdate after = saveSession(controller, dir.filePath(QStringLiteral("again")));
    QVERIFY(after.ok);
    QCOMPARE(after.microBatches, qint64(3));
    QCOMPARE(after.paramsSha256, before.paramsSha256);
    QCOMPARE(controller.config().accumSteps, 4);
}

QTEST_GUILESS_MAIN(TestEngineController)
#include "tst_enginecontroller.moc"
