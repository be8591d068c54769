// The window as a user drives it: sliders and toggles reach the engine, the no-division bug
// shows the N-fold overshoot on the bars, exports write files core can parse, presets
// round-trip, the classroom mode hides the chosen controls, a guided experiment sets the
// controls up before it runs, the memory view's out-of-memory demo says in words why it is off
// on a machine without CUDA and what a run showed.
#include "common.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/worker/engineworker.h"
#include "ui/panels/experimentpanel.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/charts/losschart.h"
#include "ui/language.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/mainwindow.h"
#include "ui/worker/sweeprunner.h"
#include "ui/session/sessionfiles.h"
#include "ui/worker/labrun.h"
#include "ui/statusreporter.h"
#include "ui/charts/throughputchart.h"
#include "ui/panels/memoryview.h"
#include "ui/localizedtext.h"
#include "ui/charts/memorytimelinechart.h"
#include "ui/session/preset.h"
#include "ui/panels/quizwidget.h"
#include "ui/charts/tradeoffchart.h"
#include "window_helpers.h"

#include "core/content/content.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/experiments/internal.h"
#include "core/io/export.h"
#include "core/memory/memory_sentences.h"

#include <QAccessible>
#include <QAction>
#include <QAreaSeries>
#include <QScopeGuard>
#include <QMenu>
#include <QChart>
#include <QLineSeries>
#include <QStackedWidget>
#include <QDir>
#include <QTabWidget>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QLineEdit>
#include <QRegularExpression>
#include <QAbstractItemView>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr int kWaitMs = 30'000;
// Built with a sanitizer (scripts/sanitize.sh): the engine's own code runs several times slower,
// so a test that times runs its work smaller and judges no timing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

using accumlab::ui::test::waitForEngine;

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

// What a demo reports: the measured budget, LibTorch's out-of-memory line, the accumulated
// batch's peak and its parameter difference.
MemoryLabUpdate demoSuccess()
{
    MemoryLabUpdate u;
    u.serial = 1;
    u.ok = true;
    u.request.kind = MemoryLabKind::OomDemo;
    u.request.tradeoff.lab.effectiveBatch = 512;
    u.request.tradeoff.lab.failsAfterSamples = 32;
    OomDemoResult &r = u.demo;
    r.device = "cpu";
    r.budgetBytes = 497500;
    r.failsAfterSamples = 32;
    r.microBatch = 32;
    r.accumSteps = 16;
    r.effectiveBatch = 512;
    r.fullBatch.peakBytes = qint64(1843) << 10;
    r.fullBatchOutOfMemory = true;
    r.fullBatchError = "CPU out of memory. Tried to allocate 128.0 KiB (budget 485.8 KiB, 474.1 KiB already allocated under it)";
    r.accumulationSucceeded = true;
    r.accumulation.peakBytes = 496300;
    r.maxParamDiff = 7.45e-9;
    r.paramTolerance = 1e-4;
    return u;
}

QString bytesIn(const QLocale &, qint64 bytes) { return LanguageManager::formatBytes(bytes); }

// Core's sentences of a memory run (core/memory/memory_sentences.h) in `language`, the device in
// `device`'s words, each line as the window marks a core text (a right-to-left mark first in
// Persian): what the Memory tab must show, word for word.
QString coreSentences(const MemoryLabUpdate &u, const std::string &language, const std::string &device)
{
    const NumberStyle style{language, false};
    std::vector<std::string> said;
    switch (u.request.kind) {
    case MemoryLabKind::OomDemo: said = oomDemoSentences(u.demo, style, {device}); break;
    case MemoryLabKind::Tradeoff: said = tradeoffSentences(u.tradeoff, style, {device}); break;
    case MemoryLabKind::Finder: said = finderSentences(u.finding, style); break;
    }
    QStringList lines;
    for (const std::string &line : said)
        lines << (languageInfo(language).rightToLeft ? QChar(0x200F) : QString()) + QString::fromStdString(line);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void keysStayWithTheFocusedControl_data();
    void keysStayWithTheFocusedControl();
    void mouseChoiceLeavesTheKeysToTheLab_data();
    void mouseChoiceLeavesTheKeysToTheLab();
    void typingInASpinBoxKeepsItsKeys_data();
    void typingInASpinBoxKeepsItsKeys();
    void sweepStatusKeepsTheStallToTheLog_data();
    void sweepStatusKeepsTheStallToTheLog();
    void finderSentenceFollowsTheSettings_data();
    void finderSentenceFollowsTheSettings();
    void runMenuHoldsEveryLabAction();
    void tabLeavesEveryTable();
    void slidersReachTheEngine_data();
    void slidersReachTheEngine();
    void togglesReachTheEngine();
    void bugListReachesTheEngineAndTheCheck_data();
    void bugListReachesTheEngineAndTheCheck();
    void bufferRatio_data();
    void bufferRatio();
    void memoryViewMarksOutOfMemory();
    void memoryLabButtonsInBothLanguages_data();
    void memoryLabButtonsInBothLanguages();
    void memoryLabRunsOnThisMachine_data();
    void memoryLabRunsOnThisMachine();
    void oomDemoResultInWords_data();
    void oomDemoResultInWords();
    void stopCancelsAMemoryRun();
    void deviceInTheWindowsWords_data();
    void deviceInTheWindowsWords();
    void refusalInTheWindowsWords_data();
    void refusalInTheWindowsWords();
    void exportsWriteValidFiles();
    void labSweepFollowsTheCostModel();
    void failedExportLeavesNoFile();
    void presetRoundTrip();
    void classroomModeHidesControls();
    void experimentSetsTheControls();
    void lessonTargetsAreRegistered_data();
    void lessonTargetsAreRegistered();
    void zoomScalesTheWindow_data();
    void zoomScalesTheWindow();
    void fullScreenByKeyboard();
    void ghostBarOnAFixedAxis_data();
    void ghostBarOnAFixedAxis();
    void lossChartGainsAPointPerStep();
    void stepsFillTheMemoryTimeline();
    void ranksReachTheEquivalenceCheck();
    void ranksReachTeachingMode_data();
    void ranksReachTeachingMode();
    void experimentOffersTheLabBack();
    void classroomModeEnlargesWhatTheClassReads();
    void presetKeepsWhereTheLessonOpens();
    void sessionFromTheFileMenu_data();
    void sessionFromTheFileMenu();
    void savedSessionOpensWhereItClosed_data();
    void savedSessionOpensWhereItClosed();
    void everyControlHasAName_data();
    void everyControlHasAName();
    void float16NoteFitsThePanel_data();
    void float16NoteFitsThePanel();
    void cleanup();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("AccumLab"));
    QCoreApplication::setApplicationName(QStringLiteral("AccumLabMainWindowTest"));
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
    // The identity label states the product the engine uses (read as the class reads it: its
    // terms are held together by no-break spaces, so that it wraps between whole terms).
    const QString identity = w.findChild<QLabel *>(QStringLiteral("identityLabel"))->text().replace(QChar(0x00A0), QLatin1Char(' '));
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
    QVERIFY(w.currentPreset().run.bug == planted);
    QVERIFY(waitForEngine(w, [&](const AccumConfig &c) { return c.bug == planted && c.accumSteps == 4; }));
    w.lab()->applyConfigNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.lab()->lastEquivalence() && w.lab()->lastEquivalence()->config.run.bug == planted, kWaitMs);
    QCOMPARE(w.lab()->lastEquivalence()->holds, planted == AccumBug::None);
    QString error;
    const std::optional<Preset> back = presetFromJson(presetToJson(w.currentPreset()), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->run.bug == planted);
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
    w.lab()->applyConfigNow();
    MemoryView *m = w.memoryView();
    // The default budget holds the lesson's 32 samples: the effective batch of 512 in one pass does not fit.
    QVERIFY(m->microBatchFits());
    QVERIFY(!m->effectiveBatchFits());
    QVERIFY(m->effectiveBatchBytes() > m->microBatchBytes());
    m->setBudgetBytes(m->effectiveBatchBytes() * 2);
    QVERIFY(m->effectiveBatchFits());
}

// The three buttons are there and on, on a machine without a GPU too, in the window's language.
void TestMainWindow::memoryLabButtonsInBothLanguages_data()
{
    QTest::addColumn<bool>("persian");
    QTest::addColumn<QString>("demo");
    QTest::newRow("English") << false << QStringLiteral("Run the out-of-memory demo");
    QTest::newRow("Persian") << true << QStringLiteral("اجرای نمایش کمبود حافظه");
}

void TestMainWindow::memoryLabButtonsInBothLanguages()
{
    QFETCH(bool, persian);
    QFETCH(QString, demo);
    switchLanguage(persian ? QStringLiteral("fa") : QStringLiteral("en"));
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    for (const char *name : {"oomDemoButton", "tradeoffButton", "finderButton"}) {
        auto *button = m->findChild<QPushButton *>(QLatin1String(name));
        QVERIFY(button);
        QVERIFY(button->isEnabled());
        QVERIFY(!button->toolTip().isEmpty());
        if (persian)
            QVERIFY2(!button->text().contains(QRegularExpression(QStringLiteral("[A-Za-z]"))), qPrintable(button->text()));
    }
    QCOMPARE(m->findChild<QPushButton *>(QStringLiteral("oomDemoButton"))->text(), demo);
    QVERIFY(labelText(m, "memoryLabResult").isEmpty());
}

