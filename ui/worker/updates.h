// The value structs that cross from the engine's worker thread to the GUI thread: plain data,
// copied in the worker thread (ui/worker/enginethreads.h, the threading contract). Declared metatypes
// (Q_DECLARE_METATYPE below, qRegisterMetaType in registerUpdateTypes()) so that the
// controller's signals and QSignalSpy carry them. Never tensors, never pointers into the engine.
#pragma once

#include "core/config.h"
#include "core/equivalence.h"
#include "core/experiments/experiments.h"
#include "core/memory/memory_lab.h"
#include "core/observer.h"
#include "core/sweep.h"

#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

namespace accumlab::ui {

// An engine error for the window. Core's errors are codes with arguments (core/content/errors.h) and
// are worded in the window's language and digits when shown, so a language switch rewords them;
// an error without a code (LibTorch's own message, or the window's own sentence) keeps its words.
struct EngineError {
    QString message;   // the sentence of an error without a code; empty for a coded one
    std::string code;  // a CodedError's code ("config/grid-trailing-comma"); empty when none
    TextArgs args;     // its figures and names
    bool own = false;  // `message` is the window's own sentence, already in its language
    bool isEmpty() const { return message.isEmpty() && code.empty(); }
    // The sentence for the window's reader (GUI thread). An uncoded message inside
    // right-to-left text is isolated left to right (it is English).
    QString localized() const;
    // The English sentence (a log, a test without a window): needs no language manager.
    QString english() const;
    // Worker side: what to show for `e` (its first line when it has no code).
    static EngineError from(const std::exception &e);
    // The window's own sentence, already translated by tr().
    static EngineError said(const QString &sentence);
};

// The engine the worker built for teaching mode, read back from the engine itself.
struct EngineInfo {
    AccumConfig config;          // AccumEngine::config()
    QString device;              // "cpu" or "cuda:0"
    QStringList parameterNames;  // "fc1.weight", ...
};

// One micro-batch of teaching mode: core's event as the engine reported it, with what the
// worker adds, the full-batch reference of its window and the window's memory so far.
struct MicroBatchUpdate {
    // Step, counters, loss, the buffers' norms and fills (what the bars draw, adding up micro-
    // batch by micro-batch), the float16 path and loss scaler, and the statements it ran (the
    // code panel lights their lines).
    MicroBatchEvent event;
    QVector<double> referenceNorms;  // per parameter tensor, full-batch gradient of the window
    // The open window's memory timeline so far, every allocation and free the counting CPU
    // allocator saw while its micro-batches ran (shared, never changed once sent); null with
    // several ranks or on a GPU, where none is recorded.
    std::shared_ptr<const MemoryTimeline> memory;
};

// The loss chart's x: step k (0-based) is drawn at the samples seen once it is taken,
// (k + 1) x effective batch, so runs of different effective batch share one axis.
inline double samplesSeenAfterStep(qint64 step, qint64 effectiveBatch)
{
    return static_cast<double>((step + 1) * effectiveBatch);
}

// Losses of optimizer steps during a sweep, coalesced by the worker (at most ~60 per second).
struct StepBatchUpdate {
    int pointIndex = 0;
    qint64 effectiveBatch = 0;
    // Each step at samplesSeenAfterStep.
    QVector<QPointF> losses;  // (samples seen, loss)
    QVector<QPointF> logged;  // (samples seen, the loss as the lesson logs it: scaled x N)

