// Data-parallel ranks: how a process learns its rank, joins the others, and how one
// accumlab-cli starts N ranks on this machine.
//
// A rank reads torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// GROUP_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_*) or Slurm's (SLURM_PROCID, SLURM_NTASKS,
// SLURM_LOCALID), meets the others through a c10d TCPStore (torchrun's agent store where
// torchrun says so, else one rank 0 serves on MASTER_ADDR's interface only) and all-reduces
// over a c10d process group (Gloo on CPU; NCCL on CUDA where LibTorch was built with it).
// The collectives are LibTorch's own: nothing here moves gradients over home-made sockets.
// Every wait is bounded by a timeout, so a rank that dies or hangs turns into an error on
// the others, never a hang.
//
// Plain C++ (no torch, no Qt): the desktop app's worker includes this header. Its room is
// core/distributed/: process_group.cpp (a rank's options, the c10d sync), launcher.cpp
// (starting ranks on this machine), local_sweep.cpp (the window's sweep on rank processes).
#pragma once

#include "core/config.h"
#include "core/observer.h"
#include "core/sweep.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace accumlab {

class GradSync;

// A rendezvous, collective or launch failure; the message is one sentence that names the rank.
// Coded like every core error, except the ranks' own report of a failed multi-rank run
// (LaunchResult::failure: their stderr lines, as they came), which the sentence form carries.
class DistributedError : public CodedError {
public:
    using CodedError::CodedError;
    explicit DistributedError(const std::string &sentence)
        : CodedError("plain/sentence", TextArgs{{}, {{"sentence", sentence}}})
    {
    }
};

// What a process group has issued: all-reduces, the bytes they carried, the time spent in them.
struct SyncStats {
    int64_t collectives = 0;
    int64_t bytes = 0;
    double ms = 0.0; // wall time from issuing each all-reduce to its completion, division included
    SyncStats operator-(const SyncStats &before) const
    {
        return {collectives - before.collectives, bytes - before.bytes, ms - before.ms};
    }
    SyncStats operator+(const SyncStats &more) const
    {
        return {collectives + more.collectives, bytes + more.bytes, ms + more.ms};
    }
};

// Default bound on every rendezvous and collective wait.
constexpr double kDefaultDistTimeoutS = 30.0;
// torchrun's default rendezvous port.
constexpr int kDefaultMasterPort = 29500;

struct DistributedOptions {
    int64_t rank = 0;
    int64_t worldSize = 1;
    int64_t localRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = kDefaultMasterPort;
    double timeoutS = kDefaultDistTimeoutS;
    bool cuda = false; // the gradients live on CUDA: NCCL where compiled in, Gloo otherwise
    // The settings every rank must share, as a flat JSON object (CLI option name -> value).
    // Compared at rendezvous before any collective; a difference is refused (ConfigError).
    std::string settings = "{}";
    // Keys of this launch in the store: ranks of another launch on the same port never meet
    // these. The launcher sets ACCUMLAB_RUN_ID (torchrun's TORCHELASTIC_RUN_ID and Slurm's job
    // and step also count).
    std::string runId = "default";
    // The ranks on this node and this node's index (torchrun's LOCAL_WORLD_SIZE, GROUP_RANK).
    int64_t localWorldSize = 1;
    int64_t groupRank = 0;
    // torchrun's agent serves the store at MASTER_ADDR:MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE):
    // every rank joins it as a client, under a namespace of its own restart attempt, as PyTorch's
    // env:// rendezvous does. A build whose LibTorch cannot speak the agent's protocol (1.x's
    // TCPStore against torchrun 2.x's) has rank 0 serve a store of its own on MASTER_PORT + 1.
    bool agentStore = false;
    int64_t restartCount = 0; // TORCHELASTIC_RESTART_COUNT: which attempt of the group this is
    // Where rank 0's store listens: "" chooses (a loopback MASTER_ADDR: that loopback address
    // only; else MASTER_ADDR's own interface), an address names one, and kStoreBindAny is every
    // interface, only when asked for in so many words (ACCUMLAB_STORE_BIND=any).
    std::string storeBind;
    // Called (from any thread) when a wait passes its bound although the library did not
    // return, or when an exception escapes one of LibTorch's threads: the message is one
    // sentence. Must not return; when null (or when it returns) the process writes the
    // message to stderr and exits with kExitDistributed.
    void (*onFatal)(const std::string &message) = nullptr;
    // Called once, on this rank's thread, as a rank other than 0 first knocks at the
    // rendezvous (where it waits, until rank 0 serves it, for up to its timeout): one sentence
    // naming where and for how long. Null: it waits in silence.
    void (*onWaiting)(const std::string &message) = nullptr;
};

// Throws ConfigError naming the first bad field (rank outside [0, world), port, timeout).
void validate(const DistributedOptions &);

// ACCUMLAB_STORE_BIND's word for every interface.
inline constexpr const char *kStoreBindAny = "any";

