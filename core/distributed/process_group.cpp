// Data-parallel ranks over LibTorch's c10d: a rank's options from torchrun's environment, and
// C10dSync, a c10d::TCPStore for rendezvous (rank 0 serves it), then a c10d process group:
// ProcessGroupGloo for CPU tensors, ProcessGroupNCCL for CUDA tensors when LibTorch was
// built with it (USE_C10D_NCCL). One all-reduce per sync of the one flat gradient buffer.
// Not here: starting ranks (core/distributed/launcher.cpp) and the window's sweep on them
// (core/distributed/local_sweep.cpp).
#include "core/distributed/distributed.h"

#include "core/device.h"
#include "core/distributed/c10d_sync.h"

#include <nlohmann/json.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#ifdef C10_USE_GLOG
#include <glog/logging.h>
#endif

#include <arpa/inet.h>
#include <atomic>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <exception>
#include <fstream>
#include <mutex>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

// The watchdog gives a library wait this long past its deadline to time out by itself.
constexpr auto kWatchdogSlack = std::chrono::milliseconds(500);

bool contains(const std::string &s, const char *needle) { return s.find(needle) != std::string::npos; }

// c10d logs its socket retries and timeouts itself (through glog in Debian's LibTorch 1.13,
// through c10's own logger in the 2.x wheels); the rank reports the failure once, as a
// sentence, so only fatal library messages stay. GLOG_minloglevel, when set, wins.
void quietLibraryLogging()
{
    if (std::getenv("GLOG_minloglevel"))
        return;
#ifdef C10_USE_GLOG
    FLAGS_minloglevel = google::GLOG_FATAL;
#else
    ::FLAGS_caffe2_log_level = 3; // c10's own FATAL; the flag lives in the global namespace
#endif
}

bool isLoopback(const std::string &addr)
{
    return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

std::string seconds(double s)
{
    return toDecimalString(s) + " s";
}


std::optional<std::string> env(const char *name)
{
    const char *v = std::getenv(name);
    if (!v)
        return std::nullopt;
    return std::string(v);
}

// The sentence for a rendezvous stage that threw: a wait that ran out is a missing rank; an
// early failure is the port's answer (another service there, or a store of another version).
// `args` names the rank, the world, where and the timeout; the error is rendezvous-timeout (the
// ranks did not all meet) or rendezvous-foreign (what answered is not this run's rank 0).
DistributedError rendezvousFailure(TextArgs args, double afterS, bool deadlinePassed, const std::string &cause)
{
    // LibTorch 2.x's client pings the store and retries until its timeout: a wrong answer to
    // the ping is another program, however long it took.
    const bool foreign = contains(cause, "Ping failed") || contains(cause, "invalid value returned");
    args.strings["cause"] = cause;
    if (!foreign && (deadlinePassed || contains(cause, "imed out") || contains(cause, "imeout")))
        return DistributedError("distributed/rendezvous-timeout", std::move(args));
    args.numbers["after"] = afterS;
    return DistributedError("distributed/rendezvous-foreign", std::move(args));
}

// The bound behind every wait of a rank, whatever the library or the peer does. One per
// process: the engine thread arms it with a deadline and the sentence for overstaying it
// before each blocking call (rendezvous, all-reduce) and disarms it after; a thread of its own
// checks the deadline every 50 ms and ends the process with the sentence. It also owns the
// terminate handler, so an exception thrown on one of LibTorch's threads (a TCPStore client
// reading another service's bytes throws std::bad_alloc there) becomes a sentence too.
class RankGuard {
public:
    static RankGuard &instance()
    {
        static RankGuard guard;
        return guard;
    }
    static RankGuard &install(void (*onFatal)(const std::string &), const std::string &who)
    {
        RankGuard &guard = instance();
        std::lock_guard<std::mutex> lock(guard.m_mutex);
        guard.m_onFatal = onFatal;
        guard.m_who = who;
        if (!guard.m_started) {
            guard.m_started = true;
            std::set_terminate(&RankGuard::onTerminate);
            std::thread([&guard] { guard.watch(); }).detach();
        }
        return guard;
    }

    // `phase` names what is under way, for an exception that escapes a library thread
    // ("what|a hint for the reader" puts the hint in parentheses after the failure).
    void arm(Clock::time_point deadline, std::string overstayed, std::string phase)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_deadline = deadline;
        m_overstayed = std::move(overstayed);
        m_phase = std::move(phase);
        m_armed = true;
    }
    void disarm()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_armed = false;
    }
    // Disarmed, with `phase` under way (for the terminate handler).
    void settle(std::string phase)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_armed = false;
        m_phase = std::move(phase);
    }

    [[noreturn]] void fatal(const std::string &message)
    {
        static std::atomic<bool> firing{false};
        if (firing.exchange(true)) // another thread is already ending the process
            for (;;)
                std::this_thread::sleep_for(std::chrono::hours(1));
        void (*onFatal)(const std::string &) = nullptr;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            onFatal = m_onFatal;
        }
        if (onFatal)
            onFatal(message);
        const std::string line = message + "\n";
        [[maybe_unused]] const auto n = ::write(STDERR_FILENO, line.data(), line.size());
        std::_Exit(kExitDistributed);
    }

