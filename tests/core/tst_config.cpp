// Parsing and validation of user-supplied settings: grids, splits, enums, ranges.
#include "core/config.h"
#include "core/device.h"
#include "core/experiments.h"
#include "core/lesson.h"
#include "core/quiz.h"

#include <QtTest>

#include <functional>
#include <limits>
#include <set>

using namespace accumlab;

namespace {

// A call that must be refused with a ConfigError.
using Refusal = std::function<void()>;

AccumConfig accumWith(const std::function<void(AccumConfig &)> &change)
{
    AccumConfig c;
    change(c);
    return c;
}
EquivalenceConfig equivalenceWith(const std::function<void(EquivalenceConfig &)> &change)
{
    EquivalenceConfig c;
    change(c);
    return c;
}
SweepConfig sweepWith(const std::function<void(SweepConfig &)> &change)
{
    SweepConfig c;
    change(c);
    return c;
}

// The Latin words of a Persian sentence outside its code spans (each marked by a U+200E on either
// side) that are not kept terms of the content's glossary: English left in a translation.
// core's one check of on-screen right-to-left text (strayLatinWords), as a QStringList.
QStringList strayLatinWords(const QString &text)
{
    QStringList stray;
    for (const std::string &w : accumlab::strayLatinWords(text.toStdString()))
        stray << QString::fromStdString(w);
    return stray;
}

} // namespace

Q_DECLARE_METATYPE(Refusal)

