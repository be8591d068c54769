// SessionFiles' dialogs, answered as a teacher would: each export writes (on the export
// thread) the very bytes its writer makes from the lab's last sweep and check (so a dialog
// wired to the wrong writer, or at the wrong scale, fails), says so in the status bar, and a
// cancelled dialog does nothing.
// A saved session is a checkpoint core reads back; a preset opened from the menu is on the
// controls; a folder without a checkpoint is refused in words.
#include "ui/session/sessionfiles.h"

#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/memoryview.h"
#include "ui/worker/labrun.h"
#include "ui/language.h"
#include "ui/localizedtext.h"
#include "ui/mainwindow.h"
#include "ui/session/exports.h"
#include "ui/session/filedialogs.h"
#include "ui/statusreporter.h"
#include "ui/worker/sweeprunner.h"
#include "ui/charts/throughputchart.h"

#include "core/io/checkpoint.h"
#include "core/io/export.h"
#include "core/engine.h"
#include "core/io/safetensors.h"
#include "core/io/sha256.h"

#include "wait_helpers.h"

#include <QAction>
#include <QComboBox>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QInputDialog>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using namespace accumlab;
using namespace accumlab::ui;

namespace {
constexpr int kWaitMs = 60'000;

using Dialog = void (SessionFiles::*)();
const QHash<QString, Dialog> &dialogs()
{
    static const QHash<QString, Dialog> all{{QStringLiteral("exportCurve"), &SessionFiles::exportCurveDialog},
                                            {QStringLiteral("exportSkill"), &SessionFiles::exportSkillDialog},
                                            {QStringLiteral("savePreset"), &SessionFiles::savePresetDialog},
                                            {QStringLiteral("openPreset"), &SessionFiles::openPresetDialog},
                                            {QStringLiteral("importCurve"), &SessionFiles::importCurveDialog},
                                            {QStringLiteral("exportCharts"), &SessionFiles::exportChartsDialog},
                                            {QStringLiteral("exportTimeline"), &SessionFiles::exportTimelineDialog},
                                            {QStringLiteral("saveSession"), &SessionFiles::saveSessionDialog},
                                            {QStringLiteral("exportModel"), &SessionFiles::exportModelDialog},
                                            {QStringLiteral("resumeSession"), &SessionFiles::resumeSessionDialog}};
    return all;
}

// Answers the modal dialogs the next call opens, in order: a file dialog picks its path (a file
// or a folder) and accepts, an item dialog takes its item; an empty answer cancels.
void answerDialogs(const QStringList &answers)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    auto left = std::make_shared<QStringList>(answers);
    QObject::connect(timer, &QTimer::timeout, [timer, left] {
        QWidget *modal = QApplication::activeModalWidget();
        if (!modal || modal->property("answered").toBool())
            return;
        modal->setProperty("answered", true);
        const QString answer = left->takeFirst();
        if (left->isEmpty()) {
            timer->stop();
            timer->deleteLater();
        }
        auto *dialog = qobject_cast<QDialog *>(modal);
        if (answer.isEmpty())
            return dialog->reject();
        if (auto *files = qobject_cast<QFileDialog *>(modal)) {
            // The name goes in the name field: selectFile() only selects a file that exists.
            files->setDirectory(QFileInfo(answer).absolutePath());
            files->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"))->setText(QFileInfo(answer).fileName());
            QMetaObject::invokeMethod(files, "accept"); // protected in QFileDialog, a slot of QDialog
        } else if (auto *items = qobject_cast<QInputDialog *>(modal)) {
            items->setTextValue(answer);
            items->accept();
        }
    });
    timer->start();
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
} // namespace

class TestSessionFiles : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void exportsWriteTheirWritersBytes_data();
    void exportsWriteTheirWritersBytes();
    void cancelledDialogsWriteNothing_data();
    void cancelledDialogsWriteNothing();
    void chartsAtTheChosenScale_data();
    void chartsAtTheChosenScale();
    void presetAndCurveOpenFromTheMenu();
    void sessionsFromTheMenu();
    void memoryTimelineFromTheMenu();
    void modelFromTheMenu();
    void dialogsSpeakTheLesson_data();
    void dialogsSpeakTheLesson();
    void exportsDescribeTheSweptRun();

private:
    MainWindow *m_window = nullptr;
    QTemporaryDir m_dir;
};

