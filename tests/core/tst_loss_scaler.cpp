// float16 and the dynamic loss scaler in the engine's window: GradScaler's update rule, one
// unscale per window, skip-and-halve on an Inf/NaN with the optimizer's state and the LR
// schedule held, growth after the interval, which float16 path ran (against a float16 matmul
// tried here), each pitfall's measured consequence, and the counters in accum-curve.json.
// Also the divergence watch `accumlab-cli train` judges a run by (a non-finite loss, a collapsed
// scale, no step at all), on planted windows and on the engine driven to divergence.
#include "core/curve_io.h"
#include "core/divergence.h"
#include "core/engine.h"
#include "core/loss_scaler.h"

#include <torch/torch.h> // before Qt's `slots`

#include "common.h"

#include <QtTest>

#include <cmath>

using namespace accumlab;

namespace {

AccumConfig float16Config(int64_t accum, OptimizerKind kind = OptimizerKind::Sgd)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 4;
    c.accumSteps = accum;
    c.optimizer.kind = kind;
    c.device = DeviceRequest::Cpu;
    c.dtype = DType::Float16;
    c.lossScaler.enabled = true;
    c.seed = 3;
    return c;
}

// Whether a float16 matmul runs on the CPU, tried here independently of the engine's probe.
bool halfMatmulWorks()
{
    try {
        auto a = torch::ones({2, 2}, torch::kHalf);
        (void)torch::mm(a, a);
        return true;
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace

class TestLossScaler : public QObject {
    Q_OBJECT
private slots:
    // torch.cuda.amp.GradScaler.update(): x0.5 on an Inf, x2 after `interval` clean steps.
    void updateRule_data()
    {
        QTest::addColumn<int>("interval");
        QTest::addColumn<QString>("steps"); // "c" clean, "i" Inf/NaN
        QTest::addColumn<double>("scale");
        QTest::addColumn<int>("tracker");
        QTest::addColumn<int>("growths");
        QTest::addColumn<int>("backoffs");
        QTest::newRow("one clean") << 2000 << "c" << 65536.0 << 1 << 0 << 0;
        QTest::newRow("inf halves") << 2000 << "i" << 32768.0 << 0 << 0 << 1;
        QTest::newRow("grows at the interval") << 2 << "cc" << 131072.0 << 0 << 1 << 0;
        QTest::newRow("inf restarts the count") << 2 << "cicc" << 65536.0 << 0 << 1 << 1;
        QTest::newRow("two infs") << 2 << "ii" << 16384.0 << 0 << 0 << 2;
        QTest::newRow("grows twice") << 1 << "cc" << 262144.0 << 0 << 2 << 0;
    }
    void updateRule()
    {
        QFETCH(int, interval);
        QFETCH(QString, steps);
        QFETCH(double, scale);
        QFETCH(int, tracker);
        QFETCH(int, growths);
        QFETCH(int, backoffs);
        LossScalerConfig c;
        c.enabled = true;
        c.growthInterval = interval;
        LossScaler s(c);
        for (QChar step : steps)
            s.update(step == QLatin1Char('i'));
        QCOMPARE(s.scale(), scale);
        QCOMPARE(s.state().growthTracker, int64_t(tracker));
        QCOMPARE(s.state().growths, int64_t(growths));
        QCOMPARE(s.state().backoffs, int64_t(backoffs));
    }

    // PyTorch: "unscale_() has already been called on this optimizer since the last update()".
    void secondUnscaleRaises()
    {
        LossScaler s(LossScalerConfig{});
        s.noteUnscale();
        try {
            s.noteUnscale();
            QFAIL("a second unscale_() before update() did not raise");
        } catch (const ScalerError &e) {
            QCOMPARE(QString::fromStdString(e.code()), QStringLiteral("engine/unscale-twice"));
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("unscale_() has already been called")));
        }
        s.update(false);
        s.noteUnscale(); // a new window
        QCOMPARE(s.state().unscaleCalls, int64_t(2));
    }

    void invalidConfigRefused_data()
    {
        QTest::addColumn<double>("init");
        QTest::addColumn<double>("growth");
        QTest::addColumn<double>("backoff");
        QTest::addColumn<int>("interval");
        QTest::newRow("zero scale") << 0.0 << 2.0 << 0.5 << 10;
        QTest::newRow("nan scale") << std::nan("") << 2.0 << 0.5 << 10;
        QTest::newRow("growth 1") << 1.0 << 1.0 << 0.5 << 10;
        QTest::newRow("backoff 1") << 1.0 << 2.0 << 1.0 << 10;
        QTest::newRow("interval 0") << 1.0 << 2.0 << 0.5 << 0;
    }
    void invalidConfigRefused()
    {
        QFETCH(double, init);
        QFETCH(double, growth);
        QFETCH(double, backoff);
        QFETCH(int, interval);
        AccumConfig c = float16Config(2);
        c.lossScaler.initScale = init;
        c.lossScaler.growthFactor = growth;
        c.lossScaler.backoffFactor = backoff;
        c.lossScaler.growthInterval = interval;
        QVERIFY_THROWS_EXCEPTION(ConfigError, validate(c));
    }

    // Clean windows: one unscale per window whatever N, no skip, the scale kept, and the path
    // that ran named.
    void oneUnscalePerWindow_data()
    {
        QTest::addColumn<int>("accum");
        QTest::addColumn<int>("optimizer");
        QTest::newRow("N=1 sgd") << 1 << int(OptimizerKind::Sgd);
        QTest::newRow("N=4 sgd") << 4 << int(OptimizerKind::Sgd);
        QTest::newRow("N=8 adamw") << 8 << int(OptimizerKind::AdamW);
    }
    void oneUnscalePerWindow()
    {
        QFETCH(int, accum);
        QFETCH(int, optimizer);
        AccumEngine e(float16Config(accum, OptimizerKind(optimizer)));
        const QString path = halfMatmulWorks() ? QStringLiteral("float16") : QStringLiteral("float16-emulated");
        for (int w = 1; w <= 3; ++w) {
            const StepResult r = e.step();
            QVERIFY(r.lossScaling);
            QVERIFY(!r.stepSkipped);
            QVERIFY(r.finite);
            QCOMPARE(r.scalerState.unscaleCalls, int64_t(w));
            QCOMPARE(r.scalerState.skippedWindows, int64_t(0));
            QCOMPARE(r.lossScale, kDefaultInitScale);
            QCOMPARE(r.optimizerStateStep, int64_t(w));
            QCOMPARE(QString::fromStdString(r.float16Path), path);
        }
        QCOMPARE(QString::fromStdString(e.float16Path()), path);
        QCOMPARE(e.microBatches(), int64_t(3 * accum));
    }

    void float32HasNoFloat16Path()
    {
        AccumConfig c = float16Config(2);
        c.dtype = DType::Float32;
        c.lossScaler.enabled = false;
        AccumEngine e(c);
        const StepResult r = e.step();
        QVERIFY(r.float16Path.empty());
        QVERIFY(!r.lossScaling);
        QVERIFY(e.float16Path().empty());
    }

    // The scaled window's gradient, unscaled once, is the float16 window's without a scaler (the
    // scale is a power of two: scaling and unscaling are exact where nothing underflows).
    void unscaledOnceMatchesUnscaledRun()
    {
        AccumConfig c = float16Config(4);
        AccumEngine scaled(c);
        c.lossScaler.enabled = false;
        AccumEngine plain(c);
        const StepResult a = scaled.step(), b = plain.step();
        ACCUMLAB_COMPARE_REL(a.gradNorm, b.gradNorm, 1e-3);
        ACCUMLAB_VERIFY_BELOW(scaled.maxAbsParamDiff(plain), 1e-6);
    }

    // An Inf anywhere in the window: the step is skipped (parameters, optimizer state and LR
    // schedule stay), the scale halves once, and the next window steps at the schedule's first rate.
    void overflowSkipsTheWindow_data()
    {
        QTest::addColumn<int>("spikeMicro");
        QTest::addColumn<int>("optimizer");
        QTest::newRow("first micro, sgd") << 0 << int(OptimizerKind::Sgd);
        QTest::newRow("middle micro, momentum") << 2 << int(OptimizerKind::Momentum);
        QTest::newRow("last micro, adamw") << 3 << int(OptimizerKind::AdamW);
    }
    void overflowSkipsTheWindow()
    {
        QFETCH(int, spikeMicro);
        QFETCH(int, optimizer);
        AccumConfig c = float16Config(4, OptimizerKind(optimizer));
        c.optimizer.lrWarmup = 4;
        AccumEngine untouched(c);
        c.lossScaler.spikeWindow = 0;
        c.lossScaler.spikeMicro = spikeMicro;
        AccumEngine e(c);
        const StepResult r = e.step();
        QVERIFY(r.stepSkipped);
        QVERIFY(r.finite); // a skipped window is not a divergence
        QCOMPARE(e.maxAbsParamDiff(untouched), 0.0);
        QCOMPARE(r.optimizerStateStep, int64_t(0));
        QCOMPARE(r.optimizerSteps, int64_t(0));
        QCOMPARE(r.schedulerSteps, int64_t(0));
        QCOMPARE(r.scalerState.scale, kDefaultInitScale / 2.0);
        QCOMPARE(r.scalerState.backoffs, int64_t(1));
        QCOMPARE(r.scalerState.skippedWindows, int64_t(1));
        QCOMPARE(r.scalerState.unscaleCalls, int64_t(1));
        const StepResult next = e.step();
        QVERIFY(!next.stepSkipped);
        QCOMPARE(next.optimizerStateStep, int64_t(1));
        QCOMPARE(next.schedulerSteps, int64_t(1));
        QCOMPARE(next.lr, scheduledLr(c.optimizer, 0, 4)); // the schedule's first rate, not its second
        QCOMPARE(next.lossScale, kDefaultInitScale / 2.0);
    }

    void growsAfterTheInterval_data()
    {
        QTest::addColumn<int>("interval");
        QTest::addColumn<int>("windows");
        QTest::addColumn<double>("scale");
        QTest::newRow("2 windows of 2") << 2 << 2 << kDefaultInitScale * 2;
        QTest::newRow("3 windows of 2") << 2 << 3 << kDefaultInitScale * 2;
        QTest::newRow("4 windows of 2") << 2 << 4 << kDefaultInitScale * 4;
        QTest::newRow("3 windows of 5") << 5 << 3 << kDefaultInitScale;
    }
    void growsAfterTheInterval()
    {
        QFETCH(int, interval);
        QFETCH(int, windows);
        QFETCH(double, scale);
        AccumConfig c = float16Config(4);
        c.lossScaler.growthInterval = interval;
        AccumEngine e(c);
        for (int w = 0; w < windows; ++w)
            e.step();
        QCOMPARE(e.lossScalerState().scale, scale);
        QCOMPARE(e.lastStep().scalerState.scale, scale);
    }

    // Each pitfall with its measured consequence.
    void unscaleEveryMicroRaises_data()
    {
        QTest::addColumn<int>("accum");
        QTest::addColumn<int>("raisesAtMicroBatches"); // 0: never
        QTest::newRow("N=1: one unscale per window") << 1 << 0;
        QTest::newRow("N=4: the second micro-batch raises") << 4 << 2;
    }
    void unscaleEveryMicroRaises()
    {
        QFETCH(int, accum);
        QFETCH(int, raisesAtMicroBatches);
        AccumConfig c = float16Config(accum);
        c.lossScaler.bug = ScalerBug::UnscaleEveryMicro;
        AccumEngine e(c);
        int raisedAt = 0;
        try {
            e.step();
            e.step();
        } catch (const ScalerError &err) {
            QCOMPARE(QString::fromStdString(err.code()), QStringLiteral("engine/unscale-twice"));
            raisedAt = int(e.microBatches());
        }
        QCOMPARE(raisedAt, raisesAtMicroBatches);
    }

    void updateEveryMicroGrowsEarly()
    {
        AccumConfig c = float16Config(4);
        c.lossScaler.growthInterval = 2;
        AccumEngine right(c);
        c.lossScaler.bug = ScalerBug::UpdateEveryMicro;
        AccumEngine wrong(c);
        right.step();
        wrong.step();
        QCOMPARE(right.lossScalerState().scale, kDefaultInitScale);          // 1 clean window of 2
        QCOMPARE(wrong.lossScalerState().scale, kDefaultInitScale * 4.0);    // 4 micro-batches: 2 growths
        // The first micro-batches were scaled by less than they were unscaled by: a different step.
        QVERIFY(wrong.maxAbsParamDiff(right) > 0.0);
    }

    void skipOverflowedMicroStepsAPartialWindow()
    {
        AccumConfig c = float16Config(4);
        AccumEngine untouched(c);
        c.lossScaler.spikeWindow = 0;
        c.lossScaler.spikeMicro = 1;
        c.lossScaler.bug = ScalerBug::SkipOverflowedMicro;
        AccumEngine e(c);
        const StepResult r = e.step();
        QVERIFY(!r.stepSkipped);
        QCOMPARE(r.optimizerStateStep, int64_t(1));  // it stepped on 3 of 4 micro-batches
        QCOMPARE(r.scalerState.skippedWindows, int64_t(0));
        QCOMPARE(r.scalerState.scale, kDefaultInitScale / 2.0);
        QVERIFY(e.maxAbsParamDiff(untouched) > 0.0);
    }

    void logScaledLossIsScaleTimesTooLarge()
    {
        AccumConfig c = float16Config(4);
        AccumEngine right(c);
        c.lossScaler.bug = ScalerBug::LogScaledLoss;
        AccumEngine wrong(c);
        const StepResult a = right.step(), b = wrong.step();
        ACCUMLAB_COMPARE_REL(a.loggedLoss, a.loss, 1e-6);
        ACCUMLAB_COMPARE_REL(b.loggedLoss, b.loss * kDefaultInitScale, 1e-6);
    }

    void namesRoundTrip()
    {
        for (const std::string &name : scalerBugNames())
            QCOMPARE(toString(scalerBugFromString(name)), name);
        QVERIFY_THROWS_EXCEPTION(ConfigError, scalerBugFromString("no-such-bug"));
        QCOMPARE(toString(dtypeFromString("float16")), std::string("float16"));
        QCOMPARE(dtypeEpsilon(DType::Float16), std::ldexp(1.0, -10));
    }

    // accum-curve.v1 carries the counters where they ran and reads files without them.
    void curveFieldsRoundTrip_data()
    {
        QTest::addColumn<bool>("scaling");
        QTest::newRow("with the scaler") << true;
        QTest::newRow("without") << false;
    }
    void curveFieldsRoundTrip()
    {
        QFETCH(bool, scaling);
        SweepPoint p;
        p.effectiveBatch = 16;
        p.accumSteps = 4;
        p.microBatch = 4;
        p.samplesPerSec = 100.0;
        p.medianStepMs = 1.0;
        p.steps = 2;
        p.dtype = "float16";
        p.float16Path = scaling ? "float16-emulated" : "";
        p.lossScaling = scaling;
        p.lossScale = 32768.0;
        p.skippedWindows = 3;
        p.unscaleCalls = 7;
        nlohmann::json file = nlohmann::json::object();
        file["schema"] = kCurveSchema;
        file["points"] = nlohmann::json::array();
        file["points"].push_back(toJson(p));
        const CurveFile read = parseCurveJson(file.dump());
        const SweepPoint &q = read.points.at(0);
        QCOMPARE(q.lossScaling, scaling);
        QCOMPARE(q.float16Path, p.float16Path);
        QCOMPARE(q.lossScale, scaling ? 32768.0 : 0.0);
        QCOMPARE(q.skippedWindows, int64_t(scaling ? 3 : 0));
        QCOMPARE(q.unscaleCalls, int64_t(scaling ? 7 : 0));
        QCOMPARE(file["points"][0].contains("loss_scale"), scaling);
    }

    // DivergenceWatch on planted windows, one letter each:
    //   c clean (loss 1, stepped, scale 65536)    s skipped by the scaler (loss 1, scale 32768)
    //   n NaN loss, skipped                       m NaN loss, stepped (no scaler)
    //   i +Inf loss, skipped                      u no micro-batch ran (NaN loss, not measured)
    //   z skipped, scale 0                        t skipped, scale 2^-25 (under the floor)
    //   f skipped, scale 2^-24 (at the floor)     q skipped, scale NaN
    //   x NaN loss and scale 0 in one window
    void divergenceWatch_data()
    {
        QTest::addColumn<QString>("windows");
        QTest::addColumn<int>("carriedWindows"); // a resumed run's windows before its checkpoint
        QTest::addColumn<int>("carriedStepped");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<int>("atStep");
        QTest::addColumn<int>("stepped");
        QTest::newRow("healthy") << "cccc" << 0 << 0 << "none" << -1 << 4;
        QTest::newRow("skips, then steps: the scaler at work") << "sscc" << 0 << 0 << "none" << -1 << 2;
        QTest::newRow("NaN loss at window 2") << "cnnn" << 0 << 0 << "loss-not-finite" << 2 << 1;
        QTest::newRow("NaN loss, stepped") << "ccm" << 0 << 0 << "loss-not-finite" << 3 << 3;
        QTest::newRow("Inf loss") << "ci" << 0 << 0 << "loss-not-finite" << 2 << 1;
        QTest::newRow("never stepped") << "sss" << 0 << 0 << "never-stepped" << 1 << 0;
        QTest::newRow("scale reached 0") << "cz" << 0 << 0 << "loss-scale-collapsed" << 2 << 1;
        QTest::newRow("scale under the floor") << "cst" << 0 << 0 << "loss-scale-collapsed" << 3 << 1;
        QTest::newRow("scale at the floor holds") << "cf" << 0 << 0 << "none" << -1 << 1;
        QTest::newRow("NaN scale") << "cq" << 0 << 0 << "loss-scale-collapsed" << 2 << 1;
        QTest::newRow("loss before scale in one window") << "cx" << 0 << 0 << "loss-not-finite" << 2 << 1;
        QTest::newRow("the first reason stands") << "czn" << 0 << 0 << "loss-scale-collapsed" << 2 << 1;
        QTest::newRow("a window without a loss is not judged") << "uu" << 0 << 0 << "none" << -1 << 2;
        QTest::newRow("resumed after stepped windows") << "ss" << 3 << 3 << "none" << -1 << 3;
        QTest::newRow("resumed, none ever stepped") << "ss" << 2 << 0 << "never-stepped" << 3 << 0;
        QTest::newRow("resumed, NaN after the checkpoint") << "cn" << 4 << 4 << "loss-not-finite" << 6 << 5;
    }
    void divergenceWatch()
    {
        QFETCH(QString, windows);
        QFETCH(int, carriedWindows);
        QFETCH(int, carriedStepped);
        QFETCH(QString, reason);
        QFETCH(int, atStep);
        QFETCH(int, stepped);
        const double nan = std::nan("");
        DivergenceWatch watch;
        watch.carryOver(carriedWindows, carriedStepped);
        int64_t step = carriedWindows;
        for (const QChar k : windows) {
            WindowOutcome w;
            w.step = ++step;
            w.loss = QStringLiteral("nmux").contains(k) ? nan : k == QLatin1Char('i') ? INFINITY : 1.0;
            w.lossMeasured = k != QLatin1Char('u');
            w.stepped = QStringLiteral("cmu").contains(k);
            w.lossScale = k == QLatin1Char('c') ? kDefaultInitScale
                          : QStringLiteral("zx").contains(k) ? 0.0
                          : k == QLatin1Char('t') ? std::ldexp(1.0, -25)
                          : k == QLatin1Char('f') ? std::ldexp(1.0, -24)
                          : k == QLatin1Char('q') ? nan
                          : k == QLatin1Char('m') || k == QLatin1Char('u') ? 1.0 // no scaler
                                                                           : kDefaultInitScale / 2.0;
            watch.observe(w);
        }
        watch.finish();
        QCOMPARE(QString::fromStdString(toString(watch.reason())), reason);
        QCOMPARE(watch.diverged(), reason != QLatin1String("none"));
        QCOMPARE(watch.atStep(), int64_t(atStep));
        QCOMPARE(watch.steppedWindows(), int64_t(stepped));
        QCOMPARE(watch.windows(), int64_t(carriedWindows + windows.size()));
    }

    // The engine driven to divergence, as `accumlab-cli train --lr 1000 --dtype float16
    // --loss-scaling --accum-steps 1 --micro-batch 1` drives it: the first window steps, its
    // update leaves the parameters non-finite, every later window's loss is NaN and skipped. At
    // the lesson's rate the same run holds.
    void divergenceWatchOnTheEngine_data()
    {
        QTest::addColumn<double>("lr");
        QTest::addColumn<bool>("diverges");
        QTest::newRow("lr 1000 diverges") << 1000.0 << true;
        QTest::newRow("the default rate holds") << AccumConfig{}.optimizer.lr << false;
    }
    void divergenceWatchOnTheEngine()
    {
        QFETCH(double, lr);
        QFETCH(bool, diverges);
        AccumConfig c = float16Config(1);
        c.preset = AccumConfig{}.preset;
        c.microBatch = 1;
        c.optimizer.lr = lr;
        const int64_t windows = 12;
        AccumEngine e(c);
        DivergenceWatch watch;
        for (int64_t i = 0; i < windows; ++i) {
            const StepResult r = e.step();
            watch.observe({r.step + 1, r.loss, true, !r.stepSkipped, r.scalerState.scale});
        }
        watch.finish();
        QCOMPARE(watch.windows(), windows);
        QCOMPARE(watch.diverged(), diverges);
        if (!diverges) {
            // Every window stepped but those the scaler skipped for an overflow (a scale that
            // starts too high halves once or twice): skipping is the scaler working, not divergence.
            QCOMPARE(watch.steppedWindows(), windows - e.lossScalerState().skippedWindows);
            QVERIFY(watch.steppedWindows() > windows / 2);
            QCOMPARE(watch.atStep(), int64_t(-1));
            return;
        }
        QCOMPARE(toString(watch.reason()), std::string("loss-not-finite"));
        QVERIFY(std::isnan(e.lastStep().loss));
        QCOMPARE(watch.steppedWindows(), windows - e.lossScalerState().skippedWindows);
        QCOMPARE(divergenceSentence(watch, windows),
                 "diverged at step " + std::to_string(watch.atStep()) + " of 12 (loss-not-finite); " +
                     std::to_string(watch.steppedWindows()) + " of 12 windows stepped");
    }
};

QTEST_GUILESS_MAIN(TestLossScaler)
#include "tst_loss_scaler.moc"