// The window's path end to end on this machine's CPU: each button goes through the
// controller to the worker and the view shows the measured answer. The planted row gives a
// budget the whole batch fits: the demo must then say that no out-of-memory error was raised.
void TestMainWindow::memoryLabRunsOnThisMachine_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("roomy");
    QTest::addColumn<QString>("says");
    QTest::newRow("demo") << int(MemoryLabKind::OomDemo) << false << QStringLiteral("LibTorch's words: CPU out of memory. Tried to allocate");
    QTest::newRow("planted: a roomy budget") << int(MemoryLabKind::OomDemo) << true << QStringLiteral("no out-of-memory error was raised");
    QTest::newRow("demo: the one verdict") << int(MemoryLabKind::OomDemo) << false
                                           << QStringLiteral("Verdict: the accumulated step is the full batch's");
    QTest::newRow("demo: the peak in its parts") << int(MemoryLabKind::OomDemo) << false
                                                 << QStringLiteral("one micro-batch's activations set it");
    QTest::newRow("tradeoff") << int(MemoryLabKind::Tradeoff) << false << QStringLiteral("6 of 10 micro-batches fit the budget");
    QTest::newRow("tradeoff: what sets the peak") << int(MemoryLabKind::Tradeoff) << false
                                                  << QStringLiteral("One micro-batch's activations set every peak");
    QTest::newRow("finder") << int(MemoryLabKind::Finder) << false << QStringLiteral("32 samples fit; effective 512 = 32 × 16 × 1");
}

void TestMainWindow::memoryLabRunsOnThisMachine()
{
    QFETCH(int, kind);
    QFETCH(bool, roomy);
    QFETCH(QString, says);
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    if (roomy)
        m->setBudgetBytes(qint64(64) << 20);
    QSignalSpy finished(w.controller(), &EngineController::memoryLabFinished);
    const char *button = kind == int(MemoryLabKind::OomDemo) ? "oomDemoButton" : kind == int(MemoryLabKind::Tradeoff) ? "tradeoffButton" : "finderButton";
    m->findChild<QPushButton *>(QLatin1String(button))->click();
    QVERIFY(!m->findChild<QPushButton *>(QLatin1String(button))->isEnabled()); // one run at a time
    QVERIFY(finished.wait(kWaitMs));
    const QString text = labelText(m, "memoryLabResult");
    QVERIFY2(text.contains(says), qPrintable(text));
    // Word for word the CLI's English sentences of this run, the device in the window's words.
    QCOMPARE(text, coreSentences(finished.first().first().value<MemoryLabUpdate>(), "en", "processor (CPU)"));
    QVERIFY(m->findChild<QPushButton *>(QLatin1String(button))->isEnabled());
    if (kind == int(MemoryLabKind::Tradeoff)) {
        QCOMPARE(m->tradeoffChart()->fittedPointCount(), 6);      // 1 to 32
        QCOMPARE(m->tradeoffChart()->outOfMemoryPointCount(), 4); // 64 to 512
        QCOMPARE(m->tradeoffChart()->stepSetPeakCount(), 0);      // SGD: the activations set them
    }
    if (!roomy) // the budget is the measured one now
        QVERIFY2(labelText(m, "memoryBudgetLabel").contains(QStringLiteral("measured")), qPrintable(labelText(m, "memoryBudgetLabel")));
}

// The rendering of an answer: a success names the budget, LibTorch's out-of-memory line, the
// accumulated batch's peak and the parameter difference; a failure gives the error. Both
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
    switchLanguage(persian ? QStringLiteral("fa") : QStringLiteral("en"));
    const QLocale loc = LanguageManager::instance()->numberLocale();
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    MemoryLabUpdate u = demoSuccess();
    const QString error = QStringLiteral("a budget of zero bytes holds nothing; give a positive number of bytes");
    if (!ok) {
        u.ok = false;
        u.error = EngineError::from(std::runtime_error(error.toStdString()));
        u.demo = OomDemoResult{};
    }
    m->showMemoryLabResult(u);
    const QString text = labelText(m, "memoryLabResult");
    QStringList expected;
    if (!ok)
        expected << (persian ? QStringLiteral("اجرای حافظه ناموفق بود: ") : QStringLiteral("The memory run failed: ")) << error;
    if (ok) {
        const QString budget = bytesIn(loc, u.demo.budgetBytes);
        const QString accumPeak = bytesIn(loc, u.demo.accumulation.peakBytes);
        const QString fullPeak = bytesIn(loc, u.demo.fullBatch.peakBytes);
        // LibTorch's own line, kept as it came (left to right inside Persian).
        expected << QString::fromStdString(u.demo.fullBatchError) << budget << accumPeak << fullPeak << loc.toString(qint64(512))
                 << loc.toString(qint64(32)) << loc.toString(qint64(16));
        if (persian)
            expected << QStringLiteral("بودجه‌ی %1 روی پردازنده (CPU)").arg(budget)
                     << QStringLiteral("زیر این بودجه حافظه‌ی LibTorch تمام شد.");
        else
            expected << QStringLiteral("Budget %1 on processor (CPU)").arg(budget)
                     << QStringLiteral("under the budget LibTorch ran out of memory.")
                     << QStringLiteral("By accumulation, 16 micro-batches of 32 samples fit, with a measured peak of %1").arg(accumPeak);
    }
    for (const QString &words : expected)
        QVERIFY2(text.contains(words), qPrintable(words + QStringLiteral("\n  not in: ") + text));
    // The answer is core's sentences in the window's language, the ones the CLI prints in English.
    if (ok)
        QCOMPARE(text, persian ? coreSentences(u, "fa", "پردازنده (CPU)\u200e") : coreSentences(u, "en", "processor (CPU)"));
    if (persian && ok)
        QVERIFY2(text.contains(QStringLiteral("کل دسته‌ی مؤثر ۵۱۲ نمونه‌ای در یک گذر به ۱٫۸ مگابایت نیاز دارد؛")),
                 qPrintable(text));
    if (persian) {
        // The sentences are Persian: LibTorch's English stays on its own details line, the
        // last, and elsewhere only names (LibTorch, CPU) are Latin; no «روی cpu».
        QStringList lines = text.split(QLatin1Char('\n'));
        QVERIFY2(lines.takeLast().contains(QString::fromStdString(u.demo.fullBatchError)), qPrintable(text));
        QString sentences = lines.join(QLatin1Char('\n'));
        sentences.remove(QRegularExpression(QStringLiteral("LibTorch|\\(CPU\\)")));
        QVERIFY2(!sentences.contains(QRegularExpression(QStringLiteral("[A-Za-z]{2,}"))), qPrintable(text));
    }
    // The answer follows the language when it changes afterwards.
    switchLanguage(persian ? QStringLiteral("en") : QStringLiteral("fa"));
    QVERIFY(labelText(m, "memoryLabResult") != text);
}

void TestMainWindow::deviceInTheWindowsWords_data()
{
    QTest::addColumn<bool>("persian");
    QTest::addColumn<QString>("expected");
    QTest::newRow("English") << false << QStringLiteral("Runs on: processor (CPU)");
    QTest::newRow("Persian") << true << QStringLiteral("اجرا روی: پردازنده (CPU)\u200e");
}

// The status bar names the engine's device in the window's words, and follows a language
// change made after the engine started (LibTorch's "cpu" is never shown as it is).
void TestMainWindow::deviceInTheWindowsWords()
{
    QFETCH(bool, persian);
    QFETCH(QString, expected);
    switchLanguage(persian ? QStringLiteral("en") : QStringLiteral("fa"));
    MainWindow w(false);
    QSignalSpy configured(w.controller(), &EngineController::engineConfigured);
    w.findChild<QAction *>(QStringLiteral("stepAction"))->trigger();
    QVERIFY(configured.wait(kWaitMs));
    QCoreApplication::processEvents();
    switchLanguage(persian ? QStringLiteral("fa") : QStringLiteral("en"));
    QCOMPARE(labelText(&w, "deviceStatus"), expected);
}

void TestMainWindow::refusalInTheWindowsWords_data()
{
    QTest::addColumn<bool>("persian");
    QTest::addColumn<QString>("grid");
    QTest::addColumn<QString>("expected");
    QTest::newRow("English, trailing comma") << false << "1,2," << "accumulation grid '1,2,' ends with a comma";
    QTest::newRow("Persian, trailing comma") << true << "1,2," << "با ویرگول تمام می‌شود";
    QTest::newRow("English, empty entry") << false << "1,,2" << "has an empty entry";
    QTest::newRow("Persian, empty entry") << true << "1,,2" << "خالی";
}

