// The proof in code: full batch vs accumulated micro-batches (the engine's own window),
// across splits, dtypes, optimizers, the two teaching bugs and the bug zoo: every planted bug
// flips every verdict it should, and the correct loop holds everywhere.
#include "core/equivalence.h"

#include "common.h"

#include <QtTest>

#include <optional>

using namespace accumlab;

namespace {

// Rows over float32/float64/bfloat16, SGD/momentum/AdamW and splits 1x16, 4x4, 16x1, each
// without and with `bug` planted; plantedConfig() reads a row back.
void plantedRows(AccumBug bug)
{
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<qint64>("accum");
    QTest::addColumn<int>("bug");
    for (int d : {int(DType::Float32), int(DType::Float64), int(DType::BFloat16)})
        for (int o : {int(OptimizerKind::Sgd), int(OptimizerKind::Momentum), int(OptimizerKind::AdamW)})
            for (qint64 a : {1, 4, 16})
                for (AccumBug b : {AccumBug::None, bug})
                    QTest::addRow("%s %s %lldx%lld %s", toString(DType(d)).c_str(), toString(OptimizerKind(o)).c_str(),
                                  static_cast<long long>(a), static_cast<long long>(16 / a), toString(b).c_str())
                        << d << o << a << int(b);
}

EquivalenceConfig plantedConfig()
{
    QFETCH(int, dtype);
    QFETCH(int, optimizer);
    QFETCH(qint64, accum);
    QFETCH(int, bug);
    EquivalenceConfig c;
    c.run.dtype = DType(dtype);
    c.run.optimizer.kind = OptimizerKind(optimizer);
    c.run.accumSteps = accum;
    setBigBatch(c, 16); // the fixture's batch of 16 in `accum` micro-batches
    c.run.bug = AccumBug(bug);
    return c;
}

// Plants a bug by its name: the two teaching bugs or one of the classic ones.
void plant(EquivalenceConfig &c, const QString &bug)
{
    if (bug == "no-division")
        c.run.scaling = Scaling::None;
    else if (bug == "step-every-micro")
        c.run.stepEveryMicro = true;
    else
        c.run.bug = accumBugFromString(bug.toStdString());
}

} // namespace

