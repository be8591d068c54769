// The controller: queued calls into the worker thread, signals back out.
#include "ui/enginecontroller.h"

#include "ui/engineworker.h"

namespace accumlab::ui {

EngineController::EngineController(QObject *parent) : QObject(parent)
{
    registerUpdateTypes();
    m_worker = new EngineWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &EngineWorker::engineConfigured, this, &EngineController::onEngineConfigured);
    connect(m_worker, &EngineWorker::microBatchDone, this, &EngineController::microBatchDone);
    connect(m_worker, &EngineWorker::teachingStepDone, this, &EngineController::teachingStepDone);
    connect(m_worker, &EngineWorker::teachingError, this, &EngineController::teachingError);
    connect(m_worker, &EngineWorker::playingChanged, this, &EngineController::onPlayingChanged);
    connect(m_worker, &EngineWorker::sweepPointStarted, this, &EngineController::sweepPointStarted);
    connect(m_worker, &EngineWorker::sweepBlockStarted, this, &EngineController::sweepBlockStarted);
    connect(m_worker, &EngineWorker::stepBatch, this, &EngineController::stepBatch);
    connect(m_worker, &EngineWorker::sweepPointProgress, this, &EngineController::sweepPointProgress);
    connect(m_worker, &EngineWorker::sweepPointDone, this, &EngineController::sweepPointDone);
    connect(m_worker, &EngineWorker::sweepFinished, this, &EngineController::onSweepFinished);
    connect(m_worker, &EngineWorker::equivalenceFinished, this, &EngineController::equivalenceFinished);
    connect(m_worker, &EngineWorker::experimentFinished, this, &EngineController::onExperimentFinished);
    connect(m_worker, &EngineWorker::memoryLabFinished, this, &EngineController::onMemoryLabFinished);
    connect(m_worker, &EngineWorker::jobStarted, this, &EngineController::jobStarted);
    connect(m_worker, &EngineWorker::sessionFinished, this, [this](const SessionUpdate &update) {
        if (update.ok && update.action == SessionAction::Resume)
            m_config = update.config;
        emit sessionFinished(update);
    });
    m_thread.setObjectName(QStringLiteral("accumlab-engine"));
    m_thread.start();
}

EngineController::~EngineController()
{
    // Stop the running job (the engine checks the token between micro-batches), then let the
    // thread's event loop end; the worker is deleted in its own thread on finished().
    m_token->cancel();
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->setPlaying(false, 1); }, Qt::QueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void EngineController::setConfig(const AccumConfig &config)
{
    m_config = config;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, config] { w->configureTeaching(config); },
                              Qt::QueuedConnection);
}

void EngineController::onEngineConfigured(const EngineInfo &info)
{
    m_engineInfo = info;
    emit engineConfigured(info);
}

void EngineController::play(int microBatchesPerSecond)
{
    m_pace = microBatchesPerSecond;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, p = m_pace] { w->setPlaying(true, p); }, Qt::QueuedConnection);
}

void EngineController::pause()
{
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->setPlaying(false, 1); }, Qt::QueuedConnection);
}

void EngineController::setPace(int microBatchesPerSecond)
{
    m_pace = microBatchesPerSecond;
    if (m_playing)
        play(m_pace);
}

void EngineController::stepMicroBatch()
{
    QMetaObject::invokeMethod(m_worker, [w = m_worker, t = m_token] { w->microStep(t); }, Qt::QueuedConnection);
}

quint64 EngineController::saveSession(const QString &folder)
{
    const quint64 serial = ++m_sessionSerial;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, folder, serial] { w->saveSession(folder, serial); },
                              Qt::QueuedConnection);
    return serial;
}

quint64 EngineController::exportModel(const QString &file)
{
    const quint64 serial = ++m_sessionSerial;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, file, serial] { w->saveSession(file, serial, SessionAction::ExportModel); },
        Qt::QueuedConnection);
    return serial;
}

quint64 EngineController::resumeSession(const AccumConfig &config, const QString &folder)
{
    const quint64 serial = ++m_sessionSerial;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, config, folder, serial] { w->resumeSession(config, folder, serial); },
                              Qt::QueuedConnection);
    return serial;
}

void EngineController::reset()
{
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->resetTeaching(); }, Qt::QueuedConnection);
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
    QMetaObject::invokeMethod(m_worker, [w = m_worker, config, t = m_token] { w->runSweep(config, t); },
                              Qt::QueuedConnection);
}

void EngineController::onSweepFinished(const SweepDoneUpdate &update)
{
    m_sweepRunning = false;
    emit sweepFinished(update);
}

quint64 EngineController::requestEquivalence(const EquivalenceConfig &config)
{
    const quint64 serial = ++m_equivalenceSerial;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, config, serial, t = m_token] { w->runEquivalence(config, serial, t); },
                              Qt::QueuedConnection);
    return serial;
}

quint64 EngineController::runExperiment(const QString &id, const ExperimentOptions &options)
{
    const quint64 serial = ++m_experimentSerial;
    ++m_experimentsInFlight;
    emit experimentStarted(serial, id);
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, id, options, serial, t = m_token] { w->runExperiment(id, options, serial, t); },
        Qt::QueuedConnection);
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
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, request, serial, t = m_token] { w->runMemoryLab(request, serial, t); }, Qt::QueuedConnection);
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
