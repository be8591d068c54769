// The accumulation engine: it owns the run's parts (model, optimizer, data stream, gradient
// sync, loss scaler), picks the window's hooks once from the config (core/bugs.h), and drives
// the one accumulation window (core/window.h), which the sweep, teaching mode, the equivalence
// check, the memory lab and the thread ranks all run. Around the window it keeps its own
// duties: the reports to the observer with the buffers' fills against the window's full-batch
// reference, phase timing's clock, and the checkpoint's capture and restore.
#include "core/engine.h"

#include "core/memory/cpu_memory.h"
#include "core/data.h"
#include "core/device.h"
#include "core/engine_state.h"
#include "core/full_batch.h"
#include "core/distributed/grad_sync.h"
#include "core/memory/memory_timeline.h"
#include "core/model.h"
#include "core/optimizer.h"
#include "core/io/sha256.h"
#include "core/window.h"
#include "core/window_probe.h"

#include <chrono>
#include <optional>
#include <cmath>

namespace accumlab {

// Phase timing's clock around a part of the window's own work: started only when `timed` (and
// phase timing is on), the device synchronized at both ends so that CUDA's queued kernels are
// counted where they run.
class EnginePhaseClock final : public WindowWorkClock {
public:
    explicit EnginePhaseClock(std::string device) : m_device(std::move(device)) {}
    bool on = false;
    double seconds = 0.0; // the windows' own work, while on

    void start(bool timed) override
    {
        if (!on || !timed)
            return;
        synchronizeDevice(m_device);
        m_start = std::chrono::steady_clock::now();
    }
    void stop() override
    {
        if (!m_start)
            return;
        synchronizeDevice(m_device);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_start).count();
        m_start.reset();
    }

private:
    std::string m_device;
    std::optional<std::chrono::steady_clock::time_point> m_start;
};

struct AccumEngine::Impl {
    AccumConfig config;
    torch::Device device;
    torch::Dtype dtype;
    Mlp model{nullptr};
    std::unique_ptr<FusedOptimizer> optimizer;
    std::unique_ptr<DataStream> data;
    std::shared_ptr<GradSync> sync;
    std::vector<torch::Tensor> params;
    std::vector<std::string> names;
    HalfMode halfMode = HalfMode::Off;   // DType::Float16: real or emulated float16 compute
    std::unique_ptr<LossScaler> scaler;  // null when the loss scaler is off
    EnginePhaseClock clock;
    std::unique_ptr<AccumWindow> window; // the loop; its state is window->state()
    // The open window's full-batch gradient (referenceNorms), for the buffers' fills.
    std::vector<torch::Tensor> referenceGrads;
    int64_t referenceWindow = -1;

    Impl(const AccumConfig &c, std::shared_ptr<GradSync> s)
        : config(c), device(resolveDevice(c.device)), dtype(toTorch(c.dtype)), sync(std::move(s)), clock(device.str())
    {
        installCpuMemoryCounter(); // before the first tensor, so that all of them are counted
        if (!sync)
            sync = std::make_shared<LocalSync>();
        if (sync->worldSize() != c.worldSize)
            throw ConfigError("engine/world-size-mismatch",
                              TextArgs{{{"world", double(c.worldSize)}, {"ranks", double(sync->worldSize())}}, {}});
        model = makeModel(c.modelShape(), c.seed, dtype, device);
        halfMode = halfModeFor(c.dtype, device);
        model->halfMode = halfMode;
        if (c.lossScaler.enabled)
            scaler = std::make_unique<LossScaler>(c.lossScaler);
        params = parameterList(*model);
        names = accumlab::parameterNames(*model);
        optimizer = std::make_unique<FusedOptimizer>(params, c.optimizer);
        // Every rank draws the same global window and keeps its own shard.
        data = std::make_unique<DataStream>(c.modelShape(), c.labels, c.seed, dtype, device);
        optimizer->zeroGrad();
        window = std::make_unique<AccumWindow>(
            config, WindowParts{model, params, *optimizer, *data, *sync, scaler.get(), halfMode}, hooksFor(config), clock);
    }

    WindowState &state() { return window->state(); }
    const WindowState &state() const { return window->state(); }

