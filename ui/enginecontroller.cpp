// The controller: calls into the worker thread and its signals back out, both through a
// Handover (ui/handover.h).
#include "ui/enginecontroller.h"

#include "ui/engineworker.h"
#include "ui/handover.h"

#include <functional>

namespace accumlab::ui {

// A worker signal, emitted in the worker thread, runs `then` (a signal or a member of this
// controller) in the GUI thread with copies of its arguments, made in the worker thread and
// handed over by m_toGui.
template <typename... Args, typename Then>
void EngineController::relay(void (EngineWorker::*signal)(Args...), Then then)
{
    connect(
        m_worker, signal, m_worker,
        [this, then](Args... args) { m_toGui->post([this, then, args...] { std::invoke(then, this, args...); }); },
        Qt::DirectConnection);
}

EngineController::EngineController(QObject *parent) : QObject(parent)
{
    registerUpdateTypes();
    m_worker = new EngineWorker;
    m_toWorker = new Handover(m_worker); // moves with its parent, and is deleted with it
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_toGui = new Handover(this);
    relay(&EngineWorker::engineConfigured, &EngineController::onEngineConfigured);
    relay(&EngineWorker::microBatchDone, &EngineController::microBatchDone);
    relay(&EngineWorker::teachingStepDone, &EngineController::teachingStepDone);
    relay(&EngineWorker::teachingError, &EngineController::teachingError);
    relay(&EngineWorker::playingChanged, &EngineController::onPlayingChanged);
    relay(&EngineWorker::sweepPointStarted, &EngineController::sweepPointStarted);
    relay(&EngineWorker::sweepBlockStarted, &EngineController::sweepBlockStarted);
    relay(&EngineWorker::stepBatch, &EngineController::stepBatch);
    relay(&EngineWorker::sweepPointProgress, &EngineController::sweepPointProgress);
    relay(&EngineWorker::sweepPointDone, &EngineController::sweepPointDone);
    relay(&EngineWorker::sweepFinished, &EngineController::onSweepFinished);
    relay(&EngineWorker::equivalenceFinished, &EngineController::equivalenceFinished);
    relay(&EngineWorker::experimentFinished, &EngineController::onExperimentFinished);
    relay(&EngineWorker::memoryLabFinished, &EngineController::onMemoryLabFinished);
    relay(&EngineWorker::jobStarted, &EngineController::jobStarted);
    relay(&EngineWorker::sessionFinished, &EngineController::onSessionFinished);
    m_thread.setObjectName(QStringLiteral("accumlab-engine"));
    m_thread.start();
}

EngineController::~EngineController()
{
    // Stop the running job (the engine checks the token between micro-batches), then let the
    // thread's event loop end; the worker is deleted in its own thread on finished().
    m_token->cancel();
    m_toWorker->post([w = m_worker] { w->setPlaying(false, 1); });
    m_thread.quit();
    m_thread.wait();
}

void EngineController::setConfig(const AccumConfig &config)
{
    m_config = config;
    m_toWorker->post([w = m_worker, config] { w->configureTeaching(config); });
}

void EngineController::onEngineConfigured(const EngineInfo &info)
{
    m_engineInfo = info;
    emit engineConfigured(info);
}

void EngineController::play(int microBatchesPerSecond)
{
    m_pace = microBatchesPerSecond;
    m_toWorker->post([w = m_worker, p = m_pace] { w->setPlaying(true, p); });
}

void EngineController::pause()
{
    m_toWorker->post([w = m_worker] { w->setPlaying(false, 1); });
}

void EngineController::setPace(int microBatchesPerSecond)
{
    m_pace = microBatchesPerSecond;
    if (m_playing)
        play(m_pace);
}

void EngineController::stepMicroBatch()
{
    m_toWorker->post([w = m_worker, t = m_token] { w->microStep(t); });
}

quint64 EngineController::saveSession(const QString &folder)
{
    const quint64 serial = ++m_sessionSerial;
    m_toWorker->post([w = m_worker, folder, serial] { w->saveSession(folder, serial); });
    return serial;
}

quint64 EngineController::exportModel(const QString &file)
{
    const quint64 serial = ++m_sessionSerial;
    m_toWorker->post([w = m_worker, file, serial] { w->saveSession(file, serial, SessionAction::ExportModel); });
    return serial;
}

quint64 EngineController::resumeSession(const AccumConfig &config, const QString &folder)
{
    const quint64 serial = ++m_sessionSerial;
    m_toWorker->post([w = m_worker, config, folder, serial] { w->resumeSession(config, folder, serial); });
    return serial;
}

void EngineController::reset()
{
    m_toWorker->post([w = m_worker] { w->resetTeaching(); });
}

void EngineController::onSessionFinished(const SessionUpdate &update)
{
    if (update.ok && update.action == SessionAction::Resume)
        m_config = update.config;
    emit sessionFinished(update);
}

void EngineController::onPlayingChanged(bool playing)
{
    m_playing = playing;
    emit playingChanged(playing);
}

void EngineController::runSweep(const SweepConfig &config)
{
    m_sweepRunning = true;
    emit sweepStarted();
    m_toWorker->post([w = m_worker, config, t = m_token] { w->runSweep(config, t); });
}

void EngineController::onSweepFinished(const SweepDoneUpdate &update)
{
    m_sweepRunning = false;
    emit sweepFinished(update);
}

quint64 EngineController::requestEquivalence(const EquivalenceConfig &config)
{
    const quint64 serial = ++m_equivalenceSerial;
    m_toWorker->post([w = m_worker, config, serial, t = m_token] { w->runEquivalence(config, serial, t); });
    return serial;
}

quint64 EngineController::runExperiment(const QString &id, const ExperimentOptions &options)
{
    const quint64 serial = ++m_experimentSerial;
    ++m_experimentsInFlight;
    emit experimentStarted(serial, id);
    m_toWorker->post([w = m_worker, id, options, serial, t = m_token] { w->runExperiment(id, options, serial, t); });
    return serial;
}

void EngineController::onExperimentFinished(const ExperimentUpdate &update)
{
    --m_experimentsInFlight;
    emit experimentFinished(update);
}

quint64 EngineController::runMemoryLab(const MemoryLabRequest &request)
{
    const quint64 serial = ++m_memoryLabSerial;
    ++m_memoryLabsInFlight;
    m_toWorker->post([w = m_worker, request, serial, t = m_token] { w->runMemoryLab(request, serial, t); });
    return serial;
}

void EngineController::onMemoryLabFinished(const MemoryLabUpdate &update)
{
    --m_memoryLabsInFlight;
    emit memoryLabFinished(update);
}

void EngineController::cancel()
{
    m_token->cancel();
    m_token = std::make_shared<CancelToken>();
    pause();
}

} // namespace accumlab::ui
