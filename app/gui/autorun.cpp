// The scripted mode (app/gui/autorun.h): sequencing, stdout, exit codes, screenshots.
#include "app/gui/autorun.h"

#include "ui/worker/enginecontroller.h"
#include "ui/panels/experimentpanel.h"
#include "ui/mainwindow.h"
#include "ui/session/sessionfiles.h"
#include "ui/worker/sweeprunner.h"
#include "ui/worker/labrun.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/statusreporter.h"
#include "ui/panels/memoryview.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/stallprobe.h"

#include "core/experiments/experiments.h"
#include "core/lesson.h"

#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace accumlab::gui {

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
// The autorun starts once the window has been laid out and painted, so the GUI-stall probe
// measures the sweep, not the window's first paint.
constexpr int kAutorunStartDelayMs = 300;
constexpr int kScreenshotStartDelayMs = 500; // a screenshot without a sweep: after the first layout
constexpr int kScreenshotSettleMs = 150;     // let the last chart updates lay out before grabbing
constexpr int kMemoryRunSettleMs = 300;      // the memory lab's result laid out before grabbing

void say(const QString &message) { std::fprintf(stderr, "accumlab: %s\n", qPrintable(message)); }

} // namespace

AutorunDriver::AutorunDriver(ui::MainWindow *window, QObject *parent) : QObject(parent), m_window(window)
{
    connect(window->sweep(), &ui::SweepRunner::finished, this, &AutorunDriver::onSweepFinished);
    connect(window->lab(), &ui::LabRun::equivalenceUpdated, this, &AutorunDriver::onEquivalenceUpdated);
    connect(window->experimentPanel(), &ui::ExperimentPanel::experimentFinished, this,
            &AutorunDriver::onExperimentFinished);
}

void AutorunDriver::start(const AutorunOptions &options)
{
    m_options = options;
    m_window->status()->setErrorsToTerminal(true);
    if (options.autorun) {
        QTimer::singleShot(kAutorunStartDelayMs, this, &AutorunDriver::startRuns);
    } else if (options.memoryRuns.isEmpty()) {
        QTimer::singleShot(kScreenshotStartDelayMs, this, &AutorunDriver::finish);
    } else {
        // The Memory tab, in view once the window is laid out, after its runs, each started
        // when the one before has answered.
        m_window->tabs()->setCurrentWidget(m_window->memoryView());
        connect(m_window->controller(), &ui::EngineController::memoryLabFinished, this, &AutorunDriver::nextMemoryRun);
        QTimer::singleShot(kScreenshotStartDelayMs, this, [this] {
            ui::bringIntoView(m_window->memoryView());
            nextMemoryRun();
        });
    }
}

void AutorunDriver::startRuns()
{
    m_running = true;
    m_sweepDone = false;
    m_exit = 0;
    if (!m_options.experiment.isEmpty()) {
        // The experiment's page instead of the sweep; finish() when it has run.
        if (!findExperiment(m_options.experiment.toStdString())) {
            fail(kExitBadInput, QStringLiteral("unknown experiment '%1'").arg(m_options.experiment));
            return;
        }
        m_window->showExperiment(m_options.experiment);
        m_window->experimentPanel()->runCurrent();
        return;
    }
    m_window->lab()->applyConfigNow();
    // One teaching window first, so the buffers show a measured accumulation, then the
    // equivalence check; the worker runs its queue in order, all before the sweep starts.
    for (int64_t i = 0; i < m_window->controlPanel()->config().accumSteps; ++i)
        m_window->controller()->stepMicroBatch();
    m_window->lab()->requestEquivalenceNow();
    QString error;
    if (!m_window->sweep()->run(&error))
        fail(kExitBadInput, error);
}

void AutorunDriver::nextMemoryRun()
{
    if (m_options.memoryRuns.isEmpty()) {
        disconnect(m_window->controller(), &ui::EngineController::memoryLabFinished, this, &AutorunDriver::nextMemoryRun);
        QTimer::singleShot(kMemoryRunSettleMs, this, &AutorunDriver::finish);
        return;
    }
    const QString run = m_options.memoryRuns.takeFirst();
    m_window->memoryView()->start(run == QLatin1String("demo")       ? ui::MemoryLabKind::OomDemo
                                  : run == QLatin1String("tradeoff") ? ui::MemoryLabKind::Tradeoff
                                                                     : ui::MemoryLabKind::Finder);
}

void AutorunDriver::onSweepFinished(bool completed)
{
    if (!m_running)
        return;
    if (!completed)
        m_exit = kExitFailed; // the window has said why on stderr
    m_sweepDone = true;
    if (!m_window->lab()->equivalencePending())
        finish();
}

void AutorunDriver::onEquivalenceUpdated()
{
    if (m_running && m_sweepDone)
        finish();
}

void AutorunDriver::onExperimentFinished(const QString &id, bool ok)
{
    if (!m_running || m_options.experiment != id)
        return;
    if (ok) {
        const ExperimentResult &r = *m_window->experimentPanel()->result();
        const ClaimTally t = r.tally();
        std::printf("experiment %s: %d of %d claims hold, %d inconclusive, %d observations\n", r.id.c_str(), t.holding,
                    t.verdicts, t.inconclusive, t.observations);
    } else {
        say(QStringLiteral("the experiment %1 did not complete").arg(id));
        m_exit = kExitFailed;
    }
    finish();
}

void AutorunDriver::fail(int exitCode, const QString &message)
{
    say(message);
    m_running = false;
    emit finished(exitCode);
}

void AutorunDriver::finish()
{
    const bool ran = m_running;
    m_running = false;
    if (ran) {
        if (m_window->sweep()->lastSweep() && m_exit == 0)
            std::printf("%s", sweepTable(*m_window->sweep()->lastSweep()).c_str());
        // Only a measured figure: a run in which the probe never ticked (an experiment) prints none.
        const ui::StallProbe *probe = m_window->sweep()->stallProbe();
        if (probe->ticks() > 0)
            std::printf("gui-max-stall-ms: %.1f (over %lld ticks)\n", probe->maxStallMs(),
                        static_cast<long long>(probe->ticks()));
        if (m_window->lab()->lastEquivalence())
            std::printf("equivalence: %s\n", toString(m_window->lab()->lastEquivalence()->verdict()).c_str());
        std::fflush(stdout);
        QString error;
        if (!m_options.exportJson.isEmpty()) {
            if (m_window->files()->exportCurveJson(m_options.exportJson, &error)) {
                std::printf("wrote %s\n", qPrintable(m_options.exportJson));
            } else {
                say(error);
                m_exit = kExitFailed;
            }
        }
    }
    // After a run, let its last chart updates lay out and paint before the window is grabbed.
    QTimer::singleShot(ran ? kScreenshotSettleMs : 0, this, [this, ran] {
        if (!m_options.screenshot.isEmpty()) {
            QString error;
            if (m_window->files()->saveScreenshot(m_options.screenshot, &error)) {
                if (ran)
                    std::printf("wrote %s\n", qPrintable(m_options.screenshot));
            } else {
                say(error);
                m_exit = kExitFailed;
            }
        }
        std::fflush(stdout);
        emit finished(m_exit);
    });
}

} // namespace accumlab::gui
