// Measured memory: the counting CPU allocator, the budget that fails inside LibTorch, the
// out-of-memory demo, the finder and the trade-off sweep. Every verdict has a row that plants
// what it exists to catch.
#include "core/cpu_memory.h"
#include "core/curve_io.h"
#include "core/gpu.h"
#include "core/memory.h"
#include "core/memory_lab.h"
#include "core/sweep.h"

#include <torch/torch.h>

#include <QtTest>

using namespace accumlab;

namespace {

MemoryLabConfig lessonLab(int64_t effective, int64_t failsAfter)
{
    MemoryLabConfig lab;
    lab.base.preset = ModelPreset::Lesson;
    lab.base.device = DeviceRequest::Cpu;
    lab.base.microBatch = failsAfter > 0 ? failsAfter : 4;
    lab.effectiveBatch = effective;
    lab.failsAfterSamples = failsAfter;
    return lab;
}

} // namespace

class TestMemoryLab : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { installCpuMemoryCounter(); }

    void counterFollowsLiveAndPeakBytes()
    {
        QVERIFY(cpuMemoryCounted());
        const int64_t before = cpuLiveBytes();
        resetCpuPeakBytes();
        {
            auto t = torch::empty({1000, 250}, torch::kFloat32); // 1e6 bytes
            QCOMPARE(cpuLiveBytes() - before, int64_t(1000000));
            auto u = torch::empty({500}, torch::kFloat64);       // 4000 bytes
            QCOMPARE(cpuPeakBytes() - before, int64_t(1004000));
        }
        QCOMPARE(cpuLiveBytes(), before);
        QCOMPARE(cpuPeakBytes() - before, int64_t(1004000)); // the peak stays until reset
        resetCpuPeakBytes();
        QCOMPARE(cpuPeakBytes(), before);
        // The generic query reads the same counter on the CPU.
        QCOMPARE(currentMemoryBytes("cpu").value_or(-1), before);
    }

    void budgetFailsInsideLibTorch_data()
    {
        QTest::addColumn<qint64>("budget");
        QTest::addColumn<bool>("fails");
        QTest::newRow("beyond the budget") << qint64(1 << 20) << true;
        QTest::newRow("planted: a budget that holds it") << qint64(3 << 20) << false;
    }
    void budgetFailsInsideLibTorch()
    {
        QFETCH(qint64, budget);
        QFETCH(bool, fails);
        const int64_t live = cpuLiveBytes();
        bool raised = false;
        QString message;
        {
            CpuMemoryBudget scope(budget);
            try {
                auto a = torch::randn({512, 512});  // 1 MiB
                auto b = torch::matmul(a, a);        // another MiB, made inside LibTorch
                QVERIFY(b.defined());
            } catch (const c10::OutOfMemoryError &e) {
                raised = true;
                message = QString::fromStdString(e.what_without_backtrace());
            }
            QVERIFY_THROWS_EXCEPTION(std::logic_error, CpuMemoryBudget{1});
        }
        QCOMPARE(raised, fails);
        if (fails)
            QVERIFY2(message.startsWith(QStringLiteral("CPU out of memory. Tried to allocate 1.0 MiB")), qPrintable(message));
        QCOMPARE(cpuLiveBytes(), live); // nothing leaked on the failing path
        auto after = torch::empty({4 << 20}); // the budget is gone with its scope
        QVERIFY(after.defined());
    }

    void engineHoldsWhatItsTensorsSay()
    {
        AccumConfig c = lessonLab(64, 8).base;
        c.optimizer.kind = OptimizerKind::AdamW;
        c.accumSteps = 8;
        const int64_t before = cpuLiveBytes();
        AccumEngine engine(c);
        engine.step();
        const HeldBytes h = engine.heldBytes();
        const int64_t params = parameterCount(c.modelShape());
        QCOMPARE(h.weights, params * 4);
        QCOMPARE(h.gradients, params * 4);
        QCOMPARE(h.optimizerState, 2 * params * 4); // AdamW's two moments
        QCOMPARE(h.windowSamples, 64 * c.modelShape().inFeatures * 4 + 64 * 8); // float inputs, int64 labels
        // The counter sees at least what the tensors hold (plus the engine's small bookkeeping).
        const int64_t live = cpuLiveBytes() - before;
        QVERIFY2(live >= h.total() && live < h.total() + 64 * 1024,
                 qPrintable(QStringLiteral("live %1, held %2").arg(live).arg(h.total())));
    }

    void sweepMeasuresPeakOnTheCpu()
    {
        SweepConfig s;
        s.base.device = DeviceRequest::Cpu;
        s.base.microBatch = 8;
        s.accumGrid = {1, 4};
        s.numSteps = 2;
        s.warmupSteps = 1;
        s.repeats = 1;
        const SweepResult r = runSweep(s);
        QVERIFY(r.points[0].peakMemBytes && r.points[1].peakMemBytes);
        // Same micro-batch: the same activations; accumulation 4 holds four times the window's samples.
        QVERIFY(*r.points[1].peakMemBytes > *r.points[0].peakMemBytes);
        QVERIFY(r.points[0].held && r.points[1].held);
        QCOMPARE(r.points[1].held->windowSamples, 4 * r.points[0].held->windowSamples);
        QCOMPARE(r.points[1].held->weights, r.points[0].held->weights);
        for (const SweepPoint &p : r.points)
            QVERIFY(*p.peakMemBytes > p.held->total()); // plus one micro-batch's activations
        // The parts cross the file and come back.
        const std::string text = nlohmann::json{{"schema", kCurveSchema}, {"points", {toJson(r.points[1])}}}.dump();
        QCOMPARE(*parseCurveJson(text).points[0].held, *r.points[1].held);
    }

    void oomDemoFailsThenAccumulates_data()
    {
        QTest::addColumn<int>("scaling");
        QTest::addColumn<bool>("roomy");
        QTest::addColumn<bool>("contrast");
        QTest::addColumn<int>("preset");
        QTest::addColumn<int>("effective");
        QTest::newRow("fails after 32, then 16 x 32") << int(Scaling::Divide) << false << true << int(ModelPreset::Lesson) << 512;
        QTest::newRow("planted: a budget the full batch fits") << int(Scaling::Divide) << true << false << int(ModelPreset::Lesson) << 512;
        QTest::newRow("planted: no division, parameters differ") << int(Scaling::None) << false << false << int(ModelPreset::Lesson) << 512;
        // The wide model's 88 MB of weights are re-homed into the flat buffers at start-up, which
        // holds them twice for a moment; charged to the budget, that moment would set it, and
        // the 2.3 MB more activations of the full batch of 64 would fit.
        QTest::newRow("wide: 2 x 32 against 64 in one pass") << int(Scaling::Divide) << false << true << int(ModelPreset::Wide) << 64;
    }
    void oomDemoFailsThenAccumulates()
    {
        QFETCH(int, scaling);
        QFETCH(bool, roomy);
        QFETCH(bool, contrast);
        QFETCH(int, preset);
        QFETCH(int, effective);
        MemoryLabConfig lab = lessonLab(effective, 32);
        lab.base.preset = ModelPreset(preset);
        lab.base.scaling = Scaling(scaling);
        if (roomy) {
            AccumConfig full = lab.base;
            full.microBatch = effective;
            lab.budgetBytes = measureWindows(full).peakBytes * 2;
            lab.failsAfterSamples = 0;
        }
        const OomDemoResult r = runOomDemo(lab);
        QCOMPARE(r.accumSteps, int64_t(effective / 32));
        QCOMPARE(r.contrastShown(), contrast);
        QVERIFY(r.accumulationSucceeded);
        QVERIFY(r.accumulation.peakBytes <= r.budgetBytes);
        if (!roomy) {
            QVERIFY(r.fullBatchOutOfMemory);
            QVERIFY2(QString::fromStdString(r.fullBatchError).startsWith(QStringLiteral("CPU out of memory")),
                     r.fullBatchError.c_str());
            QVERIFY(r.fullBatch.peakBytes > r.budgetBytes);
            QCOMPARE(r.failsAfterSamples, int64_t(32));
        }
        if (Scaling(scaling) == Scaling::Divide)
            QVERIFY2(r.maxParamDiff < 1e-6, qPrintable(QString::number(r.maxParamDiff)));
        else
            QVERIFY(r.maxParamDiff > r.paramTolerance);
    }

    void finderFindsTheLargestThatFits_data()
    {
        QTest::addColumn<int>("failsAfter");
        QTest::addColumn<int>("effective");
        QTest::addColumn<int>("found");
        QTest::addColumn<bool>("oneByteShort");
        QTest::newRow("32 of 512") << 32 << 512 << 32 << false;
        QTest::newRow("8 of 512") << 8 << 512 << 8 << false;
        QTest::newRow("24 of 480, by bisection") << 24 << 480 << 24 << false;
        QTest::newRow("planted: one byte short of 32") << 32 << 512 << 16 << true;
    }
    void finderFindsTheLargestThatFits()
    {
        QFETCH(int, failsAfter);
        QFETCH(int, effective);
        QFETCH(int, found);
        QFETCH(bool, oneByteShort);
        MemoryLabConfig lab = lessonLab(effective, failsAfter);
        if (oneByteShort) {
            // The measured peak of the 32-sample window less a byte: it no longer fits.
            AccumConfig c = lab.base;
            c.accumSteps = effective / failsAfter;
            lab.budgetBytes = measureWindows(c).peakBytes - 1;
            lab.failsAfterSamples = 0;
        }
        const MicroBatchFinding f = findMicroBatch(lab);
        QCOMPARE(f.microBatch, int64_t(found));
        QCOMPARE(f.accumSteps, int64_t(effective / found));
        QCOMPARE(f.microBatch * f.accumSteps * f.worldSize, int64_t(effective));
        if (found == 32)
            QCOMPARE(QString::fromStdString(f.sentence()), QStringLiteral("32 samples fit; effective 512 = 32 x 16 x 1"));
        // Every tried micro-batch below the found one fitted, every one above failed.
        for (const auto &[micro, fitted] : f.tried)
            QCOMPARE(fitted, micro <= found);
    }

    void tradeoffPointsBeyondTheBudgetFail()
    {
        TradeoffConfig t;
        t.lab = lessonLab(512, 32);
        t.numSteps = 2;
        const TradeoffResult r = runTradeoff(t);
        QCOMPARE(r.points.size(), size_t(10)); // 1, 2, 4, ..., 512
        QVERIFY(*r.points[5].peakMemBytes > *r.points[0].peakMemBytes); // 32 samples need more than 1
        int64_t lastPeak = 0;
        for (const TradeoffPoint &p : r.points) {
            QCOMPARE(p.microBatch * p.accumSteps, int64_t(512));
            QCOMPARE(p.outOfMemory, p.microBatch > 32);
            if (!p.outOfMemory) {
                QVERIFY(*p.peakMemBytes <= r.budgetBytes);
                // More samples per pass, never less memory (at 1 and 2 samples the backward's
                // weight-sized temporaries, not the activations, set the peak).
                QVERIFY(*p.peakMemBytes >= lastPeak);
                lastPeak = *p.peakMemBytes;
                QCOMPARE(p.steps, int64_t(2));
                QVERIFY(p.stepMsMedian > 0.0 && p.samplesPerSec > 0.0);
            } else {
                QCOMPARE(p.steps, int64_t(0));
                QVERIFY(QString::fromStdString(p.error).startsWith(QStringLiteral("CPU out of memory")));
            }
        }
    }

    void badInputIsOneSentence_data()
    {
        QTest::addColumn<qint64>("budget");
        QTest::addColumn<int>("failsAfter");
        QTest::addColumn<int>("effective");
        QTest::addColumn<int>("world");
        QTest::addColumn<QString>("says");
        QTest::newRow("zero") << qint64(0) << 0 << 512 << 1 << "zero bytes holds nothing";
        QTest::newRow("negative") << qint64(-5) << 0 << 512 << 1 << "cannot be negative";
        QTest::newRow("under the weights") << qint64(1000) << 0 << 512 << 1 << "the model's own weights";
        QTest::newRow("beyond the machine") << (qint64(1) << 50) << 0 << 512 << 1 << "more than this machine's";
        QTest::newRow("not dividing") << qint64(-1) << 48 << 512 << 1 << "does not divide the effective batch of 512";
        QTest::newRow("ranks") << qint64(-1) << 0 << 513 << 2 << "does not split over 2 ranks";
        QTest::newRow("planted: good input") << qint64(-1) << 32 << 512 << 1 << "";
    }
    void badInputIsOneSentence()
    {
        QFETCH(qint64, budget);
        QFETCH(int, failsAfter);
        QFETCH(int, effective);
        QFETCH(int, world);
        QFETCH(QString, says);
        MemoryLabConfig lab = lessonLab(effective, failsAfter);
        lab.base.worldSize = world;
        if (budget != -1)
            lab.budgetBytes = budget;
        QString what;
        try {
            validate(lab);
        } catch (const ConfigError &e) {
            what = QString::fromStdString(e.what());
        }
        if (says.isEmpty())
            QVERIFY2(what.isEmpty(), qPrintable(what));
        else
            QVERIFY2(what.contains(says), qPrintable(what));
    }
};

QTEST_GUILESS_MAIN(TestMemoryLab)
#include "tst_memory_lab.moc"