    // A copy owns its points: it shares no buffer with the lists it was copied from. The
    // worker hands the GUI thread a copy made in its own thread (ui/worker/enginethreads.h), and an
    // implicitly shared list would hand over the worker's own buffer with no happens-before
    // edge ThreadSanitizer can see (tests/sanitizers/tsan.supp); a deep copy made there is the
    // GUI's alone. At most a few hundred points, at most ~60 times a second.
    StepBatchUpdate() = default;
    StepBatchUpdate(const StepBatchUpdate &o)
        : pointIndex(o.pointIndex), effectiveBatch(o.effectiveBatch), losses(o.losses), logged(o.logged)
    {
        losses.detach();
        logged.detach();
    }
    StepBatchUpdate &operator=(const StepBatchUpdate &o)
    {
        if (this != &o)
            *this = StepBatchUpdate(o);
        return *this;
    }
    StepBatchUpdate(StepBatchUpdate &&) = default;
    StepBatchUpdate &operator=(StepBatchUpdate &&) = default;
    ~StepBatchUpdate() = default;
};

struct SweepPointUpdate {
    int pointIndex = 0;
    int pointCount = 0;
    SweepPoint point;
};

struct SweepDoneUpdate {
    SweepResult result;      // the points that completed
    // The equivalence check of the sweep's own settings (result.config.base), run before the
    // sweep as the lesson's main job runs it: the exports pair the sweep with this check, never
    // with one the controls asked for since. Empty when the sweep did not complete.
    std::optional<EquivalenceResult> equivalence;
    bool cancelled = false;
    EngineError error;       // empty when the sweep ran to the end
};

struct EquivalenceUpdate {
    quint64 serial = 0;      // the request this answers; older answers are dropped by the GUI
    bool ok = false;         // false: cancelled or failed (see error)
    EngineError error;
    EquivalenceResult result;
};

// One guided experiment (core/experiments/experiments.h), run to the end, cancelled or failed.
struct ExperimentUpdate {
    quint64 serial = 0;      // the request this answers; older answers are dropped by the GUI
    QString id;              // the experiment's id, "no-division"
    bool ok = false;         // false: cancelled or failed (see cancelled, error)
    bool cancelled = false;
    EngineError error;
    ExperimentResult result; // values, series, claims and explanation; valid when ok
};

// A run of the memory lab (core/memory/memory_lab.h): the out-of-memory demo, the trade-off sweep
// or the micro-batch finder, under one budget.
enum class MemoryLabKind { OomDemo, Tradeoff, Finder };
struct MemoryLabRequest {
    MemoryLabKind kind = MemoryLabKind::OomDemo;
    TradeoffConfig tradeoff; // tradeoff.lab is the lab of every kind; the grid and steps only for the sweep
};
// What it measured, or why it failed.
struct MemoryLabUpdate {
    quint64 serial = 0;      // the request this answers
    bool ok = false;         // false: cancelled or failed (see cancelled, error)
    bool cancelled = false;
    EngineError error;       // why it failed; empty when ok
    MemoryLabRequest request;
    OomDemoResult demo;          // kind OomDemo, valid when ok
    TradeoffResult tradeoff;     // kind Tradeoff
    MicroBatchFinding finding;   // kind Finder
};

// A session of teaching mode saved to, or resumed from, a checkpoint folder (core/io/checkpoint.h),
// or its trained parameters exported as a model file (core/training.h, exportModel).
enum class SessionAction { Save, Resume, ExportModel };
struct SessionUpdate {
    quint64 serial = 0;      // the request this answers
    SessionAction action = SessionAction::Save;
    QString folder;          // the checkpoint folder, or the model file (ExportModel)
    bool ok = false;
    EngineError error;       // why it was refused; empty when ok
    AccumConfig config;      // the run saved or resumed (AccumEngine::config())
    qint64 microBatches = 0; // where the run stands: micro-batches done,
    qint64 windowsDone = 0;  // completed windows,
    qint64 microIndex = 0;   // micro-batches in the open window (0: at a window's end)
    QString paramsSha256;    // AccumEngine::paramsSha256(), to compare runs
};

// A job the worker has just begun, after its cancel check: the start of that phase.
enum class EngineJob { Sweep, Equivalence, Experiment, MemoryLab };

// Call once, before the first signal carrying these types is connected or spied on.
void registerUpdateTypes();

} // namespace accumlab::ui

Q_DECLARE_METATYPE(accumlab::ui::EngineError)
Q_DECLARE_METATYPE(accumlab::ui::EngineInfo)
Q_DECLARE_METATYPE(accumlab::ui::MicroBatchUpdate)
Q_DECLARE_METATYPE(accumlab::ui::StepBatchUpdate)
Q_DECLARE_METATYPE(accumlab::ui::SweepPointUpdate)
Q_DECLARE_METATYPE(accumlab::ui::SweepDoneUpdate)
Q_DECLARE_METATYPE(accumlab::ui::EquivalenceUpdate)
Q_DECLARE_METATYPE(accumlab::ui::ExperimentUpdate)
Q_DECLARE_METATYPE(accumlab::ui::MemoryLabUpdate)
Q_DECLARE_METATYPE(accumlab::ui::EngineJob)
Q_DECLARE_METATYPE(accumlab::ui::SessionUpdate)