private:
    void watch()
    {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            std::string message;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                if (!m_armed || Clock::now() < m_deadline)
                    continue;
                message = m_overstayed;
            }
            fatal(message);
        }
    }

    static void onTerminate()
    {
        std::string what = "an exception of unknown type";
        if (const auto e = std::current_exception()) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception &x) {
                what = firstLine(x);
            } catch (...) {
            }
        }
        RankGuard &g = instance();
        std::string who, phase, hint;
        {
            std::lock_guard<std::mutex> lock(g.m_mutex);
            who = g.m_who;
            phase = g.m_phase.empty() ? std::string("the run") : g.m_phase;
        }
        if (const auto bar = phase.find('|'); bar != std::string::npos) {
            hint = " (" + phase.substr(bar + 1) + ")";
            phase.resize(bar);
        }
        g.fatal(who + ": " + phase + " failed: " + what + " was thrown on one of LibTorch's threads" + hint);
    }
    RankGuard() = default;
    std::mutex m_mutex;
    bool m_started = false;
    bool m_armed = false;
    Clock::time_point m_deadline;
    std::string m_overstayed, m_phase, m_who;
    void (*m_onFatal)(const std::string &) = nullptr;
};

} // namespace

int64_t envInt(const char *name, const std::string &text)
{
    int64_t v = 0;
    size_t used = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used == 0 || used != text.size())
        throw ConfigError("distributed/env-not-whole", TextArgs{{}, {{"name", name}, {"text", text}}});
    return v;
}

// ---------------------------------------------------------------------------------------------
// Options

void validate(const DistributedOptions &o)
{
    if (o.worldSize < 1 || o.worldSize > kMaxWorldSize)
        throw ConfigError("distributed/world-size-range",
                          TextArgs{{{"max", double(kMaxWorldSize)}, {"world", double(o.worldSize)}}, {}});
    if (o.rank < 0 || o.rank >= o.worldSize)
        throw ConfigError("distributed/rank-outside",
                          TextArgs{{{"rank", double(o.rank)}, {"world", double(o.worldSize)}}, {}});
    if (o.localRank < 0)
        throw ConfigError("distributed/local-rank-negative", TextArgs{{{"local_rank", double(o.localRank)}}, {}});
    if (o.localWorldSize < 1 || o.localWorldSize > o.worldSize || o.localRank >= o.localWorldSize)
        throw ConfigError("distributed/local-rank-outside",
                          TextArgs{{{"local_rank", double(o.localRank)},
                                    {"local_world", double(o.localWorldSize)},
                                    {"world", double(o.worldSize)}},
                                   {}});
    if (o.groupRank < 0 || o.restartCount < 0)
        throw ConfigError("distributed/group-rank-negative",
                          TextArgs{{{"group_rank", double(o.groupRank)}, {"restarts", double(o.restartCount)}}, {}});
    if (o.masterPort < 1 || o.masterPort > (o.agentStore && storePort(o) != o.masterPort ? 65534 : 65535))
        throw ConfigError("distributed/master-port-range", TextArgs{{{"port", double(o.masterPort)}}, {}});
    if (o.masterAddr.empty())
        throw ConfigError("distributed/master-addr-empty", TextArgs{});
    if (!(o.timeoutS > 0.0) || o.timeoutS > kMaxDistTimeoutS)
        throw ConfigError("distributed/timeout-range", TextArgs{{{"timeout", o.timeoutS}}, {}});
}

