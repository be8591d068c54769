// See sweeprunner.h.
#include "ui/worker/sweeprunner.h"

#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/localizedtext.h"
#include "ui/charts/losschart.h"
#include "ui/worker/stallprobe.h"
#include "ui/statusreporter.h"
#include "ui/panels/sweeptablemodel.h"
#include "ui/charts/throughputchart.h"

#include "core/sweep.h"

#include <QLoggingCategory>

namespace accumlab::ui {

// The GUI's worst stall in a sweep is the developer's figure, not the class's: a log line
// (QT_LOGGING_RULES="accumlab.stall=true"); `accumlab --autorun` prints it for the bench.
Q_LOGGING_CATEGORY(lcStall, "accumlab.stall", QtWarningMsg)

SweepRunner::SweepRunner(const Parts &parts, QObject *parent)
    : QObject(parent), m_parts(parts), m_model(new SweepTableModel(this)), m_stallProbe(new StallProbe(this))
{
    EngineController *c = m_parts.controller;
    connect(c, &EngineController::sweepPointStarted, this, &SweepRunner::onPointStarted);
    connect(c, &EngineController::sweepBlockStarted, this, &SweepRunner::onBlockStarted);
    connect(c, &EngineController::stepBatch, m_parts.loss, &LossChart::appendLosses);
    connect(c, &EngineController::sweepPointProgress, this, &SweepRunner::onPointProgress);
    connect(c, &EngineController::sweepPointDone, this, &SweepRunner::onPoint);
    connect(c, &EngineController::sweepFinished, this, &SweepRunner::onFinished);
}

bool SweepRunner::run(QString *error)
{
    const Preset p = m_parts.controls->preset();
    SweepConfig s;
    s.base = p.run;
    s.numSteps = p.numSteps;
    s.warmupSteps = p.warmupSteps;
    s.threads = p.threads;
    try {
        s.accumGrid = parseGrid(p.accumGrid.toStdString());
        useLabTiming(s); // equal work, ten blocks, the cost model's costs on the CPU
        validate(s);
    } catch (const std::exception &ex) {
        if (error)
            *error = tr("The sweep settings are invalid: %1").arg(errorSentence(ex));
        return false;
    }
    m_parts.controller->pause();
    m_parts.throughput->startRun();
    m_parts.loss->clear();
    m_model->clear();
    m_pointCount = static_cast<int>(s.accumGrid.size());
    m_blocks = static_cast<int>(s.blocks());
    m_stallProbe->start();
    m_parts.controller->runSweep(s);
    m_parts.status->say([] { return tr("Sweep running…"); });
    emit started();
    return true;
}

void SweepRunner::onPointStarted(int index, qint64 accumSteps)
{
    const AccumConfig c = m_parts.controls->config();
    m_parts.loss->startSeries(index, accumSteps * c.microBatch * c.worldSize);
}

void SweepRunner::onBlockStarted(int index, int block)
{
    m_parts.status->say([index, block, blocks = m_blocks, points = m_pointCount] {
        return tr("Sweep round %1 of %2, point %3 of %4").arg(count(block + 1), count(blocks), count(index + 1), count(points));
    });
}

void SweepRunner::onPointProgress(const SweepPointUpdate &u)
{
    m_parts.throughput->showPoint(u.pointIndex, u.point);
}

void SweepRunner::onPoint(const SweepPointUpdate &u)
{
    const SweepPoint &p = u.point;
    m_parts.throughput->showPoint(u.pointIndex, p);
    m_parts.loss->finishSeries(u.pointIndex, p);
    m_model->addPoint(p);
}

void SweepRunner::onFinished(const SweepDoneUpdate &update)
{
    m_stallProbe->stop();
    if (!update.error.isEmpty()) {
        m_parts.status->showError(tr("The sweep failed: %1").arg(update.error.localized()));
    } else if (update.cancelled) {
        m_parts.status->say([done = update.result.points.size(), points = m_pointCount] {
            return tr("Sweep stopped after %1 of %2 points.").arg(count(static_cast<qint64>(done)), count(points));
        });
    } else {
        m_lastSweep = update.result;
        m_lastSweepEquivalence = update.equivalence;
        m_parts.status->say([best = update.result.plateauSamplesPerSec()] {
            return tr("Sweep done: best measured %1 samples/sec.").arg(figure(best, "d"));
        });
        qCInfo(lcStall, "sweep done: worst GUI stall %.1f ms over %lld ticks", m_stallProbe->maxStallMs(),
               static_cast<long long>(m_stallProbe->ticks()));
    }
    emit finished(update.error.isEmpty() && !update.cancelled);
}

} // namespace accumlab::ui
