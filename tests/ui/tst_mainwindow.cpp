// The window as a user drives it: sliders and toggles reach the engine, the no-division bug
// shows the N-fold overshoot on the bars, exports write files core can parse, presets
// round-trip, the classroom mode hides the chosen controls, a guided experiment sets the
// controls up before it runs, the memory view's out-of-memory demo says in words why it is off
// on a machine without CUDA and what a run showed.
#include "common.h"

#include "ui/controlpanel.h"
#include "ui/enginecontroller.h"
#include "ui/equivalencepanel.h"
#include "ui/engineworker.h"
#include "ui/experimentpanel.h"
#include "ui/gradientbufferview.h"
#include "ui/language.h"
#include "ui/mainwindow.h"
#include "ui/memoryview.h"
#include "ui/preset.h"
#include "ui/quizwidget.h"

#include "core/device.h"
#include "core/export.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr int kWaitMs = 30'000;

// Applies the edits, then waits until the worker reports the engine it built from them.
bool waitForEngine(MainWindow &w, const std::function<bool(const AccumConfig &)> &matches)
{
    w.applyConfigNow();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < kWaitMs) {
        const auto &info = w.controller()->engineInfo();
        if (info && matches(info->config))
            return true;
        QTest::qWait(10);
    }
    return false;
}

// Switches the language as the Language menu does; LanguageChange events are delivered
// before this returns.
void switchLanguage(UiLanguage language)
{
    LanguageManager::instance()->setLanguage(language);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

QString labelText(QWidget *parent, const char *name)
{
    const auto *label = parent->findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no label %1>").arg(QLatin1String(name));
}

// What a run on a GPU reports: the cap, the allocator's first line, the accumulated peak.
OomDemoUpdate oomSuccess()
{
    OomDemoUpdate u;
    u.serial = 1;
    u.ok = true;
    u.config.microBatch = 256;
    u.config.accumSteps = 16;
    u.result.device = "cuda:0";
    u.result.totalDeviceBytes = qint64(141) << 30;
    u.result.microPeakBytes = qint64(300) << 20;
    u.result.capBytes = 2 * u.result.microPeakBytes;
    u.result.effectiveBatch = 4096;
    u.result.fullBatchOutOfMemory = true;
    u.result.fullBatchError = "CUDA out of memory. Tried to allocate 3.75 GiB (GPU 0; 139.72 GiB total capacity)";
    u.result.accumulationSucceeded = true;
    u.result.accumulationPeakBytes = qint64(310) << 20;
    return u;
}

QString bytesIn(const QLocale &loc, qint64 bytes) { return loc.formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void slidersReachTheEngine_data();
    void slidersReachTheEngine();
    void togglesReachTheEngine();
    void bugListReachesTheEngineAndTheCheck_data();
    void bugListReachesTheEngineAndTheCheck();
    void bufferRatio_data();
    void bufferRatio();
    void memoryViewMarksOutOfMemory();
    void oomDemoButtonSaysWhyItIsOff_data();
    void oomDemoButtonSaysWhyItIsOff();
    void oomDemoRequestAnswersInWords();
    void oomDemoResultInWords_data();
    void oomDemoResultInWords();
    void exportsWriteValidFiles();
    void failedExportLeavesNoFile();
    void presetRoundTrip();
    void classroomModeHidesControls();
    void experimentSetsTheControls();
    void cleanup();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location
}

void TestMainWindow::slidersReachTheEngine_data()
{
    QTest::addColumn<QString>("slider");
    QTest::addColumn<int>("value");
    QTest::newRow("accum 8") << QStringLiteral("accumStepsSlider") << 8;
    QTest::newRow("accum 64") << QStringLiteral("accumStepsSlider") << 64;
    QTest::newRow("micro 16") << QStringLiteral("microBatchSlider") << 16;
}

void TestMainWindow::slidersReachTheEngine()
{
    QFETCH(QString, slider);
    QFETCH(int, value);
    MainWindow w(false);
    auto *s = w.findChild<QSlider *>(slider);
    QVERIFY(s);
    s->setValue(value);
    const bool accum = slider == QLatin1String("accumStepsSlider");
    QVERIFY(waitForEngine(w, [&](const AccumConfig &c) { return (accum ? c.accumSteps : c.microBatch) == value; }));
    const AccumConfig c = w.controller()->engineInfo()->config;
    // The identity label states the product the engine uses.
    const QString identity = w.findChild<QLabel *>(QStringLiteral("identityLabel"))->text();
    QVERIFY2(identity.contains(QStringLiteral("= effective %1").arg(c.effectiveBatch())), qPrintable(identity));
}

void TestMainWindow::togglesReachTheEngine()
{
    MainWindow w(false);
    w.findChild<QCheckBox *>(QStringLiteral("noDivisionCheck"))->setChecked(true);
    w.findChild<QCheckBox *>(QStringLiteral("noSyncCheck"))->setChecked(false);
    w.findChild<QCheckBox *>(QStringLiteral("stepEveryMicroCheck"))->setChecked(true);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) {
        return c.scaling == Scaling::None && !c.noSync && c.stepEveryMicro;
    }));
}

