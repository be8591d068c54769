// accumlab-cli's commands: the lesson's script and more, headless. main.cpp sets up the process
// and calls cli::run(); the tests call run() in-process for the refusals (tests/app/tst_cli_refusals).
//   accumlab-cli                 equivalence check, throughput sweep, both exports (the lesson's main job)
//   accumlab-cli equivalence     one JSON object; exit 0 when it holds, 1 when not (cause on stderr)
//   accumlab-cli experiment ID   a guided experiment: measured values and a verdict per claim (--json: one
//                                JSON object); exit 0 whenever it ran, since the teaching-bug experiments
//                                show a failing claim on purpose; `experiment list` lists the ids
//   accumlab-cli oom-demo        under a budget (--fails-after 32 or --budget BYTES) the full effective batch
//                                fails with LibTorch's out-of-memory error, accumulation fits it; exit 1 if not
//   accumlab-cli tradeoff        a fixed effective batch over micro-batches: time and measured peak per point,
//                                the points beyond the budget failing; writes outputs/accum-tradeoff.json
//   accumlab-cli find-micro-batch  the largest micro-batch under the budget and its accum_steps
//   accumlab-cli train           one training run of the engine (--num-steps windows); one JSON object with the
//                                counters and params_sha256; --checkpoint DIR [--checkpoint-every-micro K] saves
//                                checkpoints, --resume DIR continues from the latest one (core/checkpoint.h),
//                                --export-model FILE writes the trained parameters as safetensors (core/training.h);
//                                a run that diverged or never stepped: one line on stderr, exit 5
//   accumlab-cli content-check   checks the embedded teaching content (every text in every language, the
//                                same placeholders, no English prose or Latin digits in right-to-left text);
//                                exit 0 when clean, 1 with one line per problem (translators run it)
// Both take --world-size N: N rank processes on loopback (this program re-started with
// torchrun's environment); a process started with RANK and WORLD_SIZE set is one rank.
// Bad input: one line on stderr, exit 2, nothing written. A rank that fails to meet its peers
// or loses one mid-run: exit 3. Exports that cannot be written at the end (a full disk, a
// folder that vanished): one line, exit 4, and the earlier exports are left as they were.
#include "app/cli/cli.h"

#include "core/checkpoint.h"
#include "core/content.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/experiments.h"
#include "core/gpu.h"
#include "core/distributed.h"
#include "core/fault_hooks.h"
#include "core/export.h"
#include "core/cpu_memory.h"
#include "core/lesson.h"
#include "core/verdict_grid.h"
#include "core/loop_code.h"
#include "core/memory_lab.h"
#include "core/omp_guard.h"
#include "core/training.h"
#include "core/version.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <regex>
#include <type_traits>
#include <filesystem>
#include <iostream>

using namespace accumlab;

// The CLI's refusals of its own flags, in English as the CLI speaks (exit 2, like core's
// ConfigError, whose refusals are coded for every language: core/errors.h).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace {

// Exit codes: core/lesson.h (kExitFails, kExitBadInput, kExitWriteFailed, and `train`'s
// kExitDiverged) and core/distributed.h (kExitDistributed), shared with the window's terminal
// fallback.

// The flags' defaults are core's (the config structs' own defaults), read in the *Defaults()
// functions below and never restated here; tests/app/tst_cli compares --help with core.

std::string gridText(const std::vector<int64_t> &grid)
{
    std::string text;
    for (const int64_t v : grid)
        text += (text.empty() ? "" : ",") + std::to_string(v);
    return text;
}

// ---- The run's settings: one table -----------------------------------------------------------
// Every setting of one engine run (AccumConfig) that the command line takes is declared once
// here: its flag, its help and the field it sets. Each command picks the rows it takes (the main
// job sweeps accum_steps and has no --accum-steps; `equivalence` gives its micro-batch as
// --big-batch), starting from its own defaults, and RunFlags::toConfig is the one mapping from
// the flags to the config. What the ranks of a job compare comes from toJson(AccumConfig)
// (rankSettings below), so neither list can miss a setting.
struct RunFlags {
    AccumConfig config; // numbers and switches are bound to its fields directly
    std::string model, optimizer, scaling, bug, noSync, dtype, scalerBug, device, labels;
    int64_t hidden = 0; // 0: the preset's hidden width

    explicit RunFlags(const AccumConfig &base)
        : config(base), model(toString(base.preset)), optimizer(toString(base.optimizer.kind)),
          scaling(toString(base.scaling)), bug(toString(base.bug)), noSync(base.noSync ? "on" : "off"),
          dtype(toString(base.dtype)), scalerBug(toString(base.lossScaler.bug)), device(toString(base.device)),
          labels(toString(base.labels))
    {
    }
    // The flags as a run's settings on `worldSize` ranks; throws ConfigError or UsageError.
    AccumConfig toConfig(int64_t worldSize) const;
};

enum class RunOption {
    Model, Hidden, MicroBatch, AccumSteps, Optimizer, Lr, LrWarmup, ClipNorm, Scaling, StepEveryMicro, Bug,
    NoSync, Dtype, LossScaling, ScalerBug, ScalerGrowthInterval, Device, Labels, Seed
};

// The main job (LessonOptions: its SweepConfig and that sweep's AccumConfig).
struct SweepFlags {
    RunFlags run{LessonOptions{}.sweep.base};
    std::string accumGrid = gridText(LessonOptions{}.sweep.accumGrid);
    int64_t numSteps = LessonOptions{}.sweep.numSteps;
    int64_t warmupSteps = LessonOptions{}.sweep.warmupSteps;
    int64_t repeats = LessonOptions{}.sweep.repeats;
    bool equalWork = LessonOptions{}.sweep.equalWork;
    int threads = LessonOptions{}.sweep.threads;
    bool noWrite = !LessonOptions{}.write;
    std::string outDir = LessonOptions{}.outDir.string();
    std::string lang = LessonOptions{}.language; // language of the skill recipe
    std::string settings; // --settings FILE: the sweep's settings from its record instead
};

// The memory commands (oom-demo, tradeoff, find-micro-batch) share these (MemoryLabConfig,
// TradeoffConfig).
struct MemoryFlags {
    // The run measured: --micro-batch is oom-demo's with --budget (else --fails-after's), the
    // micro-batch the lesson's accelerator still fits.
    RunFlags run{[] {
        AccumConfig c = TradeoffConfig{}.lab.base;
        c.microBatch = kLessonFailsAfterSamples;
        return c;
    }()};
    int64_t effectiveBatch = TradeoffConfig{}.lab.effectiveBatch;
    int64_t budget = 0;        // bytes; set when --budget was given
    bool budgetGiven = false;
    int64_t failsAfter = kLessonFailsAfterSamples; // the lesson's "fails after 32 samples"
    bool noBudget = false;     // tradeoff: no wall
    std::string microGrid;     // tradeoff: empty = powers of two
    int64_t numSteps = TradeoffConfig{}.numSteps;
    int64_t warmupSteps = TradeoffConfig{}.warmupSteps;
    std::string outDir = LessonOptions{}.outDir.string();
    bool noWrite = false;
    bool json = false;
    std::string timeline;      // oom-demo: where memory-timeline.json goes; empty: nowhere
    std::string snapshot;      // oom-demo: where the PyTorch memory snapshot goes; empty: nowhere
};

