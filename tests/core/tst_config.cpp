// Parsing and validation of user-supplied settings: grids, splits, enums, ranges.
#include "core/config.h"

#include <QtTest>

using namespace accumlab;

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
        QVERIFY_THROWS_EXCEPTION(ConfigError, dtypeFromString("float16"));
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
        c.bigBatch = bigBatch;
        c.accumSteps = accum;
        if (!compare.isEmpty())
            c.compareSplit = accumlab::parseSplit(compare.toStdString());
        bool threw = false;
        try {
            validate(c);
        } catch (const ConfigError &) {
            threw = true;
        }
        QCOMPARE(threw, !valid);
    }
};

QTEST_GUILESS_MAIN(TestConfig)
#include "tst_config.moc"