// Core refuses a setting with a code; the window words it in its own language, and a Persian
// refusal holds no English word (the typed grid itself stays, left to right).
void TestMainWindow::refusalInTheWindowsWords()
{
    QFETCH(bool, persian);
    QFETCH(QString, grid);
    QFETCH(QString, expected);
    switchLanguage(persian ? QStringLiteral("fa") : QStringLiteral("en"));
    MainWindow w(false);
    w.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(grid);
    QString error;
    QVERIFY(!w.sweep()->run(&error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    if (persian)
        QVERIFY2(strayLatinWords(error.toStdString()).empty(), qPrintable(error));
}

// The key tests' one bench: a shown, active window whose Play and Step are live, the control a
// row names, and what Right and Space did where the keys go now. Each row below only says how
// the teacher used the control and what the keys must do afterwards.
class KeyBench {
public:
    KeyBench()
    {
        w.show();
        QApplication::setActiveWindow(&w);
        play = w.findChild<QAction *>(QStringLiteral("playAction"));
        step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    }
    ~KeyBench() { w.stopAll(); }

    // The window active and the action live (or a row that expects a key not to fire it could
    // not fail). Fails the test and returns false if not.
    bool ready(QAction *action = nullptr)
    {
        if (!QTest::qWaitForWindowActive(&w))
            return false;
        for (QAction *a : {play, step, action})
            if (a && !QTest::qWaitFor([a] { return a->isEnabled(); }, kWaitMs))
                return false;
        return true;
    }
    QWidget *control(const QString &name) const { return w.findChild<QWidget *>(name); }
    QAction *action(const QString &name) const { return w.findChild<QAction *>(name); }
    // Where a key pressed now goes: the focused widget, else the window.
    QWidget *keys() { return QApplication::focusWidget() ? QApplication::focusWidget() : static_cast<QWidget *>(&w); }
    // Presses `key` at `at` (where the keys go now, if null) and counts how often `fired` triggered.
    int press(Qt::Key key, QAction *fired, QWidget *at = nullptr)
    {
        QSignalSpy spy(fired, &QAction::triggered);
        QTest::keyClick(at ? at : keys(), key);
        return static_cast<int>(spy.size());
    }

    MainWindow w{false};
    QAction *play = nullptr;
    QAction *step = nullptr;
};

// Space and Right are Play and Step for the window, but a focused control that uses the key
// keeps it: Right moves a focused slider one step (and runs no micro-batch), Space toggles a
// focused check box (and does not start Play). With the focus on a control that has no use
// for them (the buffer view; a slider for Space) they are the window's again. Planted: without the override
// filter the slider case steps a micro-batch and fails.
void TestMainWindow::keysStayWithTheFocusedControl_data()
{
    QTest::addColumn<QString>("focus");
    QTest::addColumn<int>("key");
    QTest::addColumn<QString>("action");
    QTest::addColumn<bool>("shortcutFires");
    QTest::newRow("Right on a slider") << "accumStepsSlider" << int(Qt::Key_Right) << "stepAction" << false;
    QTest::newRow("Space on a check box") << "noDivisionCheck" << int(Qt::Key_Space) << "playAction" << false;
    QTest::newRow("Right on the buffers") << "gradientBufferView" << int(Qt::Key_Right) << "stepAction" << true;
    QTest::newRow("Space on a slider") << "accumStepsSlider" << int(Qt::Key_Space) << "playAction" << true;
}

void TestMainWindow::keysStayWithTheFocusedControl()
{
    QFETCH(QString, focus);
    QFETCH(int, key);
    QFETCH(QString, action);
    QFETCH(bool, shortcutFires);
    KeyBench bench;
    QAction *shortcut = bench.action(action);
    QVERIFY(shortcut);
    QVERIFY(bench.ready(shortcut));
    QWidget *target = bench.control(focus);
    QVERIFY2(target, qPrintable(focus));
    target->setFocusPolicy(target->focusPolicy() == Qt::NoFocus ? Qt::StrongFocus : target->focusPolicy());
    target->setFocus();
    QTRY_COMPARE(QApplication::focusWidget(), target);
    auto *slider = qobject_cast<QSlider *>(target);
    auto *check = qobject_cast<QCheckBox *>(target);
    const int sliderBefore = slider ? slider->value() : 0;
    const bool checkedBefore = check && check->isChecked();
    QCOMPARE(bench.press(static_cast<Qt::Key>(key), shortcut, target), shortcutFires ? 1 : 0);
    if (slider)
        QCOMPARE(slider->value(), key == Qt::Key_Right ? sliderBefore * 2 : sliderBefore); // accum_steps doubles
    if (check)
        QCOMPARE(check->isChecked(), !checkedBefore);
}

// N1 of issue 62: a teacher picks an optimizer or a dtype from its list with the mouse, clicks a
// slider's groove, a check box or a spin box's arrow, then presses Right to step and Space to
// play: every control kind in the controls dock, the keys are the lab's afterwards (the combo
// box kept them, and Space opened its list again). A clicked check box or button toggles
// without taking the focus (Tab still reaches it, and Space then toggles it: the rows above),
// and Space does not toggle it back. `before`: what had the focus first, so that a control the
// teacher Tabbed to earlier does not keep the keys after a click elsewhere.
void TestMainWindow::mouseChoiceLeavesTheKeysToTheLab_data()
{
    QTest::addColumn<QString>("control");
    QTest::addColumn<QString>("before"); // "" or a control given the focus by Tab first
    QTest::newRow("optimizer picked from its list") << "optimizerCombo" << "";
    QTest::newRow("dtype picked from its list") << "dtypeCombo" << "";
    QTest::newRow("planted bug picked from its list") << "bugCombo" << "";
    QTest::newRow("model picked from its list") << "modelCombo" << "";
    QTest::newRow("accum_steps slider clicked") << "accumStepsSlider" << "";
    QTest::newRow("learning-rate slider clicked") << "lrSlider" << "";
    QTest::newRow("pace slider clicked") << "paceSlider" << "";
    QTest::newRow("no-division check box clicked") << "noDivisionCheck" << "";
    QTest::newRow("loss-scaling check box clicked") << "lossScalingCheck" << "";
    QTest::newRow("seed spin box's arrow clicked") << "seedSpin" << "";
    QTest::newRow("sweep steps spin box's arrow clicked") << "numStepsSpin" << "";
    QTest::newRow("check box clicked after Tab to a slider") << "noDivisionCheck" << "lrSlider";
    QTest::newRow("combo box picked after typing in the seed") << "optimizerCombo" << "seedSpin";
}

void TestMainWindow::mouseChoiceLeavesTheKeysToTheLab()
{
    QFETCH(QString, control);
    QFETCH(QString, before);
    KeyBench bench;
    QVERIFY(QTest::qWaitForWindowActive(&bench.w));
    QWidget *target = bench.control(control);
    QVERIFY2(target, qPrintable(control));
    if (QWidget *first = before.isEmpty() ? nullptr : bench.control(before)) {
        first->setFocus(Qt::TabFocusReason);
        QTRY_COMPARE(QApplication::focusWidget(), first);
        if (qobject_cast<QSpinBox *>(first))
            QTest::keyClick(first, Qt::Key_7); // typed in: the spin box owned the keys
    }
    QVERIFY(QTest::qWaitForWindowExposed(target));
    auto *check = qobject_cast<QCheckBox *>(target);
    const bool checkedBefore = check && check->isChecked();
    if (auto *combo = qobject_cast<QComboBox *>(target)) {
        const int chosen = combo->currentIndex() == 0 ? 1 : 0;
        QTest::mouseClick(combo, Qt::LeftButton);
        QAbstractItemView *list = combo->view();
        QTRY_VERIFY(list->isVisible());
        const QPoint item = list->visualRect(combo->model()->index(chosen, 0)).center();
        // The pointer goes over the item (the list follows it), and a release within the
        // double-click time of the opening click is that click's own: the teacher's pace.
        QTest::mouseMove(list->viewport(), item);
        QTest::qWait(QApplication::doubleClickInterval() + 50);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, item);
        QVERIFY2(QTest::qWaitFor([list] { return !list->isVisible(); }),
                 qPrintable(QStringLiteral("the list stayed open; current row %1").arg(list->currentIndex().row())));
        QCOMPARE(combo->currentIndex(), chosen);
    } else if (auto *spin = qobject_cast<QAbstractSpinBox *>(target)) {
        const int value = static_cast<QSpinBox *>(spin)->value();
        QStyleOptionSpinBox option;
        option.initFrom(spin);
        option.subControls = QStyle::SC_SpinBoxUp;
        option.buttonSymbols = spin->buttonSymbols();
        option.frame = spin->hasFrame();
        const QRect up = spin->style()->subControlRect(QStyle::CC_SpinBox, &option, QStyle::SC_SpinBoxUp, spin);
        QTest::mouseClick(spin, Qt::LeftButton, Qt::NoModifier, up.center());
        QCOMPARE(static_cast<QSpinBox *>(spin)->value(), value + 1);
    } else if (check) {
        QCOMPARE(check->focusPolicy(), Qt::TabFocus);
        QTest::mouseClick(check, Qt::LeftButton, Qt::NoModifier, QPoint(8, check->height() / 2));
        QCOMPARE(check->isChecked(), !checkedBefore);
        QVERIFY(!check->hasFocus());
    } else {
        auto *slider = qobject_cast<QAbstractSlider *>(target);
        QVERIFY(slider);
        const int was = slider->value();
        const bool upper = slider->value() < slider->maximum();
        const bool rtl = slider->layoutDirection() == Qt::RightToLeft;
        // On the groove toward the end the value can still go to: a page step.
        const int x = upper != rtl ? slider->width() - 4 : 4;
        QTest::mouseClick(slider, Qt::LeftButton, Qt::NoModifier, QPoint(x, slider->height() / 2));
        QVERIFY(slider->value() != was);
    }
    QVERIFY(bench.ready());
    QVERIFY2(bench.press(Qt::Key_Right, bench.step) == 1,
             qPrintable(QStringLiteral("Right went to %1").arg(bench.keys()->objectName())));
    QVERIFY2(bench.press(Qt::Key_Space, bench.play) == 1,
             qPrintable(QStringLiteral("Space went to %1").arg(bench.keys()->objectName())));
    if (auto *combo = qobject_cast<QComboBox *>(target))
        QVERIFY(!combo->view()->isVisible()); // Space did not open the list again
    if (check)
        QCOMPARE(check->isChecked(), !checkedBefore); // nor toggled the box back
}

// ...while a teacher types in a spin box or the sweep's grid, the digits, Space and Right are
// the field's: the value changes and no micro-batch runs. Clicked into its text (not on an
// arrow), a spin box is a place to type from the first key.
void TestMainWindow::typingInASpinBoxKeepsItsKeys_data()
{
    QTest::addColumn<QString>("control");
    QTest::addColumn<bool>("byMouse"); // clicked into its text; else Tabbed to
    QTest::newRow("seed, clicked into") << "seedSpin" << true;
    QTest::newRow("seed, Tabbed to") << "seedSpin" << false;
    QTest::newRow("sweep steps, clicked into") << "numStepsSpin" << true;
    QTest::newRow("sweep grid, clicked into") << "accumGridEdit" << true;
}

void TestMainWindow::typingInASpinBoxKeepsItsKeys()
{
    QFETCH(QString, control);
    QFETCH(bool, byMouse);
    KeyBench bench;
    QVERIFY(QTest::qWaitForWindowActive(&bench.w));
    QWidget *target = bench.control(control);
    QVERIFY2(target, qPrintable(control));
    auto *spin = qobject_cast<QSpinBox *>(target);
    auto *edit = spin ? spin->findChild<QLineEdit *>() : qobject_cast<QLineEdit *>(target);
    QVERIFY(edit);
    if (byMouse)
        QTest::mouseClick(edit, Qt::LeftButton, Qt::NoModifier, QPoint(edit->width() / 2, edit->height() / 2));
    else
        target->setFocus(Qt::TabFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), target);
    QVERIFY(bench.ready());
    QSignalSpy stepped(bench.step, &QAction::triggered);
    QSignalSpy played(bench.play, &QAction::triggered);
    edit->selectAll();
    QTest::keyClicks(target, QStringLiteral("12"));
    QTest::keyClick(target, Qt::Key_Home);
    QTest::keyClick(target, Qt::Key_Right);
    QTest::keyClick(target, Qt::Key_3);
    if (spin)
        QCOMPARE(spin->value(), 132);
    else
        QCOMPARE(edit->text(), QStringLiteral("132"));
    QTest::keyClick(target, Qt::Key_Space);
    QCOMPARE(stepped.size(), 0);
    QCOMPARE(played.size(), 0);
    QCOMPARE(QApplication::focusWidget(), target);
}

