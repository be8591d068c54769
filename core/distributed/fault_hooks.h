// Test-only fault hooks: environment variables (ACCUMLAB_FAULT_*) that make a process kill,
// stop or hang itself at a chosen point, so the tests can show that the others notice in
// time. They exist only in a build configured with ACCUMLAB_FAULT_HOOKS=ON (the build the
// tests run, the default); the package is built with it OFF (scripts/package.sh), and there
// the variables are not even read. Not for: anything a user would set.
//
// Every hook is read in FaultPlan::fromEnv(), the one function compiled in or out; a new hook
// is a field here and a line there. Plain C++ (no torch, no Qt).
#pragma once

#include <cstdint>

namespace accumlab {

// Whether this build carries the hooks (ACCUMLAB_FAULT_HOOKS).
bool faultHooksCompiled();

// Read from the environment at construction of a process group:
//   ACCUMLAB_FAULT_RANK=r, ACCUMLAB_FAULT_AFTER=k, ACCUMLAB_FAULT_MODE=kill|hang|stop
// makes rank r SIGKILL itself (kill), stop answering (hang) or SIGSTOP itself (stop) before
// its (k+1)-th all-reduce; k = -1 strikes at the rendezvous before the store is reached,
// k = -2 once the store is up (rank 0 serving it) but before the ranks' settings are compared.
// Unset (or a build without the hooks), rank stays -1 and nothing changes.
struct FaultPlan {
    enum Mode { Kill, Hang, Stop };
    int64_t rank = -1;
    int64_t after = 0;
    Mode mode = Kill;
    // Throws ConfigError ("distributed/env-not-whole") for a value that is not a whole number.
    static FaultPlan fromEnv();
    void strike() const; // does not return while the process runs on (Stop returns on SIGCONT)
};

// A second hook, for kill-and-resume: with ACCUMLAB_FAULT_KILL_AT_MICRO=N the
// process ends itself with SIGKILL when `microBatches` == N at `point`, which is
// ACCUMLAB_FAULT_KILL_POINT ("after-micro", the default: right after micro-batch N and its
// checkpoint; "mid-checkpoint": the rank's file of that checkpoint written, the checkpoint not yet
// made the latest). Kill-and-resume tests stop a run at an exact micro-batch with it.
void faultKillAtMicro(int64_t microBatches, const char *point);

} // namespace accumlab
