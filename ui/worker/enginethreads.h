// The window's threading contract, stated once here (as KDE Step's simulationthread.h states
// its own); the Handover, the worker, the controller, the value structs and the background
// writer point here. It also declares WorkerOutputs, the one way out of the worker.
//
// Threads. The GUI thread owns every widget, the EngineController and everything that reads
// the engine's answers. One worker thread (the QThread "accumlab-engine", which the controller
// owns) owns the EngineWorker and all it builds: teaching mode's ranks, and for the length of a
// job that job's engines; core runs a job's other ranks on threads of its own and joins them
// before the call returns. SessionFiles' background writer (ui/session/sessionfiles.h) is a
// third: it writes the bytes it was handed and answers through a Handover of its own.
//
// Crossing. Values cross a thread only as copies through a Handover (ui/worker/handover.h), which runs
// the calls posted to it in its own thread, in the order they were posted:
//   GUI -> worker: the controller posts calls, with copies of their arguments, into the
//                  worker's Handover (EngineController::m_toWorker);
//   worker -> GUI: the worker hands every result to WorkerOutputs (below), which only the
//                  controller implements, by posting a copy into the GUI thread's Handover
//                  (m_toGui), where the controller emits it as its own signal.
// The worker has no signals, so a connect() to it that would bypass the Handover does not
// compile. (A queued signal would hand its copy over inside Debian's uninstrumented QtCore,
// under a futex ThreadSanitizer does not see.) What crosses is a value struct of ui/worker/updates.h,
// or a QString, a config, a serial: never a tensor, never a pointer into an engine.
//
// Order. The GUI receives the worker's outputs in the order the worker produced them, and the
// worker runs the controller's calls in the order they were made. So EngineController::flush(),
// a call that does nothing but answer, answers after every output of every call made before it.
//
// Shared state. The only object both threads touch is the CancelToken each job captures
// (atomic): the controller cancels it from the GUI thread, the engine reads it between
// micro-batches, since the LibTorch loop blocks the worker's event loop. Every other member of
// the worker is touched by the worker thread alone, every member of the controller by the GUI
// thread alone, except the WorkerOutputs calls, which touch only the GUI's Handover.
//
// Rate. The worker emits at most EngineWorker::kMaxUpdatesPerSecond updates a second in either
// mode, keeping the newest of a burst of micro-batches (each carries running totals); the GUI
// coalesces what arrives with single-shot timers (LabRun).
//
// Lifetime. ~EngineController cancels the running job, stops Play, quit()s the thread and
// wait()s for it; the worker is deleted in its own thread on finished(). Calls still queued in
// either Handover when it is deleted are dropped without running.
#pragma once

#include "ui/worker/updates.h"

namespace accumlab::ui {

class EngineController;

// What the worker reports, called in the worker thread; every argument is copied before the
// call returns. Only EngineController can implement it (the constructor is private to it), and
// its implementation posts each call to the GUI thread.
class WorkerOutputs {
public:
    virtual void engineConfigured(const EngineInfo &info) = 0;
    virtual void microBatchDone(const MicroBatchUpdate &update) = 0;
    virtual void teachingError(const EngineError &error) = 0;
    // Teaching mode closed an optimizer window: its loss (pointIndex 0, one point).
    virtual void teachingStepDone(const StepBatchUpdate &update) = 0;
    virtual void playingChanged(bool playing) = 0;
    virtual void sweepPointStarted(int index, qint64 accumSteps) = 0;
    // A timed block of that point (0 follows sweepPointStarted).
    virtual void sweepBlockStarted(int index, int block) = 0;
    virtual void stepBatch(const StepBatchUpdate &update) = 0;
    // A timed block of that point ended, not its last: the point as its blocks so far measured
    // it (EngineObserver::onSweepBlockDone).
    virtual void sweepPointProgress(const SweepPointUpdate &update) = 0;
    virtual void sweepPointDone(const SweepPointUpdate &update) = 0;
    virtual void sweepFinished(const SweepDoneUpdate &update) = 0;
    virtual void equivalenceFinished(const EquivalenceUpdate &update) = 0;
    virtual void experimentFinished(const ExperimentUpdate &update) = 0;
    virtual void memoryLabFinished(const MemoryLabUpdate &update) = 0;
    virtual void jobStarted(EngineJob job, quint64 serial) = 0;
    virtual void sessionFinished(const SessionUpdate &update) = 0;
    // The answer to EngineController::flush(): everything before it has been handed over.
    virtual void flushed(quint64 serial) = 0;

protected:
    ~WorkerOutputs() = default;

private:
    WorkerOutputs() = default;
    friend class EngineController;
};

} // namespace accumlab::ui