class TestEquivalence : public QObject {
    Q_OBJECT
private slots:
    void holdsAcrossSplits_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<qint64>("accum");
        for (int d : {int(DType::Float32), int(DType::Float64)})
            for (int o : {int(OptimizerKind::Sgd), int(OptimizerKind::Momentum), int(OptimizerKind::AdamW)})
                for (qint64 a : {1, 2, 4, 8, 16})
                    QTest::addRow("%s %s %lldx%lld", toString(DType(d)).c_str(), toString(OptimizerKind(o)).c_str(),
                                  static_cast<long long>(a), static_cast<long long>(16 / a))
                        << d << o << a;
    }
    void holdsAcrossSplits()
    {
        QFETCH(int, dtype);
        QFETCH(int, optimizer);
        QFETCH(qint64, accum);
        EquivalenceConfig c;
        c.run.dtype = DType(dtype);
        c.run.optimizer.kind = OptimizerKind(optimizer);
        c.run.accumSteps = accum;
        setBigBatch(c, 16); // the fixture's batch of 16 in `accum` micro-batches
        const auto r = runEquivalence(c);
        QVERIFY(r.paramsInitMatch);
        QVERIFY2(r.holds, r.cause().c_str());
        ACCUMLAB_VERIFY_BELOW(r.maxGradDiff, 1e-4);
        ACCUMLAB_VERIFY_BELOW(r.maxParamDiff, 1e-4);
        QVERIFY(r.holdsDtypeAware);
        ACCUMLAB_COMPARE_REL(r.updateRatio, 1.0, 1e-4);
        QCOMPARE(r.layers.size(), size_t(6));
        QCOMPARE(r.accumOptimizerStateStep, 1);
        if (DType(dtype) == DType::Float64)
            ACCUMLAB_VERIFY_BELOW(r.maxGradDiff, 1e-12);
        QVERIFY(r.cause().empty());
    }

    // Without division SGD's update is exactly N times the correct one; Adam normalises the
    // gradient scale, so its first update barely changes.
    void noDivision_data()
    {
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<double>("expectedUpdateRatio");
        QTest::addColumn<double>("tolerance");
        for (qint64 a : {2, 4, 8, 16})
            QTest::addRow("sgd N=%lld", static_cast<long long>(a)) << int(OptimizerKind::Sgd) << a << double(a) << 1e-5;
        for (qint64 a : {2, 4, 16})
            QTest::addRow("adamw N=%lld", static_cast<long long>(a)) << int(OptimizerKind::AdamW) << a << 1.0 << 1e-4;
    }
    void noDivision()
    {
        QFETCH(int, optimizer);
        QFETCH(qint64, accum);
        QFETCH(double, expectedUpdateRatio);
        QFETCH(double, tolerance);
        EquivalenceConfig c;
        c.run.optimizer.kind = OptimizerKind(optimizer);
        c.run.accumSteps = accum;
        setBigBatch(c, 16); // the fixture's batch of 16 in `accum` micro-batches
        c.run.scaling = Scaling::None;
        const auto r = runEquivalence(c);
        ACCUMLAB_COMPARE_REL(r.updateRatio, expectedUpdateRatio, tolerance);
        ACCUMLAB_COMPARE_REL(r.gradRatio, double(accum), 1e-5);
        QVERIFY(!r.holds); // the buffers are N times too large whatever the optimizer
        QVERIFY2(r.cause().find(QByteArray::number(double(accum), 'f', 2).constData()) != std::string::npos,
                 r.cause().c_str());
        QVERIFY(r.cause().find("not divided") != std::string::npos);
    }

    void stepEveryMicro()
    {
        EquivalenceConfig c;
        c.run.optimizer.kind = OptimizerKind::AdamW;
        c.run.stepEveryMicro = true;
        const auto r = runEquivalence(c);
        QCOMPARE(r.fullOptimizerStateStep, 1);
        QCOMPARE(r.accumOptimizerStateStep, c.run.accumSteps);
        QVERIFY(!r.holds);
        QVERIFY(r.maxParamDiff > 1e-3);
        QVERIFY(r.cause().find("every micro-batch") != std::string::npos);
    }

    // Every classic bug, planted in the engine's window, flips both verdicts (fixed and
    // dtype-aware) in float32 and float64 under every optimizer and split from 1x16 to 16x1;
    // where a bug does nothing (one micro-batch: zeroing it first, dividing by 1, stepping
    // after it), the check holds, as it must for the loop that bug leaves correct.
    void bugZooFlipsTheVerdicts_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<QString>("bug");
        QTest::addColumn<bool>("holds");
        QTest::addColumn<QString>("cause");
        const QStringList bugs{"zero-every-micro", "never-zero", "divide-by-n-plus-1", "skip-last-micro",
                               "count-micro-twice", "clip-each-micro", "schedule-every-micro", "no-division",
                               "step-every-micro"};
        const QMap<QString, QString> causes{{"zero-every-micro", "zero_grad() ran before every micro-batch"},
                                            {"never-zero", "zero_grad() was never called"},
                                            {"divide-by-n-plus-1", "the loss was divided by"},
                                            {"skip-last-micro", "stopped one micro-batch short"},
                                            {"count-micro-twice", "backward ran twice"},
                                            {"clip-each-micro", "clip_grad_norm_() ran after every micro-batch"},
                                            {"schedule-every-micro", "scheduler.step() ran after every micro-batch"},
                                            {"no-division", "not divided by accum_steps"},
                                            {"step-every-micro", "stepped after every micro-batch"}};
        for (int d : {int(DType::Float32), int(DType::Float64)})
            for (int o : {int(OptimizerKind::Sgd), int(OptimizerKind::Momentum), int(OptimizerKind::AdamW)})
                for (qint64 a : {1, 4, 16})
                    for (const QString &bug : bugs) {
                        const bool noOp = a == 1 && (bug == "zero-every-micro" || bug == "no-division" ||
                                                     bug == "step-every-micro" || bug == "clip-each-micro" ||
                                                     bug == "schedule-every-micro");
                        QTest::addRow("%s %s %lldx%lld %s", toString(DType(d)).c_str(),
                                      toString(OptimizerKind(o)).c_str(), static_cast<long long>(a),
                                      static_cast<long long>(16 / a), qPrintable(bug))
                            << d << o << a << bug << noOp << (noOp ? QString() : causes.value(bug));
                    }
    }
    void bugZooFlipsTheVerdicts()
    {
        QFETCH(int, dtype);
        QFETCH(int, optimizer);
        QFETCH(qint64, accum);
        QFETCH(QString, bug);
        QFETCH(bool, holds);
        QFETCH(QString, cause);
        EquivalenceConfig c;
        c.run.dtype = DType(dtype);
        c.run.optimizer.kind = OptimizerKind(optimizer);
        c.run.accumSteps = accum;
        setBigBatch(c, 16); // the fixture's batch of 16 in `accum` micro-batches
        plant(c, bug);
        const auto r = runEquivalence(c);
        QVERIFY(r.paramsInitMatch);
        QCOMPARE(r.holds, holds);
        QCOMPARE(r.holdsFixed, holds);
        QCOMPARE(r.holdsDtypeAware, holds);
        if (!holds)
            QVERIFY2(QString::fromStdString(r.cause()).contains(cause), r.cause().c_str());
    }

    // With a clip norm the correct loop clips the window's synced sum once, as the full batch
    // is clipped once: it holds in every split, optimizer and dtype; clip-each-micro, the
    // planted case, clips partial sums and fails wherever a window has two micro-batches.
    void clippingOnceMatchesTheFullBatch_data()
    {
        plantedRows(AccumBug::ClipEachMicro);
    }
    void clippingOnceMatchesTheFullBatch()
    {
        EquivalenceConfig c = plantedConfig();
        c.run.optimizer.clipNorm = 0.05;
        const bool bug = c.run.bug != AccumBug::None;
        const qint64 accum = c.run.accumSteps;
        const auto r = runEquivalence(c);
        QCOMPARE(r.holds, !bug || accum == 1);
        if (!r.holds)
            QVERIFY2(r.cause().find("max_norm 0.05") != std::string::npos, r.cause().c_str());
    }

    // The update's scale along the full batch's, <d_acc, d_full> / <d_full, d_full>: a correct
    // loop stays within its bound in every dtype, optimizer and split, with and without a
    // warmup schedule, and the bound stays tight enough (at most 4 eps in bfloat16) that a step
    // 5% too large cannot hide under it; the schedule that runs N times ahead (the planted
    // case) moves it by far more.
    void updateScaleJudgesTheStepSize_data()
    {
        plantedRows(AccumBug::ScheduleEveryMicro);
    }
    void updateScaleJudgesTheStepSize()
    {
        EquivalenceConfig c = plantedConfig();
        c.run.optimizer.lrWarmup = 4;
        const bool bug = c.run.bug != AccumBug::None;
        const qint64 accum = c.run.accumSteps;
        const auto r = runEquivalence(c);
        QVERIFY(r.updateScaleBound <= std::max(4.0 * dtypeEpsilon(c.run.dtype), 8.0 * std::abs(r.reorderedUpdateScale - 1.0)) +
                                           r.updateScaleSensitivity);
        // The optimizer's sensitivity adds rounding's worth, not a step size's.
        QVERIFY2(r.updateScaleSensitivity < 0.01, qPrintable(QString::number(r.updateScaleSensitivity)));
        QVERIFY(r.updateScaleBound < 0.05);
        const bool ahead = bug && accum > 1;
        QCOMPARE(std::abs(r.updateScale - 1.0) <= r.updateScaleBound, !ahead);
        QCOMPARE(r.holds, !ahead);
        if (ahead) // the first update used the rate of scheduler step N - 1, not 0: min(N, 4) times it
            QVERIFY2(r.updateScale > 1.5, qPrintable(QString::number(r.updateScale)));
    }

    // The never-zero bug leaves the first window exact: only the second window, part of the
    // check, sees the leak. A one-window check would pass it.
    void secondWindowCatchesWhatTheFirstCannot()
    {
        EquivalenceConfig c;
        c.run.bug = AccumBug::NeverZero;
        const auto r = runEquivalence(c);
        ACCUMLAB_VERIFY_BELOW(r.maxGradDiff, 1e-6);
        ACCUMLAB_VERIFY_BELOW(r.maxParamDiff, 1e-6);
        QVERIFY(r.secondWindowGradDiff > 1e-3);
        QVERIFY(!r.holds);
        QCOMPARE(r.secondWindowStateStep, r.fullSecondWindowStateStep);
    }

    // In bfloat16 the classic bugs that move the gradient by more than a few ulps fail the
    // dtype-aware bound; the correct loop holds under every optimizer and split.
    void bfloat16BugZoo_data()
    {
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<QString>("bug");
        for (int o : {int(OptimizerKind::Sgd), int(OptimizerKind::Momentum), int(OptimizerKind::AdamW)})
            for (qint64 a : {1, 4, 16})
                for (const QString &bug : {QString("none"), QString("never-zero"), QString("skip-last-micro"),
                                           QString("count-micro-twice"), QString("divide-by-n-plus-1"),
                                           QString("clip-each-micro"), QString("schedule-every-micro")})
                    QTest::addRow("%s %lldx%lld %s", toString(OptimizerKind(o)).c_str(), static_cast<long long>(a),
                                  static_cast<long long>(16 / a), qPrintable(bug))
                        << o << a << bug;
    }
    void bfloat16BugZoo()
    {
        QFETCH(int, optimizer);
        QFETCH(qint64, accum);
        QFETCH(QString, bug);
        EquivalenceConfig c;
        c.run.dtype = DType::BFloat16;
        c.run.optimizer.kind = OptimizerKind(optimizer);
        c.run.accumSteps = accum;
        setBigBatch(c, 16); // the fixture's batch of 16 in `accum` micro-batches
        c.run.bug = accumBugFromString(bug.toStdString());
        const auto r = runEquivalence(c);
        // Clipping after the one backward of a 1x16 split is clipping once: the correct loop.
        if (bug == "none" || ((bug == "clip-each-micro" || bug == "schedule-every-micro") && accum == 1)) {
            QVERIFY2(r.holds, r.cause().c_str());
            return;
        }
        // Dividing by 17 instead of 16 moves each element by 1/17 of itself, under the few-ulp
        // bound of the largest entry; the gradient's scale sees it.
        QVERIFY2(!r.holds, qPrintable(QStringLiteral("grad %1 bound %2, scale %3")
                                          .arg(r.maxGradDiff)
                                          .arg(r.gradBoundDtype)
                                          .arg(r.gradScale, 0, 'g', 8)));
    }

    // Verdicts right both ways on a wide grid: the correct loop, over splits 4x4, 8x4, 16x2,
    // 2x16 (micro x accum), rates 0.01, 0.05, 0.1 and seeds, never fails in any optimizer or
    // dtype (both verdicts where the dtype allows the fixed one). AdamW in float32 gets
    // seeds 0-49: its first step g / (|g| + eps) turns summation-order noise in a gradient
    // near eps into a parameter difference of up to lr, which a flat 1e-4 called FAIL in 14
    // of these 600 configurations.
    void correctLoopNeverFails_data()
    {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<int>("seeds");
        for (int d : {int(DType::Float32), int(DType::Float64), int(DType::BFloat16)})
            for (int o : {int(OptimizerKind::Sgd), int(OptimizerKind::Momentum), int(OptimizerKind::AdamW)}) {
                const int seeds = DType(d) == DType::Float32 && OptimizerKind(o) == OptimizerKind::AdamW ? 50 : 6;
                QTest::addRow("%s %s", toString(DType(d)).c_str(), toString(OptimizerKind(o)).c_str())
                    << d << o << seeds;
            }
    }
    void correctLoopNeverFails()
    {
        QFETCH(int, dtype);
        QFETCH(int, optimizer);
        QFETCH(int, seeds);
        const bool lowPrec = lowPrecision(DType(dtype));
        int runs = 0, aboveFlat = 0;
        double worstExcess = 0.0;
        for (const Split split : {Split{4, 4}, Split{4, 8}, Split{2, 16}, Split{16, 2}})
            for (double lr : {0.01, 0.05, 0.1})
                for (int seed = 0; seed < seeds; ++seed) {
                    EquivalenceConfig c;
                    c.run.dtype = DType(dtype);
                    c.run.optimizer.kind = OptimizerKind(optimizer);
                    c.run.optimizer.lr = lr;
                    c.run.accumSteps = split.accumSteps;
                    c.run.microBatch = split.microBatch;
                    c.run.seed = static_cast<uint64_t>(seed);
                    const auto r = runEquivalence(c);
                    const QString where = QStringLiteral("%1x%2 lr %3 seed %4: %5")
                                              .arg(split.microBatch)
                                              .arg(split.accumSteps)
                                              .arg(lr)
                                              .arg(seed)
                                              .arg(QString::fromStdString(r.cause()));
                    QVERIFY2(r.holds, qPrintable(where));
                    QVERIFY2(r.holdsDtypeAware, qPrintable(where + QStringLiteral(" (dtype-aware)")));
                    if (!lowPrec)
                        QVERIFY2(r.holdsFixed, qPrintable(where + QStringLiteral(" (fixed)")));
                    ++runs;
                    aboveFlat += r.maxParamDiff >= c.fixedTolerance;
                    worstExcess = std::max(worstExcess, lowPrec ? r.paramExcessDtype : r.paramExcessFixed);
                }
        qInfo("%d correct configurations hold; %d of them above a flat 1e-4 in the parameters; largest |dp| / "
              "bound %.3f",
              runs, aboveFlat, worstExcess);
    }

    // The per-element bound widens only where the optimizer's own response to a gradient
    // difference is large: every planted bug still fails with AdamW in float32 over the
    // grid's splits, rates and three seeds, where a wider flat bound could hide some.
    void adamwBoundHidesNoBug_data()
    {
        QTest::addColumn<QString>("bug");
        for (const char *bug : {"zero-every-micro", "never-zero", "divide-by-n-plus-1", "skip-last-micro",
                                "count-micro-twice", "clip-each-micro", "schedule-every-micro", "no-division",
                                "step-every-micro"})
            QTest::newRow(bug) << QString::fromLatin1(bug);
    }
    void adamwBoundHidesNoBug()
    {
        QFETCH(QString, bug);
        for (const Split split : {Split{4, 4}, Split{4, 8}, Split{2, 16}, Split{16, 2}})
            for (double lr : {0.01, 0.05, 0.1})
                for (uint64_t seed : {11, 38, 41}) {
                    EquivalenceConfig c;
                    c.run.optimizer.kind = OptimizerKind::AdamW;
                    c.run.optimizer.lr = lr;
                    c.run.accumSteps = split.accumSteps;
                    c.run.microBatch = split.microBatch;
                    c.run.seed = seed;
                    plant(c, bug);
                    const auto r = runEquivalence(c);
                    const QString where =
                        QStringLiteral("%1x%2 lr %3 seed %4").arg(split.microBatch).arg(split.accumSteps).arg(lr).arg(seed);
                    QVERIFY2(!r.holds, qPrintable(where));
                    QVERIFY2(!r.holdsFixed, qPrintable(where));
                    QVERIFY2(!r.holdsDtypeAware, qPrintable(where));
                }
    }

    // What a teacher met as FAIL: AdamW at 8x4, lr 0.05. Some seeds put a gradient element
    // near eps (a few 1e-9, a few ulps apart in the two orders); its parameter moves by up to
    // 1e-3. The first such seed (11 here; the summation order is the machine's) holds under
    // the per-element bound, which names the element.
    void adamwNearEpsGradient()
    {
        EquivalenceConfig c;
        c.run.optimizer.kind = OptimizerKind::AdamW;
        c.run.optimizer.lr = 0.05;
        c.run.accumSteps = 4;
        setBigBatch(c, 32);
        std::optional<EquivalenceResult> found;
        for (uint64_t seed = 0; seed < 50 && !found; ++seed) {
            c.run.seed = seed;
            auto r = runEquivalence(c);
            QVERIFY2(r.holds, qPrintable(QStringLiteral("seed %1: %2").arg(seed).arg(QString::fromStdString(r.cause()))));
            if (r.maxParamDiff > c.fixedTolerance)
                found = std::move(r);
        }
        QVERIFY2(found, "no seed of 50 moved a parameter by more than 1e-4");
        const EquivalenceResult &r = *found;
        qInfo("seed %llu: grads %.3g apart, params %.3g at %s (gradients %.3g and %.3g), |dp| / bound %.3f",
              static_cast<unsigned long long>(r.config.run.seed), r.maxGradDiff, r.maxParamDiff, r.worstParam.c_str(),
              r.worstParamGradFull, r.worstParamGradAcc, r.paramExcessFixed);
        QVERIFY(r.holdsFixed);
        ACCUMLAB_VERIFY_BELOW(r.maxGradDiff, 1e-6);
        QVERIFY2(r.paramExcessFixed < 1.0, qPrintable(QString::number(r.paramExcessFixed)));
        QCOMPARE(r.firstStepLr, 0.05);
        QVERIFY(!r.worstParam.empty());
        QVERIFY2(std::min(std::abs(r.worstParamGradFull), std::abs(r.worstParamGradAcc)) < 1e-6,
                 qPrintable(QStringLiteral("%1 %2").arg(r.worstParamGradFull).arg(r.worstParamGradAcc)));
        // SGD's bound (lr |dg|) would not admit it: the optimizer's response is what does.
        QVERIFY(r.maxParamDiff > c.fixedTolerance + c.run.optimizer.lr * r.maxGradDiff);
    }

    // In bfloat16 the lesson's fixed 1e-4 is too tight for summation-order noise, while a bound
    // of a few ulps of the largest gradient holds.
    void bfloat16NeedsTheDtypeAwareBound()
    {
        EquivalenceConfig c;
        c.run.dtype = DType::BFloat16;
        const auto r = runEquivalence(c);
        QVERIFY(r.paramsInitMatch);
        QVERIFY2(!r.holdsFixed, qPrintable(QString::number(r.maxGradDiff)));
        QVERIFY2(r.holdsDtypeAware, qPrintable(QStringLiteral("grad %1 bound %2, param %3 bound %4")
                                                   .arg(r.maxGradDiff).arg(r.gradBoundDtype)
                                                   .arg(r.maxParamDiff).arg(r.paramBoundDtype)));
        QVERIFY(r.holds);
    }

    void compareSplits_data()
    {
        QTest::addColumn<QString>("split");
        QTest::newRow("2x8") << "2x8";
        QTest::newRow("8x2") << "8x2";
        QTest::newRow("16x1") << "16x1";
    }
    void compareSplits()
    {
        QFETCH(QString, split);
        EquivalenceConfig c;
        c.compareSplit = parseSplit(split.toStdString());
        const auto r = runEquivalence(c);
        QCOMPARE(r.comparisons.size(), size_t(1));
        const auto &cmp = r.comparisons.front();
        ACCUMLAB_VERIFY_BELOW(cmp.maxGradDiff, 1e-4);
        ACCUMLAB_VERIFY_BELOW(cmp.vsFirstGradDiff, 1e-4);
        // Split against split in float32: a few ulps of the largest gradient.
        ACCUMLAB_VERIFY_BELOW(cmp.vsFirstGradDiff, 8 * dtypeEpsilon(DType::Float32) * r.maxAbsGrad);
    }

    void configOfTheLabCarriesTheRanks_data();
    void configOfTheLabCarriesTheRanks();
    void threadRanks_data();
    void threadRanks();
    void cancels()
    {
        CancelToken token;
        token.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, runEquivalence(EquivalenceConfig{}, &token));
    }
};