// N14 of issue 62: a finished sweep tells the class its best measured samples/sec (not a
// "plateau": the best point is often the last, still rising; issue 62's partly fixed list), and
// the GUI's worst stall, a developer's figure («بیشترین توقف رابط کاربری ۶۵٫۸ میلی‌ثانیه»), goes
// to the log only.
void TestMainWindow::sweepStatusKeepsTheStallToTheLog_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("best");
    QTest::addColumn<QString>("stall"); // what the developer's figure read like
    QTest::newRow("English") << "en" << "best measured" << "stall";
    QTest::newRow("Persian") << "fa" << "بیشترین اندازه‌گیری‌شده" << "رابط کاربری";
}

void TestMainWindow::sweepStatusKeepsTheStallToTheLog()
{
    QFETCH(QString, language);
    QFETCH(QString, best);
    QFETCH(QString, stall);
    switchLanguage(language);
    const auto english = qScopeGuard([] { switchLanguage(QStringLiteral("en")); });
    MainWindow w(false);
    Preset p = w.currentPreset();
    p.accumGrid = QStringLiteral("1,2");
    p.numSteps = 2;
    w.applyPreset(p);
    QSignalSpy swept(w.sweep(), &SweepRunner::finished);
    QString error;
    QVERIFY2(w.sweep()->run(&error), qPrintable(error));
    QVERIFY(swept.wait(kWaitMs));
    QVERIFY(swept.first().first().toBool());
    const QString message = w.statusBar()->currentMessage();
    QVERIFY2(message.contains(best), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("plateau")) && !message.contains(QStringLiteral("فلات")), qPrintable(message));
    QVERIFY2(!message.contains(stall, Qt::CaseInsensitive), qPrintable(message));
}

// N18 of issue 62: the finder said "32 samples fit … (budget 486 KiB)"; the teacher picks
// another dtype (or moves the budget) and the budget beside it moves, so the sentence may not
// keep the old budget: it says that its figures were for the old settings. A language switch
// alone changes no setting: the sentence stays.
void TestMainWindow::finderSentenceFollowsTheSettings_data()
{
    QTest::addColumn<QString>("change"); // dtype, budget, language
    QTest::addColumn<bool>("stays");
    QTest::newRow("dtype") << "dtype" << false;
    QTest::newRow("budget slider") << "budget" << false;
    QTest::newRow("language only") << "language" << true;
}

void TestMainWindow::finderSentenceFollowsTheSettings()
{
    QFETCH(QString, change);
    QFETCH(bool, stays);
    const auto english = qScopeGuard([] { switchLanguage(QStringLiteral("en")); });
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    MemoryLabUpdate u;
    u.serial = 1;
    u.ok = true;
    u.request = m->request(MemoryLabKind::Finder);
    u.finding.budgetBytes = 497500;
    u.finding.microBatch = 32;
    u.finding.accumSteps = 16;
    u.finding.effectiveBatch = 512;
    u.finding.tried = {{32, true}, {64, false}};
    m->showMemoryLabResult(u);
    const QString budget = LanguageManager::formatBytes(497500);
    QVERIFY2(labelText(m, "memoryLabResult").contains(budget), qPrintable(labelText(m, "memoryLabResult")));
    if (change == QLatin1String("dtype")) {
        auto *dtype = w.findChild<QComboBox *>(QStringLiteral("dtypeCombo"));
        dtype->setCurrentIndex(dtype->currentIndex() == 0 ? 1 : 0);
    } else if (change == QLatin1String("budget")) {
        m->setBudgetBytes(qint64(64) << 20);
    } else {
        switchLanguage(QStringLiteral("fa"));
        switchLanguage(QStringLiteral("en"));
    }
    QCoreApplication::processEvents();
    const QString text = labelText(m, "memoryLabResult");
    QVERIFY2(text.contains(budget) == stays, qPrintable(text));
    if (!stays)
        QVERIFY2(text.contains(QStringLiteral("run it again")), qPrintable(text));
}

// N17 of issue 62: the float16 note under the counters (the path that ran and the scaler's
// counters) was cut at the panel's edge at 1024. In both languages, with and without classroom
// mode, the note lies within its panel and is given the height its wrapped lines need.
void TestMainWindow::float16NoteFitsThePanel_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<bool>("classroom");
    for (const char *language : {"en", "fa"})
        for (const bool classroom : {false, true})
            QTest::addRow("%s%s", language, classroom ? ", classroom mode" : "") << QString::fromLatin1(language) << classroom;
}

void TestMainWindow::float16NoteFitsThePanel()
{
    QFETCH(QString, language);
    QFETCH(bool, classroom);
    switchLanguage(language);
    const auto english = qScopeGuard([] { switchLanguage(QStringLiteral("en")); });
    MainWindow w(false);
    w.resize(1024, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    Preset p = w.currentPreset();
    p.run.dtype = DType::Float16;
    p.run.lossScaler.enabled = true;
    p.classroomMode = classroom;
    w.applyPreset(p);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.dtype == DType::Float16 && c.lossScaler.enabled; }));
    QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    QTRY_VERIFY_WITH_TIMEOUT(step->isEnabled(), kWaitMs);
    step->trigger();
    QLabel *note = w.accumulationPanel()->float16Counters();
    QTRY_VERIFY_WITH_TIMEOUT(note->isVisible() && !note->text().isEmpty(), kWaitMs);
    QCoreApplication::processEvents();
    const QWidget *panel = w.accumulationPanel();
    const QRect inPanel(note->mapTo(panel, QPoint(0, 0)), note->size());
    const QString where = QStringLiteral("note %1 in a panel %2 wide, %3 tall; it needs %4 px at its width: %5")
                              .arg(QDebug::toString(inPanel))
                              .arg(panel->width())
                              .arg(panel->height())
                              .arg(note->heightForWidth(note->width()))
                              .arg(note->text());
    QVERIFY2(note->minimumSizeHint().width() <= panel->contentsRect().width(), qPrintable(where));
    QVERIFY2(panel->contentsRect().contains(inPanel), qPrintable(where));
    QVERIFY2(note->height() >= note->heightForWidth(note->width()), qPrintable(where));
}

// Every lab action is in the Run menu with its key, and no two actions enabled together share
// a key (Space is Play or Pause, never both at once).
void TestMainWindow::runMenuHoldsEveryLabAction()
{
    MainWindow w(false);
    auto *menu = w.findChild<QMenu *>(QStringLiteral("runMenu"));
    QVERIFY(menu);
    QStringList names;
    for (QAction *a : menu->actions())
        if (!a->isSeparator()) {
            names << a->objectName();
            QVERIFY2(!a->shortcut().isEmpty(), qPrintable(a->objectName()));
            QVERIFY2(!a->text().isEmpty(), qPrintable(a->objectName()));
        }
    QCOMPARE(names, (QStringList{"playAction", "pauseAction", "stepAction", "resetAction", "sweepAction", "stopAction"}));
    QMap<QString, QString> owner;
    for (QAction *a : w.findChildren<QAction *>()) {
        if (!a->isEnabled())
            continue;
        for (const QKeySequence &k : a->shortcuts()) {
            QVERIFY2(!owner.contains(k.toString()),
                     qPrintable(k.toString() + ": " + owner.value(k.toString()) + " and " + a->objectName()));
            owner.insert(k.toString(), a->objectName());
        }
    }
}