// The window's "Bug: classic" list plants each bug of the zoo: the engine runs it, the
// equivalence panel's check of the controls' split fails on it (none, the control row, holds),
// and it travels in the preset.
void TestMainWindow::bugListReachesTheEngineAndTheCheck_data()
{
    QTest::addColumn<QString>("bug");
    for (const std::string &name : accumBugNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestMainWindow::bugListReachesTheEngineAndTheCheck()
{
    QFETCH(QString, bug);
    const AccumBug planted = accumBugFromString(bug.toStdString());
    MainWindow w(false);
    auto *combo = w.findChild<QComboBox *>(QStringLiteral("bugCombo"));
    QVERIFY(combo);
    QCOMPARE(combo->count(), int(accumBugNames().size()));
    QVERIFY(!combo->currentText().isEmpty());
    combo->setCurrentIndex(combo->findData(bug));
    QVERIFY(w.currentPreset().config.bug == planted);
    QVERIFY(waitForEngine(w, [&](const AccumConfig &c) { return c.bug == planted && c.accumSteps == 4; }));
    w.applyConfigNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.lastEquivalence() && w.lastEquivalence()->config.bug == planted, kWaitMs);
    QCOMPARE(w.lastEquivalence()->holds, planted == AccumBug::None);
    QString error;
    const std::optional<Preset> back = presetFromJson(presetToJson(w.currentPreset()), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->config.bug == planted);
}

void TestMainWindow::bufferRatio_data()
{
    QTest::addColumn<int>("accum");
    QTest::addColumn<bool>("noDivision");
    QTest::addColumn<double>("expected");
    QTest::newRow("divide, N=4") << 4 << false << 1.0;
    QTest::newRow("no division, N=2") << 2 << true << 2.0;
    QTest::newRow("no division, N=4") << 4 << true << 4.0;
    QTest::newRow("no division, N=16") << 16 << true << 16.0;
}

void TestMainWindow::bufferRatio()
{
    QFETCH(int, accum);
    QFETCH(bool, noDivision);
    QFETCH(double, expected);
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(accum);
    w.findChild<QCheckBox *>(QStringLiteral("noDivisionCheck"))->setChecked(noDivision);
    QVERIFY(waitForEngine(w, [&](const AccumConfig &c) {
        return c.accumSteps == accum && (c.scaling == Scaling::None) == noDivision;
    }));
    QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    for (int i = 0; i < accum; ++i)
        step->trigger();
    // The bars after the window's last micro-batch, as the class sees them.
    GradientBufferView *view = w.bufferView();
    QLabel *counter = w.findChild<QLabel *>(QStringLiteral("microBatchesValue"));
    QTRY_COMPARE_WITH_TIMEOUT(counter->text(), QLocale().toString(accum), kWaitMs);
    QVERIFY(view->hasData());
    QVERIFY2(std::abs(view->measuredRatio() - expected) < 1e-3,
             qPrintable(QStringLiteral("ratio %1, expected %2").arg(view->measuredRatio()).arg(expected)));
    for (double r : view->tensorRatios())
        QVERIFY2(std::abs(r - expected) < 1e-3, qPrintable(QString::number(r)));
    QVERIFY(view->axisMax() > expected); // the overshoot is on the axis
    const QString label = w.findChild<QLabel *>(QStringLiteral("ratioLabel"))->text();
    QVERIFY2(label.contains(QLocale().toString(expected, 'f', 2) + QStringLiteral("×")), qPrintable(label));
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("optimizerStepsValue"))->text(), QLocale().toString(1));
}

void TestMainWindow::memoryViewMarksOutOfMemory()
{
    MainWindow w(false);
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(16);
    w.applyConfigNow();
    MemoryView *m = w.memoryView();
    // The default budget fits 32 samples: micro-batch 4 fits, 4 x 16 = 64 in one pass does not.
    QVERIFY(m->microBatchFits());
    QVERIFY(!m->effectiveBatchFits());
    QVERIFY(m->effectiveBatchBytes() > m->microBatchBytes());
    m->setBudgetBytes(m->effectiveBatchBytes() * 2);
    QVERIFY(m->effectiveBatchFits());
}