// The lab's settings as a check (the window's panel and the experiments share the mapping):
// the ranks and every rank's samples travel with it.
void TestEquivalence::configOfTheLabCarriesTheRanks_data()
{
    QTest::addColumn<int>("world");
    QTest::newRow("one rank") << 1;
    QTest::newRow("two ranks") << 2;
    QTest::newRow("four ranks") << 4;
}

void TestEquivalence::configOfTheLabCarriesTheRanks()
{
    QFETCH(int, world);
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 2;
    c.accumSteps = 3;
    c.worldSize = world;
    c.seed = 5;
    c.scaling = Scaling::None;
    c.labels = LabelKind::Random;
    const EquivalenceConfig e = equivalenceConfigOf(c);
    QCOMPARE(e.run.worldSize, int64_t(world));
    QCOMPARE(e.bigBatch(), int64_t(2 * 3 * world));
    QCOMPARE(e.run.accumSteps, int64_t(3));
    QVERIFY(e.run.scaling == Scaling::None);
    QVERIFY(e.run.labels == LabelKind::Random);
    QCOMPARE(e.run.seed, uint64_t(5));
    validate(e);
}

// Ranks as threads of one process: the correct loop holds over every rank's shard, the
// no-division bug fails there as it does on one rank, and a cancel stops every rank.
void TestEquivalence::threadRanks_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<bool>("noDivision");
    QTest::newRow("2 ranks, divide") << 2 << false;
    QTest::newRow("3 ranks, divide") << 3 << false;
    QTest::newRow("2 ranks, no division") << 2 << true;
}

void TestEquivalence::threadRanks()
{
    QFETCH(int, world);
    QFETCH(bool, noDivision);
    EquivalenceConfig e;
    e.run.worldSize = world;
    e.run.accumSteps = 2;
    e.run.microBatch = 4;
    e.run.scaling = noDivision ? Scaling::None : Scaling::Divide;
    const EquivalenceResult r = runEquivalenceOnThreads(e);
    QCOMPARE(r.config.run.worldSize, int64_t(world));
    QCOMPARE(r.holds, !noDivision);
    if (noDivision)
        QVERIFY(r.causeCode() == EquivalenceCause::NoDivision);
    // The same check twice gives the same figures: the ranks' sum runs in rank order.
    QCOMPARE(runEquivalenceOnThreads(e).maxGradDiff, r.maxGradDiff);
    CancelToken cancel;
    cancel.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, runEquivalenceOnThreads(e, &cancel));
}

QTEST_GUILESS_MAIN(TestEquivalence)
#include "tst_equivalence.moc"