void TestSessionFiles::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
    m_window = new MainWindow(false);
    m_window->status()->setErrorsToTerminal(true);
    // A small sweep and the start's equivalence check: what the exports are made of.
    m_window->findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2"));
    m_window->findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(2);
    QSignalSpy swept(m_window->sweep(), &SweepRunner::finished);
    QString error;
    QVERIFY2(m_window->sweep()->run(&error), qPrintable(error));
    QVERIFY(swept.wait(kWaitMs));
    QCOMPARE(swept.first().first().toBool(), true);
    QVERIFY(m_window->sweep()->lastSweepEquivalence().has_value());
}

void TestSessionFiles::cleanupTestCase() { delete m_window; }

void TestSessionFiles::exportsWriteTheirWritersBytes_data()
{
    QTest::addColumn<QString>("dialog");
    QTest::addColumn<QString>("file");
    QTest::newRow("accum-curve.json") << "exportCurve" << "curve.json";
    QTest::newRow("skill markdown") << "exportSkill" << "skill.md";
    QTest::newRow("preset") << "savePreset" << "preset.json";
}

void TestSessionFiles::exportsWriteTheirWritersBytes()
{
    QFETCH(QString, dialog);
    QFETCH(QString, file);
    const QString path = m_dir.filePath(file);
    answerDialogs({path});
    QSignalSpy written(m_window->files(), &SessionFiles::filesWritten);
    (m_window->files()->*dialogs().value(dialog))();
    QVERIFY(written.count() == 1 || written.wait(kWaitMs)); // the write runs on the export thread
    QCOMPARE(written.first().first().toBool(), true);
    const auto &sweep = *m_window->sweep()->lastSweep();
    const auto &check = *m_window->sweep()->lastSweepEquivalence();
    const QHash<QString, QByteArray> expected{{QStringLiteral("exportCurve"), curveJsonBytes(sweep, &check)},
                                              {QStringLiteral("exportSkill"), skillMarkdownBytes(check, sweep, contentStyle())},
                                              {QStringLiteral("savePreset"), presetToJson(m_window->currentPreset())}};
    QVERIFY2(QFile::exists(path), qPrintable(m_window->status()->lastError()));
    QCOMPARE(contents(path), expected.value(dialog));
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QLatin1String("Wrote")),
             qPrintable(m_window->statusBar()->currentMessage()));
}

void TestSessionFiles::cancelledDialogsWriteNothing_data()
{
    QTest::addColumn<QString>("dialog");
    for (const QString &name : {"exportCurve", "exportSkill", "savePreset", "exportCharts", "exportTimeline", "saveSession", "exportModel"})
        QTest::newRow(qPrintable(name)) << name;
}

void TestSessionFiles::cancelledDialogsWriteNothing()
{
    QFETCH(QString, dialog);
    m_window->status()->say([] { return QStringLiteral("before"); });
    const QString errorBefore = m_window->status()->lastError();
    QSignalSpy sessions(m_window->files(), &SessionFiles::sessionFinished);
    QSignalSpy written(m_window->files(), &SessionFiles::filesWritten);
    answerDialogs({QString()});
    (m_window->files()->*dialogs().value(dialog))();
    // Nothing follows: no write was started, and the engine owes no session's answer.
    QVERIFY(!m_window->files()->writing());
    QVERIFY(accumlab::ui::test::flushEngine(*m_window->controller()));
    QCOMPARE(sessions.count(), 0);
    QCOMPARE(written.count(), 0);
    QCOMPARE(m_window->status()->lastError(), errorBefore);
    QCOMPARE(m_window->statusBar()->currentMessage(), QStringLiteral("before"));
}

void TestSessionFiles::chartsAtTheChosenScale_data()
{
    QTest::addColumn<int>("choice"); // the item dialog's row: 1x, 2x, 3x
    QTest::newRow("1x") << 0;
    QTest::newRow("2x, the default") << 1;
    QTest::newRow("3x") << 2;
}