// Tab moves on from every table and list of the window instead of cycling through its cells.
void TestMainWindow::tabLeavesEveryTable()
{
    MainWindow w(false);
    const auto views = w.findChildren<QAbstractItemView *>();
    QVERIFY(!views.isEmpty());
    for (const QAbstractItemView *v : views)
        if (!v->inherits("QHeaderView") && !v->inherits("QComboBoxListView"))
            QVERIFY2(!v->tabKeyNavigation(), qPrintable(v->objectName() + QLatin1Char(' ') + v->metaObject()->className()));
}

// A memory run can be long (the wide model's trade-off sweep): Stop is on while one runs and
// cancels it; the view says so, and its buttons and Stop come back as they were.
void TestMainWindow::stopCancelsAMemoryRun()
{
    MainWindow w(false);
    MemoryView *m = w.memoryView();
    QAction *stop = w.findChild<QAction *>(QStringLiteral("stopAction"));
    QVERIFY(stop && !stop->isEnabled());
    QSignalSpy finished(w.controller(), &EngineController::memoryLabFinished);
    auto *button = m->findChild<QPushButton *>(QStringLiteral("tradeoffButton"));
    button->click();
    QVERIFY(stop->isEnabled());
    stop->trigger();
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY(finished.first().first().value<MemoryLabUpdate>().cancelled);
    QCOMPARE(labelText(m, "memoryLabResult"), QStringLiteral("The memory run was cancelled."));
    QVERIFY(button->isEnabled());
    QVERIFY(!stop->isEnabled());
}

void TestMainWindow::sessionFromTheFileMenu_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("saidSaved");
    QTest::addColumn<QString>("saidNone");
    QTest::newRow("English") << "en" << "Saved the session" << "no checkpoint in";
    QTest::newRow("Persian") << "fa" << "جلسه" << "هیچ نقطه‌ی ذخیره‌ای نیست";
}

// File > Save session… saves the lab's run six micro-batches in (inside its second window);
// after the controls changed the run, File > Resume session… puts the controls back to the
// saved run and the bars where they stood; a folder without a checkpoint is refused in the
// window's words and changes nothing.
void TestMainWindow::sessionFromTheFileMenu()
{
    QFETCH(QString, language);
    QFETCH(QString, saidSaved);
    QFETCH(QString, saidNone);
    switchLanguage(language);
    MainWindow w(false);
    w.status()->setErrorsToTerminal(true);
    for (const char *name : {"saveSessionAction", "resumeSessionAction"}) {
        auto *action = w.findChild<QAction *>(QLatin1String(name));
        QVERIFY2(action && !action->text().isEmpty() && action->isEnabled(), name);
        QVERIFY2(action->associatedObjects().size() > 0, name); // on the File menu
    }
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == 4; }));
    for (int i = 0; i < 6; ++i)
        w.controller()->stepMicroBatch();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QSignalSpy finished(w.files(), &SessionFiles::sessionFinished);
    w.files()->saveSession(dir.path());
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(finished.takeFirst().first().toBool(), true);
    QVERIFY2(w.statusBar()->currentMessage().contains(saidSaved), qPrintable(w.statusBar()->currentMessage()));

    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(2);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == 2; }));
    QString error;
    QVERIFY2(w.files()->resumeSession(dir.path(), &error), qPrintable(error));
    QVERIFY(finished.wait(kWaitMs));
    QCOMPARE(finished.takeFirst().first().toBool(), true);
    QCOMPARE(w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->value(), 4);
    QCOMPARE(w.controlPanel()->preset().run.accumSteps, 4);
    QCOMPARE(w.controller()->engineInfo()->config.accumSteps, 4);
    // No rebuild follows: no edit waits for the debounce, and every answer the engine owes
    // has arrived. The resumed run is the one that steps on.
    QVERIFY(!w.lab()->editsPending());
    QVERIFY(accumlab::ui::test::flushEngine(*w.controller()));
    QCOMPARE(w.controller()->config().accumSteps, 4);
    QCOMPARE(w.controller()->engineInfo()->config.accumSteps, 4);
    const QString counter = w.findChild<QLabel *>(QStringLiteral("microBatchesValue"))->text();
    QTRY_COMPARE_WITH_TIMEOUT(w.findChild<QLabel *>(QStringLiteral("microBatchesValue"))->text(),
                              w.locale().toString(6), 5'000);
    Q_UNUSED(counter);
    const QString progress = w.findChild<QLabel *>(QStringLiteral("progressLabel"))->text();
    QVERIFY2(progress.contains(w.locale().toString(2)) && progress.contains(w.locale().toString(4)), qPrintable(progress));

    QTemporaryDir empty;
    QVERIFY(!w.files()->resumeSession(empty.path(), &error));
    QVERIFY2(error.contains(saidNone), qPrintable(error));
    QCOMPARE(w.controller()->config().accumSteps, 4);
}

void TestMainWindow::cleanup()
{

    if (LanguageManager::instance()->language() != QStringLiteral("en"))
        switchLanguage(QStringLiteral("en"));
}