// On a machine without a CUDA device the button is there, off, and says why in the window's
// language (the build here may lack CUDA altogether, or the machine its GPU).
void TestMainWindow::oomDemoButtonSaysWhyItIsOff_data()
{
    QTest::addColumn<bool>("persian");
    QTest::addColumn<QString>("unavailable");
    QTest::addColumn<QString>("needs");
    QTest::newRow("English") << false << QStringLiteral("Out-of-memory demo unavailable: ")
                             << QStringLiteral("It needs a CUDA GPU");
    QTest::newRow("Persian") << true << QStringLiteral("نمایش کمبود حافظه در دسترس نیست: ")
                             << QStringLiteral("به یک GPU با CUDA نیاز دارد");
}

void TestMainWindow::oomDemoButtonSaysWhyItIsOff()
{
    QFETCH(bool, persian);
    QFETCH(QString, unavailable);
    QFETCH(QString, needs);
    if (cudaAvailable())
        QSKIP("this machine has a CUDA device: the button is on");
    switchLanguage(persian ? UiLanguage::Persian : UiLanguage::English);
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    auto *button = m->findChild<QPushButton *>(QStringLiteral("oomDemoButton"));
    QVERIFY(button);
    QVERIFY(!m->oomDemoAvailable());
    QVERIFY(!button->isEnabled());
    QCOMPARE(button->text(), persian ? QStringLiteral("اجرای نمایش کمبود حافظه") : QStringLiteral("Run the out-of-memory demo"));
    const QString why = EngineWorker::oomDemoUnavailableReason();
    QVERIFY2(why.startsWith(needs), qPrintable(why));
    QVERIFY(why.contains(QStringLiteral("CUDA")));
    QCOMPARE(button->toolTip(), why);
    QCOMPARE(labelText(m, "oomDemoStatus"), unavailable + why);
    QVERIFY(labelText(m, "oomDemoResult").isEmpty());
}

// The window's path end to end on this machine: the request goes through the controller to
// the worker and the view shows its answer, the reason in words, not a crash.
void TestMainWindow::oomDemoRequestAnswersInWords()
{
    if (cudaAvailable())
        QSKIP("this machine has a CUDA device: the demo would run");
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    QSignalSpy finished(w.controller(), &EngineController::oomDemoFinished);
    emit m->oomDemoRequested();
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(labelText(m, "oomDemoResult"),
             QStringLiteral("The out-of-memory demo failed: ") + EngineWorker::oomDemoUnavailableReason());
}

// The rendering of an answer, without a GPU: a success names the cap, the allocator's
// out-of-memory line and the accumulated batch's peak; a failure gives the error. Both
// languages; numbers in the window's digits.
void TestMainWindow::oomDemoResultInWords_data()
{
    QTest::addColumn<bool>("persian");
    QTest::addColumn<bool>("ok");
    QTest::newRow("success, English") << false << true;
    QTest::newRow("success, Persian") << true << true;
    QTest::newRow("failure, English") << false << false;
    QTest::newRow("failure, Persian") << true << false;
}