    // One micro-batch of the window, its report, and the window's when it closes.
    bool runMicro(EngineObserver *observer, const CancelToken *cancel)
    {
        if (cancel && cancel->cancelled())
            throw Cancelled{};
        MicroRun run = window->runMicro();
        {
            const UnrecordedMemory ownReads; // the report's reads are not the lesson's loop
            reportMicro(observer, run);
        }
        if (!window->finishMicro(run))
            return false;
        if (observer)
            observer->onStep(state().last);
        return true;
    }

    // ---- Reports ------------------------------------------------------------------------------
    void reportMicro(EngineObserver *observer, const MicroRun &run)
    {
        if (!observer || !observer->wantsMicroBatchDetail())
            return;
        const WindowState &s = state();
        MicroBatchEvent e;
        e.step = s.windowsDone;
        e.microIndex = s.micro;
        e.accumSteps = config.accumSteps;
        e.microLoss = run.raw.defined() ? run.raw.detach().to(torch::kFloat64).item<double>() : std::nan("");
        e.gradNorms = run.last ? run.end.hostNorms : hostVector(optimizer->gradNorms());
        measureFills(e);
        e.synced = run.synced;
        e.optimizerStepped = run.end.stepped;
        e.syncCalls = s.syncCalls;
        e.optimizerSteps = s.optimizerSteps;
        e.optimizerStateStep = optimizer->stateStep();
        e.microBatches = s.microBatches;
        e.float16Path = toString(halfMode);
        e.ran = s.ran;
        if (scaler) {
            e.lossScaling = true;
            e.scalerState = scaler->state();
        }
        observer->onMicroBatch(e);
    }

    // The buffers' fills of `e` (MicroBatchEvent::fills), when the window's reference is known.
    void measureFills(MicroBatchEvent &e)
    {
        if (referenceWindow != state().windowsDone || referenceGrads.empty())
            return;
        torch::NoGradGuard noGrad;
        const auto &grads = optimizer->grads();
        std::vector<torch::Tensor> parts; // P dots, then P squared norms of the reference
        for (size_t i = 0; i < grads.size(); ++i)
            parts.push_back((grads[i].to(torch::kFloat64) * referenceGrads[i]).sum());
        for (const auto &g : referenceGrads)
            parts.push_back(g.pow(2).sum());
        const auto host = hostVector(torch::stack(parts)); // (2P,) one transfer
        const size_t P = grads.size();
        double dot = 0.0, ref2 = 0.0;
        for (size_t i = 0; i < P; ++i) {
            e.fills.push_back(host[P + i] > 0.0 ? host[i] / host[P + i] : 0.0);
            dot += host[i];
            ref2 += host[P + i];
        }
        e.fillTotal = ref2 > 0.0 ? dot / ref2 : 0.0;
    }

    std::vector<double> referenceNorms()
    {
        window->keepStartParams();
        if (!state().open)
            window->open();
        // The window's full batch in one pass at the window-start parameters, unclipped: the
        // gradient the micro-batches add up to.
        Mlp ref = modelAt(config.modelShape(), window->paramsAtStart(), dtype, device, halfMode);
        auto y = torch::cat(state().y);                   // y: (micro * accum,)
        auto x = data->inputs(torch::cat(state().x), y); // x: (micro * accum, in)
        FusedOptimizer refBuffers(ref->parameters(), config.optimizer); // only for its flat norms
        fullBatchGradient(ref, refBuffers, x, y);
        referenceWindow = state().windowsDone;
        referenceGrads.clear();
        if (config.worldSize == 1) {
            for (const auto &g : refBuffers.grads())
                referenceGrads.push_back(g.detach().to(torch::kFloat64).clone()); // the fills' reference
            return hostVector(refBuffers.gradNorms());
        }
        // With several ranks the window's full batch is every rank's shard. The shards are equal,
        // so the mean of the ranks' full-shard gradients is the full-batch gradient: one
        // all-reduce, which every rank enters together (core/distributed/thread_ranks.h does).
        auto mean = refBuffers.flatGrad().detach().to(torch::kFloat64).clone(); // (total,)
        sync->allReduceMean(mean);
        std::vector<torch::Tensor> norms;
        int64_t offset = 0;
        for (const auto &g : refBuffers.grads()) {
            referenceGrads.push_back(mean.narrow(/*dim=*/0, offset, g.numel()).view(g.sizes()));
            norms.push_back(referenceGrads.back().norm());
            offset += g.numel();
        }
        return hostVector(torch::stack(norms)); // (P,) one transfer
    }
};