// The lab's sweep of the lesson model, on this machine: every point measures the model's two
// costs, and the throughput chart draws the cost model through them. The judgement the
// sweep-flattening experiment uses is printed, not asserted: at the lab's default work per
// point (40 steps in 5 blocks here; a block at N = 1 is a few milliseconds) it was "does not
// hold" in 1 of 3 runs on a busy 2-core machine, where the experiment's equal work in 20
// blocks concludes. Giving the lab's sweep that work is what remains of the live sweep.
// The lab's Run sweep with the window's defaults, on this machine: every point does the same
// work in ten interleaved blocks, the points are drawn from their first block on (all five
// before any is complete), the cost model's curve goes through the measured costs, and the
// shape, judged as the sweep-flattening experiment judges it, is never confidently wrong
// ("inconclusive" is allowed: a loaded machine widens the spreads). Under a sanitizer, a smaller
// sweep whose shape is printed, not judged.
void TestMainWindow::labSweepFollowsTheCostModel()
{
    MainWindow w(false);
    Preset p = w.currentPreset();
    QCOMPARE(p.accumGrid, QStringLiteral("1,2,4,8,16"));
    QCOMPARE(p.numSteps, Preset{}.numSteps);
    if (kSanitized) {
        p.numSteps = 20;
        w.applyPreset(p);
    }
    QSignalSpy finished(w.sweep(), &SweepRunner::finished);
    QSignalSpy progress(w.controller(), &EngineController::sweepPointProgress);
    int drawnAtFirstCompletion = -1;
    connect(w.controller(), &EngineController::sweepPointDone, &w, [&] {
        if (drawnAtFirstCompletion < 0)
            drawnAtFirstCompletion = w.throughputChart()->currentPointCount();
    });
    QString error;
    QVERIFY2(w.sweep()->run(&error), qPrintable(error));
    QVERIFY(finished.wait(4 * kWaitMs)); // about 6 s on an idle 2-core machine
    QVERIFY(w.sweep()->lastSweep().has_value());
    const SweepResult &sweep = *w.sweep()->lastSweep();
    QCOMPARE(sweep.points.size(), size_t(5));
    QVERIFY(sweep.config.equalWork);
    QCOMPARE(sweep.config.blocks(), kLabSweepBlocks);
    for (const SweepPoint &point : sweep.points) {
        QCOMPARE(point.blockMicroMs.size(), size_t(sweep.config.blocks()));
        QCOMPARE(point.microBatches, sweep.config.numSteps * 16);
    }
    QCOMPARE(progress.size(), qsizetype(5 * (kLabSweepBlocks - 1)));
    QCOMPARE(drawnAtFirstCompletion, 5);
    QCOMPARE(w.throughputChart()->currentPointCount(), 5);
    auto *curve = w.throughputChart()->chart()->findChild<QLineSeries *>(QStringLiteral("predictedSeries"));
    QVERIFY(curve && curve->count() > 0);
    const SweepCostModel model = costModelOf(sweep.points);
    for (int i = 0; i < curve->count(); ++i)
        QCOMPARE(curve->at(i).y(), model.predictedMedian(curve->at(i).x() / model.samplesPerMicroBatch));
    const ExperimentResult judged = experiments::judgeSweepFlattening(sweep);
    const std::string shape = judged.claim("follows-the-model").outcome();
    qInfo("t_micro %.4f ms, t_window %.4f ms, largest error %.1f%%: %s", judged.value("t_micro_ms"),
          judged.value("t_window_ms"), 100 * judged.value("max_model_error"), shape.c_str());
    if (!kSanitized)
        QVERIFY2(shape == "holds" || shape == "inconclusive", shape.c_str());
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
    QVERIFY(!w.files()->exportCurveJson(dir.filePath(QStringLiteral("none.json")), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.json"))));

    QSignalSpy finished(w.sweep(), &SweepRunner::finished);
    QVERIFY(w.sweep()->run(&error));
    // A sweep started from code (autorun, a lesson script) sets the actions as the button does.
    QVERIFY(w.findChild<QAction *>(QStringLiteral("stopAction"))->isEnabled());
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("sweepAction"))->isEnabled());
    QVERIFY(finished.wait(kWaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(w.lab()->lastEquivalence().has_value(), kWaitMs);

    const QString curvePath = dir.filePath(QStringLiteral("accum-curve.json"));
    QVERIFY2(w.files()->exportCurveJson(curvePath, &error), qPrintable(error));
    QFile curve(curvePath);
    QVERIFY(curve.open(QIODevice::ReadOnly));
    const CurveFile parsed = parseCurveJson(curve.readAll().toStdString());
    QCOMPARE(parsed.points.size(), size_t(2));
    QCOMPARE(parsed.points[0].effectiveBatch, 4 * 1);
    QCOMPARE(parsed.points[1].effectiveBatch, 4 * 2);
    QCOMPARE(parsed.points[1].steps, 3);
    QVERIFY(parsed.raw.contains("equivalence"));

    const QString skillPath = dir.filePath(QStringLiteral("skill.md"));
    QVERIFY2(w.files()->exportSkillMarkdown(skillPath, &error), qPrintable(error));
    QFile skill(skillPath);
    QVERIFY(skill.open(QIODevice::ReadOnly));
    const QByteArray markdown = skill.readAll();
    QVERIFY(markdown.contains("## Measured in this run"));
    // The sweep's numbers appear in the file as measured.
    QVERIFY(markdown.contains(QByteArray::number(static_cast<qlonglong>(w.sweep()->lastSweep()->points[1].effectiveBatch))));

    QStringList written;
    QVERIFY2(w.files()->exportChartPngs(dir.path(), &written, &error), qPrintable(error));
    QCOMPARE(written.size(), 4);
    for (const QString &png : written)
        QVERIFY(!QImage(png).isNull());
    // 1x is the chart's size on screen; the default is twice that, for slides, and 3x thrice.
    const QString throughputPng = dir.filePath(QStringLiteral("accumlab-throughput.png"));
    QVERIFY2(w.files()->exportChartPngs(dir.path(), nullptr, &error, 1), qPrintable(error));
    const QSize onScreen = QImage(throughputPng).size();
    QCOMPARE(onScreen, w.throughputChart()->size());
    QVERIFY2(w.files()->exportChartPngs(dir.path(), nullptr, &error), qPrintable(error));
    QCOMPARE(QImage(throughputPng).size(), onScreen * 2);
    QVERIFY2(w.files()->exportChartPngs(dir.path(), nullptr, &error, 3), qPrintable(error));
    QCOMPARE(QImage(throughputPng).size(), onScreen * 3);
}

void TestMainWindow::failedExportLeavesNoFile()
{
    QTemporaryDir dir;
    MainWindow w(false);
    const QString path = dir.filePath(QStringLiteral("missing-folder/preset.json"));
    QString error;
    QVERIFY(!w.files()->savePresetFile(path, &error));
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
        p.run.microBatch = 8;
        p.run.accumSteps = 16;
        p.run.optimizer.kind = OptimizerKind::AdamW;
        p.run.optimizer.lr = 0.001;
        p.run.scaling = Scaling::None;
        p.run.dtype = DType::Float64;
        p.run.preset = ModelPreset::Fixture;
        p.run.seed = 42;
        p.pace = 12;
        p.accumGrid = QStringLiteral("1,4,16");
        p.classroomMode = true;
        p.hiddenControls = {QStringLiteral("lr"), QStringLiteral("seed")};
        w.applyPreset(p);
        QVERIFY2(w.files()->savePresetFile(path, &error), qPrintable(error));
    }
    MainWindow w(false);
    QVERIFY2(w.files()->loadPresetFile(path, &error), qPrintable(error));
    const Preset q = w.currentPreset();
    QCOMPARE(q.run.microBatch, 8);
    QCOMPARE(q.run.accumSteps, 16);
    QVERIFY(q.run.optimizer.kind == OptimizerKind::AdamW);
    QCOMPARE(q.run.optimizer.lr, 0.001);
    QVERIFY(q.run.scaling == Scaling::None);
    QVERIFY(q.run.dtype == DType::Float64);
    QVERIFY(q.run.preset == ModelPreset::Fixture);
    QCOMPARE(q.run.seed, uint64_t(42));
    QCOMPARE(q.pace, 12);
    QCOMPARE(q.accumGrid, QStringLiteral("1,4,16"));
    QVERIFY(q.classroomMode);
    QCOMPARE(q.hiddenControls, QStringList({QStringLiteral("lr"), QStringLiteral("seed")}));
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == 16 && c.seed == 42; }));

    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"schema": "accumlab-preset.v1", "dtype": "float13"})");
    bad.close();
    QVERIFY(!w.files()->loadPresetFile(bad.fileName(), &error));
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
    // A box with every row hidden goes too; one row left keeps it.
    auto *sweepBox = w.findChild<QWidget *>(QStringLiteral("sweepBox"));
    QVERIFY(sweepBox);
    QVERIFY(sweepBox->isVisibleTo(&w));
    w.controlPanel()->setClassroomMode(true, {QStringLiteral("accumGrid")});
    QVERIFY(sweepBox->isVisibleTo(&w));
    w.controlPanel()->setClassroomMode(true, {QStringLiteral("accumGrid"), QStringLiteral("numSteps")});
    QVERIFY2(!sweepBox->isVisibleTo(&w), "an empty box is left in classroom mode");
    w.controlPanel()->setClassroomMode(false, p.hiddenControls);
    QVERIFY(lr->isVisibleTo(&w));
    QVERIFY(sweepBox->isVisibleTo(&w));
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
    QCOMPARE(c.effectiveBatch(), EquivalenceConfig().bigBatch());
    QVERIFY(waitForEngine(w, [](const AccumConfig &e) { return e.scaling == Scaling::None; }));

    emit w.quizWidget()->openExperiment(QStringLiteral("batchnorm"));
    QCOMPARE(w.currentPage(), MainWindow::ExperimentsPage);
    QCOMPARE(w.experimentPanel()->currentExperiment(), QStringLiteral("batchnorm"));
    w.findChild<QAction *>(QStringLiteral("quizPageAction"))->trigger();
    QCOMPARE(w.currentPage(), MainWindow::QuizPage);
    QVERIFY(w.showLessonTarget(QStringLiteral("view/memory")));
    QCOMPARE(w.currentPage(), MainWindow::LabPage);
}

// Every target the lesson's content links to (resources/content/lesson.json, read here, not
// through the panel) is registered with the lesson navigator, and revealing it outlines a
// widget of the window.
void TestMainWindow::lessonTargetsAreRegistered_data()
{
    QTest::addColumn<QString>("target");
    QSet<QString> seen;
    for (const auto &section : contentJson("lesson.json").at("sections"))
        for (const auto &link : section.value("links", nlohmann::json::array())) {
            const QString target = QString::fromStdString(link.at("target").get<std::string>());
            if (!seen.contains(target))
                QTest::newRow(qPrintable(target)) << target;
            seen.insert(target);
        }
    QVERIFY(seen.size() > 10);
}

void TestMainWindow::lessonTargetsAreRegistered()
{
    QFETCH(QString, target);
    MainWindow w(false);
    w.show();
    QVERIFY2(w.lessonNavigator()->contains(target), qPrintable(target + " is not registered"));
    QVERIFY(w.showLessonTarget(target));
    QVERIFY(w.isAncestorOf(w.lastLessonTarget()));
    QVERIFY(w.lastLessonTarget()->isVisible());
}

// Ctrl+= (and Ctrl++) zoom in, Ctrl+- out, each by one step of the application font and every
// font a widget or chart set for itself; Ctrl+0 puts them all back.
void TestMainWindow::zoomScalesTheWindow_data()
{
    QTest::addColumn<int>("key");
    QTest::addColumn<bool>("larger");
    QTest::newRow("Ctrl+=") << int(Qt::Key_Equal) << true;
    QTest::newRow("Ctrl++") << int(Qt::Key_Plus) << true;
    QTest::newRow("Ctrl+-") << int(Qt::Key_Minus) << false;
}

