// The test-only fault hooks (core/distributed/fault_hooks.h). ACCUMLAB_FAULT_HOOKS is defined for this
// file's own small library (core/CMakeLists.txt), so switching the option off for the package
// recompiles only this file, and the variables' names are then nowhere in the program.
#include "core/distributed/fault_hooks.h"

#include "core/distributed/distributed.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

namespace accumlab {

bool faultHooksCompiled()
{
#ifdef ACCUMLAB_FAULT_HOOKS
    return true;
#else
    return false;
#endif
}

FaultPlan FaultPlan::fromEnv()
{
    FaultPlan f;
#ifdef ACCUMLAB_FAULT_HOOKS
    const auto env = [](const char *name) -> const char * { return std::getenv(name); };
    if (const char *r = env("ACCUMLAB_FAULT_RANK")) {
        f.rank = envInt("ACCUMLAB_FAULT_RANK", r);
        f.after = env("ACCUMLAB_FAULT_AFTER") ? envInt("ACCUMLAB_FAULT_AFTER", env("ACCUMLAB_FAULT_AFTER")) : 0;
        const std::string mode = env("ACCUMLAB_FAULT_MODE") ? env("ACCUMLAB_FAULT_MODE") : "kill";
        f.mode = mode == "hang" ? FaultPlan::Hang : mode == "stop" ? FaultPlan::Stop : FaultPlan::Kill;
    }
#endif
    return f;
}

void faultKillAtMicro(int64_t microBatches, const char *point)
{
#ifdef ACCUMLAB_FAULT_HOOKS
    static const char *at = std::getenv("ACCUMLAB_FAULT_KILL_AT_MICRO");
    if (!at)
        return;
    static const int64_t n = envInt("ACCUMLAB_FAULT_KILL_AT_MICRO", at);
    static const std::string where = std::getenv("ACCUMLAB_FAULT_KILL_POINT") ? std::getenv("ACCUMLAB_FAULT_KILL_POINT") : "after-micro";
    if (microBatches == n && where == point)
        ::raise(SIGKILL);
#else
    (void)microBatches;
    (void)point;
#endif
}

void FaultPlan::strike() const
{
    if (mode == Kill)
        ::raise(SIGKILL);
    if (mode == Stop)
        ::raise(SIGSTOP); // as `kill -STOP`: the process stays, answers nothing
    for (;;)
        std::this_thread::sleep_for(std::chrono::hours(1));
}

} // namespace accumlab