AccumEngine::AccumEngine(const AccumConfig &config, std::shared_ptr<GradSync> sync)
{
    validate(config);
    d = std::make_unique<Impl>(config, std::move(sync));
}

AccumEngine::~AccumEngine() = default;

const AccumConfig &AccumEngine::config() const { return d->config; }
int64_t AccumEngine::rank() const { return d->sync->rank(); }
std::string AccumEngine::deviceName() const { return d->device.str(); }
std::vector<std::string> AccumEngine::parameterNames() const { return d->names; }

bool AccumEngine::microStep(EngineObserver *observer, const CancelToken *cancel)
{
    return d->runMicro(observer, cancel);
}

StepResult AccumEngine::step(EngineObserver *observer, const CancelToken *cancel)
{
    while (!d->runMicro(observer, cancel)) {
    }
    return d->state().last;
}

std::vector<double> AccumEngine::referenceGradNorms() { return d->referenceNorms(); }

std::optional<MicroBatchEvent> AccumEngine::openWindowSnapshot()
{
    const WindowState &s = d->state();
    if (!s.open || s.micro == 0)
        return std::nullopt;
    if (d->referenceWindow != s.windowsDone)
        d->referenceNorms(); // the fills' reference for this window (restored windows have none)
    MicroBatchEvent e;
    e.step = s.windowsDone;
    e.microIndex = s.micro - 1;
    e.accumSteps = d->config.accumSteps;
    // The last micro-batch's loss as it ran (restored with the window); NaN when it did not run.
    e.microLoss = s.losses.empty() ? std::nan("") : s.losses.back().to(torch::kFloat64).item<double>();
    e.gradNorms = hostVector(d->optimizer->gradNorms());
    d->measureFills(e);
    e.syncCalls = s.syncCalls;
    e.optimizerSteps = s.optimizerSteps;
    e.optimizerStateStep = d->optimizer->stateStep();
    e.microBatches = s.microBatches;
    e.float16Path = toString(d->halfMode);
    if (d->scaler) {
        e.lossScaling = true;
        e.scalerState = d->scaler->state();
    }
    return e;
}

const StepResult &AccumEngine::lastStep() const { return d->state().last; }
int64_t AccumEngine::microIndex() const { return d->state().open ? d->state().micro : 0; }
int64_t AccumEngine::syncCalls() const { return d->state().syncCalls; }
int64_t AccumEngine::optimizerSteps() const { return d->state().optimizerSteps; }
int64_t AccumEngine::optimizerStateStep() const { return d->optimizer->stateStep(); }
int64_t AccumEngine::microBatches() const { return d->state().microBatches; }
int64_t AccumEngine::windowsDone() const { return d->state().windowsDone; }
SyncStats AccumEngine::syncStats() const { return d->sync->stats(); }
void AccumEngine::setProbe(WindowProbe *probe) { d->window->setProbe(probe); }
void AccumEngine::setPhaseTiming(bool on) { d->clock.on = on; }
double AccumEngine::windowWorkSeconds() const { return d->clock.seconds; }
void AccumEngine::copyParametersFrom(const AccumEngine &other)
{
    torch::NoGradGuard noGrad;
    const auto &mine = d->optimizer->params();
    const auto &theirs = other.d->optimizer->params();
    if (mine.size() != theirs.size())
        throw ConfigError("engine/models-differ-in-shape", {});
    for (size_t i = 0; i < mine.size(); ++i) {
        if (!mine[i].sizes().equals(theirs[i].sizes()))
            throw ConfigError("engine/models-differ-in-shape", {});
        mine[i].copy_(theirs[i]);
    }
}