void TestMainWindow::zoomScalesTheWindow()
{
    QFETCH(int, key);
    QFETCH(bool, larger);
    MainWindow w(false);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    // From a focused slider: the zoom keys are no slider's.
    auto *slider = w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"));
    slider->setFocus();
    const int sliderBefore = slider->value();
    const double app = QApplication::font().pointSizeF();
    // The zoom is the application font's: a failed row must not leave it to the next.
    const auto restore = qScopeGuard([font = QApplication::font()] { QApplication::setFont(font); });
    QLabel *identity = w.controlPanel()->identityLabel();
    const double identitySize = identity->font().pointSizeF();
    QLabel *plain = w.findChild<QLabel *>(QStringLiteral("progressLabel"));
    const double plainSize = plain->font().pointSizeF();
    const double chartTitle = w.lossChart()->chart()->titleFont().pointSizeF();
    QTest::keyClick(slider, static_cast<Qt::Key>(key), Qt::ControlModifier);
    QCOMPARE(slider->value(), sliderBefore);
    const double ratio = QApplication::font().pointSizeF() / app;
    QVERIFY2(larger ? ratio > 1.05 : ratio < 0.95, qPrintable(QString::number(ratio)));
    QCOMPARE(w.zoom(), ratio);
    QVERIFY(qFuzzyCompare(identity->font().pointSizeF(), identitySize * ratio));
    QVERIFY2(qFuzzyCompare(plain->font().pointSizeF(), plainSize * ratio),
             qPrintable(QStringLiteral("%1 -> %2, ratio %3, set %4").arg(plainSize).arg(plain->font().pointSizeF()).arg(ratio).arg(plain->testAttribute(Qt::WA_SetFont))));
    QVERIFY(qFuzzyCompare(w.lossChart()->chart()->titleFont().pointSizeF(), chartTitle * ratio));
    QTest::keyClick(slider, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(w.zoom(), 1.0);
    QVERIFY(qFuzzyCompare(QApplication::font().pointSizeF(), app));
    QVERIFY(qFuzzyCompare(identity->font().pointSizeF(), identitySize));
    QVERIFY(qFuzzyCompare(plain->font().pointSizeF(), plainSize));
    QVERIFY(qFuzzyCompare(w.lossChart()->chart()->titleFont().pointSizeF(), chartTitle));
}

// F11 from the View menu's action toggles full screen, also with a control focused.
void TestMainWindow::fullScreenByKeyboard()
{
    MainWindow w(false);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto *check = w.findChild<QCheckBox *>(QStringLiteral("noDivisionCheck"));
    check->setFocus();
    QAction *full = w.findChild<QAction *>(QStringLiteral("fullScreenAction"));
    QVERIFY(full && w.findChildren<QMenu *>().size() > 0);
    QVERIFY(!w.isFullScreen());
    QTest::keyClick(check, Qt::Key_F11);
    QVERIFY(w.isFullScreen());
    QVERIFY(full->isChecked());
    QTest::keyClick(check, Qt::Key_F11);
    QVERIFY(!w.isFullScreen());
    QVERIFY(!full->isChecked());
}

// With the no-division bug the axis is fixed before the first bar and holds N, so the bug's
// bar ends N times as far as the faint 1x ghost beside it; the correct loop shows no ghost.
void TestMainWindow::ghostBarOnAFixedAxis_data()
{
    QTest::addColumn<int>("accum");
    QTest::addColumn<bool>("noDivision");
    QTest::newRow("divide, N=4") << 4 << false;
    QTest::newRow("no division, N=16") << 16 << true;
}

void TestMainWindow::ghostBarOnAFixedAxis()
{
    QFETCH(int, accum);
    QFETCH(bool, noDivision);
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(accum);
    w.findChild<QCheckBox *>(QStringLiteral("noDivisionCheck"))->setChecked(noDivision);
    QVERIFY(waitForEngine(w, [&](const AccumConfig &c) {
        return c.accumSteps == accum && (c.scaling == Scaling::None) == noDivision;
    }));
    GradientBufferView *view = w.bufferView();
    QTRY_COMPARE_WITH_TIMEOUT(view->showsGhost(), noDivision, kWaitMs);
    const double axis = view->axisMax();
    QVERIFY2(axis > (noDivision ? accum : 1.0), qPrintable(QString::number(axis)));
    QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    QLabel *counter = w.findChild<QLabel *>(QStringLiteral("microBatchesValue"));
    for (int i = 0; i < accum; ++i) {
        step->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(counter->text(), QLocale().toString(i + 1), kWaitMs);
        QCOMPARE(view->axisMax(), axis); // the scale never moves under the growing bar
    }
    QVERIFY(std::abs(view->measuredRatio() - (noDivision ? accum : 1.0)) < 1e-3);
    const QImage shot = view->grab().toImage();
    QVERIFY(!shot.isNull());
}

// Step draws the lab's own windows on the loss chart: one point per optimizer window, the
// loss the engine measured (an engine of the same settings, run here, says the same).
void TestMainWindow::lossChartGainsAPointPerStep()
{
    constexpr int kAccum = 2;
    constexpr int kWindows = 3;
    MainWindow w(false);
    w.show();
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(kAccum);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == kAccum; }));
    AccumConfig config = w.controller()->engineInfo()->config;
    LossChart *chart = w.lossChart();
    QCOMPARE(chart->pointCount(LossChart::kTeachingSeries), 0);
    QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    AccumEngine reference(config);
    for (int window = 1; window <= kWindows; ++window) {
        for (int i = 0; i < kAccum; ++i)
            step->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(chart->pointCount(LossChart::kTeachingSeries), qsizetype(window), kWaitMs);
        const double loss = reference.step().loss;
        const double shown = chart->teachingPoints().last().y();
        QVERIFY2(std::abs(shown - loss) <= 1e-6 * std::abs(loss),
                 qPrintable(QStringLiteral("chart %1, engine %2").arg(shown).arg(loss)));
    }
    // A reset starts the series again.
    w.lab()->applyConfigNow();
    QCOMPARE(chart->pointCount(LossChart::kTeachingSeries), 0);
}

// Step through windows of 4 micro-batches on the CPU: after each micro-batch the Memory tab's
// timeline shows the open window as the counting allocator measured it, its line reaching that
// micro-batch, its drawn peak the allocator's, each micro-batch's hill back down by its end,
// its forward and the step shaded; the window's sync and step close it at 4, and the next Step
// starts a new window.
void TestMainWindow::stepsFillTheMemoryTimeline()
{
    constexpr int kAccum = 4;
    MainWindow w(false);
    w.show();
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(kAccum);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.accumSteps == kAccum; }));
    MemoryTimelineChart *chart = w.memoryView()->timelineChart();
    // On the Memory tab with the lab's height, as a class would watch it.
    auto *tabs = w.findChild<QTabWidget *>();
    QVERIFY(tabs);
    tabs->setCurrentWidget(w.memoryView());
    w.resize(1366, 768);
    w.findChild<QAction *>(QStringLiteral("tabsFillLabAction"))->trigger();
    auto *line = chart->chart()->findChild<QLineSeries *>(QStringLiteral("accumulationTimeline"));
    QVERIFY(line);
    const auto lastX = [&] { return line->count() > 0 ? line->at(line->count() - 1).x() : -1.0; };
    QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
    for (int k = 1; k <= kAccum + 1; ++k) {
        step->trigger();
        const int shown = (k - 1) % kAccum + 1; // micro-batches of the open window
        QTRY_VERIFY2_WITH_TIMEOUT(chart->showsLiveWindow() && !chart->isHidden() && lastX() == shown,
                                  qPrintable(QStringLiteral("after step %1 the line ends at %2").arg(k).arg(lastX())),
                                  kWaitMs);
        const MemoryTimeline &window = chart->liveWindow();
        QCOMPARE(window.accumSteps, int64_t(kAccum));
        QCOMPARE(chart->drawnPeakBytes(1), qint64(window.peakBytes()));
        QVERIFY(window.peakBytes() > window.events.back().liveBytes); // the hill came back down
        int64_t lastMicro = -1;
        for (const MemoryEvent &e : window.events)
            lastMicro = std::max(lastMicro, e.micro);
        QCOMPARE(lastMicro, int64_t(shown - 1));
        const bool closed = std::any_of(window.events.begin(), window.events.end(),
                                        [](const MemoryEvent &e) { return e.phase == MemoryPhase::Step; });
        QCOMPARE(closed, shown == kAccum);
        // Shaded: a forward band per micro-batch so far, and the step's band once it ran.
        const auto bands = [&](const char *name) {
            auto *band = chart->chart()->findChild<QAreaSeries *>(QLatin1String(name));
            return band ? band->upperSeries()->count() / 4 : -1; // four corners a band
        };
        QCOMPARE(bands("forwardBand"), shown);
        QCOMPARE(bands("stepBand"), closed ? 1 : 0);
        // ACCUMLAB_SHOTS=<folder> keeps a picture of the Memory tab and its timeline after each step.
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_SHOTS"); !shots.isEmpty()) {
            w.memoryView()->grab().save(QDir(shots).filePath(QStringLiteral("memory-step-%1.png").arg(k)));
            chart->grab().save(QDir(shots).filePath(QStringLiteral("memory-timeline-step-%1.png").arg(k)));
        }
    }
}

// The Ranks slider reaches the equivalence check: its configuration carries the ranks and
// every rank's samples, and the check runs over that many ranks.
void TestMainWindow::ranksReachTheEquivalenceCheck()
{
    MainWindow w(false);
    auto *ranks = w.findChild<QSlider *>(QStringLiteral("worldSizeSlider"));
    QVERIFY(ranks);
    const AccumConfig c = w.controlPanel()->config();
    QCOMPARE(w.lab()->equivalenceConfig().run.worldSize, 1);
    ranks->setValue(2);
    const EquivalenceConfig e = w.lab()->equivalenceConfig();
    QCOMPARE(e.run.worldSize, 2);
    QCOMPARE(e.bigBatch(), c.microBatch * c.accumSteps * 2);
    QSignalSpy updated(w.lab(), &LabRun::equivalenceUpdated);
    w.lab()->requestEquivalenceNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.lab()->lastEquivalence() && w.lab()->lastEquivalence()->config.run.worldSize == 2, kWaitMs);
    QVERIFY2(w.lab()->lastEquivalence()->holds, qPrintable(w.equivalencePanel()->verdictText()));
    QCOMPARE(w.lab()->lastEquivalence()->config.bigBatch(), e.bigBatch());
    // The bug it exists to catch still shows across ranks.
    w.findChild<QCheckBox *>(QStringLiteral("noDivisionCheck"))->setChecked(true);
    w.lab()->requestEquivalenceNow();
    QTRY_VERIFY_WITH_TIMEOUT(w.lab()->lastEquivalence() && w.lab()->lastEquivalence()->config.run.scaling == Scaling::None, kWaitMs);
    QVERIFY(!w.lab()->lastEquivalence()->holds);
    QCOMPARE(w.lab()->lastEquivalence()->config.run.worldSize, 2);
}

void TestMainWindow::ranksReachTeachingMode_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << "en";
    QTest::newRow("Persian") << "fa";
}

// The Ranks slider reaches teaching mode: Step runs that many ranks, and the window says whose
// bars it shows; one window of 4 with no-sync is one sync, and the bars end on the marker.
void TestMainWindow::ranksReachTeachingMode()
{
    QFETCH(QString, language);
    switchLanguage(language);
    MainWindow w(false);
    w.findChild<QSlider *>(QStringLiteral("accumStepsSlider"))->setValue(4);
    w.findChild<QSlider *>(QStringLiteral("worldSizeSlider"))->setValue(3);
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.worldSize == 3 && c.accumSteps == 4; }));
    for (int i = 0; i < 4; ++i)
        w.controller()->stepMicroBatch();
    QTRY_COMPARE_WITH_TIMEOUT(labelText(&w, "microBatchesValue"), w.locale().toString(4), kWaitMs);
    QCOMPARE(labelText(&w, "syncCallsValue"), w.locale().toString(1));
    const QString progress = labelText(&w, "progressLabel");
    QVERIFY2(progress.contains(w.locale().toString(3)), qPrintable(progress));
    QVERIFY2(labelText(&w, "ratioLabel").contains(w.locale().toString(1.0, 'f', 2)), qPrintable(labelText(&w, "ratioLabel")));
}