void TestMainWindow::oomDemoResultInWords()
{
    QFETCH(bool, persian);
    QFETCH(bool, ok);
    switchLanguage(persian ? UiLanguage::Persian : UiLanguage::English);
    const QLocale loc = LanguageManager::instance()->numberLocale();
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    OomDemoUpdate u = oomSuccess();
    const QString error = QStringLiteral("CUDA error: an illegal memory access was encountered");
    if (!ok) {
        u.ok = false;
        u.error = error;
        u.result = OomDemoResult{};
    }
    m->showOomDemoResult(u);
    const QString text = labelText(m, "oomDemoResult");
    QStringList expected;
    if (!ok && !persian)
        expected << QStringLiteral("The out-of-memory demo failed: ") + error;
    if (!ok && persian)
        expected << QStringLiteral("نمایش کمبود حافظه ناموفق بود: ") + error;
    if (ok) {
        const QString cap = bytesIn(loc, u.result.capBytes);
        const QString microPeak = bytesIn(loc, u.result.microPeakBytes);
        const QString accumPeak = bytesIn(loc, u.result.accumulationPeakBytes);
        const QString effective = loc.toString(qint64(4096));
        const QString micro = loc.toString(qint64(256));
        const QString accum = loc.toString(qint64(16));
        // The allocator's own line, kept as it came (left to right inside Persian).
        expected << QString::fromStdString(u.result.fullBatchError) << QStringLiteral("cuda:0");
        if (persian)
            expected << QStringLiteral("سقف تخصیص‌دهنده %1 گذاشته شد").arg(cap)
                     << QStringLiteral("میکروبچ %1 نمونه‌ای، یعنی %2").arg(micro, microPeak)
                     << QStringLiteral("کل دسته‌ی مؤثر %1 نمونه‌ای در یک گذر با خطای کمبود حافظه‌ی CUDA شکست خورد").arg(effective)
                     << QStringLiteral("با انباشت %1 میکروبچ %2 نمونه‌ای با موفقیت اجرا شد").arg(accum, micro)
                     << QStringLiteral("اوج اندازه‌گیری‌شده‌ی %1").arg(accumPeak);
        else
            expected << QStringLiteral("the allocator was capped at %1").arg(cap)
                     << QStringLiteral("one micro-batch of %1 samples, %2").arg(micro, microPeak)
                     << QStringLiteral("The full effective batch of %1 samples in one pass failed with CUDA out of memory")
                            .arg(effective)
                     << QStringLiteral("by accumulation of %1 micro-batches of %2 samples succeeded").arg(accum, micro)
                     << QStringLiteral("measured peak of %1").arg(accumPeak);
    }
    for (const QString &words : expected)
        QVERIFY2(text.contains(words), qPrintable(words + QStringLiteral("\n  not in: ") + text));
    if (persian)
        QVERIFY2(!text.contains(QStringLiteral("micro-batch")) && !text.contains(QStringLiteral("demo")), qPrintable(text));
    // The answer follows the language when it changes afterwards.
    switchLanguage(persian ? UiLanguage::English : UiLanguage::Persian);
    QVERIFY(labelText(m, "oomDemoResult") != text);
}

void TestMainWindow::cleanup()
{
    if (LanguageManager::instance()->language() != UiLanguage::English)
        switchLanguage(UiLanguage::English);
}

void TestMainWindow::exportsWriteValidFiles()
{
    QTemporaryDir dir;
    MainWindow w(false);
    Preset p = w.currentPreset();
    p.accumGrid = QStringLiteral("1,2");
    p.numSteps = 3;
    w.applyPreset(p);
    QString error;
    QVERIFY(!w.exportCurveJson(dir.filePath(QStringLiteral("none.json")), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.json"))));

    QSignalSpy finished(&w, &MainWindow::sweepFinished);
    QVERIFY(w.runSweep(&error));
    QVERIFY(finished.wait(kWaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(w.lastEquivalence().has_value(), kWaitMs);

    const QString curvePath = dir.filePath(QStringLiteral("accum-curve.json"));
    QVERIFY2(w.exportCurveJson(curvePath, &error), qPrintable(error));
    QFile curve(curvePath);
    QVERIFY(curve.open(QIODevice::ReadOnly));
    const CurveFile parsed = parseCurveJson(curve.readAll().toStdString());
    QCOMPARE(parsed.points.size(), size_t(2));
    QCOMPARE(parsed.points[0].effectiveBatch, 4 * 1);
    QCOMPARE(parsed.points[1].effectiveBatch, 4 * 2);
    QCOMPARE(parsed.points[1].steps, 3);
    QVERIFY(parsed.raw.contains("equivalence"));

    const QString skillPath = dir.filePath(QStringLiteral("skill.md"));
    QVERIFY2(w.exportSkillMarkdown(skillPath, &error), qPrintable(error));
    QFile skill(skillPath);
    QVERIFY(skill.open(QIODevice::ReadOnly));
    const QByteArray markdown = skill.readAll();
    QVERIFY(markdown.contains("## Measured in this run"));
    // The sweep's numbers appear in the file as measured.
    QVERIFY(markdown.contains(QByteArray::number(static_cast<qlonglong>(w.lastSweep()->points[1].effectiveBatch))));

    QStringList written;
    QVERIFY2(w.exportChartPngs(dir.path(), &written, &error), qPrintable(error));
    QCOMPARE(written.size(), 4);
    for (const QString &png : written)
        QVERIFY(!QImage(png).isNull());
}

void TestMainWindow::failedExportLeavesNoFile()
{
    QTemporaryDir dir;
    MainWindow w(false);
    const QString path = dir.filePath(QStringLiteral("missing-folder/preset.json"));
    QString error;
    QVERIFY(!w.savePresetFile(path, &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 0);
}

void TestMainWindow::presetRoundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.json"));
    QString error;
    {
        MainWindow w(false);
        Preset p = w.currentPreset();
        p.config.microBatch = 8;
        p.config.accumSteps = 16;
        p.config.optimizer.kind = OptimizerKind::AdamW;
        p.config.optimizer.lr = 0.001;
        p.config.scaling = Scaling::None;
        p.config.dtype = DType::Float64;
        p.config.preset = ModelPreset::Fixture;
        p.config.seed = 42;
        p.pace = 12;
        p.accumGrid = QStringLiteral("1,4,16");
        p.classroomMode = true;
        p.hiddenControls = {QStringLiteral("lr"), QStringLiteral("seed")};
        w.applyPreset(p);
        QVERIFY2(w.savePresetFile(path, &error), qPrintable(error));
    }
    MainWindow w(false);
    QVERIFY2(w.loadPresetFile(path, &error), qPrintable(error));
    const Preset q = w.currentPreset();
    QCOMPARE(q.config.microBatch, 8);
    QCOMPARE(q.config.accumSteps, 16);
    QVERIFY(q.config.optimizer.kind == OptimizerKind::AdamW);
    QCOMPARE(q.config.optimizer.lr, 0.001);
    QVERIFY(q.config.scaling == Scaling::None);
    QVERIFY(q.config.dtype == DType::Float64);
    QVERIFY(q.config.preset == ModelPreset::Fixture);
    QCOMPARE(q.config.seed, uint64_t(42));
    QCOMPARE(q.pace, 12);
    QCOMPARE(q.accumGrid, QStringLiteral("1,4,16"));
    QVERIFY(q.classroomMode);
    QCOMPARE(q.hiddenControls, QStringList({QStringLiteral("lr"), QStringLiteral("seed")}));
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == 16 && c.seed == 42; }));

    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"schema": "accumlab-preset.v1", "dtype": "float13"})");
    bad.close();
    QVERIFY(!w.loadPresetFile(bad.fileName(), &error));
    QVERIFY2(error.contains(QStringLiteral("float13")), qPrintable(error));
}