void AccumEngine::becomeTwinOf(DType dtype)
{
    // The run stores its weights and samples in toTorch(dtype) (float32 for a float16 run).
    roundParametersThrough(d->optimizer->params(), toTorch(dtype));
    d->data->roundInputsThrough(toTorch(dtype));
}

std::string AccumEngine::float16Path() const { return toString(d->halfMode); }

LossScalerState AccumEngine::lossScalerState() const
{
    if (d->scaler)
        return d->scaler->state();
    LossScalerState s;
    s.scale = d->config.lossScaler.initScale;
    return s;
}

void AccumEngine::restoreLossScalerState(const LossScalerState &state)
{
    if (d->scaler)
        d->scaler->restore(state);
}

std::string AccumEngine::paramsSha256() const
{
    torch::NoGradGuard noGrad;
    const auto flat = d->optimizer->flatParam().to(torch::kCPU).contiguous(); // (total,)
    return sha256Hex(flat.data_ptr(), flat.nbytes());
}

void AccumEngine::captureState(EngineState &out) const
{
    torch::NoGradGuard noGrad;
    auto host = [](const torch::Tensor &t) {
        return t.defined() ? t.detach().to(torch::kCPU).contiguous().clone() : torch::Tensor();
    };
    const Impl &e = *d;
    const WindowState &w = e.state();
    const auto opt = e.optimizer->state();
    out.params = host(e.optimizer->flatParam());
    out.paramNames = e.names;
    out.paramShapes.clear();
    for (const auto &p : e.params)
        out.paramShapes.push_back(p.sizes().vec());
    out.optimizerStateStep = opt.step;
    out.momentum = host(opt.momentum);
    out.expAvg = host(opt.expAvg);
    out.expAvgSq = host(opt.expAvgSq);
    out.schedulerSteps = w.schedulerSteps;
    out.lastLr = w.lastLr;
    out.generator = e.data->generatorState().clone();
    out.optimizerSteps = w.optimizerSteps;
    out.microBatches = w.microBatches;
    out.windowsDone = w.windowsDone;
    out.syncCalls = w.syncCalls;
    out.lastLoss = w.last.loss;
    out.lastGradNorm = w.last.gradNorm;
    out.grads = host(d->optimizer->flatGrad());
    out.open = w.open;
    out.micro = w.open ? w.micro : 0;
    out.windowX = out.windowY = out.windowInputs = out.windowLosses = out.windowStartParams = torch::Tensor();
    if (w.open) {
        out.windowX = host(torch::cat(w.x));   // (per-rank window, in)
        out.windowY = host(torch::cat(w.y));   // (per-rank window,)
        out.windowInputs = host(e.data->inputs(torch::cat(w.x), torch::cat(w.y))); // (per-rank window, in)
        out.windowLosses = w.losses.empty() ? torch::empty({0}, e.optimizer->flatParam().options().device(torch::kCPU))
                                                  : host(torch::stack(w.losses)); // (ran,)
    }
    if (!w.startParams.empty()) {
        std::vector<torch::Tensor> flat;
        for (const auto &p : w.startParams)
            flat.push_back(p.reshape({-1}));
        out.windowStartParams = host(torch::cat(flat)); // (total,)
    }
}

void AccumEngine::stateLayout(EngineState &out) const
{
    auto meta = [](const torch::Tensor &t) { return torch::empty(t.sizes(), t.options().device(torch::kMeta)); };
    out = EngineState{};
    out.params = meta(d->optimizer->flatParam());
    out.paramNames = d->names;
    for (const auto &p : d->params)
        out.paramShapes.push_back(p.sizes().vec());
    out.grads = meta(d->optimizer->flatGrad());
    out.generator = meta(d->data->generatorState());
}

