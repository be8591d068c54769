// Lesson presets as files: every field round-trips, a preset saved before the window state was
// kept (no language, budget, page or experiment) still loads and leaves the window as it is,
// and names the window does not know are refused in words.
#include "ui/session/preset.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace accumlab;
using namespace accumlab::ui;

class TestPreset : public QObject {
    Q_OBJECT
private slots:
    void windowStateRoundTrips_data();
    void windowStateRoundTrips();
    void oldPresetStillLoads();
    void unknownNamesAreRefused_data();
    void unknownNamesAreRefused();
};

void TestPreset::windowStateRoundTrips_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<qint64>("budget");
    QTest::addColumn<QString>("page");
    QTest::addColumn<QString>("experiment");
    QTest::newRow("Persian, experiments page") << "fa" << qint64(3) << "experiments" << "no-division";
    QTest::newRow("English, quiz, no budget") << "en" << qint64(0) << "quiz" << "batchnorm";
    QTest::newRow("lab only") << "" << qint64(1) << "lab" << "";
}

void TestPreset::windowStateRoundTrips()
{
    QFETCH(QString, language);
    QFETCH(qint64, budget);
    QFETCH(QString, page);
    QFETCH(QString, experiment);
    Preset p;
    p.config.accumSteps = 8;
    p.language = language;
    if (budget > 0)
        p.memoryBudgetBytes = budget << 20;
    p.page = page;
    p.experiment = experiment;
    QString error;
    const auto back = presetFromJson(presetToJson(p), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->config.accumSteps, 8);
    QCOMPARE(back->language, language);
    QCOMPARE(back->memoryBudgetBytes.has_value(), budget > 0);
    if (budget > 0)
        QCOMPARE(*back->memoryBudgetBytes, budget << 20);
    QCOMPARE(back->page, page);
    QCOMPARE(back->experiment, experiment);
}

void TestPreset::oldPresetStillLoads()
{
    // A preset as the window saved them before: controls and classroom mode only.
    const QByteArray old = R"({"schema": "accumlab-preset.v1", "micro_batch": 8, "accum_steps": 4, "lr": 0.1,
        "optimizer": "sgd", "classroom": {"enabled": true, "hidden": ["seed"]}})";
    QString error;
    const auto p = presetFromJson(old, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->config.microBatch, 8);
    QVERIFY(p->classroomMode);
    QVERIFY(p->language.isEmpty());
    QVERIFY(!p->memoryBudgetBytes);
    QVERIFY(p->page.isEmpty());
    QVERIFY(p->experiment.isEmpty());
}

void TestPreset::unknownNamesAreRefused_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("named");
    QTest::newRow("language") << "language" << QJsonValue(QStringLiteral("tlh")) << "tlh";
    QTest::newRow("page") << "page" << QJsonValue(QStringLiteral("attic")) << "attic";
    QTest::newRow("experiment") << "experiment" << QJsonValue(QStringLiteral("perpetual-motion")) << "perpetual-motion";
    QTest::newRow("budget") << "memory_budget_bytes" << QJsonValue(-5) << "memory_budget_bytes";
}

void TestPreset::unknownNamesAreRefused()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, named);
    QJsonObject o = QJsonDocument::fromJson(presetToJson(Preset{})).object();
    o[key] = value;
    QString error;
    QVERIFY(!presetFromJson(QJsonDocument(o).toJson(), &error));
    QVERIFY2(error.contains(named), qPrintable(error));
}

QTEST_MAIN(TestPreset)
#include "tst_preset.moc"