class TestConfig : public QObject {
    Q_OBJECT
private slots:
    void parseGrid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<qint64>>("expected");
        QTest::addColumn<bool>("valid");
        QTest::newRow("lesson") << "1,2,4,8,16" << QList<qint64>{1, 2, 4, 8, 16} << true;
        QTest::newRow("spaces") << " 1, 3 ,5" << QList<qint64>{1, 3, 5} << true;
        QTest::newRow("single") << "64" << QList<qint64>{64} << true;
        QTest::newRow("empty") << "" << QList<qint64>{} << false;
        QTest::newRow("empty entry") << "1,,2" << QList<qint64>{} << false;
        QTest::newRow("trailing comma") << "1,2," << QList<qint64>{} << false;
        QTest::newRow("zero") << "0,1" << QList<qint64>{} << false;
        QTest::newRow("negative") << "-2" << QList<qint64>{} << false;
        QTest::newRow("word") << "1,two" << QList<qint64>{} << false;
        QTest::newRow("fraction") << "1.5" << QList<qint64>{} << false;
        QTest::newRow("overflow") << "99999999999999999999999" << QList<qint64>{} << false;
    }
    void parseGrid()
    {
        QFETCH(QString, text);
        QFETCH(QList<qint64>, expected);
        QFETCH(bool, valid);
        try {
            const auto grid = accumlab::parseGrid(text.toStdString());
            QVERIFY2(valid, "an invalid grid was accepted");
            QCOMPARE(QList<qint64>(grid.begin(), grid.end()), expected);
        } catch (const ConfigError &e) {
            QVERIFY2(!valid, e.what());
            QVERIFY(std::string(e.what()).size() > 10);
        }
    }

    void parseSplit_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<qint64>("micro");
        QTest::addColumn<bool>("valid");
        QTest::newRow("4x4") << "4x4" << qint64(4) << qint64(4) << true;
        QTest::newRow("2x8") << "2x8" << qint64(2) << qint64(8) << true;
        QTest::newRow("8X2") << "8X2" << qint64(8) << qint64(2) << true;
        QTest::newRow("no x") << "44" << qint64(0) << qint64(0) << false;
        QTest::newRow("zero") << "0x16" << qint64(0) << qint64(0) << false;
        QTest::newRow("word") << "axb" << qint64(0) << qint64(0) << false;
    }
    void parseSplit()
    {
        QFETCH(QString, text);
        QFETCH(qint64, accum);
        QFETCH(qint64, micro);
        QFETCH(bool, valid);
        try {
            const Split s = accumlab::parseSplit(text.toStdString());
            QVERIFY(valid);
            QCOMPARE(s.accumSteps, accum);
            QCOMPARE(s.microBatch, micro);
        } catch (const ConfigError &) {
            QVERIFY(!valid);
        }
    }

    void enums()
    {
        for (auto k : {OptimizerKind::Sgd, OptimizerKind::Momentum, OptimizerKind::AdamW})
            QVERIFY(optimizerFromString(toString(k)) == k);
        for (auto d : {DType::Float32, DType::Float64, DType::BFloat16})
            QVERIFY(dtypeFromString(toString(d)) == d);
        for (auto p : {ModelPreset::Lesson, ModelPreset::Wide, ModelPreset::Fixture})
            QVERIFY(presetFromString(toString(p)) == p);
        QVERIFY_THROWS_EXCEPTION(ConfigError, dtypeFromString("float8"));
        QVERIFY_THROWS_EXCEPTION(ConfigError, deviceFromString("tpu"));
        QVERIFY(shapeOf(ModelPreset::Wide).hidden >= 1024);
        QCOMPARE(shapeOf(ModelPreset::Lesson).inFeatures, 64);
        QCOMPARE(shapeOf(ModelPreset::Lesson).hidden, 128);
        QCOMPARE(shapeOf(ModelPreset::Lesson).classes, 16);
    }

    void effectiveBatchIdentity()
    {
        AccumConfig c;
        c.microBatch = 4;
        c.accumSteps = 16;
        c.worldSize = 2;
        QCOMPARE(c.effectiveBatch(), 128);
    }

    void validateAccum_data()
    {
        QTest::addColumn<qint64>("micro");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<double>("lr");
        QTest::addColumn<bool>("valid");
        QTest::newRow("defaults") << qint64(4) << qint64(1) << 0.05 << true;
        QTest::newRow("micro 0") << qint64(0) << qint64(1) << 0.05 << false;
        QTest::newRow("micro -1") << qint64(-1) << qint64(1) << 0.05 << false;
        QTest::newRow("micro 1e9") << qint64(1000000000) << qint64(1) << 0.05 << false;
        QTest::newRow("accum 0") << qint64(4) << qint64(0) << 0.05 << false;
        QTest::newRow("accum 1e6") << qint64(4) << qint64(1000000) << 0.05 << false;
        QTest::newRow("lr 0") << qint64(4) << qint64(1) << 0.0 << false;
        QTest::newRow("lr nan") << qint64(4) << qint64(1) << std::nan("") << false;
    }
    void validateAccum()
    {
        QFETCH(qint64, micro);
        QFETCH(qint64, accum);
        QFETCH(double, lr);
        QFETCH(bool, valid);
        AccumConfig c;
        c.microBatch = micro;
        c.accumSteps = accum;
        c.optimizer.lr = lr;
        bool threw = false;
        try {
            validate(c);
        } catch (const ConfigError &) {
            threw = true;
        }
        QCOMPARE(threw, !valid);
    }

    // Sizes that would end in an allocation failure are refused in words, at the boundaries.
    void validateSizes_data()
    {
        QTest::addColumn<int>("preset");
        QTest::addColumn<qint64>("hidden"); // 0: the preset's
        QTest::addColumn<qint64>("micro");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<bool>("valid");
        const int lesson = int(ModelPreset::Lesson);
        const int wide = int(ModelPreset::Wide);
        QTest::newRow("lesson window 2^28") << lesson << qint64(0) << qint64(65536) << qint64(64) << true;
        QTest::newRow("lesson window 2^29") << lesson << qint64(0) << qint64(65536) << qint64(128) << false;
        QTest::newRow("wide activations 2^26") << wide << qint64(0) << qint64(16384) << qint64(1) << true;
        QTest::newRow("wide activations above") << wide << qint64(0) << qint64(16385) << qint64(1) << false;
        QTest::newRow("wide window 2^28") << wide << qint64(0) << qint64(4096) << qint64(64) << true;
        QTest::newRow("wide window above") << wide << qint64(0) << qint64(4096) << qint64(65) << false;
        QTest::newRow("hidden 8192") << lesson << qint64(8192) << qint64(4) << qint64(1) << true;
        QTest::newRow("hidden 16384 parameters") << lesson << qint64(16384) << qint64(4) << qint64(1) << false;
    }
    void validateSizes()
    {
        QFETCH(int, preset);
        QFETCH(qint64, hidden);
        QFETCH(qint64, micro);
        QFETCH(qint64, accum);
        QFETCH(bool, valid);
        SweepConfig c;
        c.base.preset = ModelPreset(preset);
        if (hidden) {
            ModelShape shape = shapeOf(c.base.preset);
            shape.hidden = hidden;
            c.base.shape = shape;
        }
        c.base.microBatch = micro;
        c.accumGrid = {accum};
        QString message;
        try {
            validate(c);
        } catch (const ConfigError &e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.isEmpty() == valid, qPrintable(message));
        if (!valid)
            QVERIFY2(message.contains(QStringLiteral("choose a smaller")) || message.contains(QStringLiteral("too large")),
                     qPrintable(message));
    }

    // NaN fails every hyper-parameter check (a comparison with NaN is false both ways).
    void nanHyperParameters()
    {
        for (double OptimizerConfig::*field : {&OptimizerConfig::momentum, &OptimizerConfig::beta1,
                                               &OptimizerConfig::beta2, &OptimizerConfig::eps,
                                               &OptimizerConfig::weightDecay, &OptimizerConfig::adamWeightDecay}) {
            AccumConfig c;
            c.optimizer.*field = std::nan("");
            QVERIFY_THROWS_EXCEPTION(ConfigError, validate(c));
        }
    }

    void validateEquivalenceSplit_data()
    {
        QTest::addColumn<qint64>("bigBatch");
        QTest::addColumn<qint64>("accum");
        QTest::addColumn<QString>("compare");
        QTest::addColumn<bool>("valid");
        QTest::newRow("16 in 4") << qint64(16) << qint64(4) << QString() << true;
        QTest::newRow("16 in 3") << qint64(16) << qint64(3) << QString() << false;
        QTest::newRow("compare 2x8") << qint64(16) << qint64(4) << "2x8" << true;
        QTest::newRow("compare 3x5") << qint64(16) << qint64(4) << "3x5" << false;
    }
    void validateEquivalenceSplit()
    {
        QFETCH(qint64, bigBatch);
        QFETCH(qint64, accum);
        QFETCH(QString, compare);
        QFETCH(bool, valid);
        EquivalenceConfig c;
        c.run.accumSteps = accum;
        if (!compare.isEmpty())
            c.compareSplit = accumlab::parseSplit(compare.toStdString());
        bool threw = false;
        try {
            setBigBatch(c, bigBatch);
            validate(c);
        } catch (const ConfigError &) {
            threw = true;
        }
        QCOMPARE(threw, !valid);
    }
    // Every refusal of the settings is a code of the content: its English is what() (the CLI's
    // sentence), and the Persian window words it in Persian, code and typed text left to right.
    void refusalsInEveryLanguage_data()
    {
        QTest::addColumn<Refusal>("refusal");
        QTest::addColumn<QString>("code");
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto row = [](const char *name, const char *code, Refusal refusal) {
            QTest::newRow(name) << refusal << QString::fromLatin1(code);
        };
        row("grid trailing comma", "config/grid-trailing-comma", [] { accumlab::parseGrid("1,,"); });
        row("grid empty entry", "config/grid-empty-entry", [] { accumlab::parseGrid("1,,2"); });
        row("grid empty", "config/grid-empty", [] { accumlab::parseGrid(""); });
        row("grid word", "config/grid-entry-not-whole", [] { accumlab::parseGrid("1,two"); });
        row("grid zero", "config/grid-entry-not-positive", [] { accumlab::parseGrid("0"); });
        row("grid overflow", "config/grid-entry-out-of-range", [] { accumlab::parseGrid("99999999999999999999"); });
        row("split form", "config/split-form", [] { accumlab::parseSplit("44"); });
        row("split zero accum", "config/split-accum-steps-not-positive", [] { accumlab::parseSplit("0x4"); });
        row("split word accum", "config/split-accum-steps-not-whole", [] { accumlab::parseSplit("ax4"); });
        row("split overflow accum", "config/split-accum-steps-out-of-range", [] { accumlab::parseSplit("99999999999999999999x4"); });
        row("split negative micro", "config/split-micro-batch-not-positive", [] { accumlab::parseSplit("4x-2"); });
        row("split word micro", "config/split-micro-batch-not-whole", [] { accumlab::parseSplit("4xb"); });
        row("split overflow micro", "config/split-micro-batch-out-of-range", [] { accumlab::parseSplit("4x99999999999999999999"); });
        row("unknown optimizer", "config/unknown-optimizer", [] { optimizerFromString("lion"); });
        row("unknown scaling", "config/unknown-scaling", [] { scalingFromString("half"); });
        row("unknown bug", "config/unknown-bug", [] { accumBugFromString("off-by-two"); });
        row("unknown dtype", "config/unknown-dtype", [] { dtypeFromString("float8"); });
        row("unknown device", "config/unknown-device", [] { deviceFromString("tpu"); });
        row("unknown labels", "config/unknown-label-kind", [] { labelsFromString("noisy"); });
        row("unknown preset", "config/unknown-model-preset", [] { presetFromString("huge"); });
        row("micro-batch 0", "config/range-micro-batch", [] { validate(accumWith([](AccumConfig &c) { c.microBatch = 0; })); });
        row("accum_steps 5000", "config/range-accum-steps", [] { validate(accumWith([](AccumConfig &c) { c.accumSteps = 5000; })); });
        row("world size 0", "config/range-world-size", [] { validate(accumWith([](AccumConfig &c) { c.worldSize = 0; })); });
        row("input features 0", "config/range-input-features",
            [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{0, 8, 2}; })); });
        row("hidden width -3", "config/range-hidden-width",
            [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, -3, 2}; })); });
        row("one class", "config/range-classes",
            [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, 8, 1}; })); });
        row("model too large", "config/model-too-large",
            [] { validate(accumWith([](AccumConfig &c) { c.shape = ModelShape{8, 1 << 16, 2}; })); });
        row("activations too large", "config/activations-too-large", [] {
            validate(accumWith([](AccumConfig &c) { c.preset = ModelPreset::Wide; c.microBatch = 1 << 16; }));
        });
        row("lr 0", "config/lr-out-of-range", [] { validate(accumWith([](AccumConfig &c) { c.optimizer.lr = 0.0; })); });
        row("momentum 1", "config/momentum-out-of-range",
            [] { validate(accumWith([](AccumConfig &c) { c.optimizer.momentum = 1.0; })); });
        row("beta1 NaN", "config/adam-betas-out-of-range",
            [nan] { validate(accumWith([nan](AccumConfig &c) { c.optimizer.beta1 = nan; })); });
        row("eps 0", "config/adam-eps-not-positive", [] { validate(accumWith([](AccumConfig &c) { c.optimizer.eps = 0.0; })); });
        row("weight decay -1", "config/weight-decay-negative",
            [] { validate(accumWith([](AccumConfig &c) { c.optimizer.weightDecay = -1.0; })); });
        row("clip norm -1", "config/clip-norm-invalid",
            [] { validate(accumWith([](AccumConfig &c) { c.optimizer.clipNorm = -1.0; })); });
        row("lr warmup -1", "config/lr-warmup-out-of-range",
            [] { validate(accumWith([](AccumConfig &c) { c.optimizer.lrWarmup = -1; })); });
        row("big batch 0", "config/range-big-batch",
            [] { validate(equivalenceWith([](EquivalenceConfig &c) { setBigBatch(c, 0); })); });
        row("16 in 3", "config/batch-does-not-divide",
            [] { validate(equivalenceWith([](EquivalenceConfig &c) { c.run.accumSteps = 3; setBigBatch(c, 16); })); });
        row("split 3x5", "config/split-does-not-cover",
            [] { validate(equivalenceWith([](EquivalenceConfig &c) { c.compareSplit = Split{3, 5}; })); });
        row("tolerance 0", "config/tolerances-not-positive",
            [] { validate(equivalenceWith([](EquivalenceConfig &c) { c.fixedTolerance = 0.0; })); });
        row("sweep grid empty", "config/sweep-grid-empty",
            [] { validate(sweepWith([](SweepConfig &c) { c.accumGrid.clear(); })); });
        row("grid accum 5000", "config/range-grid-accum-steps",
            [] { validate(sweepWith([](SweepConfig &c) { c.accumGrid = {1, 5000}; })); });
        row("skip-last-micro at 1", "config/skip-last-micro-at-one", [] {
            validate(sweepWith([](SweepConfig &c) { c.base.bug = AccumBug::SkipLastMicro; }));
        });
        row("effective batch too large", "config/effective-batch-too-large", [] {
            validate(sweepWith([](SweepConfig &c) { c.base.microBatch = 1 << 16; c.accumGrid = {128}; }));
        });
        row("num_steps 0", "config/range-num-steps", [] { validate(sweepWith([](SweepConfig &c) { c.numSteps = 0; })); });
        row("warm-up -1", "config/range-warmup-steps", [] { validate(sweepWith([](SweepConfig &c) { c.warmupSteps = -1; })); });
        row("repeats 0", "config/range-repeats", [] { validate(sweepWith([](SweepConfig &c) { c.repeats = 0; })); });
        row("threads 2000", "config/range-threads", [] { validate(sweepWith([](SweepConfig &c) { c.threads = 2000; })); });
        row("quiz stage", "quiz/unknown-stage", [] { quizStageFromString("final"); });
        row("unknown experiment", "experiments/unknown-experiment", [] { runExperiment("no-such-experiment"); });
        row("sweep steps 0", "experiments/sweep-steps-not-positive", [] {
            ExperimentOptions options;
            options.sweepSteps = 0;
            runExperiment(experimentCatalog().front().id, options);
        });
        row("sweep steps over the most", "experiments/sweep-steps-too-many", [] {
            ExperimentOptions options;
            options.sweepSteps = kMaxSweepSteps + 1;
            runExperiment(experimentCatalog().front().id, options);
        });
        row("LOCAL_RANK -1", "device/local-rank-without-gpu", [] { setCudaDeviceIndex(-1); });
        row("output folder is a file", "lesson/output-not-a-folder", [] {
            QTemporaryFile file;
            QVERIFY(file.open());
            requireWritableDir(file.fileName().toStdString());
        });
    }
    void refusalsInEveryLanguage()
    {
        QFETCH(Refusal, refusal);
        QFETCH(QString, code);
        try {
            refusal();
            QFAIL("not refused");
        } catch (const ConfigError &e) {
            QCOMPARE(QString::fromStdString(e.code()), code);
            const QString en = QString::fromStdString(e.text({"en", false}));
            QCOMPARE(en, QString::fromUtf8(e.what()));
            const QString fa = QString::fromStdString(e.text({"fa", false}));
            QVERIFY(!fa.isEmpty());
            QVERIFY(fa != en);
            QVERIFY2(fa.contains(QRegularExpression(QStringLiteral("[\\x{0600}-\\x{06FF}]"))), qPrintable(fa));
            const QStringList stray = strayLatinWords(fa);
            QVERIFY2(stray.isEmpty(), qPrintable(fa + QStringLiteral(" | English: ") + stray.join(u' ')));
            // With Latin digits the sentence keeps its words and writes its figures as Latin ones.
            const QString faLatin = QString::fromStdString(e.text({"fa", true}));
            QVERIFY2(!faLatin.contains(QRegularExpression(QStringLiteral("[\\x{06F0}-\\x{06F9}]"))), qPrintable(faLatin));
        }
    }

    // A value beyond a double's exact integers still reads as it was given (std::to_string).
    void hugeValuesReadAsGiven()
    {
        try {
            validate(accumWith([](AccumConfig &c) { c.microBatch = (int64_t(1) << 53) + 1; }));
            QFAIL("not refused");
        } catch (const ConfigError &e) {
            QCOMPARE(std::string(e.what()), "micro-batch must be between 1 and 65536, got 9007199254740993");
            QVERIFY(e.text({"fa", false}).find("9007199254740993") != std::string::npos);
        }
        try {
            validate(accumWith([](AccumConfig &c) { c.accumSteps = -7; }));
            QFAIL("not refused");
        } catch (const ConfigError &e) {
            QCOMPARE(std::string(e.what()), "accum_steps must be between 1 and 4096, got -7");
        }
    }
};

QTEST_GUILESS_MAIN(TestConfig)
#include "tst_config.moc"
