// The worker: teaching mode one micro-batch at a time, full-speed sweeps, equivalence checks,
// guided experiments, the out-of-memory demo.
// The LibTorch loop blocks this thread's event loop, so cancellation is the CancelToken the
// engine checks between micro-batches (core/observer.h).
#include "ui/worker/engineworker.h"

#include "core/io/checkpoint.h"
#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/memory/cpu_memory.h"
#include "core/engine.h"
#include "core/memory/memory_timeline.h"
#include "core/experiments/experiments.h"
#include "core/distributed/thread_ranks.h"
#include "core/training.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>

#include <chrono>
#include <optional>

namespace accumlab::ui {

namespace {

constexpr int kMinEmitIntervalMs = 1000 / EngineWorker::kMaxUpdatesPerSecond;

QVector<double> toQVector(const std::vector<double> &v) { return QVector<double>(v.begin(), v.end()); }

// Captures the engine's per-micro-batch event in teaching mode.
class TeachingObserver final : public EngineObserver {
public:
    bool wantsMicroBatchDetail() const override { return true; }
    void onMicroBatch(const MicroBatchEvent &e) override { m_event = e; }
    void onStep(const StepResult &r) override { m_step = r; }
    MicroBatchEvent m_event;
    std::optional<StepResult> m_step; // set when this micro-batch closed the window
};

// Sweep observer: no per-micro-batch host reads (full speed); step losses are coalesced and
// leave at most kMaxUpdatesPerSecond times per second, points leave as they complete.
class SweepObserver final : public EngineObserver {
public:
    SweepObserver(WorkerOutputs &out, int pointCount, qint64 samplesPerAccumStep)
        : m_out(out), m_pointCount(pointCount), m_samplesPerAccumStep(samplesPerAccumStep)
    {
    }

    void onSweepPointStarted(int64_t index, int64_t accumSteps) override
    {
        flush();
        m_index = static_cast<int>(index);
        if (m_stepsInPoint.size() <= m_index) {
            m_stepsInPoint.resize(m_index + 1);
            m_effective.resize(m_index + 1);
        }
        m_stepsInPoint[m_index] = 0;
        m_effective[m_index] = accumSteps * m_samplesPerAccumStep;
        m_out.sweepPointStarted(m_index, accumSteps);
    }

    // The blocks interleave the points: the steps that follow belong to `index`, and go on
    // from where its previous block stopped.
    void onSweepBlock(int64_t index, int64_t block) override
    {
        flush();
        m_index = static_cast<int>(index);
        m_pending = StepBatchUpdate{};
        m_pending.pointIndex = m_index;
        m_pending.effectiveBatch = m_effective.value(m_index);
        m_out.sweepBlockStarted(m_index, static_cast<int>(block));
    }

    void onStep(const StepResult &r) override
    {
        const double seen = samplesSeenAfterStep(m_stepsInPoint[m_index]++, m_effective.value(m_index));
        m_pending.losses.append(QPointF(seen, r.loss));
        m_pending.logged.append(QPointF(seen, r.loggedLoss));
        if (m_sinceEmit.isValid() && m_sinceEmit.elapsed() < kMinEmitIntervalMs)
            return;
        flush();
    }

    void onSweepBlockDone(int64_t index, const SweepPoint &soFar) override
    {
        flush();
        m_out.sweepPointProgress(SweepPointUpdate{static_cast<int>(index), m_pointCount, soFar});
    }

    // Points complete in grid order, after their last block here and all at the end on rank
    // processes (where no block is reported): the count of those done is the point's index.
    void onSweepPoint(const SweepPoint &p) override
    {
        flush();
        m_out.sweepPointDone(SweepPointUpdate{m_pointsDone++, m_pointCount, p});
    }

private:
    void flush()
    {
        m_sinceEmit.start();
        if (m_pending.losses.isEmpty())
            return;
        m_pending.pointIndex = m_index;
        m_out.stepBatch(m_pending);
        // clear() keeps this buffer for the next batch: the Handover carried a copy, and
        // StepBatchUpdate's copy constructor gives a copy its own points (ui/worker/updates.h), so the
        // GUI thread never reads the memory this thread appends into.
        m_pending.losses.clear();
        m_pending.logged.clear();
    }