void TestSessionFiles::chartsAtTheChosenScale()
{
    QFETCH(int, choice);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QTemporaryDir dir;
    const QStringList items{QStringLiteral("1× (as on screen)"), QStringLiteral("2× (for slides)"), QStringLiteral("3×")};
    answerDialogs({dir.path(), items.at(choice)});
    QSignalSpy done(m_window->files(), &SessionFiles::filesWritten);
    m_window->files()->exportChartsDialog();
    QVERIFY(done.count() == 1 || done.wait(kWaitMs));
    QCOMPARE(done.first().first().toBool(), true);
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QLatin1String("Wrote 4 PNG files")),
             qPrintable(m_window->statusBar()->currentMessage()));
    const QStringList written = QDir(dir.path()).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
    QCOMPARE(written.size(), 4);
    const QImage chart(dir.filePath(QStringLiteral("accumlab-throughput.png")));
    QCOMPARE(chart.width(), m_window->throughputChart()->width() * (choice + 1));
}

void TestSessionFiles::presetAndCurveOpenFromTheMenu()
{
    QTemporaryDir dir;
    Preset preset = m_window->currentPreset();
    preset.run.accumSteps = preset.run.accumSteps == 2 ? 8 : 2;
    const QString presetPath = dir.filePath(QStringLiteral("lesson.json"));
    QString error;
    QVERIFY2(writeFileSafely(presetPath, presetToJson(preset), &error), qPrintable(error));
    answerDialogs({presetPath});
    m_window->files()->openPresetDialog();
    QCOMPARE(m_window->controlPanel()->config().accumSteps, preset.run.accumSteps);

    const QString curvePath = dir.filePath(QStringLiteral("accum-curve.json"));
    QVERIFY2(m_window->files()->exportCurveJson(curvePath, &error), qPrintable(error));
    answerDialogs({curvePath});
    m_window->files()->importCurveDialog();
    const QString said = m_window->statusBar()->currentMessage();
    QVERIFY2(said.startsWith(QLatin1String("Imported")) && said.contains(QLatin1String("accum-curve.json")),
             qPrintable(m_window->statusBar()->currentMessage()));
}

void TestSessionFiles::sessionsFromTheMenu()
{
    QTemporaryDir dir;
    QSignalSpy finished(m_window->files(), &SessionFiles::sessionFinished);
    answerDialogs({dir.path()});
    m_window->files()->saveSessionDialog();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(finished.takeFirst().first().toBool(), true);
    const AccumConfig saved = checkpointConfig(dir.path().toStdString());
    QCOMPARE(saved.accumSteps, m_window->controlPanel()->config().accumSteps);

    QTemporaryDir empty;
    answerDialogs({empty.path()});
    m_window->files()->resumeSessionDialog();
    QVERIFY2(m_window->status()->lastError().contains(QLatin1String("no checkpoint")),
             qPrintable(m_window->status()->lastError()));
}

// The memory lab's timeline from the File menu: refused in words before a demo has run (the
// action is disabled then), then, after the demo, memory-timeline.json and the PyTorch
// snapshot are written in the chosen folder with the demo's own figures.
void TestSessionFiles::memoryTimelineFromTheMenu()
{
    QTemporaryDir dir;
    auto *action = m_window->findChild<QAction *>(QStringLiteral("exportTimelineAction"));
    QVERIFY(action);
    QString error;
    if (!m_window->memoryView()->lastRecordedDemo()) {
        QVERIFY(!action->isEnabled());
        QVERIFY(!m_window->files()->exportMemoryTimeline(dir.path(), nullptr, &error));
        QVERIFY2(error.contains(QLatin1String("run the out-of-memory demo first")), qPrintable(error));
    }
    QSignalSpy ran(m_window->controller(), &EngineController::memoryLabFinished);
    m_window->memoryView()->start(MemoryLabKind::OomDemo);
    QVERIFY(ran.wait(kWaitMs));
    const OomDemoResult *demo = m_window->memoryView()->lastRecordedDemo();
    QVERIFY(demo);
    QVERIFY(action->isEnabled());
    answerDialogs({dir.path()});
    QSignalSpy written(m_window->files(), &SessionFiles::filesWritten);
    m_window->files()->exportTimelineDialog();
    QVERIFY(written.count() == 1 || written.wait(kWaitMs));
    QCOMPARE(written.first().first().toBool(), true);
    const auto json = nlohmann::json::parse(contents(dir.filePath(QStringLiteral("memory-timeline.json"))).toStdString());
    QCOMPARE(json.at("schema").get<std::string>(), std::string("memory-timeline.v1"));
    QCOMPARE(json.at("runs")[1].at("peak_bytes").get<int64_t>(), demo->accumulation.peakBytes);
    const QByteArray pickle = contents(dir.filePath(QStringLiteral("memory-snapshot.pickle")));
    QCOMPARE(pickle,
             QByteArray::fromStdString(memorySnapshotPickle({&demo->fullBatchTimeline, &demo->accumulationTimeline})));
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(QLatin1String("Wrote memory-timeline.json")),
             qPrintable(m_window->statusBar()->currentMessage()));
}