void AccumEngine::restoreState(const EngineState &in)
{
    torch::NoGradGuard noGrad;
    Impl &e = *d;
    WindowState &w = e.state();
    const auto &flat = e.optimizer->flatParam();
    TORCH_CHECK(in.params.numel() == flat.numel() && in.grads.numel() == flat.numel(),
                "the checkpoint's parameters do not fit this model");
    auto dev = [&](const torch::Tensor &t) { return t.to(flat.options()); };
    flat.copy_(dev(in.params));
    e.optimizer->flatGrad().copy_(dev(in.grads));
    e.optimizer->setState({in.optimizerStateStep, in.momentum, in.expAvg, in.expAvgSq});
    w.schedulerSteps = in.schedulerSteps;
    w.lastLr = in.lastLr;
    e.data->setGeneratorState(in.generator);
    w.optimizerSteps = in.optimizerSteps;
    w.microBatches = in.microBatches;
    w.windowsDone = in.windowsDone;
    w.syncCalls = in.syncCalls;
    w.last = StepResult{};
    w.last.step = in.windowsDone - 1;
    w.last.loss = in.lastLoss;
    w.last.gradNorm = in.lastGradNorm;
    w.last.lr = in.lastLr;
    e.referenceGrads.clear();
    e.referenceWindow = -1;
    w.x.clear();
    w.y.clear();
    w.losses.clear();
    w.open = in.open;
    w.micro = in.open ? in.micro : 0;
    if (in.open) {
        const auto x = in.windowX.to(e.device); // (per-rank window, in) float32 noise
        const auto y = in.windowY.to(e.device); // (per-rank window,)
        if (e.config.accumSteps == 1) {
            w.x = {x};
            w.y = {y};
        } else {
            w.x = x.split(e.config.microBatch);
            w.y = y.split(e.config.microBatch);
        }
        for (const auto &l : dev(in.windowLosses).unbind(0))
            w.losses.push_back(l);
        w.started = std::chrono::steady_clock::now();
    }
    w.startParams.clear();
    if (in.windowStartParams.defined()) {
        const auto start = dev(in.windowStartParams);
        int64_t offset = 0;
        for (const auto &p : e.params) {
            w.startParams.push_back(start.narrow(/*dim=*/0, offset, p.numel()).view(p.sizes()).clone());
            offset += p.numel();
        }
    }
}

void AccumEngine::rendezvous()
{
    if (d->config.worldSize <= 1)
        return;
    torch::NoGradGuard noGrad;
    auto one = torch::zeros({1}, d->optimizer->flatParam().options()); // (1,)
    d->sync->allReduceMean(one);
}

int64_t AccumEngine::firstRankWith(bool flag)
{
    if (d->config.worldSize <= 1)
        return flag ? 0 : -1;
    torch::NoGradGuard noGrad;
    auto flags = torch::zeros({d->config.worldSize}, d->optimizer->flatParam().options()); // (world,)
    if (flag)
        flags[rank()] = 1;
    d->sync->allReduceMean(flags); // each entry: 1/world where that rank passed true
    const auto host = flags.to(torch::kCPU, torch::kFloat64);
    for (int64_t r = 0; r < d->config.worldSize; ++r)
        if (host[r].item<double>() > 0)
            return r;
    return -1;
}

double AccumEngine::maxAbsParamDiff(const AccumEngine &other) const
{
    torch::NoGradGuard noGrad;
    const auto &mine = d->optimizer->params();
    const auto &theirs = other.d->optimizer->params();
    if (mine.size() != theirs.size())
        throw ConfigError("engine/models-differ-in-shape", {});
    double worst = 0.0;
    for (size_t i = 0; i < mine.size(); ++i) {
        if (!mine[i].sizes().equals(theirs[i].sizes()))
            throw ConfigError("engine/models-differ-in-shape", {});
        const double diff = (mine[i].to(torch::kFloat64) - theirs[i].to(mine[i].device(), torch::kFloat64))
                                .abs().max().item<double>();
        if (!std::isfinite(diff))
            return std::nan("");
        worst = std::max(worst, diff);
    }
    return worst;
}

HeldBytes AccumEngine::heldBytes() const
{
    HeldBytes h;
    h.weights = d->optimizer->paramBytes();
    h.gradients = d->optimizer->gradBytes();
    h.optimizerState = d->optimizer->stateBytes();
    // The micro-batches are views of one draw: count each storage once.
    for (const auto *part : {&d->state().x, &d->state().y})
        if (!part->empty())
            h.windowSamples += static_cast<int64_t>(part->front().storage().nbytes());
    return h;
}

} // namespace accumlab
