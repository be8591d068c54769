// What accumlab-cli's commands share, below them all: the refusal of a flag (UsageError), the
// decimal numbers, the table of the run's settings (RunFlags), the flags that two or three
// commands take alike (the memory commands', `train`'s and `loop-code`'s), the Command each
// file implements, the rank path of the commands that run over ranks (RankedCommand), and the
// one mapping from an error to its line and exit code. The dispatcher (app/cli/cli.cpp) and the
// commands include this; this includes no command, so nothing here reaches back up.
#pragma once

#include "core/config.h"
#include "core/lesson.h"
#include "core/training.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
} // namespace CLI

namespace accumlab {
class GradSync;
struct DistributedOptions;
struct MemoryLabConfig;
} // namespace accumlab

namespace accumlab::cli {

// The CLI's refusals of its own flags, in English as the CLI speaks (exit 2, like core's
// ConfigError, whose refusals are coded for every language: core/content/errors.h).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The exit code of the error being handled (call it inside a catch block of std::exception),
// after its one line on `err`: "accumlab-cli: error: <who><what>". The one mapping for every
// path: a refused setting or flag is kExitBadInput, a checkpoint that could not be written or an
// export kExitWriteFailed (the earlier exports kept), a lost or failed rank kExitDistributed,
// and anything else `otherwise` (bad input for a command: LibTorch refusing a setting; a failed
// collective for a rank). `who` ("rank 1: ") names a rank in the refusals of its input.
int exitCodeOfCurrentError(std::ostream &err, const std::string &who = {}, int otherwise = kExitBadInput);

// Numbers on the command line are decimal, read one way everywhere. CLI11 reads integers with
// base 0 (010 would be 8 and 0x10 16) and strtod takes hex floats, inf and nan; this transform
// refuses anything but plain decimal before CLI11 converts it, strips leading zeros, and
// refuses what does not fit the option's type instead of letting it clamp. For int, int64_t,
// uint64_t and double.
template <class T>
CLI::Validator decimal();

// "on" or "off"; else a UsageError naming `option`.
bool parseOnOff(const std::string &s, const char *option = "--no-sync");

// An empty name for an option that takes one would mean a run that saves nothing or starts
// afresh, silently: --checkpoint and --resume take aFolder(), the files aFile().
CLI::Validator aFolder();
CLI::Validator aFile();

// 1,2,4 from {1, 2, 4}.
std::string gridText(const std::vector<int64_t> &grid);

// ---- The run's settings: one table ----------------------------------------------------------
// Every setting of one engine run (AccumConfig) that the command line takes is declared once
// (addRunOption): its flag, its help and the field it sets. Each command picks the rows it
// takes (the main job sweeps accum_steps and has no --accum-steps; `equivalence` gives its
// micro-batch as --big-batch), starting from its own defaults, which are core's (the config
// structs' own, never restated here; tests compare --help with core), and RunFlags::toConfig
// is the one mapping from the flags to the config. What the ranks of a job compare comes from
// toJson(AccumConfig) (rankSettings below), so neither list can miss a setting.
struct RunFlags {
    AccumConfig config; // numbers and switches are bound to its fields directly
    std::string model, optimizer, scaling, bug, noSync, dtype, scalerBug, device, labels;
    int64_t hidden = 0; // 0: the preset's hidden width