// File → Export trained model after five Steps: a safetensors file whose data is the lab's
// parameters after those micro-batches, as an engine of the same settings that ran them on its
// own has them (params_sha256), written on the worker while the window answers.
void TestSessionFiles::modelFromTheMenu()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("model.safetensors"));
    auto *action = m_window->findChild<QAction *>(QStringLiteral("exportModelAction"));
    QVERIFY(action && action->isEnabled() && !action->associatedObjects().isEmpty());
    m_window->controller()->reset();
    for (int i = 0; i < 5; ++i)
        m_window->controller()->stepMicroBatch();
    QSignalSpy finished(m_window->files(), &SessionFiles::sessionFinished);
    answerDialogs({path});
    m_window->files()->exportModelDialog();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(finished.takeFirst().first().toBool(), true);
    const std::string bytes = contents(path).toStdString();
    const std::string text = safetensorsHeader(bytes);
    const auto header = nlohmann::json::parse(text);
    const auto &meta = header.at("__metadata__");
    QCOMPARE(meta.at("format").get<std::string>(), std::string("accumlab-model"));
    QCOMPARE(meta.at("micro_batches").get<std::string>(), std::string("5"));
    const std::string sha = meta.at("params_sha256").get<std::string>();
    QCOMPARE(sha256Hex(bytes.data() + 8 + text.size(), bytes.size() - 8 - text.size()), sha);
    QVERIFY(header.contains("fc1.weight") && header.contains("fc3.bias"));

    const AccumConfig config = m_window->controlPanel()->config();
    QCOMPARE(config.worldSize, int64_t(1)); // the lab's one rank: an engine alone can retrace it
    AccumEngine alone(config);
    while (alone.microBatches() < 5)
        alone.microStep();
    QCOMPARE(sha, alone.paramsSha256());
    const QString said = m_window->statusBar()->currentMessage();
    QVERIFY2(said.startsWith(QLatin1String("Wrote the trained model to")) && said.contains(QLatin1String("model.safetensors")),
             qPrintable(said));
}

// The file dialogs in the window's language: the list's size, type and date columns in its words
// and digits (Qt's own model writes the system locale's "2.33 KiB", "Folder", "4 Dec 2026"), the
// folder's path and the file name left to right in Persian too.
void TestSessionFiles::dialogsSpeakTheLesson_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("size");   // of a 2,386-byte file
    QTest::addColumn<QString>("folder"); // the type column of a folder
    QTest::addColumn<QString>("file");   // of model.safetensors
    QTest::newRow("English") << "en" << "2.3 KiB" << "Folder" << "safetensors file";
    QTest::newRow("Persian") << "fa" << QString::fromUtf8("۲٫۳ کیلوبایت") << QString::fromUtf8("پوشه")
                             << QString::fromUtf8("فایل \u2066safetensors\u2069");
}

