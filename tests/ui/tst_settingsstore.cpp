// The window's persisted settings: each one set in a store is what a new store (the next start)
// reads back; a store that does not persist reads nothing and writes nothing, yet keeps what it
// is told for its session; a stored preset that is no valid preset (garbage, an older schema, a
// setting the controls cannot show) is ignored while the settings beside it still load.
#include "ui/session/settingsstore.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

// One setting through the store's own setter and getter; a preset is compared by its JSON.
void put(SettingsStore &store, const QString &field, const QVariant &value)
{
    if (field == QLatin1String("preset"))
        store.setPreset(*presetFromJson(value.toByteArray(), nullptr));
    else if (field == QLatin1String("geometry"))
        store.setGeometry(value.toByteArray());
    else if (field == QLatin1String("zoom"))
        store.setZoom(value.toDouble());
    else if (field == QLatin1String("lastFolder"))
        store.setLastFolder(value.toString());
    else if (field == QLatin1String("folderOf"))
        store.rememberFolderOf(value.toString());
    else
        QFAIL(qPrintable(field));
}

QVariant get(const SettingsStore &store, const QString &field)
{
    if (field == QLatin1String("preset")) {
        const auto preset = store.preset();
        return preset ? QVariant(presetToJson(*preset)) : QVariant();
    }
    if (field == QLatin1String("geometry"))
        return store.geometry();
    if (field == QLatin1String("zoom"))
        return store.zoom();
    return store.lastFolder(); // lastFolder, folderOf
}

QString documents() { return QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation); }

} // namespace

class TestSettingsStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void roundTrips_data();
    void roundTrips();
    void notPersistingReadsAndWritesNothing_data();
    void notPersistingReadsAndWritesNothing();
    void corruptPresetIsIgnored_data();
    void corruptPresetIsIgnored();
    void zoomThatIsNoZoomIsNormalSize_data();
    void zoomThatIsNoZoomIsNormalSize();
};

void TestSettingsStore::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("AccumLab"));
    QCoreApplication::setApplicationName(QStringLiteral("AccumLabSettingsStoreTest"));
}

void TestSettingsStore::init() { QSettings().clear(); }

void TestSettingsStore::cleanupTestCase() { QFile::remove(QSettings().fileName()); }

void TestSettingsStore::roundTrips_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<QVariant>("expected");  // what a new store reads back
    QTest::addColumn<QVariant>("untouched"); // what it reads when nothing was kept

    Preset lesson;
    lesson.run.accumSteps = 8;
    lesson.run.microBatch = 16;
    lesson.pace = 12;
    lesson.classroomMode = true;
    lesson.hiddenControls = {QStringLiteral("lr")};
    lesson.language = QStringLiteral("fa");
    lesson.memoryBudgetBytes = qint64(3) << 20;
    lesson.page = QStringLiteral("experiments");
    lesson.experiment = QStringLiteral("no-division");
    const QByteArray json = presetToJson(lesson);
    QTest::newRow("preset, with where the lesson opens") << "preset" << QVariant(json) << QVariant(json) << QVariant();

    QWidget widget;
    widget.setGeometry(40, 60, 640, 480);
    const QByteArray geometry = widget.saveGeometry();
    QTest::newRow("geometry") << "geometry" << QVariant(geometry) << QVariant(geometry) << QVariant(QByteArray());

    QTest::newRow("zoom 1.5") << "zoom" << QVariant(1.5) << QVariant(1.5) << QVariant(1.0);
    QTest::newRow("zoom 0.6") << "zoom" << QVariant(0.6) << QVariant(0.6) << QVariant(1.0);
    const QString folder = QDir::tempPath() + QStringLiteral("/درس ها/lessons");
    QTest::newRow("last folder") << "lastFolder" << QVariant(folder) << QVariant(folder) << QVariant(documents());
    QTest::newRow("folder of a chosen file")
        << "folderOf" << QVariant(folder + QStringLiteral("/lesson.json")) << QVariant(folder) << QVariant(documents());
}

void TestSettingsStore::roundTrips()
{
    QFETCH(QString, field);
    QFETCH(QVariant, value);
    QFETCH(QVariant, expected);
    QFETCH(QVariant, untouched);
    QCOMPARE(get(SettingsStore(true), field), untouched);
    {
        SettingsStore store(true);
        put(store, field, value);
    }
    QSettings().sync();
    QVERIFY(!QSettings().allKeys().isEmpty());
    QCOMPARE(get(SettingsStore(true), field), expected);
}

void TestSettingsStore::notPersistingReadsAndWritesNothing_data() { roundTrips_data(); }

void TestSettingsStore::notPersistingReadsAndWritesNothing()
{
    QFETCH(QString, field);
    QFETCH(QVariant, value);
    QFETCH(QVariant, expected);
    QFETCH(QVariant, untouched);
    // A saved setting is not read...
    {
        SettingsStore saved(true);
        put(saved, field, value);
    }
    SettingsStore session(false);
    QCOMPARE(get(session, field), untouched);
    // ...and none is written, while the session keeps what it was told.
    QSettings().clear();
    put(session, field, value);
    QCOMPARE(get(session, field), expected);
    QSettings().sync();
    QCOMPARE(QSettings().allKeys(), QStringList());
    QCOMPARE(get(SettingsStore(true), field), untouched);
}

void TestSettingsStore::corruptPresetIsIgnored_data()
{
    QTest::addColumn<QString>("stored");
    QTest::newRow("not JSON") << QStringLiteral("{\"schema\": \"accumlab-pre");
    QTest::newRow("JSON, not an object") << QStringLiteral("[1, 2, 4]");
    QTest::newRow("an older schema") << QStringLiteral(R"({"schema": "accumlab-preset.v0", "micro_batch": 32})");
    QTest::newRow("a dtype the controls cannot show") << QStringLiteral(R"({"schema": "accumlab-preset.v1", "dtype": "float13"})");
    QTest::newRow("an unknown page") << QStringLiteral(R"({"schema": "accumlab-preset.v1", "page": "attic"})");
}

void TestSettingsStore::corruptPresetIsIgnored()
{
    QFETCH(QString, stored);
    {
        SettingsStore store(true);
        store.setZoom(1.5);
        store.setLastFolder(QDir::tempPath());
    }
    // The key and the form AccumLab has always stored the session's preset under.
    QSettings().setValue(QStringLiteral("session/preset"), stored);
    QSettings().sync();
    const SettingsStore store(true);
    QVERIFY(!store.preset().has_value());
    QCOMPARE(store.zoom(), 1.5);
    QCOMPARE(store.lastFolder(), QDir::tempPath());
}

void TestSettingsStore::zoomThatIsNoZoomIsNormalSize_data()
{
    QTest::addColumn<QString>("stored");
    QTest::newRow("words") << QStringLiteral("large");
    QTest::newRow("zero") << QStringLiteral("0");
    QTest::newRow("negative") << QStringLiteral("-2");
}

void TestSettingsStore::zoomThatIsNoZoomIsNormalSize()
{
    QFETCH(QString, stored);
    QSettings().setValue(QStringLiteral("view/zoom"), stored);
    QCOMPARE(SettingsStore(true).zoom(), 1.0);
}

QTEST_MAIN(TestSettingsStore)
#include "tst_settingsstore.moc"
