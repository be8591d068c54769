// The Lab's code panel: the PyTorch loop for the settings the engine runs, each line lit by the
// statements the engine reports for the micro-batch that Step ran (not by a timer), a planted
// bug's line marked, Copy putting the shown code on the clipboard, and code left to right in
// Persian with Persian comments. Whether the code computes what the engine computes is
// tests/pytorch/check_loop_code.py's question (every variant, with PyTorch).
#include "core/content/loop_code.h"
#include "ui/panels/accumulationpanel.h"
#include "ui/panels/codepanel.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/worker/labrun.h"
#include "ui/language.h"
#include "ui/mainwindow.h"
#include "window_helpers.h"

#include <QtTest/QtTest>
#include <QtWidgets/QtWidgets>

#include <functional>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr int kWaitMs = 30'000;

using accumlab::ui::test::waitForEngine;

// The lit lines' code, as "indent:code" (the indent tells the loop's level: 1 the window's, 2
// the micro-batch loop's).
QStringList litCode(const CodePanel &panel)
{
    QStringList out;
    for (int i : panel.litLines()) {
        const QString code = QString::fromStdString(panel.listing().lines[i].code);
        const int indent = int(code.size() - code.trimmed().size()) / 4;
        out << QStringLiteral("%1:%2").arg(indent).arg(code.trimmed());
    }
    return out;
}

} // namespace

class TestCodePanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("AccumLab"));
        QCoreApplication::setApplicationName(QStringLiteral("AccumLabCodePanelTest"));
    }

    // The code is drawn again only when the lit lines change: the middle micro-batches of a
    // window light what the one before lit, and leave the document as it is.
    void sameLightsKeepTheDocument()
    {
        CodePanel panel;
        EngineInfo info;
        info.config.accumSteps = 4;
        panel.setEngine(info);
        const auto ran = [](std::initializer_list<LoopStatement> statements) {
            MicroBatchUpdate u;
            u.event.ran = statements;
            return u;
        };
        panel.showMicroBatch(ran({LoopStatement::ZeroGrad, LoopStatement::Forward, LoopStatement::Backward}));
        const int opened = panel.view()->document()->revision();
        const QList<int> openLit = panel.litLines();
        panel.showMicroBatch(ran({LoopStatement::Forward, LoopStatement::Backward}));
        const int middle = panel.view()->document()->revision();
        QVERIFY(middle != opened); // zero_grad() went out
        QVERIFY(panel.litLines() != openLit);
        panel.showMicroBatch(ran({LoopStatement::Forward, LoopStatement::Backward}));
        QCOMPARE(panel.view()->document()->revision(), middle);
        panel.showMicroBatch(ran({LoopStatement::Forward, LoopStatement::Backward, LoopStatement::Step,
                                  LoopStatement::Scheduler}));
        QVERIFY(panel.view()->document()->revision() != middle);
        QCOMPARE(panel.litLines().size(), 4);
    }

    // Step runs one micro-batch; the panel lights exactly what the engine says it ran.
    void stepLightsWhatTheEngineRan_data()
    {
        QTest::addColumn<QString>("bug");
        QTest::addColumn<bool>("noDivision");
        QTest::addColumn<bool>("stepEveryMicro");
        QTest::addColumn<qint64>("ranks");
        QTest::addColumn<bool>("scaler");
        QTest::addColumn<int>("steps");
        QTest::addColumn<QStringList>("lit");
        QTest::addColumn<QString>("planted");
        const QString loss = QStringLiteral("2:loss = criterion(model(x), y) / accum_steps");
        const QString backward = QStringLiteral("2:loss.backward()");
        QTest::newRow("correct, first micro-batch")
            << "none" << false << false << qint64(1) << false << 1
            << QStringList{"1:optimizer.zero_grad()", loss, backward} << QString();
        QTest::newRow("correct, second")
            << "none" << false << false << qint64(1) << false << 2 << QStringList{loss, backward} << QString();
        QTest::newRow("correct, last: the window's step")
            << "none" << false << false << qint64(1) << false << 4
            << QStringList{loss, backward, "1:optimizer.step()", "1:scheduler.step()"} << QString();
        QTest::newRow("no division")
            << "none" << true << false << qint64(1) << false << 2
            << QStringList{"2:loss = criterion(model(x), y)", backward} << "2:loss = criterion(model(x), y)";
        QTest::newRow("step every micro-batch")
            << "none" << false << true << qint64(1) << false << 2
            << QStringList{loss, backward, "2:optimizer.step()", "2:scheduler.step()"} << "2:optimizer.step()";
        QTest::newRow("zero_grad in the loop")
            << "zero-every-micro" << false << false << qint64(1) << false << 2
            << QStringList{"2:optimizer.zero_grad()", loss, backward} << "2:optimizer.zero_grad()";
        QTest::newRow("scheduler in the loop")
            << "schedule-every-micro" << false << false << qint64(1) << false << 2
            << QStringList{loss, backward, "2:scheduler.step()"} << "2:scheduler.step()";
        QTest::newRow("loss scaler, last: unscale_ and step, update, the schedule after a step")
            << "none" << false << false << qint64(1) << true << 4
            << QStringList{loss, "2:scaler.scale(loss).backward()", "1:scaler.step(optimizer)", "1:scaler.update()",
                           "2:scheduler.step()"}
            << QString();
        QTest::newRow("two ranks: no_sync, then the sync")
            << "none" << false << false << qint64(2) << false << 1
            << QStringList{"1:optimizer.zero_grad()",
                           "2:with model.no_sync() if k < accum_steps - 1 else contextlib.nullcontext():",
                           "3:loss = criterion(model(x), y) / accum_steps", "3:loss.backward()"}
            << QString();
        QTest::newRow("two ranks, last micro-batch")
            << "none" << false << false << qint64(2) << false << 4
            << QStringList{"2:with model.no_sync() if k < accum_steps - 1 else contextlib.nullcontext():",
                           "3:loss = criterion(model(x), y) / accum_steps", "3:loss.backward()", "1:optimizer.step()",
                           "1:scheduler.step()"}
            << QString();
    }
    void stepLightsWhatTheEngineRan()
    {
        QFETCH(QString, bug);
        QFETCH(bool, noDivision);
        QFETCH(bool, stepEveryMicro);
        QFETCH(qint64, ranks);
        QFETCH(bool, scaler);
        QFETCH(int, steps);
        QFETCH(QStringList, lit);
        QFETCH(QString, planted);
        MainWindow w(false);
        w.resize(1280, 800);
        w.show();
        Preset p = w.controlPanel()->preset();
        p.run.accumSteps = 4;
        p.run.bug = accumBugFromString(bug.toStdString());
        p.run.scaling = noDivision ? Scaling::None : Scaling::Divide;
        p.run.stepEveryMicro = stepEveryMicro;
        p.run.worldSize = ranks;
        p.run.lossScaler.enabled = scaler;
        w.controlPanel()->setPreset(p);
        QVERIFY(waitForEngine(w, [&](const AccumConfig &c) {
            return c.accumSteps == 4 && toString(c.bug) == bug.toStdString() && (c.scaling == Scaling::None) == noDivision &&
                   c.stepEveryMicro == stepEveryMicro && c.worldSize == ranks && c.lossScaler.enabled == scaler;
        }));
        CodePanel *panel = w.codePanel();
        QVERIFY(panel->litLines().isEmpty()); // nothing ran yet
        QAction *step = w.findChild<QAction *>(QStringLiteral("stepAction"));
        QLabel *counter = w.findChild<QLabel *>(QStringLiteral("microBatchesValue"));
        for (int i = 0; i < steps; ++i) {
            step->trigger();
            QTRY_COMPARE_WITH_TIMEOUT(counter->text(), QLocale().toString(i + 1), kWaitMs);
        }
        QTRY_COMPARE_WITH_TIMEOUT(litCode(*panel), lit, kWaitMs);
        QStringList plantedCode;
        for (int i : panel->plantedLines())
            plantedCode << litCode(*panel).filter(QString::fromStdString(panel->listing().lines[i].code).trimmed()).value(0);
        QCOMPARE(plantedCode, planted.isEmpty() ? QStringList{} : QStringList{planted});
        // Reset empties the panel's lights with the buffers.
        w.findChild<QAction *>(QStringLiteral("resetAction"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(panel->litLines().isEmpty(), kWaitMs);
    }

    void copyPutsTheShownCodeOnTheClipboard()
    {
        MainWindow w(false);
        w.show();
        Preset p = w.controlPanel()->preset();
        p.run.bug = AccumBug::ClipEachMicro;
        w.controlPanel()->setPreset(p);
        QVERIFY(waitForEngine(w, [](const AccumConfig &c) { return c.bug == AccumBug::ClipEachMicro; }));
        CodePanel *panel = w.codePanel();
        QApplication::clipboard()->clear();
        QTest::mouseClick(panel->copyButton(), Qt::LeftButton);
        const QString copied = QApplication::clipboard()->text();
        QCOMPARE(copied, QString::fromStdString(loopSource(loopListing(w.controller()->engineInfo()->config))));
        QVERIFY(copied.contains(QStringLiteral("        # bug: clips a partial sum\n"
                                               "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n")));
    }

    // A pitfall of the loss scaler, picked in the control panel, reaches the engine and the code
    // panel: its own line, planted, and PyTorch's refusal as its note where PyTorch refuses it.
    // The list is live only while the scaler is on.
    void scalerPitfallShowsItsLine_data()
    {
        QTest::addColumn<QString>("pitfall");
        QTest::addColumn<QString>("planted");
        QTest::addColumn<QString>("note");
        QTest::newRow("update every micro-batch") << "update-every-micro" << "scaler.update()"
                                                  << "No inf checks were recorded prior to update.";
        QTest::newRow("drop the overflowed micro-batch")
            << "skip-overflowed-micro" << "if not all(p.grad.isfinite().all() for p in model.parameters()):"
            << "the scale is never cut";
    }
    void scalerPitfallShowsItsLine()
    {
        QFETCH(QString, pitfall);
        QFETCH(QString, planted);
        QFETCH(QString, note);
        MainWindow w(false);
        w.show();
        auto *combo = w.findChild<QComboBox *>(QStringLiteral("scalerBugCombo"));
        auto *scaling = w.findChild<QCheckBox *>(QStringLiteral("lossScalingCheck"));
        QVERIFY(combo && scaling);
        QVERIFY(!scaling->isChecked() && !combo->isEnabled());
        scaling->setChecked(true);
        QVERIFY(combo->isEnabled());
        combo->setCurrentIndex(combo->findData(pitfall));
        const ScalerBug bug = scalerBugFromString(pitfall.toStdString());
        QVERIFY(waitForEngine(w, [&](const AccumConfig &c) { return c.lossScaler.enabled && c.lossScaler.bug == bug; }));
        const LoopListing &listing = w.codePanel()->listing();
        QCOMPARE(QString::fromStdString(listing.variant), pitfall);
        QCOMPARE(w.codePanel()->plantedLines().size(), 1);
        const CodeLine &line = listing.lines[size_t(w.codePanel()->plantedLines().front())];
        QCOMPARE(QString::fromStdString(line.code).trimmed(), planted);
        QVERIFY2(QString::fromStdString(line.note).contains(note), line.note.c_str());
        scaling->setChecked(false); // the pitfall needs the scaler: the list goes quiet with it
        QVERIFY(!combo->isEnabled());
    }

    // In Persian the code is the English code, left to right; the comments are Persian.
    void codeStaysLeftToRightInPersian()
    {
        MainWindow w(false);
        w.show();
        QVERIFY(waitForEngine(w, [](const AccumConfig &) { return true; }));
        CodePanel *panel = w.codePanel();
        const LoopListing english = panel->listing();
        LanguageManager::instance()->setLanguage(QStringLiteral("fa"));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QCOMPARE(w.layoutDirection(), Qt::RightToLeft);
        QCOMPARE(panel->view()->layoutDirection(), Qt::LeftToRight);
        const LoopListing persian = panel->listing();
        QCOMPARE(persian.lines.size(), english.lines.size());
        for (size_t i = 0; i < persian.lines.size(); ++i) {
            QCOMPARE(persian.lines[i].code, english.lines[i].code);
            if (!english.lines[i].note.empty())
                QVERIFY2(QString::fromStdString(persian.lines[i].note).contains(QRegularExpression(QStringLiteral("[\\x{0600}-\\x{06FF}]"))),
                         persian.lines[i].note.c_str());
        }
        QVERIFY(panel->source().contains(QStringLiteral("# یک بار در هر پنجره")));
        LanguageManager::instance()->setLanguage(QStringLiteral("en"));
        QCoreApplication::sendPostedEvents();
    }
};

QTEST_MAIN(TestCodePanel)
#include "tst_codepanel.moc"
