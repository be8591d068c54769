// What the commands share (common.h): the flag table, the decimal numbers, the flags of the
// memory commands and of `train`/`loop-code`, the rank path, and the one exit-code mapping.
#include "app/cli/commands/common.h"

#include "app/cli/cli.h"

#include "core/io/checkpoint.h"
#include "core/content/content.h"
#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/io/export.h"
#include "core/lesson.h"
#include "core/content/loop_code.h"
#include "core/memory/memory_lab.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <regex>
#include <type_traits>

namespace accumlab::cli {

int exitCodeOfCurrentError(std::ostream &err, const std::string &who, int otherwise)
{
    const char *const prefix = "accumlab-cli: error: ";
    try {
        throw;
    } catch (const ConfigError &ex) {
        err << prefix << who << ex.what() << "\n";
        return kExitBadInput;
    } catch (const UsageError &ex) {
        err << prefix << who << ex.what() << "\n";
        return kExitBadInput;
    } catch (const CheckpointError &ex) {
        // A checkpoint that could not be written is an export that failed (exit 4, as a full
        // disk at the end of the main job), and so is one whose generation is a link on resume
        // (the same refusal as the write's); one that cannot be read or belongs to another run
        // is bad input.
        err << prefix << who << ex.what() << "\n";
        return ex.code().rfind("checkpoint/write-failed", 0) == 0 || ex.code() == "checkpoint/resume-link"
                   ? kExitWriteFailed
                   : kExitBadInput;
    } catch (const DistributedError &ex) {
        err << prefix << ex.what() << "\n";
        return kExitDistributed;
    } catch (const ExportError &ex) {
        err << prefix << ex.what() << "; earlier exports were left as they were\n";
        return kExitWriteFailed;
    } catch (const std::exception &ex) {
        err << prefix << ex.what() << "\n";
        return otherwise;
    }
}

template <class T>
CLI::Validator decimal()
{
    return CLI::Validator(
        [](std::string &text) -> std::string {
            const char *first = text.data(), *last = text.data() + text.size();
            if constexpr (std::is_floating_point_v<T>) {
                static const std::regex kReal(R"([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
                if (!std::regex_match(text, kReal))
                    return "'" + text + "' is not a decimal number";
                first += text[0] == '+'; // from_chars takes no '+'
                double v = 0.0;
                const auto [end, ec] = std::from_chars(first, last, v); // locale-free
                if (ec != std::errc() || end != last || !std::isfinite(v))
                    return "'" + text + "' is out of range";
                // A setting the run's float32 tensors take (the clip norm, the learning rate):
                // 1e300 once reached LibTorch and came back in c10's words, naming no option.
                if (std::abs(v) > double(std::numeric_limits<T>::max()))
                    return "'" + text + "' is out of range (at most 3.4e38, float32's largest)";
            } else {
                T v{};
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
template CLI::Validator decimal<int>();
template CLI::Validator decimal<int64_t>();
template CLI::Validator decimal<uint64_t>();
template CLI::Validator decimal<double>();
template CLI::Validator decimal<float>();

bool parseOnOff(const std::string &s, const char *option)
{
    if (s == "on")
        return true;
    if (s == "off")
        return false;
    throw UsageError(std::string(option) + " takes on or off, got '" + s + "'");
}

CLI::Validator aFolder()
{
    return CLI::Validator([](std::string &v) { return v.empty() ? std::string("needs a folder, got ''") : std::string(); },
                          "FOLDER");
}

CLI::Validator aFile()
{
    return CLI::Validator([](std::string &v) { return v.empty() ? std::string("needs a file name, got ''") : std::string(); },
                          "FILE");
}

std::string gridText(const std::vector<int64_t> &grid)
{
    std::string text;
    for (const int64_t v : grid)
        text += (text.empty() ? "" : ",") + std::to_string(v);
    return text;
}

// ---- The run's settings ------------------------------------------------------------------------

RunFlags::RunFlags(const AccumConfig &base)
    : config(base), model(toString(base.preset)), optimizer(toString(base.optimizer.kind)),
      scaling(toString(base.scaling)), bug(toString(base.bug)), noSync(base.noSync ? "on" : "off"),
      dtype(toString(base.dtype)), scalerBug(toString(base.lossScaler.bug)), device(toString(base.device)),
      labels(toString(base.labels))
{
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
CLI::Option *addRunOption(CLI::App &cmd, RunFlags &f, RunOption row, const char *help)
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
        return cmd.add_option("--lr", c.optimizer.lr, words("learning rate"))->transform(decimal<float>())->capture_default_str();
    case RunOption::LrWarmup:
        return cmd.add_option("--lr-warmup", c.optimizer.lrWarmup,
                              words("warm the learning rate up linearly over this many updates (0 = off)"))
            ->transform(decimal<int64_t>())->capture_default_str();
    case RunOption::ClipNorm:
        return cmd.add_option("--clip-norm", c.optimizer.clipNorm,
                              words("clip the window's gradient to this L2 norm before the step (0 = off)"))
            ->transform(decimal<float>())->capture_default_str();
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

int printBugList()
{
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

// ---- What several commands take alike ---------------------------------------------------------

MemoryFlags::MemoryFlags()
    : run([] {
          AccumConfig c = TradeoffConfig{}.lab.base;
          c.microBatch = kLessonFailsAfterSamples;
          return c;
      }()),
      effectiveBatch(TradeoffConfig{}.lab.effectiveBatch), failsAfter(kLessonFailsAfterSamples)
{
}

void MemoryFlags::addOptions(CLI::App &cmd)
{
    using R = RunOption;
    addRunOptions(cmd, run, {R::Model, R::Device, R::Optimizer, R::Lr, R::Seed});
    cmd.add_option("--dtype", run.dtype, "float32 | float64 | bfloat16")->capture_default_str();
    cmd.add_option("--effective-batch", effectiveBatch, "samples per optimizer step, over all ranks")
        ->transform(decimal<int64_t>())
        ->capture_default_str();
    cmd.add_option("--world-size", run.config.worldSize, "ranks the effective batch is split over (one is measured)")
        ->transform(decimal<int64_t>())
        ->capture_default_str();
    cmd.add_option("--budget", budget, "memory budget in bytes, above what is allocated when a run starts")
        ->transform(decimal<int64_t>())
        ->each([this](const std::string &) { budgetGiven = true; });
    cmd.add_option("--fails-after", failsAfter,
                   "the budget measured so that this many samples per micro-batch fit and the next micro-batch "
                   "that divides the effective batch does not (ignored with --budget)")
        ->transform(decimal<int64_t>())
        ->capture_default_str();
    cmd.add_flag("--json", json, "print one JSON object");
}

MemoryLabConfig MemoryFlags::lab() const
{
    MemoryLabConfig lab;
    lab.base = run.toConfig(run.config.worldSize);
    lab.effectiveBatch = effectiveBatch;
    if (budgetGiven)
        lab.budgetBytes = budget;
    else if (!noBudget) {
        // 0 would silently mean no budget (a trade-off run without one, the demo at 32).
        if (failsAfter < 1)
            throw UsageError("--fails-after must be at least 1 sample, got " + std::to_string(failsAfter) +
                             "; --no-budget runs without a budget");
        lab.failsAfterSamples = failsAfter;
    }
    validate(lab);
    return lab;
}

TrainFlags::TrainFlags()
    : run(teachingDefaults())
{
}

void TrainFlags::addOptions(CLI::App &cmd)
{
    using R = RunOption;
    cmd.add_option("--num-steps", plan.numSteps, "windows (effective steps) to train")->transform(decimal<int64_t>())->capture_default_str();
    addRunOptions(cmd, run, {R::MicroBatch, R::AccumSteps, R::Model, R::Hidden, R::Optimizer, R::Lr, R::LrWarmup,
                             R::ClipNorm, R::Bug, R::NoSync, R::Dtype, R::LossScaling, R::ScalerBug,
                             R::ScalerGrowthInterval, R::Device, R::Labels, R::Seed, R::Scaling, R::StepEveryMicro});
}

AccumConfig TrainFlags::config(int64_t worldSize) const
{
    const AccumConfig c = run.toConfig(worldSize);
    if (plan.numSteps < 1 || plan.numSteps > kMaxNumSteps) // steps x accum_steps must not overflow
        throw UsageError("--num-steps must be between 1 and " + std::to_string(kMaxNumSteps) + ", got " +
                         std::to_string(plan.numSteps));
    if (plan.checkpointEvery < 0)
        throw UsageError("--checkpoint-every-micro must be 0 (only at the end) or positive");
    if (plan.checkpointEvery > 0 && plan.checkpoint.empty())
        throw UsageError("--checkpoint-every-micro needs --checkpoint DIR");
    if (plan.autoResume && plan.checkpoint.empty())
        throw UsageError("--auto-resume needs --checkpoint DIR (the folder it continues from when it holds a checkpoint)");
    if (plan.autoResume && !plan.resume.empty())
        throw UsageError("--auto-resume continues from --checkpoint's folder: leave --resume out");
    return c;
}

// ---- The rank path ---------------------------------------------------------------------------

std::string optionOf(std::string key)
{
    std::replace(key.begin(), key.end(), '_', '-');
    return "--" + key;
}

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

namespace {

[[noreturn]] void exitNow(int code)
{
    // A rank leaves without running destructors: after a failed collective the process
    // group's threads may still wait on a dead peer.
    code = checkStdout(code);
    std::cerr.flush();
    std::_Exit(code);
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
// the job; rank 0 prints and writes, and its exit code is the job's (the others stay quiet).
[[noreturn]] void runRank(DistributedOptions d, const std::function<RankJob(int64_t world)> &jobFor)
{
    std::ostream quiet(nullptr);
    const std::string who = "rank " + std::to_string(d.rank) + ": ";
    // The group outlives a refusal's unwinding: its sockets close only when this process exits,
    // after its sentence is written, so a peer that waits for it to leave (a refused checkpoint)
    // speaks second.
    std::shared_ptr<GradSync> sync;
    try {
        const RankJob job = jobFor(d.worldSize);
        d.cuda = job.device.rfind("cuda", 0) == 0;
        if (d.cuda)
            setCudaDeviceIndex(static_cast<int>(d.localRank)); // a GPU of its own: cuda:LOCAL_RANK
        d.settings = job.settings;
        d.onFatal = &rankFatal;
        d.onWaiting = d.runId == "default" ? &rankWaiting : nullptr;
        const bool lead = d.rank == 0;
        sync = joinProcessGroup(d);
        const int code = job.run(sync, lead ? std::cout : quiet, lead ? std::cerr : quiet);
        exitNow(lead ? code : 0);
    } catch (const std::exception &) {
        exitNow(exitCodeOfCurrentError(std::cerr, who, kExitDistributed));
    }
}

// Starts `world` ranks of this program with the same arguments and waits for them.
int launchRanks(const LaunchOptions &lo, const Invocation &invocation)
{
    const LaunchResult r = launchLocalRanks(std::filesystem::read_symlink("/proc/self/exe"),
                                            {invocation.argv + 1, invocation.argv + invocation.argc}, lo);
    // Rank 0's verdicts ("does not hold", "diverged", a planted bug shown or without effect) are
    // ones it already explained, not failures of the ranks.
    if (r.exitCode != 0 && !(isVerdictExitCode(r.exitCode) && r.failedRank == 0))
        std::cerr << "accumlab-cli: error: " << r.failure << "\n";
    return r.exitCode;
}

} // namespace

void RankedCommand::addDistOptions(CLI::App &cmd)
{
    m_worldSize = AccumConfig{}.worldSize;
    m_timeoutS = kDefaultDistTimeoutS;
    m_worldOption = cmd.add_option("--world-size", m_worldSize, "data-parallel ranks started on this machine (1 to 64)")
                        ->transform(decimal<int64_t>())
                        ->capture_default_str();
    cmd.add_option("--master-port", m_masterPort, "rendezvous port on 127.0.0.1 (default: a free one)")->transform(decimal<int>());
    cmd.add_option("--dist-timeout", m_timeoutS, "seconds a rank waits for its peers before failing")->transform(decimal<double>())
        ->capture_default_str();
}

int RankedCommand::runAlone() { return rankJob(1).run(nullptr, std::cout, std::cerr); }

int RankedCommand::run(const Invocation &invocation)
{
    prepare();
    // A rank (torchrun's environment), a launcher of ranks, or one process.
    if (m_worldSize < 1 || m_worldSize > kMaxWorldSize)
        throw UsageError("--world-size must be between 1 and " + std::to_string(kMaxWorldSize) + ", got " +
                         std::to_string(m_worldSize));
    if (!(m_timeoutS > 0.0) || m_timeoutS > kMaxDistTimeoutS) // before any rank starts or a folder is made
        throw UsageError("--dist-timeout must be more than 0 and at most " + std::to_string(int(kMaxDistTimeoutS)) +
                         " seconds (a day)");
    if (auto rank = distributedOptionsFromEnv(m_timeoutS)) {
        if (m_worldOption->count() > 0 && m_worldSize != rank->worldSize)
            throw UsageError("--world-size " + std::to_string(m_worldSize) + " disagrees with WORLD_SIZE=" +
                             std::to_string(rank->worldSize));
        checkRank(*rank);
        runRank(*rank, [this](int64_t world) { return rankJob(world); });
    }
    if (m_worldSize > 1) {
        checkBeforeLaunch(m_worldSize); // bad input is refused here, once, before any rank starts
        LaunchOptions lo;
        lo.worldSize = m_worldSize;
        lo.masterPort = m_masterPort;
        lo.timeoutS = m_timeoutS;
        return launchRanks(lo, invocation);
    }
    return runAlone();
}

} // namespace accumlab::cli
