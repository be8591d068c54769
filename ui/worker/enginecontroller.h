// The GUI thread's handle on the engine: owns the worker thread and the EngineWorker in it,
// calls into it and re-emits its results as signals of its own. Lives in, and is called from,
// the GUI thread only; cancel() cancels the running job and everything queued behind it.
// Threading contract: ui/worker/enginethreads.h.
#pragma once

#include "ui/worker/updates.h"

#include "core/observer.h"

#include <QObject>
#include <QThread>

#include <memory>
#include <optional>

namespace accumlab::ui {

class EngineWorker;
class Handover;

class EngineController : public QObject {
    Q_OBJECT
public:
    explicit EngineController(QObject *parent = nullptr);
    ~EngineController() override;

    // Teaching mode: rebuilds the worker's engine with `config` (a reset).
    void setConfig(const AccumConfig &config);
    const AccumConfig &config() const { return m_config; }
    // The configuration of the engine the worker actually built (empty until it reports).
    const std::optional<EngineInfo> &engineInfo() const { return m_engineInfo; }

    void play(int microBatchesPerSecond);
    void pause();
    void setPace(int microBatchesPerSecond);
    void stepMicroBatch();
    void reset();
    bool isPlaying() const { return m_playing; }

    void runSweep(const SweepConfig &config);
    bool isSweepRunning() const { return m_sweepRunning; }
    // Returns the serial the answer will carry.
    quint64 requestEquivalence(const EquivalenceConfig &config);
    // Runs a guided experiment (core/experiments/experiments.h) in the worker thread; the answer arrives
    // as experimentFinished() carrying the returned serial. cancel() stops it.
    quint64 runExperiment(const QString &id, const ExperimentOptions &options);
    bool isExperimentRunning() const { return m_experimentsInFlight > 0; }
    // Runs the memory lab's demo, trade-off sweep or finder (core/memory/memory_lab.h) in the worker
    // thread; the answer, a result or an error in words, arrives as memoryLabFinished().
    quint64 runMemoryLab(const MemoryLabRequest &request);
    bool isMemoryLabRunning() const { return m_memoryLabsInFlight > 0; }
    // Saves teaching mode's run into a checkpoint folder, or resumes the run of one (`config`:
    // core's checkpointConfig of it); the answer arrives as sessionFinished() with the returned
    // serial. A resume that loads becomes the controller's config (engineConfigured follows).
    quint64 saveSession(const QString &folder);
    // Writes teaching mode's trained parameters as a safetensors file (core/training.h); the
    // answer is sessionFinished() (action ExportModel) with the returned serial.
    quint64 exportModel(const QString &file);
    quint64 resumeSession(const AccumConfig &config, const QString &folder);
    // Cancels the running job and all queued ones; teaching mode pauses.
    void cancel();
    // Does nothing in the worker but answer: flushed() with the returned serial arrives after
    // every answer of every call made before it (the newest micro-batch update that the rate
    // limit holds back included). What a test waits on instead of time to know that nothing
    // more follows.
    quint64 flush();

signals:
    void engineConfigured(const accumlab::ui::EngineInfo &info);
    void microBatchDone(const accumlab::ui::MicroBatchUpdate &update);
    void teachingError(const accumlab::ui::EngineError &error);
    void teachingStepDone(const accumlab::ui::StepBatchUpdate &update);
    void playingChanged(bool playing);
    void sweepStarted();
    void sweepPointStarted(int index, qint64 accumSteps);
    void sweepBlockStarted(int index, int block);
    void stepBatch(const accumlab::ui::StepBatchUpdate &update);
    void sweepPointProgress(const accumlab::ui::SweepPointUpdate &update);
    void sweepPointDone(const accumlab::ui::SweepPointUpdate &update);
    void sweepFinished(const accumlab::ui::SweepDoneUpdate &update);
    void equivalenceFinished(const accumlab::ui::EquivalenceUpdate &update);
    void experimentStarted(quint64 serial, const QString &id);
    void experimentFinished(const accumlab::ui::ExperimentUpdate &update);
    void memoryLabFinished(const accumlab::ui::MemoryLabUpdate &update);
    // The worker has begun `job` (serial 0 for a sweep): the job is in its running phase.
    void jobStarted(accumlab::ui::EngineJob job, quint64 serial);
    void sessionFinished(const accumlab::ui::SessionUpdate &update);
    void flushed(quint64 serial);

private:
    class Outbox; // WorkerOutputs: posts the worker's results to m_toGui
    void onEngineConfigured(const EngineInfo &info);
    void onSweepFinished(const SweepDoneUpdate &update);
    void onPlayingChanged(bool playing);
    void onExperimentFinished(const ExperimentUpdate &update);
    void onMemoryLabFinished(const MemoryLabUpdate &update);
    void onSessionFinished(const SessionUpdate &update);

    std::unique_ptr<Outbox> m_outbox;
    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    Handover *m_toWorker = nullptr; // lives in m_thread, a child of m_worker
    Handover *m_toGui = nullptr;    // lives in this thread, a child of this
    std::shared_ptr<CancelToken> m_token = std::make_shared<CancelToken>();
    AccumConfig m_config;
    std::optional<EngineInfo> m_engineInfo;
    bool m_sweepRunning = false;
    bool m_playing = false;
    int m_pace = 4;
    quint64 m_equivalenceSerial = 0;
    quint64 m_experimentSerial = 0;
    int m_experimentsInFlight = 0;
    quint64 m_memoryLabSerial = 0;
    quint64 m_sessionSerial = 0;
    int m_memoryLabsInFlight = 0;
    quint64 m_flushSerial = 0;
};

} // namespace accumlab::ui