    WorkerOutputs &m_out;
    int m_pointCount = 0;
    int m_index = 0;
    int m_pointsDone = 0;
    QVector<qint64> m_stepsInPoint; // per point, the timed steps reported so far
    QVector<qint64> m_effective;    // per point, its effective batch
    qint64 m_samplesPerAccumStep = 1; // micro-batch x world size
    StepBatchUpdate m_pending;
    QElapsedTimer m_sinceEmit;
};

} // namespace

EngineWorker::EngineWorker(WorkerOutputs &outputs, QObject *parent) : QObject(parent), m_out(outputs)
{
    m_playTimer = new QTimer(this);
    m_playTimer->setTimerType(Qt::PreciseTimer);
    connect(m_playTimer, &QTimer::timeout, this, &EngineWorker::playTick);
    m_flushTimer = new QTimer(this);
    m_flushTimer->setSingleShot(true);
    connect(m_flushTimer, &QTimer::timeout, this, &EngineWorker::flushPendingMicro);
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::configureTeaching(const AccumConfig &config)
{
    m_config = config;
    resetTeaching();
}

void EngineWorker::resetTeaching()
{
    m_ranks.reset();
    m_reference.clear();
    m_hasPending = false;
    ensureEngine();
}

bool EngineWorker::ensureEngine()
{
    if (m_ranks)
        return true;
    try {
        // Teaching mode's ranks are threads of this process; the sweep starts real rank
        // processes (runSweep below).
        installCpuMemoryCounter(); // before the engine's first tensor: its floor is counted
        m_memoryOrigin = cpuLiveBytes();
        m_windowMemory.reset();
        m_ranks = std::make_unique<ThreadRanks>(m_config);
    } catch (const std::exception &ex) {
        setPlaying(false, 1);
        m_out.teachingError(EngineError::from(ex));
        return false;
    }
    announceEngine();
    return true;
}

void EngineWorker::announceEngine()
{
    const AccumEngine &engine = m_ranks->rank0();
    EngineInfo info;
    info.config = engine.config();
    info.device = QString::fromStdString(engine.deviceName());
    for (const auto &n : engine.parameterNames())
        info.parameterNames << QString::fromStdString(n);
    m_out.engineConfigured(info);
}

void EngineWorker::microStep(std::shared_ptr<const CancelToken> cancel)
{
    if (!ensureEngine())
        return;
    try {
        // A new window: the marker is the full-batch gradient of the window's samples, every
        // rank's. The bars and counters are rank 0's.
        AccumEngine &engine = m_ranks->rank0();
        const bool opens = engine.microIndex() == 0;
        if (opens)
            m_reference = toQVector(m_ranks->referenceGradNorms());
        // One rank on the CPU: the counting allocator sees this micro-batch's allocations (with
        // rank threads their phases would interleave; a GPU's are not counted here).
        std::optional<MemoryTimelineRecording> recording;
        if (m_config.worldSize == 1 && engine.deviceName() == "cpu" && cpuMemoryCounted())
            recording.emplace(m_memoryOrigin);
        TeachingObserver observer;
        m_ranks->microStep(&observer, cancel.get());
        MicroBatchUpdate u{observer.m_event, m_reference, nullptr};
        if (recording) {
            MemoryTimeline part = recording->finish();
            auto window = std::make_shared<MemoryTimeline>(opens || !m_windowMemory ? MemoryTimeline{} : *m_windowMemory);
            if (opens || !m_windowMemory) {
                window->label = "this window (Play/Step)";
                window->originBytes = m_memoryOrigin;
                window->startBytes = part.startBytes;
            }
            window->events.insert(window->events.end(), part.events.begin(), part.events.end());
            window->truncated = window->truncated || part.truncated;
            window->microBatch = engine.config().microBatch;
            window->accumSteps = engine.config().accumSteps;
            window->floor = engine.heldBytes();
            m_windowMemory = window;
            u.memory = window;
        }
        emitMicroThrottled(u);
        if (const auto &r = observer.m_step) {
            // One point per optimizer window (at most one per micro-batch, so at Play's
            // bounded rate), the losses as the engine measured them.
            StepBatchUpdate step;
            step.effectiveBatch = m_ranks->rank0().config().effectiveBatch(); // micro x accum x ranks
            const double seen = samplesSeenAfterStep(r->step, step.effectiveBatch);
            step.losses.append(QPointF(seen, r->loss));
            step.logged.append(QPointF(seen, r->loggedLoss));
            m_out.teachingStepDone(step);
        }
    } catch (const Cancelled &) {
    } catch (const std::exception &ex) {
        setPlaying(false, 1);
        m_out.teachingError(EngineError::from(ex));
    }
}

// Where a saved or resumed run stands, read from its rank 0.
void EngineWorker::describeRun(const AccumEngine &engine, SessionUpdate &u)
{
    u.config = engine.config();
    u.microBatches = engine.microBatches();
    u.windowsDone = engine.windowsDone();
    u.microIndex = engine.microIndex();
    u.paramsSha256 = QString::fromStdString(engine.paramsSha256());
}

void EngineWorker::saveSession(const QString &path, quint64 serial, SessionAction action)
{
    setPlaying(false, 1);
    flushPendingMicro(); // the view shows the state being saved
    SessionUpdate u;
    u.serial = serial;
    u.action = action;
    u.folder = path;
    if (!ensureEngine()) {
        // ensureEngine has said why the settings were refused.
        u.error = EngineError::said(tr("There is no run to save: the lab's settings were refused."));
        m_out.sessionFinished(u);
        return;
    }
    try {
        if (action == SessionAction::ExportModel)
            exportModel(m_ranks->rank0(), path.toStdString());
        else
            m_ranks->saveCheckpoint(path.toStdString()); // every rank's file
        u.ok = true;
    } catch (const std::exception &ex) {
        u.error = EngineError::from(ex);
    }
    describeRun(m_ranks->rank0(), u);
    m_out.sessionFinished(u);
}

void EngineWorker::resumeSession(const AccumConfig &config, const QString &folder, quint64 serial)
{
    setPlaying(false, 1);
    SessionUpdate u;
    u.serial = serial;
    u.action = SessionAction::Resume;
    u.folder = folder;
    try {
        // As many ranks as the checkpoint has (config.worldSize), each loading its own file.
        installCpuMemoryCounter();
        const int64_t origin = cpuLiveBytes();
        auto ranks = std::make_unique<ThreadRanks>(config);
        ranks->loadCheckpoint(folder.toStdString());
        m_memoryOrigin = origin;
        m_windowMemory.reset();
        m_config = config;
        m_ranks = std::move(ranks);
        m_hasPending = false;
        m_reference.clear();
        announceEngine();
        // The open window as the checkpoint left it: its partial sums against its full-batch
        // gradient, so the bars stand where they stood when it was saved.
        AccumEngine &engine = m_ranks->rank0();
        if (engine.microIndex() > 0) {
            m_reference = toQVector(m_ranks->referenceGradNorms());
            if (const auto snapshot = engine.openWindowSnapshot()) {
                m_out.microBatchDone(MicroBatchUpdate{*snapshot, m_reference, nullptr});
            }
        }
        u.ok = true;
        describeRun(engine, u);
    } catch (const std::exception &ex) {
        u.error = EngineError::from(ex); // the running engine is untouched
    }
    m_out.sessionFinished(u);
}

void EngineWorker::emitMicroThrottled(const MicroBatchUpdate &update)
{
    // Each update carries running totals and the whole buffer state, so keeping only the
    // newest one of a burst loses nothing the bars or counters show.
    m_pending = update;
    m_hasPending = true;
    if (!m_sinceEmit.isValid() || m_sinceEmit.elapsed() >= kMinEmitIntervalMs) {
        flushPendingMicro();
        return;
    }
    if (!m_flushTimer->isActive())
        m_flushTimer->start(kMinEmitIntervalMs - static_cast<int>(m_sinceEmit.elapsed()));
}

void EngineWorker::flushPendingMicro()
{
    if (!m_hasPending)
        return;
    m_hasPending = false;
    m_sinceEmit.start();
    m_out.microBatchDone(m_pending);
}

void EngineWorker::flush(quint64 serial)
{
    flushPendingMicro();
    m_out.flushed(serial);
}

void EngineWorker::setPlaying(bool playing, int microBatchesPerSecond)
{
    const bool was = m_playTimer->isActive();
    if (playing) {
        const int rate = std::clamp(microBatchesPerSecond, 1, kMaxUpdatesPerSecond);
        m_playTimer->start(1000 / rate);
    } else {
        m_playTimer->stop();
    }
    if (was != playing)
        m_out.playingChanged(playing);
}

void EngineWorker::playTick() { microStep(m_playToken); }

// The program that runs the ranks: $ACCUMLAB_CLI when set (the tests), else accumlab-cli
// beside the app (installed) or in the build tree's app/cli.
static QString rankProgram()
{
    const QDir dir(QCoreApplication::applicationDirPath());
    for (const QString &candidate : {qEnvironmentVariable("ACCUMLAB_CLI"), dir.filePath(QStringLiteral("accumlab-cli")),
                                     dir.filePath(QStringLiteral("../cli/accumlab-cli"))}) {
        if (candidate.isEmpty())
            continue;
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return {};
}

void EngineWorker::runSweep(const SweepConfig &config, std::shared_ptr<const CancelToken> cancel)
{
    setPlaying(false, 1);
    SweepDoneUpdate done;
    done.result.config = config;
    SweepObserver observer(m_out, static_cast<int>(config.accumGrid.size()),
                           config.base.microBatch * config.base.worldSize);
    // Points are collected from the observer too, so a cancelled sweep still reports them.
    struct Collector final : EngineObserver {
        EngineObserver *inner = nullptr;
        std::vector<SweepPoint> points;
        void onStep(const StepResult &r) override { inner->onStep(r); }
        void onSweepPointStarted(int64_t i, int64_t a) override { inner->onSweepPointStarted(i, a); }
        void onSweepBlock(int64_t i, int64_t b) override { inner->onSweepBlock(i, b); }
        void onSweepBlockDone(int64_t i, const SweepPoint &p) override { inner->onSweepBlockDone(i, p); }
        void onSweepPoint(const SweepPoint &p) override
        {
            points.push_back(p);
            inner->onSweepPoint(p);
        }
    } collector;
    collector.inner = &observer;
    try {
        if (cancel->cancelled())
            throw Cancelled{};
        m_out.jobStarted(EngineJob::Sweep, 0);
        // The check of the sweep's own settings first, as the lesson's main job runs it (a few
        // milliseconds): the exports pair the sweep with this check.
        const EquivalenceResult check = runEquivalenceOnThreads(equivalenceConfigOf(config.base), cancel.get());
        if (config.base.worldSize > 1) {
            // Real ranks: accumlab-cli processes over c10d/Gloo, started and collected by core.
            QTemporaryDir workDir;
            const QString cli = rankProgram();
            if (cli.isEmpty() || !workDir.isValid()) {
                done.error = EngineError::said(tr("accumlab-cli, which runs the ranks, was not found next to the app."));
                m_out.sweepFinished(done);
                return;
            }
            done.result = runSweepOnLocalRanks(cli.toStdString(), config, workDir.path().toStdString(),
                                               kDefaultDistTimeoutS, &collector, cancel.get());
        } else {
            done.result = accumlab::runSweep(config, &collector, cancel.get());
        }
        done.equivalence = check;
    } catch (const Cancelled &) {
        done.cancelled = true;
        done.result.points = collector.points;
    } catch (const std::exception &ex) {
        done.error = EngineError::from(ex);
        done.result.points = collector.points;
    }
    m_out.sweepFinished(done);
}

void EngineWorker::runEquivalence(const EquivalenceConfig &config, quint64 serial,
                                  std::shared_ptr<const CancelToken> cancel)
{
    EquivalenceUpdate u;
    u.serial = serial;
    try {
        if (cancel->cancelled())
            throw Cancelled{};
        m_out.jobStarted(EngineJob::Equivalence, serial);
        // Several ranks run as threads here: a check per slider move cannot start processes.
        u.result = accumlab::runEquivalenceOnThreads(config, cancel.get());
        u.ok = true;
    } catch (const Cancelled &) {
        u.error = EngineError::said(tr("The equivalence check was cancelled."));
    } catch (const std::exception &ex) {
        u.error = EngineError::from(ex);
    }
    m_out.equivalenceFinished(u);
}

void EngineWorker::runExperiment(const QString &id, const ExperimentOptions &options, quint64 serial,
                                 std::shared_ptr<const CancelToken> cancel)
{
    ExperimentUpdate u;
    u.serial = serial;
    u.id = id;
    try {
        if (cancel->cancelled())
            throw Cancelled{};
        m_out.jobStarted(EngineJob::Experiment, serial);
        u.result = accumlab::runExperiment(id.toStdString(), options, cancel.get());
        u.ok = true;
    } catch (const Cancelled &) {
        u.cancelled = true;
        u.error = EngineError::said(tr("The experiment was cancelled."));
    } catch (const std::exception &ex) {
        u.error = EngineError::from(ex);
    }
    m_out.experimentFinished(u);
}

void EngineWorker::runMemoryLab(const MemoryLabRequest &request, quint64 serial, std::shared_ptr<const CancelToken> cancel)
{
    MemoryLabUpdate u;
    u.serial = serial;
    u.request = request;
    try {
        if (cancel->cancelled())
            throw Cancelled{};
        m_out.jobStarted(EngineJob::MemoryLab, serial);
        switch (request.kind) {
        case MemoryLabKind::OomDemo: u.demo = accumlab::runOomDemo(request.tradeoff.lab, cancel.get()); break;
        case MemoryLabKind::Tradeoff: u.tradeoff = accumlab::runTradeoff(request.tradeoff, cancel.get()); break;
        case MemoryLabKind::Finder: u.finding = accumlab::findMicroBatch(request.tradeoff.lab, cancel.get()); break;
        }
        u.ok = true;
    } catch (const Cancelled &) {
        u.cancelled = true;
        u.error = EngineError::said(tr("The memory run was cancelled."));
    } catch (const std::exception &ex) {
        // LibTorch's errors carry a C++ backtrace after their first line: EngineError keeps the first.
        u.error = EngineError::from(ex);
    }
    m_out.memoryLabFinished(u);
}

} // namespace accumlab::ui
