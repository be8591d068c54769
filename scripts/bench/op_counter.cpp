// Counts and times every LibTorch operator and autograd node a process runs: a library to
// preload into accumlab-cli (scripts/bench/ops_per_micro.py builds it against each build's
// LibTorch and reads what it writes). A measurement aid, never part of the apps.
//
// It registers one global RecordFunction callback (the hook LibTorch's own profiler uses), so
// every dispatcher call (scope FUNCTION: aten::addmm, nested ones such as aten::t inside
// aten::linear included) and every autograd node the engine runs (scope BACKWARD_FUNCTION:
// AddmmBackward0, ...) is seen once with its start and end. Per name it sums the calls, the
// inclusive time and the self time (inclusive minus the records nested inside it). The
// callback itself costs time and allocations, so the times are inflated; the counts are exact.
//
// Environment: ACCUMLAB_OPS_OUT, the JSON file written at exit (nothing is done without it);
// ACCUMLAB_OPS_DELAY_MS, records starting earlier than this after load are not tallied (the
// start-up and the equivalence check).
#include <ATen/record_function.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Tally {
    long long calls = 0;
    long long inclusiveNs = 0;
    long long selfNs = 0;
    bool node = false; // an autograd node (BACKWARD_FUNCTION), else an operator
};

struct Open {
    Clock::time_point start;
    long long childrenNs = 0;
    bool tallied = false;
};

std::mutex g_mutex;
std::map<std::string, Tally> *g_tallies = nullptr; // leaked: read at exit, after static destructors may run
Clock::time_point g_loaded;
long long g_delayNs = 0;
const char *g_out = nullptr;
thread_local std::vector<Open> t_stack;

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction &)
{
    const auto now = Clock::now();
    t_stack.push_back({now, 0, now - g_loaded >= std::chrono::nanoseconds(g_delayNs)});
    return nullptr;
}

void onEnd(const at::RecordFunction &fn, at::ObserverContext *)
{
    const auto now = Clock::now();
    if (t_stack.empty())
        return;
    const Open open = t_stack.back();
    t_stack.pop_back();
    const long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - open.start).count();
    if (!t_stack.empty())
        t_stack.back().childrenNs += ns;
    if (!open.tallied)
        return;
    std::lock_guard<std::mutex> lock(g_mutex);
    Tally &t = (*g_tallies)[fn.name()];
    ++t.calls;
    t.inclusiveNs += ns;
    t.selfNs += ns - open.childrenNs;
    t.node = fn.scope() == at::RecordScope::BACKWARD_FUNCTION;
}

void writeOut()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    std::FILE *f = std::fopen(g_out, "w");
    if (!f)
        return;
    std::fprintf(f, "{\"records\": [\n");
    bool first = true;
    for (const auto &[name, t] : *g_tallies) {
        std::fprintf(f, "%s  {\"name\": \"%s\", \"node\": %s, \"calls\": %lld, \"inclusive_ns\": %lld, \"self_ns\": %lld}",
                     first ? "" : ",\n", name.c_str(), t.node ? "true" : "false", t.calls, t.inclusiveNs, t.selfNs);
        first = false;
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
}

__attribute__((constructor)) void install()
{
    g_out = std::getenv("ACCUMLAB_OPS_OUT");
    if (!g_out || !*g_out)
        return;
    if (const char *d = std::getenv("ACCUMLAB_OPS_DELAY_MS"))
        g_delayNs = std::atoll(d) * 1000000LL;
    g_tallies = new std::map<std::string, Tally>();
    g_loaded = Clock::now();
    at::RecordFunctionCallback cb(&onStart, &onEnd);
    at::addGlobalCallback(cb.scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
    std::atexit(writeOut);
}

} // namespace