void TestMainWindow::classroomModeHidesControls()
{
    MainWindow w(false);
    w.show();
    Preset p = w.currentPreset();
    p.classroomMode = true;
    p.hiddenControls = {QStringLiteral("lr"), QStringLiteral("seed")};
    w.applyPreset(p);
    auto *lr = w.findChild<QSlider *>(QStringLiteral("lrSlider"));
    auto *accum = w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"));
    QVERIFY(!lr->isVisibleTo(&w));
    QVERIFY(accum->isVisibleTo(&w));
    w.controlPanel()->setClassroomMode(false, p.hiddenControls);
    QVERIFY(lr->isVisibleTo(&w));
}

// The Experiments menu opens an experiment on its page; running it puts its settings on the
// controls (and so on the engine); the quiz opens the experiment a question refers to; a lesson
// link leads back to the lab.
void TestMainWindow::experimentSetsTheControls()
{
    MainWindow w(false);
    w.show();
    QCOMPARE(w.currentPage(), MainWindow::LabPage);
    auto *open = w.findChild<QAction *>(QStringLiteral("experimentAction_no-division"));
    QVERIFY(open);
    open->trigger();
    QCOMPARE(w.currentPage(), MainWindow::ExperimentsPage);
    QCOMPARE(w.experimentPanel()->currentExperiment(), QStringLiteral("no-division"));
    QVERIFY(w.controlPanel()->config().scaling == Scaling::Divide);

    QSignalSpy finished(w.experimentPanel(), &ExperimentPanel::experimentFinished);
    w.experimentPanel()->setQuickRun(true);
    w.experimentPanel()->runCurrent();
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.first().at(1).toBool());
    const AccumConfig c = w.controlPanel()->config();
    QVERIFY(c.scaling == Scaling::None);
    QVERIFY(c.preset == ModelPreset::Fixture);
    QCOMPARE(c.effectiveBatch(), EquivalenceConfig().bigBatch);
    QVERIFY(waitForEngine(w, [](const AccumConfig &e) { return e.scaling == Scaling::None; }));

    emit w.quizWidget()->openExperiment(QStringLiteral("batchnorm"));
    QCOMPARE(w.currentPage(), MainWindow::ExperimentsPage);
    QCOMPARE(w.experimentPanel()->currentExperiment(), QStringLiteral("batchnorm"));
    w.findChild<QAction *>(QStringLiteral("quizPageAction"))->trigger();
    QCOMPARE(w.currentPage(), MainWindow::QuizPage);
    QVERIFY(w.showLessonTarget(QStringLiteral("view/memory")));
    QCOMPARE(w.currentPage(), MainWindow::LabPage);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