// Reads torchrun's environment (runId from ACCUMLAB_RUN_ID or TORCHELASTIC_RUN_ID), else
// Slurm's (RANK from SLURM_PROCID, WORLD_SIZE from SLURM_NTASKS, LOCAL_RANK from SLURM_LOCALID,
// runId from SLURM_JOB_ID and SLURM_STEP_ID). nullopt when neither names a rank; ConfigError
// when RANK is set without WORLD_SIZE or the other way round, a value does not parse, or a
// Slurm job on several nodes has no MASTER_ADDR. MASTER_ADDR defaults to 127.0.0.1,
// MASTER_PORT to 29500, LOCAL_RANK to RANK, LOCAL_WORLD_SIZE to WORLD_SIZE, GROUP_RANK to 0;
// ACCUMLAB_STORE_BIND sets storeBind.
std::optional<DistributedOptions> distributedOptionsFromEnv(double timeoutS = kDefaultDistTimeoutS);

// Where rank 0's store listens for these options: an address, or kStoreBindAny.
std::string storeBindAddress(const DistributedOptions &);
// The port the ranks' store is at: MASTER_PORT, or MASTER_PORT + 1 where this build's LibTorch
// cannot join torchrun's agent store (agentStore set, LibTorch 1.x).
int storePort(const DistributedOptions &);
// Whether every rank joins torchrun's agent store as a client (agentStore set and this
// build's LibTorch speaks its protocol).
bool joinsAgentStore(const DistributedOptions &);

// The whole number `text` that environment variable `name` holds; ConfigError
// "distributed/env-not-whole" naming both otherwise.
int64_t envInt(const char *name, const std::string &text);

// Rendezvous (rank 0 serves the TCPStore), the settings check and the process group. Blocks
// until all worldSize ranks have joined or the timeout passes: the whole rendezvous has one
// deadline, and a watchdog ends the process (onFatal) when a library wait overstays it (a
// stopped rank 0, a port that accepts and never answers). Throws DistributedError; throws
// ConfigError when GLOO_SOCKET_IFNAME names no interface or the ranks' settings differ.
// Every exception escaping a LibTorch thread afterwards goes to onFatal, not to terminate.
std::shared_ptr<GradSync> joinProcessGroup(const DistributedOptions &options);

// Collectives issued so far by a process group (zero for a single process).
SyncStats syncStats(const GradSync &sync);

// A free TCP port on `addr`, found by binding port 0. Throws DistributedError.
int pickFreePort(const std::string &addr = "127.0.0.1");
// Throws ConfigError when `port` on `addr` cannot be bound (busy or reserved).
void requirePortFree(const std::string &addr, int port);

struct LaunchOptions {
    int64_t worldSize = 2;
    int masterPort = 0;                  // 0: pick a free one
    double timeoutS = kDefaultDistTimeoutS;
    std::filesystem::path logDir;        // empty: ranks inherit stdout/stderr; else rank-R.log there
};

struct LaunchResult {
    int exitCode = 0;         // the first failing rank's exit code (3 for a signal), else 0
    int64_t failedRank = -1;  // the rank to blame: one that died or stopped answering, when the
                              // rank that gave up reported a peer that did not answer
    std::string failure;      // one sentence when a rank failed, "" otherwise
    // The failure as a code of errors/distributed.json and its arguments, where it has one (a
    // launched accumlab-cli's; a rank's failure is the sentence alone): "" otherwise.
    std::string failureCode;
    TextArgs failureArgs;
};

// The longest a rank may be told to wait for its peers (--dist-timeout): a day.
constexpr double kMaxDistTimeoutS = 24 * 3600.0;

// Exit code of a rank that failed on rendezvous or a collective, and of a rank that died.
constexpr int kExitDistributed = 3;

// The first key whose value differs between two flat JSON settings objects, in a sentence
// naming both ranks' values ("--seed 7 on rank 1, --seed 42 on rank 0"); "" when they agree.
std::string settingsDifference(const std::string &mine, int64_t myRank, const std::string &theirs,
                               int64_t theirRank);

// Starts worldSize copies of `exe args...` on loopback with torchrun's environment set
// (MASTER_ADDR=127.0.0.1) and a fresh ACCUMLAB_RUN_ID, waits for them and returns how they ended. When one rank fails,
// the others are stopped (SIGTERM, then SIGKILL after a grace period). When `cancel` is set
// every rank is stopped and Cancelled is thrown. Ranks die with the launcher
// (PR_SET_PDEATHSIG). Throws ConfigError for a busy port, DistributedError when a rank
// cannot be started.
LaunchResult launchLocalRanks(const std::filesystem::path &exe, const std::vector<std::string> &args,
                              const LaunchOptions &options, const CancelToken *cancel = nullptr);

// The file in a viewer's work folder that hands the sweep's settings to the ranks.
inline constexpr const char *kSweepSettingsFileName = "sweep-settings.json";

// For a viewer (the desktop app's worker): runs the sweep on config.base.worldSize local ranks
// as child processes of `cli` (accumlab-cli --settings workDir/sweep-settings.json, whose
// record, sweepSettingsJson in core/io/export.h, carries every setting), rank 0 writing into
// `workDir`, and returns the
// points rank 0 wrote, with their all-reduce counters. Blocks; checks `cancel` every 50 ms and
// throws Cancelled after stopping the ranks. observer->onSweepPoint is called for each point
// once all are done. Throws DistributedError with the failing rank's last error line.
SweepResult runSweepOnLocalRanks(const std::filesystem::path &cli, const SweepConfig &config,
                                 const std::filesystem::path &workDir, double timeoutS = kDefaultDistTimeoutS,
                                 EngineObserver *observer = nullptr, const CancelToken *cancel = nullptr);

} // namespace accumlab
