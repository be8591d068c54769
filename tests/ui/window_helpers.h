// What the window's tests share: waiting for the engine the controls asked for, and a window
// with something in every view for the tests that read every page. How they wait on events:
// wait_helpers.h.
#pragma once

#include "ui/worker/enginecontroller.h"
#include "ui/panels/experimentpanel.h"
#include "ui/worker/labrun.h"
#include "ui/mainwindow.h"
#include "ui/panels/memoryview.h"
#include "ui/worker/sweeprunner.h"

#include "wait_helpers.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QtTest/QtTest>

#include <functional>
#include <initializer_list>

namespace accumlab::ui::test {

// Applies the edits, then waits (up to `timeoutMs`) until the worker reports the engine it
// built from them; false when none that `matches` came.
inline bool waitForEngine(MainWindow &w, const std::function<bool(const AccumConfig &)> &matches, int timeoutMs = 30'000)
{
    w.lab()->applyConfigNow();
    return QTest::qWaitFor(
        [&] {
            const auto &info = w.controller()->engineInfo();
            return info && matches(info->config);
        },
        timeoutMs);
}

// Something in every view: a sweep over `grid` (two steps a point: loss curves, the throughput
// chart, the table), the equivalence check, the Memory tab's `memoryButtons` each answered, and
// `experiment` run quickly. Check QTest::currentTestFailed() after it.
inline void fillEveryView(MainWindow *w, const QString &grid, std::initializer_list<const char *> memoryButtons,
                          const QString &experiment, int timeoutMs)
{
    Preset p = w->currentPreset();
    p.accumGrid = grid;
    p.numSteps = 2;
    w->applyPreset(p);
    QSignalSpy swept(w->sweep(), &SweepRunner::finished);
    QString error;
    QVERIFY2(w->sweep()->run(&error), qPrintable(error));
    QVERIFY(swept.wait(timeoutMs));
    w->lab()->requestEquivalenceNow();
    QTRY_VERIFY_WITH_TIMEOUT(w->lab()->lastEquivalence().has_value(), timeoutMs);
    w->tabs()->setCurrentWidget(w->memoryView());
    for (const char *button : memoryButtons) {
        auto *b = w->memoryView()->findChild<QPushButton *>(QLatin1String(button));
        QVERIFY2(b, button);
        QSignalSpy answered(w->controller(), &EngineController::memoryLabFinished);
        b->click();
        QVERIFY2(answered.wait(timeoutMs), button);
    }
    ExperimentPanel *experiments = w->experimentPanel();
    QSignalSpy ran(experiments, &ExperimentPanel::experimentFinished);
    w->showExperiment(experiment);
    experiments->setQuickRun(true);
    experiments->runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(!ran.isEmpty(), timeoutMs);
    QVERIFY(ran.first().at(1).toBool());
}

} // namespace accumlab::ui::test
