// The controller: calls into the worker thread through m_toWorker, and the worker's results
// back through Outbox and m_toGui (ui/worker/enginethreads.h).
#include "ui/worker/enginecontroller.h"

#include "ui/worker/engineworker.h"
#include "ui/worker/handover.h"

#include <functional>

namespace accumlab::ui {

// The worker's one way out, called in the worker thread: each result runs a signal or a member
// of the controller in the GUI thread, with copies of its arguments made here and handed over
// by m_toGui. Touches nothing else of the controller.
class EngineController::Outbox final : public WorkerOutputs {
public:
    explicit Outbox(EngineController *controller) : m_controller(controller) {}

    void engineConfigured(const EngineInfo &info) override { post(&EngineController::onEngineConfigured, info); }
    void microBatchDone(const MicroBatchUpdate &update) override { post(&EngineController::microBatchDone, update); }
    void teachingError(const EngineError &error) override { post(&EngineController::teachingError, error); }
    void teachingStepDone(const StepBatchUpdate &update) override { post(&EngineController::teachingStepDone, update); }
    void playingChanged(bool playing) override { post(&EngineController::onPlayingChanged, playing); }
    void sweepPointStarted(int index, qint64 accumSteps) override
    {
        post(&EngineController::sweepPointStarted, index, accumSteps);
    }
    void sweepBlockStarted(int index, int block) override { post(&EngineController::sweepBlockStarted, index, block); }
    void stepBatch(const StepBatchUpdate &update) override { post(&EngineController::stepBatch, update); }
    void sweepPointProgress(const SweepPointUpdate &update) override
    {
        post(&EngineController::sweepPointProgress, update);
    }
    void sweepPointDone(const SweepPointUpdate &update) override { post(&EngineController::sweepPointDone, update); }
    void sweepFinished(const SweepDoneUpdate &update) override { post(&EngineController::onSweepFinished, update); }
    void equivalenceFinished(const EquivalenceUpdate &update) override
    {
        post(&EngineController::equivalenceFinished, update);
    }
    void experimentFinished(const ExperimentUpdate &update) override
    {
        post(&EngineController::onExperimentFinished, update);
    }
    void memoryLabFinished(const MemoryLabUpdate &update) override
    {
        post(&EngineController::onMemoryLabFinished, update);
    }
    void jobStarted(EngineJob job, quint64 serial) override { post(&EngineController::jobStarted, job, serial); }
    void sessionFinished(const SessionUpdate &update) override { post(&EngineController::onSessionFinished, update); }
    void flushed(quint64 serial) override { post(&EngineController::flushed, serial); }

private:
    template <typename Then, typename... Args>
    void post(Then then, const Args &...args)
    {
        m_controller->m_toGui->post([c = m_controller, then, args...] { std::invoke(then, c, args...); });
    }

    EngineController *m_controller = nullptr;
};

EngineController::EngineController(QObject *parent) : QObject(parent)
{
    registerUpdateTypes();
    m_toGui = new Handover(this);
    m_outbox = std::make_unique<Outbox>(this);
    m_worker = new EngineWorker(*m_outbox);
    m_toWorker = new Handover(m_worker); // moves with its parent, and is deleted with it
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
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

quint64 EngineController::flush()
{
    const quint64 serial = ++m_flushSerial;
    m_toWorker->post([w = m_worker, serial] { w->flush(serial); });
    return serial;
}

void EngineController::cancel()
{
    m_token->cancel();
    m_token = std::make_shared<CancelToken>();
    pause();
}

} // namespace accumlab::ui