std::optional<DistributedOptions> distributedOptionsFromEnv(double timeoutS)
{
    const auto rank = env("RANK");
    const auto world = env("WORLD_SIZE");
    const auto intOr = [](const char *name, int64_t fallback) {
        const auto v = env(name);
        return v ? envInt(name, *v) : fallback;
    };
    DistributedOptions o;
    if (rank || world) { // torchrun, AccumLab's launcher, or by hand
        if (!rank || !world)
            throw ConfigError(rank ? "distributed/rank-without-world" : "distributed/world-without-rank", TextArgs{});
        o.rank = envInt("RANK", *rank);
        o.worldSize = envInt("WORLD_SIZE", *world);
        o.localRank = intOr("LOCAL_RANK", o.rank);
        o.localWorldSize = intOr("LOCAL_WORLD_SIZE", o.worldSize);
        o.groupRank = intOr("GROUP_RANK", 0);
        o.agentStore = env("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True"; // torchrun writes str(True)
        o.restartCount = intOr("TORCHELASTIC_RESTART_COUNT", 0);
        if (const auto id = env("ACCUMLAB_RUN_ID"))
            o.runId = *id;
        else if (const auto elastic = env("TORCHELASTIC_RUN_ID"))
            o.runId = *elastic;
    } else { // a task of a Slurm job step (srun): its step's variables name the rank
        const auto procId = env("SLURM_PROCID");
        const auto tasks = env("SLURM_NTASKS");
        const auto step = env("SLURM_STEP_ID");
        if (!procId || !tasks || !step) // a batch script or an allocation's shell is no rank
            return std::nullopt;
        o.rank = envInt("SLURM_PROCID", *procId);
        o.worldSize = envInt("SLURM_NTASKS", *tasks);
        o.localRank = intOr("SLURM_LOCALID", o.rank);
        const int64_t nodes = intOr("SLURM_NNODES", 1);
        o.groupRank = intOr("SLURM_NODEID", 0);
        o.localWorldSize = nodes > 1 ? std::max<int64_t>(1, o.worldSize / nodes) : o.worldSize;
        if (nodes > 1 && !env("MASTER_ADDR"))
            throw ConfigError("distributed/slurm-master-addr", TextArgs{{{"nodes", double(nodes)}}, {}});
        o.runId = "slurm-" + env("SLURM_JOB_ID").value_or("job") + "." + *step;
    }
    if (const auto addr = env("MASTER_ADDR"))
        o.masterAddr = *addr;
    if (const auto port = env("MASTER_PORT"))
        o.masterPort = static_cast<int>(std::clamp<int64_t>(envInt("MASTER_PORT", *port), -1, 70000));
    if (const auto bind = env("ACCUMLAB_STORE_BIND"))
        o.storeBind = *bind;
    o.timeoutS = timeoutS;
    validate(o);
    return o;
}

std::string storeBindAddress(const DistributedOptions &o)
{
    if (!o.storeBind.empty())
        return o.storeBind;
    return o.masterAddr == "localhost" ? "127.0.0.1" : o.masterAddr;
}

bool joinsAgentStore(const DistributedOptions &o)
{
#if TORCH_VERSION_MAJOR >= 2
    return o.agentStore;
#else
    // LibTorch 1.x's TCPStore client predates the validation torchrun 2.x's store asks of every
    // client: its writes are dropped unanswered, so such a rank could never meet the others there.
    (void)o;
    return false;
#endif
}

int storePort(const DistributedOptions &o)
{
    return o.agentStore && !joinsAgentStore(o) ? o.masterPort + 1 : o.masterPort;
}

// ---------------------------------------------------------------------------------------------
// C10dSync

namespace {

// The first difference of two ranks' settings as the refusal's code ("distributed/settings-...")
// and arguments; none when they agree.
struct SettingsDifference {
    std::string code;
    TextArgs args;
};

std::optional<SettingsDifference> firstDifference(const std::string &mine, int64_t myRank, const std::string &theirs,
                                                  int64_t theirRank)
{
    using json = nlohmann::ordered_json; // the first difference in the order the settings were written
    const json a = json::parse(mine, nullptr, false);
    const json b = json::parse(theirs, nullptr, false);
    if (!a.is_object() || !b.is_object())
        return SettingsDifference{"distributed/settings-not-object",
                                  TextArgs{{{"other", double(a.is_object() ? theirRank : myRank)}}, {}}};
    auto text = [](const json &v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    auto differs = [&](const std::string &k) -> std::optional<SettingsDifference> {
        const bool inA = a.contains(k), inB = b.contains(k);
        if (inA && inB && a.at(k) == b.at(k))
            return std::nullopt;
        SettingsDifference d;
        d.code = !inA ? "distributed/settings-differ-unset-here"
                      : !inB ? "distributed/settings-differ-unset-there" : "distributed/settings-differ";
        d.args.numbers = {{"rank", double(myRank)}, {"other", double(theirRank)}};
        d.args.strings = {{"key", k}, {"mine", inA ? text(a.at(k)) : ""}, {"theirs", inB ? text(b.at(k)) : ""}};
        return d;
    };
    for (const json *side : {&a, &b})
        for (auto it = side->begin(); it != side->end(); ++it)
            if (auto d = differs(it.key()))
                return d;
    return std::nullopt;
}

} // namespace

std::string settingsDifference(const std::string &mine, int64_t myRank, const std::string &theirs, int64_t theirRank)
{
    const auto d = firstDifference(mine, myRank, theirs, theirRank);
    if (!d)
        return {};
    // The refusal's middle: "the ranks were started with different settings: <this>; start ...".
    const std::string whole = errorSentence(d->code, d->args, NumberStyle{"en", false});
    static const std::string head = "the ranks were started with different settings: ";
    static const std::string tail = "; start every rank with the same options";
    return whole.substr(head.size(), whole.size() - head.size() - tail.size());
}

namespace {

// Rank 0's store listens on one address: LibTorch's TCPStore binds every interface by itself.
// A socket listening on `addr`:`port`, or -errno (-EADDRNOTAVAIL: not an address of this
// machine). LibTorch 2.x takes it over (TCPStoreOptions::masterListenFd).
int listenOn(const std::string &addr, int port)
{
    addrinfo hints{};
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (::getaddrinfo(addr.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
        return -EADDRNOTAVAIL;
    int result = -EADDRNOTAVAIL;
    for (addrinfo *a = found; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            result = -errno;
            continue;
        }
        const int one = 1; // as the store binds: connections in TIME_WAIT do not hold the port
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
            ::freeaddrinfo(found);
            return fd;
        }
        result = -errno;
        ::close(fd);
    }
    ::freeaddrinfo(found);
    return result;
}

#if TORCH_VERSION_MAJOR < 2
// LibTorch 1.x has no such option: its server looks up the wildcard address (getaddrinfo with
// no host and AI_PASSIVE) and binds what it gets. While t_passiveHost is set on the thread
// that builds the store, that one lookup is answered for the chosen address instead; every
// other lookup of the process goes to the C library unchanged.
thread_local const char *t_passiveHost = nullptr;

struct PassiveHostScope {
    explicit PassiveHostScope(const std::string &host) { t_passiveHost = host.c_str(); }
    ~PassiveHostScope() { t_passiveHost = nullptr; }
    PassiveHostScope(const PassiveHostScope &) = delete;
    PassiveHostScope &operator=(const PassiveHostScope &) = delete;
};
#endif

} // namespace

#if TORCH_VERSION_MAJOR < 2
} // namespace accumlab

extern "C" int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    using Lookup = int (*)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    static const auto next = reinterpret_cast<Lookup>(::dlsym(RTLD_NEXT, "getaddrinfo"));
    if (!node && hints && (hints->ai_flags & AI_PASSIVE) && accumlab::t_passiveHost)
        node = accumlab::t_passiveHost;
    return next(node, service, hints, res);
}

