// The engine's side of the thread boundary. An EngineWorker lives in the controller's
// QThread and owns teaching mode's ranks (core/distributed/thread_ranks.h: the Ranks setting's engines,
// rank 0 the one shown); sweeps, equivalence checks, guided experiments and the
// out-of-memory demo build their own engines inside core. Touched by the worker thread only;
// its results leave through WorkerOutputs. Threading contract: ui/worker/enginethreads.h.
#pragma once

#include "ui/worker/enginethreads.h"
#include "ui/worker/updates.h"

#include "core/observer.h"

#include <QElapsedTimer>
#include <QObject>

#include <memory>

class QTimer;

namespace accumlab {
class ThreadRanks;
}

namespace accumlab::ui {

class EngineWorker : public QObject {
    Q_OBJECT
public:
    // Most updates per second the worker emits in either mode.
    static constexpr int kMaxUpdatesPerSecond = 60;

    // `outputs` (the controller's) hears every result, in this thread.
    explicit EngineWorker(WorkerOutputs &outputs, QObject *parent = nullptr);
    ~EngineWorker() override;

    // All of these run in the worker thread.
    void configureTeaching(const AccumConfig &config);
    void resetTeaching();
    void microStep(std::shared_ptr<const CancelToken> cancel);
    void setPlaying(bool playing, int microBatchesPerSecond);
    void runSweep(const SweepConfig &config, std::shared_ptr<const CancelToken> cancel);
    void runEquivalence(const EquivalenceConfig &config, quint64 serial, std::shared_ptr<const CancelToken> cancel);
    void runExperiment(const QString &id, const ExperimentOptions &options, quint64 serial,
                       std::shared_ptr<const CancelToken> cancel);
    void runMemoryLab(const MemoryLabRequest &request, quint64 serial, std::shared_ptr<const CancelToken> cancel);
    // Teaching mode's run as a checkpoint (core/io/checkpoint.h) in `folder`, wherever it stands,
    // inside a window or at its end, one file per rank; and that run resumed from one: ranks of
    // `config` (the checkpoint's settings and world size, core's checkpointConfig) replace the
    // current ones only when the checkpoint loaded. Play stops first. The answer is
    // sessionFinished.
    // `action` Save: the checkpoint folder; ExportModel: the trained parameters alone (rank 0's,
    // which every rank shares) as a safetensors file at `path`.
    void saveSession(const QString &path, quint64 serial, SessionAction action = SessionAction::Save);
    void resumeSession(const AccumConfig &config, const QString &folder, quint64 serial);
    // Answers flushed(serial), after handing over the newest micro-batch update that the rate
    // limit still holds back: EngineController::flush().
    void flush(quint64 serial);

private:
    bool ensureEngine();
    void announceEngine();
    static void describeRun(const AccumEngine &engine, SessionUpdate &u);
    void emitMicroThrottled(const MicroBatchUpdate &update);
    void flushPendingMicro();
    void playTick();

    WorkerOutputs &m_out;
    AccumConfig m_config;
    std::unique_ptr<ThreadRanks> m_ranks; // teaching mode's run
    QVector<double> m_reference;          // full-batch norms of the open window
    // Teaching mode's memory timeline (MicroBatchUpdate::memory): recorded only while the engine
    // runs a micro-batch, so the equivalence checks between them stay out; counted from the live
    // bytes before the engine was built.
    int64_t m_memoryOrigin = 0;
    std::shared_ptr<const MemoryTimeline> m_windowMemory;
    QTimer *m_playTimer = nullptr;
    QTimer *m_flushTimer = nullptr;
    QElapsedTimer m_sinceEmit;
    bool m_hasPending = false;
    MicroBatchUpdate m_pending;
    std::shared_ptr<const CancelToken> m_playToken = std::make_shared<CancelToken>();
};

} // namespace accumlab::ui