struct DistFlags {
    int64_t worldSize = AccumConfig{}.worldSize;
    int masterPort = 0; // 0: a free port
    double timeoutS = kDefaultDistTimeoutS;
};

// The equivalence subcommand (EquivalenceConfig: the lesson's fixture).
struct EquivalenceFlags {
    RunFlags run{EquivalenceConfig{}.run};
    int64_t bigBatch = EquivalenceConfig{}.bigBatch();
    std::string compareSplit;
};

// `train`: one run of the engine. The settings start from core's defaults (AccumConfig) with a
// window of several micro-batches: the run a checkpoint can cut inside.
struct TrainFlags {
    RunFlags run{[] {
        AccumConfig c;
        c.accumSteps = 4;
        return c;
    }()};
    TrainingPlan plan; // --num-steps, the checkpoints, --resume, --export-model
};

// Numbers on the command line are decimal, read one way everywhere. CLI11 reads integers with
// base 0 (010 would be 8 and 0x10 16) and strtod takes hex floats, inf and nan; these
// transforms refuse anything but plain decimal before CLI11 converts it, strip leading zeros,
// and refuse what does not fit the option's type instead of letting it clamp.
template <class T>
CLI::Validator decimal()
{
    return CLI::Validator(
        [](std::string &text) -> std::string {
            T v{};
            const char *first = text.data(), *last = text.data() + text.size();
            if constexpr (std::is_floating_point_v<T>) {
                static const std::regex kReal(R"([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
                if (!std::regex_match(text, kReal))
                    return "'" + text + "' is not a decimal number";
                first += text[0] == '+'; // from_chars takes no '+'
                const auto [end, ec] = std::from_chars(first, last, v); // locale-free
                if (ec != std::errc() || end != last || !std::isfinite(v))
                    return "'" + text + "' is out of range";
            } else {
                const bool negative = !text.empty() && text[0] == '-';
                const std::string digits = text.substr(negative ? 1 : 0);
                if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
                    (negative && std::is_unsigned_v<T>))
                    return "'" + text + "' is not a " + std::string(std::is_unsigned_v<T> ? "whole number" : "decimal integer");
                const size_t nonZero = std::min(digits.find_first_not_of('0'), digits.size() - 1);
                text = (negative ? "-" : "") + digits.substr(nonZero);
                first = text.data();
                last = text.data() + text.size();
                const auto [end, ec] = std::from_chars(first, last, v, 10);
                if (ec != std::errc() || end != last)
                    return "'" + text + "' is out of range (" + std::to_string(std::numeric_limits<T>::min()) + " to " +
                           std::to_string(std::numeric_limits<T>::max()) + ")";
            }
            return {};
        },
        std::is_floating_point_v<T> ? "DECIMAL" : "INTEGER", "decimal");
}

bool parseOnOff(const std::string &s, const char *option = "--no-sync")
{
    if (s == "on")
        return true;
    if (s == "off")
        return false;
    throw UsageError(std::string(option) + " takes on or off, got '" + s + "'");
}

AccumConfig RunFlags::toConfig(int64_t worldSize) const
{
    AccumConfig c = config;
    c.preset = presetFromString(model);
    c.optimizer.kind = optimizerFromString(optimizer);
    c.scaling = scalingFromString(scaling);
    c.bug = accumBugFromString(bug);
    c.noSync = parseOnOff(noSync);
    c.dtype = dtypeFromString(dtype);
    c.lossScaler.bug = scalerBugFromString(scalerBug);
    if (c.lossScaler.bug != ScalerBug::None && !c.lossScaler.enabled)
        throw UsageError("--scaler-bug plants a pitfall of the loss scaler; give --loss-scaling too");
    c.device = deviceFromString(device);
    c.labels = labelsFromString(labels);
    c.worldSize = worldSize;
    if (hidden != 0) {
        ModelShape shape = shapeOf(c.preset);
        shape.hidden = hidden;
        c.shape = shape;
    }
    validate(c);
    resolveDevice(c.device); // CUDA asked for where there is none is bad input
    return c;
}