// An experiment's settings land on the controls; the status bar offers the lab back as it was.
void TestMainWindow::experimentOffersTheLabBack()
{
    MainWindow w(false);
    w.show();
    Preset lab = w.currentPreset();
    lab.run.microBatch = 8;
    lab.run.seed = 11;
    w.applyPreset(lab);
    auto *restore = w.findChild<QPushButton *>(QStringLiteral("restoreLabButton"));
    QVERIFY(restore);
    QVERIFY(!restore->isVisibleTo(&w));
    QVERIFY(!w.canRestoreLab());
    w.showExperiment(QStringLiteral("no-division"));
    w.experimentPanel()->setQuickRun(true);
    w.experimentPanel()->runCurrent();
    QVERIFY(w.controlPanel()->config().scaling == Scaling::None);
    QVERIFY(w.canRestoreLab());
    QVERIFY(restore->isVisibleTo(&w));
    w.stopAll();
    restore->click();
    const AccumConfig back = w.controlPanel()->config();
    QVERIFY(back.scaling == Scaling::Divide);
    QCOMPARE(back.microBatch, 8);
    QCOMPARE(back.seed, uint64_t(11));
    QVERIFY(back.preset == lab.run.preset);
    QVERIFY(!restore->isVisibleTo(&w));
    QVERIFY(!w.canRestoreLab());
    QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.microBatch == 8 && c.seed == 11; }));
}

// Classroom mode enlarges the buffers' figures, the identity and the verdict, drops a box
// whose rows are all hidden, and gives the controls' freed width to the pages.
void TestMainWindow::classroomModeEnlargesWhatTheClassReads()
{
    MainWindow w(false);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QLabel *identity = w.controlPanel()->identityLabel();
    QLabel *verdict = w.findChild<QLabel *>(QStringLiteral("equivalenceVerdict"));
    QLabel *ratio = w.findChild<QLabel *>(QStringLiteral("ratioLabel"));
    const double sizes[] = {identity->font().pointSizeF(), verdict->font().pointSizeF(), ratio->font().pointSizeF(),
                            w.bufferView()->font().pointSizeF()};
    // The window laid out first (its panes are shared by posted events, some posting more):
    // the widths compared are the settled ones.
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
    const int pagesWidth = w.pages()->width();
    const int barsHeight = w.bufferView()->height();
    Preset p = w.currentPreset();
    p.classroomMode = true;
    p.hiddenControls = {QStringLiteral("accumGrid"), QStringLiteral("numSteps"), QStringLiteral("seed"),
                        QStringLiteral("model"), QStringLiteral("dtype"), QStringLiteral("device")};
    w.applyPreset(p);
    QCoreApplication::processEvents();
    const double now[] = {identity->font().pointSizeF(), verdict->font().pointSizeF(), ratio->font().pointSizeF(),
                          w.bufferView()->font().pointSizeF()};
    for (int i = 0; i < 4; ++i)
        QVERIFY2(now[i] >= sizes[i] * 1.4, qPrintable(QStringLiteral("%1: %2 -> %3").arg(i).arg(sizes[i]).arg(now[i])));
    QVERIFY(w.pages()->width() >= pagesWidth);
    // The bars get more of the height, not less, though their figures grew.
    QTRY_VERIFY2(w.bufferView()->height() > barsHeight,
                 qPrintable(QStringLiteral("%1 -> %2").arg(barsHeight).arg(w.bufferView()->height())));
    // Off again: the sizes come back.
    w.findChild<QAction *>(QStringLiteral("classroomAction"))->trigger();
    QVERIFY(qFuzzyCompare(identity->font().pointSizeF(), sizes[0]));
    QVERIFY(qFuzzyCompare(verdict->font().pointSizeF(), sizes[1]));
}

// A preset also keeps where the lesson opens: language, memory budget, page and experiment.
void TestMainWindow::presetKeepsWhereTheLessonOpens()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lesson.json"));
    QString error;
    qint64 budget = 0;
    {
        MainWindow w(false);
        w.memoryView()->setBudgetBytes(qint64(3) << 20);
        QVERIFY(w.memoryView()->budgetChosen());
        budget = w.memoryView()->budgetBytes();
        w.showExperiment(QStringLiteral("batchnorm"));
        switchLanguage(QStringLiteral("fa"));
        QVERIFY2(w.files()->savePresetFile(path, &error), qPrintable(error));
        switchLanguage(QStringLiteral("en"));
    }
    MainWindow w(false);
    QCOMPARE(w.currentPage(), MainWindow::LabPage);
    QVERIFY2(w.files()->loadPresetFile(path, &error), qPrintable(error));
    QCOMPARE(LanguageManager::instance()->language(), QStringLiteral("fa"));
    QCOMPARE(w.currentPage(), MainWindow::ExperimentsPage);
    QCOMPARE(w.experimentPanel()->currentExperiment(), QStringLiteral("batchnorm"));
    QCOMPARE(w.memoryView()->budgetBytes(), budget);
}

// The window's own settings keep where the lesson was, too: the next start opens in the language
// it closed in (unless --lang names one), on its page, with its experiment, memory budget and
// controls, and builds its engine once.
void TestMainWindow::savedSessionOpensWhereItClosed_data()
{
    QTest::addColumn<QString>("commandLine"); // the next start's --lang, empty when none
    QTest::addColumn<QString>("language");
    QTest::newRow("as it closed") << QString() << QStringLiteral("fa");
    QTest::newRow("--lang en wins") << QStringLiteral("en") << QStringLiteral("en");
}

void TestMainWindow::savedSessionOpensWhereItClosed()
{
    QFETCH(QString, commandLine);
    QFETCH(QString, language);
    LanguageManager *languages = LanguageManager::instance();
    QSettings().clear();
    const auto forget = qScopeGuard([languages] {
        languages->initialize(QString(), /*persist=*/false);
        QFile::remove(QSettings().fileName());
    });
    qint64 budget = 0;
    {
        MainWindow closing(true);
        Preset p = closing.currentPreset();
        p.run.accumSteps = 8;
        closing.applyPreset(p);
        closing.memoryView()->setBudgetBytes(qint64(3) << 20);
        budget = closing.memoryView()->budgetBytes();
        closing.showExperiment(QStringLiteral("no-division"));
        switchLanguage(QStringLiteral("fa"));
    } // closing saves the session
    switchLanguage(QStringLiteral("en"));
    languages->initialize(commandLine, /*persist=*/false);

    MainWindow w(true);
    QSignalSpy configured(w.controller(), &EngineController::engineConfigured);
    QCOMPARE(languages->language(), language);
    QCOMPARE(w.currentPage(), MainWindow::ExperimentsPage);
    QCOMPARE(w.experimentPanel()->currentExperiment(), QStringLiteral("no-division"));
    QCOMPARE(w.memoryView()->budgetBytes(), budget);
    QCOMPARE(w.controlPanel()->config().accumSteps, 8);
    QVERIFY(configured.wait(kWaitMs));
    QCOMPARE(configured.first().first().value<EngineInfo>().config.accumSteps, 8);
    // No second build follows (debounced edits would come after 150 ms).
    QVERIFY(!configured.wait(1500));
}

// Every control a keyboard reaches, on every page and tab, has a name a screen reader says
// (its own accessible name or a buddy label's text), in both languages.
void TestMainWindow::everyControlHasAName_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << QStringLiteral("en");
    QTest::newRow("fa") << QStringLiteral("fa");
}

void TestMainWindow::everyControlHasAName()
{
    QFETCH(QString, language);
    switchLanguage(language);
    MainWindow w(false);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QStringList unnamed;
    int checked = 0;
    auto walk = [&](const QString &where) {
        for (QWidget *widget : w.findChildren<QWidget *>()) {
            if (!(widget->focusPolicy() & Qt::TabFocus) || !widget->isVisible() || !widget->isEnabled())
                continue;
            // A widget that hands its focus on (a spin box's field) is named by where it goes.
            if (widget->focusProxy())
                continue;
            QAccessibleInterface *a = QAccessible::queryAccessibleInterface(widget);
            const QString name = a ? a->text(QAccessible::Name).trimmed() : QString();
            ++checked;
            if (name.isEmpty())
                unnamed << QStringLiteral("%1: %2 %3 in %4 %5")
                               .arg(where, QLatin1String(widget->metaObject()->className()), widget->objectName(),
                                    QLatin1String(widget->parentWidget()->metaObject()->className()),
                                    widget->parentWidget()->objectName());
        }
    };
    const QStringList pages = presetPages();
    for (int page = 0; page < pages.size(); ++page) {
        w.showPage(static_cast<MainWindow::Page>(page));
        if (page == MainWindow::LabPage) {
            for (int tab = 0; tab < w.tabs()->count(); ++tab) {
                w.tabs()->setCurrentIndex(tab);
                QCoreApplication::processEvents();
                walk(QStringLiteral("lab tab %1").arg(tab));
            }
        } else {
            QCoreApplication::processEvents();
            walk(pages[page]);
        }
    }
    unnamed.removeDuplicates();
    QVERIFY(checked > 20);
    QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral("\n"))));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