namespace accumlab {
#endif

C10dSync::C10dSync(const DistributedOptions &options)
    : m_options(options),
      m_timeout(std::chrono::milliseconds(static_cast<int64_t>(options.timeoutS * 1000.0))),
      m_fault(FaultPlan::fromEnv())
{
    validate(options);
    quietLibraryLogging();
    const bool client = joinsAgentStore(options); // torchrun's agent serves the store
    const int port = storePort(options);
    const std::string where = options.masterAddr + ":" + std::to_string(port);
    const std::string who = "rank " + std::to_string(options.rank) + " of " + std::to_string(options.worldSize);
    m_who = who;
    // One deadline for the whole rendezvous: each stage waits only for what is left of it.
    const auto started = Clock::now();
    const auto deadline = started + m_timeout;
    const auto left = [&] {
        return std::max(std::chrono::milliseconds(1),
                        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    };
    const auto after = [&] { return std::round(std::chrono::duration<double>(Clock::now() - started).count() * 10) / 10; };
    // The rank, the world, where they meet and the timeout: the figures of every rendezvous refusal.
    const TextArgs meeting{{{"rank", double(options.rank)}, {"world", double(options.worldSize)}, {"timeout", options.timeoutS}},
                           {{"where", where}}};
    const std::string noMeeting = who + ": the " + std::to_string(options.worldSize) + " ranks did not all meet at " +
                                  where + " within " + seconds(options.timeoutS) +
                                  " (a rank is missing, stopped, or was started with another WORLD_SIZE or MASTER_PORT)";
    // Before anything is connected: an interface that does not exist is bad input, not a peer.
    std::vector<std::string> interfaces;
    const bool gloo =
#ifdef USE_C10D_NCCL
        !options.cuda;
#else
        true;
#endif
    if (const auto list = env("GLOO_SOCKET_IFNAME"); list && gloo) {
        std::string name;
        for (size_t i = 0; i <= list->size(); ++i) {
            if (i < list->size() && (*list)[i] != ',') {
                name += (*list)[i];
                continue;
            }
            if (name.empty() || name.size() >= IF_NAMESIZE || ::if_nametoindex(name.c_str()) == 0)
                throw ConfigError(name.empty() ? "distributed/ifname-none" : "distributed/ifname-not-one",
                                  TextArgs{{}, {{"list", *list}, {"name", name}}});
            interfaces.push_back(name);
            name.clear();
        }
    }

    RankGuard &guard = RankGuard::install(options.onFatal, who);
    guard.arm(deadline + kWatchdogSlack,
              noMeeting + ": " +
                  (client ? "torchrun's store at " + where +
                                " did not answer (its agent was killed or stopped, or another program accepts connections there)"
                   : options.rank == 0 ? std::string("the other ranks stopped answering")
                                       : "nothing answered the rendezvous at " + where +
                                             " (rank 0 is stopped, or another program accepts connections there)"),
              "the rendezvous at " + where + "|another program, not rank 0 of this run, listening there?");
    if (m_fault.rank == options.rank && m_fault.after == -1)
        m_fault.strike(); // before the store

    if (options.rank != 0 && options.onWaiting)
        options.onWaiting(who + ": joining the rendezvous at " + where + "; waiting for rank 0 for up to " +
                          seconds(options.timeoutS));
    c10::intrusive_ptr<c10d::TCPStore> tcp;
    const bool serves = options.rank == 0 && !client;
    const std::string bindTo = storeBindAddress(options);
    const bool bindAny = bindTo == kStoreBindAny;
    for (;;) {
        try {
            c10d::TCPStoreOptions so;
            so.port = static_cast<std::uint16_t>(port);
            so.isServer = serves;
            if (!client) {
                so.numWorkers = static_cast<std::size_t>(options.worldSize);
                so.waitWorkers = true; // the constructor returns once every rank has checked in
            } else {
                so.waitWorkers = false; // the agent's store: the settings exchange is the meeting
            }
            so.timeout = left();
#if TORCH_VERSION_MAJOR >= 2
            if (serves && !bindAny) {
                const int fd = listenOn(bindTo, port);
                if (fd == -EADDRINUSE)
                    throw std::runtime_error("address already in use");
                if (fd < 0)
                    throw ConfigError("distributed/store-bind-not-local",
                                      TextArgs{{{"port", double(port)}}, {{"addr", bindTo}, {"reason", std::strerror(-fd)}}});
                so.masterListenFd = fd; // the store takes it over
            }
#else
            std::optional<PassiveHostScope> passive;
            if (serves && !bindAny) {
                if (const int probe = listenOn(bindTo, 0); probe < 0) // an address of this machine?
                    throw ConfigError("distributed/store-bind-not-local",
                                      TextArgs{{{"port", double(port)}}, {{"addr", bindTo}, {"reason", std::strerror(-probe)}}});
                else
                    ::close(probe);
                passive.emplace(bindTo);
            }
#endif
            tcp = c10::make_intrusive<c10d::TCPStore>(options.masterAddr, so);
            break;
        } catch (const ConfigError &) {
            throw;
        } catch (const std::exception &e) {
            const std::string cause = firstLine(e);
            if (serves && (contains(cause, "in use") || contains(cause, "failed to listen"))) {
                TextArgs args = meeting;
                args.strings["cause"] = cause;
                throw DistributedError("distributed/store-port-busy", args);
            }
            // A rank started before rank 0 keeps knocking until the deadline (LibTorch's client
            // may give up on connecting before its own timeout has passed).
            const bool connecting = !serves && (contains(cause, "connect") || contains(cause, "refused"));
            if (connecting && deadline - Clock::now() > std::chrono::milliseconds(200)) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                continue;
            }
            if (connecting)
                throw DistributedError("distributed/rendezvous-no-rank0", meeting);
            throw rendezvousFailure(meeting, after(), Clock::now() >= deadline, cause);
        }
    }

    if (m_fault.rank == options.rank && m_fault.after == -2)
        m_fault.strike(); // the store is up (rank 0 serves it), the settings not yet exchanged

    try {
        // This launch's keys only: a rank of another launch that reached this port meets nothing here.
        // Under torchrun's agent store each restart attempt has a namespace of its own, as
        // PyTorch's env:// rendezvous has ("/worker/attempt_N"): a new attempt never reads
        // the keys of the one that failed.
        m_store = c10::make_intrusive<c10d::PrefixStore>(
            "accumlab/" + options.runId + (options.agentStore ? "/attempt_" + std::to_string(options.restartCount) : ""),
            tcp);
        m_store->setTimeout(left());
        checkSettings();
        m_store->setTimeout(left());
    } catch (const ConfigError &) {
        throw;
    } catch (const DistributedError &) {
        throw;
    } catch (const std::exception &e) {
        throw rendezvousFailure(meeting, after(), Clock::now() >= deadline, firstLine(e));
    }

    try {
#ifdef USE_C10D_NCCL
        if (options.cuda) {
            auto o = c10d::ProcessGroupNCCL::Options::create();
            o->timeout = m_timeout;
            m_backendName = "nccl";
            m_group = c10::make_intrusive<c10d::ProcessGroupNCCL>(m_store, static_cast<int>(options.rank),
                                                                  static_cast<int>(options.worldSize), o);
            guard.settle("the nccl process group");
            return;
        }
#endif
        auto o = c10d::ProcessGroupGloo::Options::create(m_timeout);
        // As PyTorch: the interfaces GLOO_SOCKET_IFNAME names; else loopback ranks talk over
        // 127.0.0.1 and ranks on several hosts over the address this host's name resolves to.
        for (const auto &name : interfaces)
            o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
        if (interfaces.empty())
            o->devices.push_back(isLoopback(options.masterAddr)
                                     ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                     : c10d::ProcessGroupGloo::createDefaultDevice());
        m_group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_store, static_cast<int>(options.rank),
                                                              static_cast<int>(options.worldSize), o);
    } catch (const std::exception &e) {
        throw rendezvousFailure(meeting, after(), Clock::now() >= deadline,
                                std::string(m_backendName) + ": " + firstLine(e));
    }
    guard.settle("the " + std::string(m_backendName) + " process group");
}