// The table: each row one option of the run, added to `cmd` bound to `f`. `help` replaces a
// row's words where a command means something narrower by it (the memory commands' micro-batch).
CLI::Option *addRunOption(CLI::App &cmd, RunFlags &f, RunOption row, const char *help = nullptr)
{
    AccumConfig &c = f.config;
    const auto words = [&](const char *fallback) { return std::string(help ? help : fallback); };
    switch (row) {
    case RunOption::Model:
        return cmd.add_option("--model", f.model, words("lesson | wide | fixture"))->capture_default_str();
    case RunOption::Hidden:
        return cmd.add_option("--hidden", f.hidden, words("hidden width, overriding the model preset's"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::MicroBatch:
        return cmd.add_option("--micro-batch", c.microBatch, words("samples per micro-batch"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::AccumSteps:
        return cmd.add_option("--accum-steps", c.accumSteps, words("micro-batches per window"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::Optimizer:
        return cmd.add_option("--optimizer", f.optimizer, words("sgd | momentum | adamw"))->capture_default_str();
    case RunOption::Lr:
        return cmd.add_option("--lr", c.optimizer.lr, words("learning rate"))->transform(decimal<double>())->capture_default_str();
    case RunOption::LrWarmup:
        return cmd.add_option("--lr-warmup", c.optimizer.lrWarmup,
                              words("warm the learning rate up linearly over this many updates (0 = off)"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::ClipNorm:
        return cmd.add_option("--clip-norm", c.optimizer.clipNorm,
                              words("clip the window's gradient to this L2 norm before the step (0 = off)"))
            ->transform(decimal<double>())->capture_default_str();
    case RunOption::Scaling:
        return cmd.add_option("--scaling", f.scaling, words("divide | none (the no-division bug)"))->capture_default_str();
    case RunOption::StepEveryMicro:
        return cmd.add_flag("--step-every-micro", c.stepEveryMicro, words("bug: step the optimizer after every micro-batch"));
    case RunOption::Bug:
        return cmd.add_option("--bug", f.bug, words("plant a classic accumulation bug ('list' names them)"))->capture_default_str();
    case RunOption::NoSync:
        return cmd.add_option("--no-sync", f.noSync, words("on | off: skip the sync on non-final micro-batches"))->capture_default_str();
    case RunOption::Dtype:
        return cmd.add_option("--dtype", f.dtype,
                              words("float32 | float64 | bfloat16 | float16 (float32 weights, float16 compute: real "
                                    "float16 where the device has it, else emulated)"))
            ->capture_default_str();
    case RunOption::LossScaling:
        return cmd.add_flag("--loss-scaling", c.lossScaler.enabled,
                            words("a dynamic loss scaler (PyTorch's GradScaler: scale 65536, x0.5 on Inf/NaN with the "
                                  "window's step skipped, x2 after --scaler-growth-interval clean windows; its state is "
                                  "part of every checkpoint)"));
    case RunOption::ScalerBug:
        return cmd.add_option("--scaler-bug", f.scalerBug,
                              words("plant a pitfall of the loss scaler: none | unscale-every-micro | update-every-micro | "
                                    "skip-overflowed-micro | log-scaled-loss"))
            ->capture_default_str();
    case RunOption::ScalerGrowthInterval:
        return cmd.add_option("--scaler-growth-interval", c.lossScaler.growthInterval,
                              words("clean windows before the loss scale grows"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::Device:
        return cmd.add_option("--device", f.device, words("auto | cpu | cuda"))->capture_default_str();
    case RunOption::Labels:
        return cmd.add_option("--labels", f.labels, words("teacher | random"))->capture_default_str();
    case RunOption::Seed:
        return cmd.add_option("--seed", c.seed, words("seed for model and data"))->transform(decimal<uint64_t>())->capture_default_str();
    }
    return nullptr;
}

std::vector<CLI::Option *> addRunOptions(CLI::App &cmd, RunFlags &f, std::initializer_list<RunOption> rows)
{
    std::vector<CLI::Option *> added;
    for (RunOption row : rows)
        added.push_back(addRunOption(cmd, f, row));
    return added;
}

// The main job's sweep: from the flags, or from a settings record (--settings FILE, as the
// window hands a sweep to its ranks) with the run's world size.
LessonOptions lessonOptions(const SweepFlags &f)
{
    LessonOptions o;
    if (!f.settings.empty()) {
        o.sweep = readSweepSettingsFile(f.settings); // bounded: size, kind, depth (core/export.h)
        resolveDevice(o.sweep.base.device);
    } else {
        o.sweep.base = f.run.toConfig(o.sweep.base.worldSize);
        o.sweep.accumGrid = parseGrid(f.accumGrid);
        o.sweep.numSteps = f.numSteps;
        o.sweep.warmupSteps = f.warmupSteps;
        o.sweep.repeats = f.repeats;
        o.sweep.equalWork = f.equalWork;
        o.sweep.threads = f.threads;
    }
    std::string languages;
    bool known = false;
    for (const LanguageInfo &l : contentLanguages()) {
        languages += (languages.empty() ? "" : " | ") + l.code;
        known = known || l.code == f.lang;
    }
    if (!known)
        throw UsageError("--lang takes " + languages + ", got '" + f.lang + "'");
    o.language = f.lang;
    o.write = !f.noWrite;
    if (f.outDir.empty())
        throw UsageError("--out-dir must name a folder");
    o.outDir = f.outDir;
    validate(o.sweep);
    return o;
}

MemoryLabConfig memoryLab(const MemoryFlags &f)
{
    MemoryLabConfig lab;
    lab.base = f.run.toConfig(f.run.config.worldSize);
    lab.effectiveBatch = f.effectiveBatch;
    if (f.budgetGiven)
        lab.budgetBytes = f.budget;
    else if (!f.noBudget) {
        // 0 would silently mean no budget (a trade-off run without one, the demo at 32).
        if (f.failsAfter < 1)
            throw UsageError("--fails-after must be at least 1 sample, got " + std::to_string(f.failsAfter) +
                             "; --no-budget runs without a budget");
        lab.failsAfterSamples = f.failsAfter;
    }
    validate(lab);
    return lab;
}

// `oom-demo`: the full effective batch fails under the budget, accumulation fits it. One JSON
// object with --json, else sentences; exit 0 when the contrast showed, 1 when it did not.
int runOomDemoCommand(const MemoryFlags &f)
{
    MemoryLabConfig lab = memoryLab(f);
    if (!f.budgetGiven && f.noBudget)
        throw UsageError("the out-of-memory demo needs a budget");
    // The files' folders are checked before the demo runs, and the files written once it has.
    const auto folderOf = [](const std::string &file) {
        const std::filesystem::path folder = std::filesystem::path(file).parent_path();
        return folder.empty() ? std::filesystem::path(".") : folder;
    };
    for (const std::string *file : {&f.timeline, &f.snapshot})
        if (!file->empty())
            requireWritableDir(folderOf(*file));
    const OomDemoResult r = runOomDemo(lab);
    const auto wrote = [&](const std::string &file) { (f.json ? std::cerr : std::cout) << "wrote " << file << "\n"; };
    if (!f.timeline.empty()) {
        writeFileAtomic(f.timeline, memoryTimelineJson(r).dump() + "\n");
        wrote(f.timeline);
    }
    if (!f.snapshot.empty()) {
        writeFileAtomic(f.snapshot, memorySnapshotPickle({&r.fullBatchTimeline, &r.accumulationTimeline}));
        wrote(f.snapshot);
    }
    if (f.json) {
        std::cout << toJson(r).dump(2) << std::endl;
    } else {
        std::cout << "budget: " << formatByteCount(r.budgetBytes) << " on " << r.device;
        if (r.failsAfterSamples > 0)
            std::cout << " (measured so that it fails after " << r.failsAfterSamples << " samples per micro-batch)";
        std::cout << "\nfull effective batch of " << r.effectiveBatch << " in one pass: needs "
                  << formatByteCount(r.fullBatch.peakBytes) << "; under the budget: "
                  << (r.fullBatchOutOfMemory ? "out of memory: " + r.fullBatchError : std::string("it fitted")) << "\n";
        std::cout << "by accumulation, " << r.accumSteps << " x " << r.microBatch << " samples: "
                  << (r.accumulationSucceeded ? "fits, peak " + formatByteCount(r.accumulation.peakBytes)
                                              : "out of memory: " + r.accumulationError)
                  << "\n";
        // The peaks' parts, measured on the recorded windows.
        for (const auto &[name, m] : {std::pair{"full batch", &r.fullBatch}, std::pair{"accumulation", &r.accumulation}})
            if (m->transient)
                std::cout << name << "'s peak " << formatByteCount(m->peakBytes) << ": weights "
                          << formatByteCount(m->held.weights) << ", gradients " << formatByteCount(m->held.gradients)
                          << ", optimizer state " << formatByteCount(m->held.optimizerState) << ", samples "
                          << formatByteCount(m->held.windowSamples) << ", activations "
                          << formatByteCount(m->transient->activations) << ", step temporaries "
                          << formatByteCount(m->transient->stepTemporaries)
                          << (m->transient->stepSetsPeak() ? " (the step sets the peak)" : "") << "\n";
        if (r.equivalence) {
            // The one verdict on this loop, then the run's own figure beside the lesson's yardstick.
            const EquivalenceResult &eq = *r.equivalence;
            const std::string cause = eq.cause(), why = eq.explanation(NumberStyle{});
            std::cout << "the accumulated step against the full batch's: " << toString(eq.verdict())
                      << (cause.empty() ? "" : " (" + cause + ")") << "; " << eq.criterion(NumberStyle{}) << "\n"
                      << "this run's parameters after the step: max abs diff " << formatNumber(r.maxParamDiff, ".3g")
                      << " (the lesson's bound " << formatNumber(r.paramTolerance, ".3g") << ")"
                      << (why.empty() ? "" : ". " + why) << "\n";
        }
    }
    if (!r.contrastShown()) {
        std::cerr << "the out-of-memory contrast did not show: the full batch "
                  << (r.fullBatchOutOfMemory ? "ran out of memory" : "fitted under the budget") << ", accumulation "
                  << (r.accumulationSucceeded ? (r.sameStep() ? "took the full batch's step" : "took another step")
                                              : "failed")
                  << "\n";
        return kExitFails;
    }
    return 0;
}

// `tradeoff`: a fixed effective batch over micro-batches; a table, and accum-tradeoff.json.
int runTradeoffCommand(const MemoryFlags &f)
{
    TradeoffConfig t;
    t.lab = memoryLab(f);
    if (!f.microGrid.empty())
        t.microGrid = parseGrid(f.microGrid);
    t.numSteps = f.numSteps;
    t.warmupSteps = f.warmupSteps;
    validate(t);
    const std::filesystem::path out = std::filesystem::path(f.outDir) / "accum-tradeoff.json";
    if (!f.noWrite)
        requireWritableDir(f.outDir);
    const TradeoffResult r = runTradeoff(t);
    std::printf("effective batch %lld on %s, budget %s\n", static_cast<long long>(t.lab.effectiveBatch), r.device.c_str(),
                r.budgetBytes > 0 ? formatByteCount(r.budgetBytes).c_str() : "none");
    // The peak's parts: what the engine holds (weights, gradients, optimizer state, samples) and,
    // above it, one micro-batch's activations and the step's temporaries, measured apart.
    std::printf("%6s %6s %12s %12s %12s %12s %12s  %s\n", "micro", "accum", "ms/step", "samples/s", "peak", "activations",
                "step temps", "");
    const auto bytes = [](std::optional<int64_t> b) { return b ? formatByteCount(*b) : std::string("n/a"); };
    for (const TradeoffPoint &p : r.points) {
        const auto &t = p.memory.transient;
        if (p.outOfMemory)
            std::printf("%6lld %6lld %12s %12s %12s %12s %12s  %s\n", static_cast<long long>(p.microBatch),
                        static_cast<long long>(p.accumSteps), "-", "-", "-", "-", "-", p.error.c_str());
        else
            std::printf("%6lld %6lld %12.2f %12.0f %12s %12s %12s  %s\n", static_cast<long long>(p.microBatch),
                        static_cast<long long>(p.accumSteps), p.stepMsMedian, p.samplesPerSec,
                        bytes(p.peakMemBytes).c_str(), bytes(t ? std::optional(t->activations) : std::nullopt).c_str(),
                        bytes(t ? std::optional(t->stepTemporaries) : std::nullopt).c_str(),
                        t && t->stepSetsPeak() ? "the step sets the peak" : "");
    }
    for (const TradeoffPoint &p : r.points)
        if (!p.outOfMemory) { // what every point holds between windows
            const HeldBytes &h = p.memory.held;
            std::printf("held by every point: weights %s, gradients %s, optimizer state %s, the window's samples %s "
                        "(micro-batch %lld)\n",
                        formatByteCount(h.weights).c_str(), formatByteCount(h.gradients).c_str(),
                        formatByteCount(h.optimizerState).c_str(), formatByteCount(h.windowSamples).c_str(),
                        static_cast<long long>(p.microBatch));
            break;
        }
    if (const std::vector<int64_t> flat = r.stepSetPeakAt(); !flat.empty())
        std::printf("from micro-batch %lld to %lld the optimizer step's temporaries, not the activations, set the peak: "
                    "it does not grow with the micro-batch there\n",
                    static_cast<long long>(flat.front()), static_cast<long long>(flat.back()));
    if (!f.noWrite) {
        writeFileAtomic(out, tradeoffJson(r).dump(2) + "\n");
        std::cout << "wrote " << out.string() << "\n";
    }
    return 0;
}

// `find-micro-batch`: the largest micro-batch under the budget, and the accum_steps it takes.
int runFinderCommand(const MemoryFlags &f)
{
    if (!f.budgetGiven && f.noBudget)
        throw UsageError("the finder needs a budget");
    const MicroBatchFinding r = findMicroBatch(memoryLab(f));
    if (f.json) {
        std::cout << toJson(r).dump(2) << std::endl;
    } else {
        for (const auto &[micro, fitted] : r.tried)
            std::cout << "micro-batch " << micro << ": " << (fitted ? "fits" : "out of memory") << "\n";
        std::cout << r.sentence() << " (budget " << formatByteCount(r.budgetBytes) << ")\n";
    }
    return r.microBatch > 0 ? 0 : kExitFails;
}

// The main job over `world` ranks: the sweep's effective batch is micro x accum x world, and
// its check (lessonCheck) splits the same windows over the ranks.
void setWorld(LessonOptions &o, int64_t world)
{
    o.sweep.base.worldSize = world;
    validate(o.sweep);
    validate(lessonCheck(o.sweep));
}

EquivalenceConfig equivalenceConfig(const EquivalenceFlags &f, int64_t worldSize = 1)
{
    EquivalenceConfig c;
    c.run = f.run.toConfig(worldSize); // a compare split covers the batch with every rank's share
    if (!f.compareSplit.empty())
        c.compareSplit = parseSplit(f.compareSplit);
    setBigBatch(c, f.bigBatch); // the micro-batch: --big-batch over accum_steps x ranks
    validate(c);
    return c;
}

AccumConfig trainConfig(const TrainFlags &f, int64_t worldSize)
{
    const AccumConfig c = f.run.toConfig(worldSize);
    const TrainingPlan &plan = f.plan;
    if (plan.numSteps < 1 || plan.numSteps > kMaxNumSteps) // steps x accum_steps must not overflow
        throw UsageError("--num-steps must be between 1 and " + std::to_string(kMaxNumSteps) + ", got " +
                         std::to_string(plan.numSteps));
    if (plan.checkpointEvery < 0)
        throw UsageError("--checkpoint-every-micro must be 0 (only at the end) or positive");
    if (plan.checkpointEvery > 0 && plan.checkpoint.empty())
        throw UsageError("--checkpoint-every-micro needs --checkpoint DIR");
    return c;
}

// `train`: core's runTraining (core/training.h); rank 0 prints its JSON, and a run that
// diverged or never stepped says so in one line on `err` and returns kExitDiverged (rank 0's
// verdict is the launcher's exit code).
int runTrain(const TrainFlags &f, const AccumConfig &c, std::shared_ptr<GradSync> sync, std::ostream &out,
             std::ostream &err)
{
    const TrainingOutcome r = runTraining(c, std::move(sync), f.plan);
    out << r.report.dump(2) << std::endl;
    if (!r.diverged)
        return 0;
    err << r.divergence << std::endl;
    return kExitDiverged;
}

// `loop-code`'s own options besides the run's.
struct LoopCodeFlags {
    std::string lang = "en";
    int64_t ranks = 1;
    bool dataParallel = false;
    bool json = false;
    std::string record; // "" = print only
};

// `loop-code`: core's listing for the run's settings (core/loop_code.h) as Python, or as JSON
// with the statements that light each line; --record also writes a run of those settings.
int runLoopCodeCommand(const TrainFlags &f, const LoopCodeFlags &o)
{
    if (o.ranks < 1 || o.ranks > kMaxWorldSize)
        throw UsageError("--ranks must be between 1 and " + std::to_string(kMaxWorldSize) + ", got " + std::to_string(o.ranks));
    AccumConfig c = trainConfig(f, o.ranks);
    const NumberStyle style{languageInfo(o.lang).code};
    const LoopListing listing = loopListing(c, style, o.dataParallel ? LoopForm::DataParallel : LoopForm::AsConfigured);
    if (!o.record.empty()) {
        if (o.ranks != 1)
            throw UsageError("--record runs one rank: leave --ranks at 1 (--data-parallel gives the no_sync form)");
        if (c.dtype != DType::Float32 && c.dtype != DType::Float64)
            throw UsageError("--record needs --dtype float32 or float64 (the code has no float16 casts)");
        if (!listing.shownAsRun())
            throw UsageError("--record records a run whose code the listing writes: " + listing.caveat);
        c.device = DeviceRequest::Cpu; // the samples are drawn on the CPU, as the record holds them
        StagedFile(o.record, recordLoopRun(c, f.plan.numSteps)).commit();
    }
    if (!o.json) {
        if (!listing.shownAsRun())
            std::cout << "# " << listing.caveat << "\n";
        std::cout << loopSource(listing);
        return 0;
    }
    std::cout << toJson(listing).dump(2) << std::endl;
    return 0;
}

// A checkpoint that could not be written is an export that failed (exit 4, as a full disk at
// the end of the main job); one that cannot be read or belongs to another run is bad input.
int checkpointExitCode(const CheckpointError &e)
{
    return e.code().rfind("checkpoint/write-failed", 0) == 0 ? kExitWriteFailed : kExitBadInput;
}

void addDistOptions(CLI::App &cmd, DistFlags &d, CLI::Option *&world)
{
    world = cmd.add_option("--world-size", d.worldSize, "data-parallel ranks started on this machine (1 to 64)")->transform(decimal<int64_t>())
                ->capture_default_str();
    cmd.add_option("--master-port", d.masterPort, "rendezvous port on 127.0.0.1 (default: a free one)")->transform(decimal<int>());
    cmd.add_option("--dist-timeout", d.timeoutS, "seconds a rank waits for its peers before failing")->transform(decimal<double>())
        ->capture_default_str();
}

} // namespace

// What the program printed must have reached its standard output: a verdict written into a
// full disk or a closed pipe is lost, so a run that could not print ends with exit 4 and says
// so on stderr instead of exiting 0.
int accumlab::cli::checkStdout(int code)
{
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::cerr << "accumlab-cli: error: could not write to standard output (" << std::strerror(errno)
                  << "); the results printed there are lost\n";
        return code == 0 || (isVerdictExitCode(code) && code != kExitDiverged) ? kExitWriteFailed : code;
    }
    return code;
}

namespace {

[[noreturn]] void exitNow(int code)
{
    // A rank leaves without running destructors: after a failed collective the process
    // group's threads may still wait on a dead peer.
    code = cli::checkStdout(code);
    std::cerr.flush();
    std::_Exit(code);
}

// "accum_grid" -> "--accum-grid": a key of core's records as the option that sets it.
std::string optionOf(std::string key)
{
    std::replace(key.begin(), key.end(), '_', '-');
    return "--" + key;
}

// What the ranks of one job must share, as a flat JSON object of option names ("--seed") and
// values, compared at the rendezvous in this order (the first difference is named), so a rank
// started with another seed or width is refused before any collective. Every command (the main
// job, `equivalence` and `train`) takes every setting of the run from core's one record of it,
// toJson(AccumConfig), so a new setting cannot be left out here; `job` adds the command's own
// options first. Options only rank 0 uses (--out-dir, --no-write) and --threads (speed only)
// are left out.
std::string rankSettings(nlohmann::ordered_json job, const AccumConfig &config)
{
    const nlohmann::ordered_json record = toJson(config);
    for (auto it = record.begin(); it != record.end(); ++it) {
        const std::string &key = it.key();
        if (key == "in_features" || key == "classes") // follow from --model
            continue;
        if (const std::string option = optionOf(key); !job.contains(option))
            job[option] = it.value();
    }
    return job.dump();
}

std::string rankSettings(bool equivalence, const EquivalenceConfig &eq, const SweepConfig &sweep)
{
    if (equivalence)
        return rankSettings({{"command", "equivalence"},
                             {"--big-batch", eq.bigBatch()},
                             {"--compare-split", eq.compareSplit ? toString(*eq.compareSplit) : "none"}},
                            eq.run);
    // The sweep's own settings from core's one record of a sweep (sweepSettingsJson, so that a
    // new one cannot be left out here), then the run's (accum_steps is the grid's, point by
    // point); --threads is speed only.
    AccumConfig base = sweep.base;
    base.accumSteps = 1;
    nlohmann::ordered_json job{{"command", "main job"}, {"--model", toString(base.preset)}};
    const nlohmann::ordered_json record = sweepSettingsJson(sweep);
    for (auto it = record.begin(); it != record.end(); ++it) {
        if (it.key() == "schema" || it.key() == "run" || it.key() == "threads")
            continue;
        job[optionOf(it.key())] = it.value();
    }
    return rankSettings(std::move(job), base);
}

// A rank's last word when a wait overstayed its bound or a library thread threw.
[[noreturn]] void rankFatal(const std::string &message)
{
    std::cerr << "accumlab-cli: error: " << message << std::endl;
    std::_Exit(kExitDistributed);
}

// A rank other than 0 started by hand says where it waits for rank 0 (on stderr: stdout stays
// rank 0's); ranks of a launch (this CLI's launcher or torchrun, which name their run) wait
// quietly.
void rankWaiting(const std::string &message) { std::cerr << "accumlab-cli: " << message << std::endl; }

// One rank (started by the launcher below, by torchrun or by hand): joins the group, runs
// the job; rank 0 prints and writes, the others stay quiet.
int runRank(DistributedOptions d, bool equivalence, const EquivalenceFlags &e, const SweepFlags &s,
            const TrainFlags *train = nullptr)
{
    std::ostream quiet(nullptr);
    const std::string who = "rank " + std::to_string(d.rank) + ": ";
    try {
        if (train) {
            const AccumConfig c = trainConfig(*train, d.worldSize);
            d.cuda = resolveDevice(c.device).rfind("cuda", 0) == 0;
            if (d.cuda)
                setCudaDeviceIndex(static_cast<int>(d.localRank));
            d.settings = rankSettings({{"command", "train"},
                                       {"--num-steps", train->plan.numSteps},
                                       {"--checkpoint", train->plan.checkpoint},
                                       {"--checkpoint-every-micro", train->plan.checkpointEvery},
                                       {"--resume", train->plan.resume}},
                                      c);
            d.onFatal = &rankFatal;
            d.onWaiting = d.runId == "default" ? &rankWaiting : nullptr;
            const bool lead = d.rank == 0;
            auto sync = joinProcessGroup(d);
            const int code = runTrain(*train, c, sync, lead ? std::cout : quiet, lead ? std::cerr : quiet);
            exitNow(lead ? code : 0); // rank 0's verdict decides (kExitDiverged)
        }
        EquivalenceConfig eq;
        LessonOptions lesson;
        if (equivalence) {
            eq = equivalenceConfig(e, d.worldSize);
            d.cuda = resolveDevice(eq.run.device).rfind("cuda", 0) == 0;
        } else {
            lesson = lessonOptions(s);
            setWorld(lesson, d.worldSize);
            d.cuda = resolveDevice(lesson.sweep.base.device).rfind("cuda", 0) == 0;
        }
        if (d.cuda)
            setCudaDeviceIndex(static_cast<int>(d.localRank)); // a GPU of its own: cuda:LOCAL_RANK
        d.settings = rankSettings(equivalence, eq, lesson.sweep);
        d.onFatal = &rankFatal;
        d.onWaiting = d.runId == "default" ? &rankWaiting : nullptr;
        const bool lead = d.rank == 0;
        auto sync = joinProcessGroup(d);
        if (equivalence) {
            const EquivalenceResult r = runEquivalence(eq, nullptr, sync);
            int code = 0;
            if (lead) {
                std::cout << toJson(r).dump(2) << std::endl;
                code = reportEquivalence(r, std::cerr);
            }
            exitNow(lead ? code : 0); // rank 0 gives the verdict
        }
        lesson.sync = sync;
        const int code = runLesson(lesson, lead ? std::cout : quiet, lead ? std::cerr : quiet);
        exitNow(lead ? code : 0);
    } catch (const ConfigError &ex) {
        std::cerr << "accumlab-cli: error: " << who << ex.what() << "\n";
        exitNow(kExitBadInput);
    } catch (const CheckpointError &ex) {
        std::cerr << "accumlab-cli: error: " << who << ex.what() << "\n";
        exitNow(checkpointExitCode(ex));
    } catch (const UsageError &ex) {
        std::cerr << "accumlab-cli: error: " << who << ex.what() << "\n";
        exitNow(kExitBadInput);
    } catch (const ExportError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "; earlier exports were left as they were\n";
        exitNow(kExitWriteFailed);
    } catch (const std::exception &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        exitNow(kExitDistributed);
    }
}

// Starts `world` ranks of this program with the same arguments and waits for them.
int launchRanks(const DistFlags &d, int argc, char **argv)
{
    LaunchOptions lo;
    lo.worldSize = d.worldSize;
    lo.masterPort = d.masterPort;
    lo.timeoutS = d.timeoutS;
    const LaunchResult r =
        launchLocalRanks(std::filesystem::read_symlink("/proc/self/exe"), {argv + 1, argv + argc}, lo);
    // Rank 0's verdicts ("does not hold", "diverged", a planted bug shown or without effect) are
    // ones it already explained, not failures of the ranks.
    if (r.exitCode != 0 && !(isVerdictExitCode(r.exitCode) && r.failedRank == 0))
        std::cerr << "accumlab-cli: error: " << r.failure << "\n";
    return r.exitCode;
}

// `experiment` (ExperimentOptions).
struct ExperimentFlags {
    std::string id;
    bool json = false;
    bool fast = false;
    int64_t sweepSteps = 0;
    uint64_t seed = 0;
    int threads = 0;
};

ExperimentFlags experimentDefaults()
{
    const ExperimentOptions o;
    ExperimentFlags f;
    f.fast = o.fast;
    f.sweepSteps = o.sweepSteps;
    f.seed = o.seed;
    f.threads = o.threads;
    return f;
}

// `experiment list` or `experiment ID`: the work and the verdicts live in core/experiments.
int runExperimentCommand(const ExperimentFlags &f)
{
    if (f.id == "list") {
        for (const auto &info : experimentCatalog())
            std::cout << info.id << std::string(info.id.size() < 18 ? 18 - info.id.size() : 1, ' ')
                      << info.title.in("en") << "\n";
        return 0;
    }
    ExperimentOptions o;
    o.fast = f.fast;
    o.sweepSteps = f.sweepSteps;
    o.seed = f.seed;
    o.threads = f.threads;
    const ExperimentResult r = runExperiment(f.id, o);
    if (f.json)
        std::cout << toJson(r).dump(2) << std::endl;
    else
        std::cout << toText(r);
    return 0;
}

} // namespace

int accumlab::cli::run(int argc, char **argv)
{
    CLI::App app{"AccumLab: gradient accumulation on real tensors"};
    app.set_version_flag("--version", std::string("accumlab-cli ") + kVersion);

    SweepFlags s;
    using R = RunOption;
    std::vector<CLI::Option *> mainRun =
        addRunOptions(app, s.run, {R::MicroBatch, R::Seed, R::Lr, R::ClipNorm, R::LrWarmup, R::Optimizer, R::Scaling,
                                   R::StepEveryMicro, R::Bug, R::NoSync, R::Dtype, R::LossScaling, R::ScalerBug,
                                   R::ScalerGrowthInterval, R::Device, R::Model, R::Labels, R::Hidden});
    mainRun.push_back(app.add_option("--accum-grid", s.accumGrid, "accumulation steps to sweep, comma-separated")->capture_default_str());
    mainRun.push_back(app.add_option("--num-steps", s.numSteps, "timed optimizer steps per sweep point")->transform(decimal<int64_t>())->capture_default_str());
    mainRun.push_back(app.add_option("--warmup-steps", s.warmupSteps, "untimed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str());
    mainRun.push_back(app.add_option("--repeats", s.repeats, "timed blocks per point, interleaved across the grid (median and spread)")
                          ->transform(decimal<int64_t>())
                          ->capture_default_str());
    mainRun.push_back(app.add_flag("--equal-work", s.equalWork,
                                   "every point does the same work: --num-steps is what the grid's largest accum_steps "
                                   "runs, a smaller N runs as many micro-batches (the window's sweep)"));
    mainRun.push_back(app.add_option("--threads", s.threads, "LibTorch intra-op threads (0 = automatic: one thread for a micro-batch too small to split, else LibTorch's default)")->transform(decimal<int>())->capture_default_str());
    app.add_flag("--no-write", s.noWrite, "do not write the exports");
    app.add_option("--out-dir", s.outDir, "folder for accum-curve.json and the skill file")->capture_default_str();
    app.add_option("--lang", s.lang, "language of the skill recipe, a code of the content's languages (en | fa)")->capture_default_str();
    CLI::Option *settingsOpt =
        app.add_option("--settings", s.settings,
                       "the sweep's settings from a record (accumlab-sweep-settings.v1, as the window hands a sweep to "
                       "its ranks) instead of the options above; its run's world size is the job's")
            ->check(CLI::Validator(
                [](std::string &file) { return file.empty() ? std::string("needs a file name") : std::string(); },
                "FILE"));
    for (CLI::Option *o : mainRun)
        settingsOpt->excludes(o);
    std::string memoryCounter = "on";
    app.add_option("--memory-counter", memoryCounter,
                   "on | off: count CPU tensor memory (peak_mem_bytes); off is the overhead benchmark's baseline")
        ->capture_default_str();

    MemoryFlags m;
    const auto addMemoryOptions = [&m](CLI::App *cmd) {
        addRunOptions(*cmd, m.run, {R::Model, R::Device, R::Optimizer, R::Lr, R::Seed});
        cmd->add_option("--dtype", m.run.dtype, "float32 | float64 | bfloat16")->capture_default_str();
        cmd->add_option("--effective-batch", m.effectiveBatch, "samples per optimizer step, over all ranks")
            ->transform(decimal<int64_t>())
            ->capture_default_str();
        cmd->add_option("--world-size", m.run.config.worldSize, "ranks the effective batch is split over (one is measured)")
            ->transform(decimal<int64_t>())
            ->capture_default_str();
        cmd->add_option("--budget", m.budget, "memory budget in bytes, above what is allocated when a run starts")
            ->transform(decimal<int64_t>())
            ->each([&m](const std::string &) { m.budgetGiven = true; });
        cmd->add_option("--fails-after", m.failsAfter,
                        "the budget measured so that this many samples per micro-batch fit and the next micro-batch "
                        "that divides the effective batch does not (ignored with --budget)")
            ->transform(decimal<int64_t>())
            ->capture_default_str();
        cmd->add_flag("--json", m.json, "print one JSON object");
    };
    auto *oomCmd = app.add_subcommand(
        "oom-demo", "under a memory budget the full effective batch fails with out-of-memory; accumulation fits it");
    addMemoryOptions(oomCmd);
    addRunOption(*oomCmd, m.run, R::MicroBatch, "samples per micro-batch with --budget (else --fails-after)");
    oomCmd->add_option("--timeline", m.timeline,
                       "write the measured memory timeline of both runs here (memory-timeline.v1; on CUDA where the "
                       "build records the caching allocator's history)");
    oomCmd->add_option("--snapshot", m.snapshot,
                       "write both runs as a PyTorch memory snapshot (pickle) for torch.cuda._memory_viz and "
                       "pytorch.org/memory_viz: device 0 the full batch, device 1 the accumulation (as --timeline)");
    auto *tradeoffCmd = app.add_subcommand(
        "tradeoff", "a fixed effective batch over micro-batches: time per step and measured peak memory; accum-tradeoff.json");
    addMemoryOptions(tradeoffCmd);
    tradeoffCmd->add_flag("--no-budget", m.noBudget, "no budget wall: every point runs");
    tradeoffCmd->add_option("--micro-grid", m.microGrid, "micro-batches, comma-separated (default: powers of two)");
    tradeoffCmd->add_option("--num-steps", m.numSteps, "timed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str();
    tradeoffCmd->add_option("--warmup-steps", m.warmupSteps, "untimed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str();
    tradeoffCmd->add_option("--out-dir", m.outDir, "folder for accum-tradeoff.json")->capture_default_str();
    tradeoffCmd->add_flag("--no-write", m.noWrite, "do not write accum-tradeoff.json");
    auto *finderCmd = app.add_subcommand(
        "find-micro-batch", "the largest micro-batch that fits the budget (every divisor of the effective batch measured), and its accum_steps");
    addMemoryOptions(finderCmd);

    EquivalenceFlags e;
    auto *eqCmd = app.add_subcommand("equivalence", "full batch vs accumulated micro-batches; prints one JSON object");
    eqCmd->add_option("--big-batch", e.bigBatch, "samples in the full batch")->transform(decimal<int64_t>())->capture_default_str();
    addRunOption(*eqCmd, e.run, R::AccumSteps, "micro-batches the batch is split into");
    addRunOptions(*eqCmd, e.run, {R::Optimizer, R::Lr, R::ClipNorm, R::LrWarmup, R::Scaling, R::StepEveryMicro, R::Bug,
                                  R::Dtype, R::Device, R::Labels});
    eqCmd->add_option("--compare-split", e.compareSplit, "a second split ACCUMxMICRO, e.g. 2x8");
    addRunOption(*eqCmd, e.run, R::Seed);

    ExperimentFlags x = experimentDefaults();
    auto *expCmd = app.add_subcommand("experiment", "run a guided experiment (or 'list' them) and print its verdicts");
    expCmd->add_option("id", x.id, "experiment id, or 'list'")->required();
    expCmd->add_flag("--json", x.json, "print one JSON object");
    expCmd->add_flag("--fast", x.fast, "smaller runs, as the test suite uses");
    expCmd->add_option("--sweep-steps", x.sweepSteps, "sweep-flattening: timed steps at the largest accum_steps (smaller ones run more: equal work per point)")->transform(decimal<int64_t>())->capture_default_str();
    expCmd->add_option("--seed", x.seed, "seed for every model and data stream")->transform(decimal<uint64_t>())
        ->capture_default_str();
    expCmd->add_option("--threads", x.threads, "sweep-flattening: LibTorch intra-op threads (0 = automatic, as for the main job)")->transform(decimal<int>())
        ->capture_default_str();

    auto *contentCmd = app.add_subcommand("content-check", "check the embedded teaching content in every language");

    VerdictGridConfig grid;
    auto *gridCmd = app.add_subcommand(
        "verdict-grid", "the equivalence verdict over a seeded sample of settings and planted bugs; prints its table");
    gridCmd->add_option("--runs", grid.runs, "checks to sample")->transform(decimal<int64_t>())->capture_default_str();
    gridCmd->add_option("--seed", grid.seed, "seed of the sample (another seed: a hold-out grid)")
        ->transform(decimal<uint64_t>())
        ->capture_default_str();

    // The settings of one engine run, as `train` and `loop-code` take them.
    const auto addTrainOptions = [&](CLI::App &cmd, TrainFlags &f) {
        cmd.add_option("--num-steps", f.plan.numSteps, "windows (effective steps) to train")->transform(decimal<int64_t>())->capture_default_str();
        addRunOptions(cmd, f.run, {R::MicroBatch, R::AccumSteps, R::Model, R::Hidden, R::Optimizer, R::Lr, R::LrWarmup,
                                   R::ClipNorm, R::Bug, R::NoSync, R::Dtype, R::LossScaling, R::ScalerBug,
                                   R::ScalerGrowthInterval, R::Device, R::Labels, R::Seed, R::Scaling, R::StepEveryMicro});
    };
    TrainFlags t;
    auto *trainCmd = app.add_subcommand("train", "one training run of the engine; prints one JSON object with params_sha256");
    addTrainOptions(*trainCmd, t);
    // An empty folder name would mean a run that saves nothing or starts afresh, silently.
    const CLI::Validator aFolder([](std::string &v) { return v.empty() ? std::string("needs a folder, got ''") : std::string(); },
                                 "FOLDER");
    trainCmd->add_option("--checkpoint", t.plan.checkpoint, "folder to save checkpoints in (the last one at the end)")->check(aFolder);
    trainCmd->add_option("--checkpoint-every-micro", t.plan.checkpointEvery, "also save one every K micro-batches (0 = only at the end)")
        ->transform(decimal<int64_t>())
        ->capture_default_str();
    trainCmd->add_option("--resume", t.plan.resume, "continue from the latest checkpoint in this folder")->check(aFolder);
    const CLI::Validator aFile([](std::string &v) { return v.empty() ? std::string("needs a file name, got ''") : std::string(); },
                               "FILE");
    trainCmd->add_option("--export-model", t.plan.exportModel,
                         "write the trained parameters to FILE as safetensors (fc1.weight ... fc3.bias, for torch's load_state_dict)")
        ->check(aFile);

    TrainFlags lc;
    LoopCodeFlags lco;
    auto *codeCmd = app.add_subcommand(
        "loop-code", "the loop in PyTorch for these settings, as the Lab's code panel shows it (--record: a run of it for "
                     "tests/pytorch/check_loop_code.py)");
    addTrainOptions(*codeCmd, lc);
    codeCmd->add_option("--lang", lco.lang, "the comments' language, a code of the content's languages (en | fa)")->capture_default_str();
    codeCmd->add_option("--ranks", lco.ranks, "data-parallel ranks the code is for (the Lab's Ranks setting)")
        ->transform(decimal<int64_t>())
        ->capture_default_str();
    codeCmd->add_flag("--data-parallel", lco.dataParallel, "the form with model.no_sync(), whatever --ranks (the recipe's)");
    codeCmd->add_flag("--json", lco.json, "one JSON object: the variant, each line with its note and the statements that light it, the source");
    codeCmd->add_option("--record", lco.record,
                        "also run --num-steps windows on one rank (CPU) and write them to FILE as safetensors: parameters "
                        "before and after, the gradient buffers, the samples")
        ->check(aFile);

    DistFlags d;
    CLI::Option *worldOpt = nullptr;
    CLI::Option *eqWorldOpt = nullptr;
    CLI::Option *trainWorldOpt = nullptr;
    addDistOptions(app, d, worldOpt);
    settingsOpt->excludes(worldOpt); // the record's run names its world size
    addDistOptions(*eqCmd, d, eqWorldOpt);
    addDistOptions(*trainCmd, d, trainWorldOpt);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &ex) {
        return app.exit(ex);
    } catch (const CLI::CallForVersion &ex) {
        return app.exit(ex);
    } catch (const CLI::ParseError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitBadInput;
    }

    try {
        if (!parseOnOff(memoryCounter, "--memory-counter"))
            keepCpuMemoryCounterOff();
        // The main job's options belong before no subcommand: `--lr 0.5 equivalence` would
        // otherwise set the sweep's rate and run the check with its own, silently.
        const CLI::App *sub = nullptr;
        for (const CLI::App *c : {expCmd, oomCmd, tradeoffCmd, finderCmd, eqCmd, contentCmd, trainCmd, codeCmd})
            if (c->parsed())
                sub = c;
        if (sub)
            for (const CLI::Option *o : app.get_options())
                if (o->count() > 0)
                    throw UsageError(o->get_name() + " is an option of the main job, not of '" + sub->get_name() +
                                      "'; give '" + sub->get_name() + "' its own options after its name");
        const RunFlags &parsedRun = eqCmd->parsed()      ? e.run
                                    : trainCmd->parsed() ? t.run
                                    : codeCmd->parsed()  ? lc.run
                                                         : s.run;
        if (parsedRun.bug == "list") {
            // The stories are the content's (resources/content/bugs.json), as the window's list has them.
            std::cout << "--bug NAME plants one classic accumulation bug in the engine's window:\n";
            for (const std::string &name : accumBugNames()) {
                std::string padded = name;
                padded.resize(std::max<size_t>(padded.size() + 1, 22), ' ');
                std::cout << "  " << padded << bugStory(accumBugFromString(name)) << "\n";
            }
            std::cout << "The two teaching bugs keep their own switches: --scaling none (no division) and\n"
                         "--step-every-micro.\n";
            return 0;
        }
        if (contentCmd->parsed()) {
            const auto problems = validateContent(embeddedContent());
            for (const auto &p : problems)
                std::cout << p << "\n";
            std::cout << (problems.empty() ? "content: every text is complete in every language\n"
                                           : "content: " + std::to_string(problems.size()) + " problems\n");
            return problems.empty() ? 0 : 1;
        }
        if (gridCmd->parsed()) {
            if (grid.runs < 1)
                throw UsageError("--runs must be at least 1, got " + std::to_string(grid.runs));
            const VerdictGridResult r = runVerdictGrid(grid);
            std::cout << r.table();
            for (const std::string &miss : r.misses)
                std::cout << "miss: " << miss << "\n";
            std::cout << "verdict grid (seed " << grid.seed << ", " << grid.runs << " runs): " << r.falseFails
                      << " correct loops not holding, " << r.slipped << " planted bugs not failing\n";
            return r.falseFails == 0 && r.slipped == 0 ? 0 : kExitFails;
        }
        if (codeCmd->parsed())
            return runLoopCodeCommand(lc, lco);
        if (expCmd->parsed())
            return runExperimentCommand(x);
        if (oomCmd->parsed())
            return runOomDemoCommand(m);
        if (tradeoffCmd->parsed())
            return runTradeoffCommand(m);
        if (finderCmd->parsed())
            return runFinderCommand(m);
        if (!s.settings.empty() && !sub)
            d.worldSize = lessonOptions(s).sweep.base.worldSize;
        // A rank (torchrun's environment), a launcher of ranks, or one process.
        if (d.worldSize < 1 || d.worldSize > kMaxWorldSize)
            throw UsageError("--world-size must be between 1 and " + std::to_string(kMaxWorldSize) + ", got " +
                              std::to_string(d.worldSize));
        if (!(d.timeoutS > 0.0) || d.timeoutS > kMaxDistTimeoutS) // before any rank starts or a folder is made
            throw UsageError("--dist-timeout must be more than 0 and at most " + std::to_string(int(kMaxDistTimeoutS)) +
                             " seconds (a day)");
        if (auto rank = distributedOptionsFromEnv(d.timeoutS)) {
            const bool worldGiven =
                (eqCmd->parsed() ? eqWorldOpt : trainCmd->parsed() ? trainWorldOpt : worldOpt)->count() > 0;
            if (worldGiven && d.worldSize != rank->worldSize)
                throw UsageError("--world-size " + std::to_string(d.worldSize) + " disagrees with WORLD_SIZE=" +
                                  std::to_string(rank->worldSize));
            return runRank(*rank, eqCmd->parsed(), e, s, trainCmd->parsed() ? &t : nullptr);
        }
        if (d.worldSize > 1) {
            // Bad input is refused here, once, before any rank starts.
            if (eqCmd->parsed()) {
                equivalenceConfig(e, d.worldSize);
            } else if (trainCmd->parsed()) {
                trainConfig(t, d.worldSize);
            } else {
                LessonOptions o = lessonOptions(s);
                setWorld(o, d.worldSize);
                if (d.masterPort != 0)
                    requirePortFree("127.0.0.1", d.masterPort); // before the out-dir is created
                if (o.write)
                    requireWritableDir(o.outDir);
            }
            return launchRanks(d, argc, argv);
        }
        if (trainCmd->parsed())
            return runTrain(t, trainConfig(t, 1), nullptr, std::cout, std::cerr);
        if (eqCmd->parsed()) {
            const EquivalenceResult r = runEquivalence(equivalenceConfig(e));
            std::cout << toJson(r).dump(2) << std::endl;
            return reportEquivalence(r, std::cerr);
        }
        return runLessonJob(lessonOptions(s), "accumlab-cli", std::cout, std::cerr);
    } catch (const ConfigError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitBadInput;
    } catch (const UsageError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitBadInput;
    } catch (const CheckpointError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return checkpointExitCode(ex);
    } catch (const DistributedError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitDistributed;
    } catch (const ExportError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "; earlier exports were left as they were\n";
        return kExitWriteFailed;
    } catch (const std::exception &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitBadInput;
    }
}