    explicit RunFlags(const AccumConfig &base);
    // The flags as a run's settings on `worldSize` ranks; throws ConfigError or UsageError.
    AccumConfig toConfig(int64_t worldSize) const;
    // `--bug list`: the command prints the planted bugs' stories instead of running.
    bool listsBugs() const { return bug == "list"; }
};

enum class RunOption {
    Model, Hidden, MicroBatch, AccumSteps, Optimizer, Lr, LrWarmup, ClipNorm, Scaling, StepEveryMicro, Bug,
    NoSync, Dtype, LossScaling, ScalerBug, ScalerGrowthInterval, Device, Labels, Seed
};

// One row of the table, added to `cmd` bound to `f`. `help` replaces the row's words where a
// command means something narrower by it (the memory commands' micro-batch).
CLI::Option *addRunOption(CLI::App &cmd, RunFlags &f, RunOption row, const char *help = nullptr);
std::vector<CLI::Option *> addRunOptions(CLI::App &cmd, RunFlags &f, std::initializer_list<RunOption> rows);

// `--bug list`: every planted bug with its story (the content's, as the window's list has them).
int printBugList();

// ---- What several commands take alike -------------------------------------------------------

// The memory commands (oom-demo, tradeoff, find-micro-batch): MemoryLabConfig, TradeoffConfig.
struct MemoryFlags {
    // The run measured: --micro-batch is oom-demo's with --budget (else --fails-after's), the
    // micro-batch the lesson's accelerator still fits.
    RunFlags run;
    int64_t effectiveBatch = 0;
    int64_t budget = 0; // bytes; set when --budget was given
    bool budgetGiven = false;
    int64_t failsAfter = 0; // the lesson's "fails after 32 samples"
    bool noBudget = false;  // tradeoff: no wall
    bool json = false;
    MemoryFlags();
    // The options the three commands share.
    void addOptions(CLI::App &cmd);
    // The lab's settings; throws ConfigError or UsageError.
    MemoryLabConfig lab() const;
};

// The settings of one engine run as `train` and `loop-code` take them: core's defaults
// (AccumConfig) with a window of several micro-batches (the run a checkpoint can cut inside).
struct TrainFlags {
    RunFlags run;
    TrainingPlan plan; // --num-steps, the checkpoints, --resume, --export-model
    TrainFlags();
    void addOptions(CLI::App &cmd);
    // The run on `worldSize` ranks, its plan checked; throws ConfigError or UsageError.
    AccumConfig config(int64_t worldSize) const;
};

// ---- A command --------------------------------------------------------------------------------

// What the dispatcher hands a command: the program's arguments (the launcher starts the ranks
// with them).
struct Invocation {
    int argc = 0;
    char **argv = nullptr;
};

// One command of accumlab-cli, one file each in app/cli/commands/. The main job declares its
// options on the program itself; every other command is a subcommand.
class Command {
public:
    virtual ~Command() = default;
    // Declares the command and its options; returns the subcommand (the program for the main job).
    virtual CLI::App *declare(CLI::App &program) = 0;
    // Runs the parsed command: its exit code, or an exception for exitCodeOfCurrentError.
    virtual int run(const Invocation &invocation) = 0;
};

// ---- Commands whose job runs over ranks (the main job, equivalence, train) ---------------------

// One rank's job: what it compares with its peers at the rendezvous, its device, and the work.
struct RankJob {
    std::string settings; // rankSettings(...)
    std::string device;   // resolveDevice's answer: "cpu" or "cuda:N"
    // Runs the job with this rank's process group (nullptr: one process alone); rank 0 prints
    // on `out` and `err`, the others get streams that print nothing.
    std::function<int(std::shared_ptr<GradSync> sync, std::ostream &out, std::ostream &err)> run;
};

// A command that runs in this process, over ranks it launches on this machine (--world-size N:
// this program started again N times with torchrun's environment), or as one rank of a launch
// (started with RANK and WORLD_SIZE set: by the launcher, torchrun or by hand). A rank that
// fails to meet its peers or loses one mid-run ends with kExitDistributed.
class RankedCommand : public Command {
public:
    int run(const Invocation &invocation) override;

protected:
    // --world-size, --master-port, --dist-timeout on `cmd`.
    void addDistOptions(CLI::App &cmd);
    // The command's own work before the ranks' (the main job's --settings names the world size).
    virtual void prepare() {}
    // Refuses bad input for `world` ranks once, before any rank starts (throws).
    virtual void checkBeforeLaunch(int64_t world) = 0;
    // Refuses what this rank's launcher says (its parsed environment) before the rank meets its
    // peers (throws): train refuses a restarted group it cannot continue.
    virtual void checkRank(const DistributedOptions &) {}
    // The job of one rank of `world` (1: this process alone); throws on bad input.
    virtual RankJob rankJob(int64_t world) = 0;
    // The job in this process alone: rankJob(1) without a process group, unless overridden.
    virtual int runAlone();

    int64_t m_worldSize = 1; // --world-size (1: no ranks)
    int m_masterPort = 0;    // 0: a free port
    double m_timeoutS = 0;   // --dist-timeout
    CLI::Option *m_worldOption = nullptr;
};

// What the ranks of one job must share, as a flat JSON object of option names ("--seed") and
// values, compared at the rendezvous in this order (the first difference is named), so a rank
// started with another seed or width is refused before any collective. `job` holds the
// command's own options first; every setting of the run follows from core's one record of it,
// toJson(AccumConfig), so a new setting cannot be left out here. Options only rank 0 uses
// (--out-dir, --no-write, --export-model) and --threads (speed only) are left out.
std::string rankSettings(nlohmann::ordered_json job, const AccumConfig &config);
// A key of core's records as the option that sets it: "accum_grid" -> "--accum-grid".
std::string optionOf(std::string key);

} // namespace accumlab::cli