void TestSessionFiles::dialogsSpeakTheLesson()
{
    QFETCH(QString, language);
    QFETCH(QString, size);
    QFETCH(QString, folder);
    QFETCH(QString, file);
    LanguageManager::instance()->setLanguage(language);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("runs")));
    QFile model(dir.filePath(QStringLiteral("model.safetensors")));
    QVERIFY(model.open(QIODevice::WriteOnly) && model.write(QByteArray(2386, 'x')) == 2386);
    model.close();
    QHash<QString, QStringList> rows; // name -> size, type, date as the dialog's view shows them
    bool pathLeftToRight = false, nameLeftToRight = false;
    QTimer::singleShot(0, [&] {
        auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        if (auto *view = dialog->findChild<QTreeView *>(QStringLiteral("treeView"))) {
            const QAbstractItemModel *m = view->model();
            const bool listed = QTest::qWaitFor([&] { return m->rowCount(view->rootIndex()) == 2; }, kWaitMs);
            Q_UNUSED(listed) // the rows' checks below say what is missing
            for (int r = 0; r < m->rowCount(view->rootIndex()); ++r) {
                QStringList columns;
                for (int c = 1; c <= 3; ++c)
                    columns << m->index(r, c, view->rootIndex()).data().toString();
                rows.insert(m->index(r, 0, view->rootIndex()).data().toString(), columns);
            }
        }
        const auto leftToRight = [dialog](const char *name) {
            const auto *w = dialog->findChild<QWidget *>(QLatin1String(name));
            return w && w->layoutDirection() == Qt::LeftToRight;
        };
        pathLeftToRight = leftToRight("lookInCombo");
        nameLeftToRight = leftToRight("fileNameEdit");
        dialog->reject();
    });
    const QString chosen = fileDialogs::openFile(m_window, QStringLiteral("title"), dir.path(), QString());
    LanguageManager::instance()->setLanguage(QStringLiteral("en"));
    QVERIFY(chosen.isEmpty());
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.value(QStringLiteral("model.safetensors")).value(0), size);
    QCOMPARE(rows.value(QStringLiteral("model.safetensors")).value(1), file);
    QCOMPARE(rows.value(QStringLiteral("runs")).value(0), QString());
    QCOMPARE(rows.value(QStringLiteral("runs")).value(1), folder);
    // The date in the window's digits: Persian digits only in Persian, the year's "20" in English.
    const QString date = rows.value(QStringLiteral("model.safetensors")).value(2);
    int digits = 0;
    for (const QChar ch : date) {
        if (!ch.isDigit())
            continue;
        ++digits;
        QVERIFY2(language == QLatin1String("en") ? ch.unicode() < 0x80 : ch.unicode() >= 0x06F0, qPrintable(date));
    }
    QVERIFY2(digits >= 4, qPrintable(date));
    QVERIFY(pathLeftToRight);
    QVERIFY(nameLeftToRight);
}

// The exports describe one run: the sweep and the check of its own settings, run just before
// it. A teacher who changes the optimizer after the sweep (or opens an experiment, which sets
// the controls) sees the lab's panel check the new settings, while the recipe keeps the
// swept run's: it mixed the two (momentum at lr 0.1 in its equivalence line, the lesson's SGD
// sweep under it).
void TestSessionFiles::exportsDescribeTheSweptRun()
{
    const SweepResult sweep = *m_window->sweep()->lastSweep();
    const EquivalenceResult check = *m_window->sweep()->lastSweepEquivalence();
    AccumConfig checked = check.config.run;
    QVERIFY(checked.optimizer.kind == sweep.config.base.optimizer.kind);
    checked.accumSteps = sweep.config.base.accumSteps;
    QCOMPARE(toJson(checked).dump(), toJson(sweep.config.base).dump()); // every setting the sweep's

    auto *optimizer = m_window->findChild<QComboBox *>(QStringLiteral("optimizerCombo"));
    QVERIFY(optimizer);
    const int before = optimizer->currentIndex();
    QVERIFY(sweep.config.base.optimizer.kind != OptimizerKind::Momentum);
    optimizer->setCurrentIndex(1); // momentum
    QTRY_VERIFY_WITH_TIMEOUT(m_window->lab()->lastEquivalence() &&
                                 m_window->lab()->lastEquivalence()->config.run.optimizer.kind == OptimizerKind::Momentum,
                             kWaitMs);

    const QString path = m_dir.filePath(QStringLiteral("after-edit.md"));
    answerDialogs({path});
    QSignalSpy written(m_window->files(), &SessionFiles::filesWritten);
    m_window->files()->exportSkillDialog();
    QVERIFY(written.count() == 1 || written.wait(kWaitMs));
    QCOMPARE(contents(path), skillMarkdownBytes(check, sweep, contentStyle()));
    const QString recipe = QString::fromUtf8(contents(path));
    const QString checkLine = recipe.section(QLatin1String("\nEquivalence ("), 1, 1).section(QLatin1Char('\n'), 0, 0);
    QVERIFY2(!checkLine.isEmpty() && !checkLine.contains(QLatin1String("momentum")), qPrintable(recipe));

    optimizer->setCurrentIndex(before);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->lab()->lastEquivalence() &&
                                 m_window->lab()->lastEquivalence()->config.run.optimizer.kind == sweep.config.base.optimizer.kind,
                             kWaitMs);
}

QTEST_MAIN(TestSessionFiles)
#include "tst_sessionfiles.moc"