// Every rank publishes its settings, reads everyone's, and compares each with rank 0's, so all
// ranks name the same difference (the lowest rank that differs). Before any collective.
void C10dSync::checkSettings()
{
    const auto bytes = [](const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); };
    m_store->set("settings/" + std::to_string(m_options.rank), bytes(m_options.settings));
    std::vector<std::string> all(static_cast<size_t>(m_options.worldSize));
    for (int64_t r = 0; r < m_options.worldSize; ++r) {
        const auto v = r == m_options.rank ? bytes(m_options.settings) : m_store->get("settings/" + std::to_string(r));
        all[static_cast<size_t>(r)] = std::string(v.begin(), v.end());
    }
    m_store->set("settings-read/" + std::to_string(m_options.rank), bytes("1"));
    // Settings that are no JSON object did not come from an AccumLab rank: the store's port
    // is answered by another program that happens to speak enough of the protocol.
    for (int64_t r = 0; r < m_options.worldSize; ++r)
        if (!nlohmann::json::parse(all[static_cast<size_t>(r)], nullptr, false).is_object())
            throw DistributedError(
                "distributed/settings-foreign",
                TextArgs{{{"rank", double(m_options.rank)}, {"world", double(m_options.worldSize)}, {"other", double(r)}},
                         {{"where", m_options.masterAddr + ":" + std::to_string(storePort(m_options))}}});
    for (int64_t r = 1; r < m_options.worldSize; ++r) {
        const std::optional<SettingsDifference> diff = firstDifference(all[static_cast<size_t>(r)], r, all[0], 0);
        if (!diff)
            continue;
        // Rank 0 serves the store: it leaves only once every rank has read the settings, so
        // each can name the difference itself rather than lose the store mid-read.
        if (m_options.rank == 0) {
            std::vector<std::string> read;
            for (int64_t q = 1; q < m_options.worldSize; ++q)
                read.push_back("settings-read/" + std::to_string(q));
            try {
                m_store->wait(read);
            } catch (const std::exception &) { // a rank that died cannot read; the refusal stands
            }
        }
        throw ConfigError(diff->code, diff->args);
    }
}

C10dSync::~C10dSync() = default;

void C10dSync::allReduceMean(torch::Tensor &flatGrad)
{
    if (m_fault.rank == m_options.rank && m_fault.after >= 0 && m_stats.collectives >= m_fault.after)
        m_fault.strike();
    const int64_t bytes = flatGrad.numel() * static_cast<int64_t>(flatGrad.element_size());
    const auto t0 = Clock::now();
    RankGuard &guard = RankGuard::instance();
    const std::string nth = std::to_string(m_stats.collectives + 1);
    guard.arm(t0 + m_timeout + kWatchdogSlack,
              m_who + ": all-reduce " + nth + " failed: no answer from a peer within " + seconds(m_options.timeoutS) +
                  " (a rank hung, died or was stopped)",
              "all-reduce " + nth);
    try {
        std::vector<at::Tensor> tensors{flatGrad}; // shares flatGrad's storage: reduced in place
        c10d::AllreduceOptions opts;
        opts.reduceOp = c10d::ReduceOp::SUM;
        opts.timeout = m_timeout;
        auto work = m_group->allreduce(tensors, opts);
        // Work::wait(timeout) throws when the timeout passes or the collective failed.
        if (!work->wait(m_timeout))
            throw std::runtime_error("the all-reduce did not complete");
        flatGrad.div_(static_cast<double>(m_options.worldSize));
        if (flatGrad.is_cuda())
            torch::cuda::synchronize(); // the clock reads the collective, not its launch
    } catch (const std::exception &e) {
        const std::string cause = firstLine(e);
        const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
        const char *code = "distributed/allreduce-failed";
        if (contains(cause, "imed out") || contains(cause, "imeout"))
            code = "distributed/allreduce-timeout";
        else if (contains(cause, "losed") || contains(cause, "reset by peer") || contains(cause, "roken pipe") ||
                 contains(cause, "refused"))
            code = "distributed/allreduce-closed";
        guard.disarm();
        throw DistributedError(code, TextArgs{{{"rank", double(m_options.rank)},
                                               {"world", double(m_options.worldSize)},
                                               {"nth", double(m_stats.collectives + 1)},
                                               {"after", std::round(waited * 10) / 10},
                                               {"timeout", m_options.timeoutS}},
                                              {{"backend", std::string(m_backendName)}, {"cause", cause}}});
    }
    guard.disarm();
    m_stats.collectives += 1;
    m_stats.bytes += bytes;
    m_stats.ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::shared_ptr<GradSync> joinProcessGroup(const DistributedOptions &options)
{
    validate(options);
    if (options.worldSize == 1)
        return std::make_shared<LocalSync>();
    return std::make_shared<C10dSync>(options);
}

SyncStats syncStats(const GradSync &sync) { return sync.stats(); }

} // namespace accumlab
