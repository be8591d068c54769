// Starting ranks on this machine: free ports, and launchLocalRanks, fork/execve of N copies of
// a program with torchrun's environment and a poll loop that stops the survivors when one rank
// fails. Not for: ranks on several hosts (start each rank there with torchrun's variables; see
// docs/ranks-and-checkpoints.md).
#include "core/distributed/distributed.h"

#include "core/distributed/launcher.h"
#include "core/io/export.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

// Grace between SIGTERM and SIGKILL when the launcher stops the surviving ranks.
constexpr auto kStopGrace = std::chrono::seconds(3);
// When one rank fails, how long the launcher lets the others end by themselves before it
// blames the ones still running (or stopped) for not answering.
constexpr auto kBlameGrace = std::chrono::milliseconds(1500);
// How often the launcher looks at its ranks (and at the cancel token).
constexpr auto kPollInterval = std::chrono::milliseconds(20);

} // namespace

// ---------------------------------------------------------------------------------------------
// Ports

namespace {

// Binds addr:port (0 = any free port); returns the bound port or -errno.
int tryBind(const std::string &addr, int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    // As the store's server binds: a port whose last connections linger in TIME_WAIT is free.
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, addr == "localhost" ? "127.0.0.1" : addr.c_str(), &sa.sin_addr) != 1) {
        ::close(fd);
        return -EINVAL;
    }
    int result = 0;
    if (::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || ::listen(fd, 1) != 0) {
        result = -errno;
    } else {
        socklen_t len = sizeof sa;
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
        result = ntohs(sa.sin_port);
    }
    ::close(fd);
    return result;
}

} // namespace

int pickFreePort(const std::string &addr)
{
    const int port = tryBind(addr, 0);
    if (port <= 0)
        throw DistributedError("distributed/no-free-port", TextArgs{{}, {{"addr", addr}, {"reason", std::strerror(-port)}}});
    return port;
}

void requirePortFree(const std::string &addr, int port)
{
    if (port < 1 || port > 65535)
        throw ConfigError("distributed/master-port-range", TextArgs{{{"port", double(port)}}, {}});
    const int r = tryBind(addr, port);
    if (r == -EADDRINUSE)
        throw ConfigError("distributed/master-port-busy", TextArgs{{{"port", double(port)}}, {{"addr", addr}}});
    if (r < 0)
        throw ConfigError("distributed/master-port-unusable",
                          TextArgs{{{"port", double(port)}}, {{"addr", addr}, {"reason", std::strerror(-r)}}});
}

// ---------------------------------------------------------------------------------------------
// Launcher

namespace launcher {

struct Child {
    pid_t pid = -1;
    bool done = false;
    bool stopped = false; // by SIGSTOP or a terminal: alive, answering nothing
    int status = 0;
};

// Reaps `c` if it ended (true); notes whether it is stopped.
bool reaped(Child &c)
{
    int st = 0;
    if (c.done)
        return true;
    const pid_t r = ::waitpid(c.pid, &st, WNOHANG | WUNTRACED | WCONTINUED);
    if (r != c.pid)
        return false;
    if (WIFSTOPPED(st)) {
        c.stopped = true;
        return false;
    }
    if (WIFCONTINUED(st)) {
        c.stopped = false;
        return false;
    }
    c.status = st;
    c.done = true;
    return true;
}

// The environment of a rank: ours minus torchrun's variables, plus this rank's.
std::vector<std::string> environmentWithoutRank()
{
    // torchrun's and Slurm's too: a launch inside their job is a job of its own.
    static const char *const kOwned[] = {"RANK=",        "WORLD_SIZE=",  "LOCAL_RANK=", "LOCAL_WORLD_SIZE=",
                                         "MASTER_ADDR=", "MASTER_PORT=", "GROUP_RANK=", "ACCUMLAB_RUN_ID=",
                                         "TORCHELASTIC_", "SLURM_PROCID=", "SLURM_NTASKS=", "SLURM_LOCALID=",
                                         "SLURM_NNODES=", "SLURM_JOB_ID=", "SLURM_STEP_ID="};
    std::vector<std::string> out;
    for (char **e = environ; e && *e; ++e) {
        bool owned = false;
        for (const char *k : kOwned)
            owned = owned || std::strncmp(*e, k, std::strlen(k)) == 0;
        if (!owned)
            out.emplace_back(*e);
    }
    return out;
}

std::vector<std::string> rankEnvironment(int64_t rank, int64_t world, int port, const std::string &runId)
{
    std::vector<std::string> out = environmentWithoutRank();
    out.push_back("ACCUMLAB_RUN_ID=" + runId);
    out.push_back("RANK=" + std::to_string(rank));
    out.push_back("LOCAL_RANK=" + std::to_string(rank));
    out.push_back("WORLD_SIZE=" + std::to_string(world));
    out.push_back("LOCAL_WORLD_SIZE=" + std::to_string(world));
    out.push_back("GROUP_RANK=0");
    out.push_back("MASTER_ADDR=127.0.0.1");
    out.push_back("MASTER_PORT=" + std::to_string(port));
    return out;
}

std::vector<char *> pointers(std::vector<std::string> &strings)
{
    std::vector<char *> p;
    for (auto &s : strings)
        p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}

std::string lastLine(const std::filesystem::path &file)
{
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    return last;
}

std::string describe(int status)
{
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
    }
    return "exited with code " + std::to_string(WEXITSTATUS(status));
}

bool failed(int status) { return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0); }

void stopAll(std::vector<Child> &children)
{
    // Each child leads its own process group, so whatever it started goes with it.
    for (auto &c : children)
        if (!c.done) {
            ::kill(-c.pid, SIGTERM);
            ::kill(-c.pid, SIGCONT); // a stopped rank takes its SIGTERM now, not when resumed
        }
    const auto deadline = Clock::now() + kStopGrace;
    for (;;) {
        bool running = false;
        for (auto &c : children)
            if (!reaped(c))
                running = true;
        if (!running)
            return;
        if (Clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(kPollInterval);
    }
    for (auto &c : children)
        if (!c.done) {
            ::kill(-c.pid, SIGKILL);
            ::waitpid(c.pid, &c.status, 0);
            c.done = true;
        }
}

namespace {

// The log folder, made and opened inside its parent (the folder the caller named, e.g. the
// window's work folder), never through a link (core/io/export.h's openFolderInside): a link
// planted at its name is refused with distributed/log-folder-link, as a checkpoint folder
// refuses a gen-... link. A descriptor for openat, closed by the caller.
int openLogFolder(const std::filesystem::path &logDir)
{
    std::filesystem::path dir = logDir.lexically_normal();
    if (dir.filename().empty())
        dir = dir.parent_path();
    std::filesystem::path parent = dir.parent_path();
    if (parent.empty())
        parent = ".";
    try {
        return openFolderInside(parent, dir.filename());
    } catch (const ExportError &e) {
        if (e.code() == "export/path-leaves-folder")
            throw DistributedError("distributed/log-folder-link",
                                   TextArgs{{}, {{"path", logDir.string()}, {"folder", parent.string()}}});
        throw DistributedError("distributed/log-unwritable",
                               TextArgs{{}, {{"path", logDir.string()}, {"reason", e.reason().empty() ? e.what() : e.reason()}}});
    }
}

} // namespace

// Starts one child per entry of `envs` (`exe args...` with that environment; its output to
// logDir/logNames[i] when logDir is set), waits for them, stops the survivors when one fails.
LaunchResult supervise(const std::filesystem::path &exe, const std::vector<std::string> &args,
                       std::vector<std::vector<std::string>> envStrings, const std::filesystem::path &logDir,
                       const std::vector<std::string> &logNames, const std::string &unit, const CancelToken *cancel)
{
    // Everything the children need is built before fork(): after it only async-signal-safe calls.
    std::vector<std::string> argvStrings{exe.string()};
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    auto argv = pointers(argvStrings);
    std::vector<std::vector<char *>> envs;
    for (auto &e : envStrings)
        envs.push_back(pointers(e));
    std::vector<int> logFds;
    const int logDirFd = logDir.empty() ? -1 : openLogFolder(logDir);
    for (size_t i = 0; i < envStrings.size() && logDirFd >= 0; ++i) {
        // Relative to the log folder's descriptor, and never through a link at the log's name
        // (O_NOFOLLOW): a link there is refused, not truncated through. O_NONBLOCK: a FIFO
        // planted there is refused at once instead of waiting for a reader.
        const auto log = logDir / logNames[i];
        const int fd = ::openat(logDirFd, logNames[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        const int err = errno;
        struct stat st {};
        const bool regular = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (!regular) {
            if (fd >= 0)
                ::close(fd);
            for (int f : logFds)
                ::close(f);
            ::close(logDirFd);
            if (fd < 0 && err != ELOOP)
                throw DistributedError("distributed/log-unwritable",
                                       TextArgs{{}, {{"path", log.string()}, {"reason", std::strerror(err)}}});
            throw DistributedError("distributed/log-folder-link",
                                   TextArgs{{}, {{"path", log.string()}, {"folder", logDir.string()}}});
        }
        logFds.push_back(fd);
    }
    if (logDirFd >= 0)
        ::close(logDirFd);
    else
        logFds.assign(envStrings.size(), -1);

    const pid_t parent = ::getpid();
    std::vector<Child> children(envStrings.size());
    std::optional<DistributedError> startError;
    // Signals wait while a child is between fork and execve: there it still carries this
    // process's handlers (a test framework's, the window's), which must not run in it.
    sigset_t all, before;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &before);
    for (size_t r = 0; r < envStrings.size(); ++r) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            for (int sig = 1; sig < NSIG; ++sig)
                ::signal(sig, SIG_DFL); // (fails harmlessly for SIGKILL, SIGSTOP and unused numbers)
            ::sigprocmask(SIG_SETMASK, &before, nullptr);
            ::setpgid(0, 0);
            ::prctl(PR_SET_PDEATHSIG, SIGKILL); // a child never outlives its launcher
            if (::getppid() != parent)
                ::_exit(kExitDistributed);
            if (logFds[r] >= 0) {
                ::dup2(logFds[r], STDOUT_FILENO);
                ::dup2(logFds[r], STDERR_FILENO);
            }
            ::execve(argv[0], argv.data(), envs[r].data());
            ::_exit(127);
        }
        if (pid < 0) {
            const std::string reason = std::strerror(errno);
            startError.emplace(unit == "rank" ? "distributed/start-rank-failed" : "distributed/start-cli-failed",
                               TextArgs{{{"index", double(r)}}, {{"reason", reason}}});
            break;
        }
        ::setpgid(pid, pid); // also here, so stopAll never races the child's own call
        children[r].pid = pid;
    }
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    for (int f : logFds)
        if (f >= 0)
            ::close(f);
    if (startError) {
        children.erase(std::remove_if(children.begin(), children.end(), [](const Child &c) { return c.pid < 0; }),
                       children.end());
        stopAll(children);
        throw *startError;
    }

    LaunchResult result;
    const auto name = [&](int64_t r) { return unit == "rank" ? unit + " " + std::to_string(r) : unit; };
    const auto lastLogLine = [&](int64_t r) {
        return logDir.empty() ? std::string() : lastLine(logDir / logNames[static_cast<size_t>(r)]);
    };
    for (;;) {
        if (cancel && cancel->cancelled()) {
            stopAll(children);
            throw Cancelled{};
        }
        bool running = false;
        int64_t firstFailure = -1;
        // Of children that ended in the same poll (or within the blame's grace below), a killed
        // one is the likelier root cause, and one that failed on its own (a refused checkpoint,
        // exit 2) is before one that gave up on a peer (exit 3, a witness).
        const auto weight = [](int st) {
            return WIFSIGNALED(st) ? 2 : WIFEXITED(st) && WEXITSTATUS(st) != kExitDistributed ? 1 : 0;
        };
        const auto consider = [&](int64_t r) {
            const int st = children[static_cast<size_t>(r)].status;
            if (failed(st) &&
                (firstFailure < 0 || weight(st) > weight(children[static_cast<size_t>(firstFailure)].status)))
                firstFailure = r;
        };
        for (size_t r = 0; r < children.size(); ++r) {
            Child &c = children[r];
            if (c.done)
                continue;
            if (reaped(c))
                consider(static_cast<int64_t>(r));
            else
                running = true;
        }
        if (firstFailure >= 0) {
            // A rank that gave up on a peer (exit 3) is a witness, not the cause: the others get
            // a moment to end by themselves, and one still running or stopped after it is blamed.
            // A stopped rank cannot end by itself, so the moment is not spent waiting for one.
            const int firstStatus = children[static_cast<size_t>(firstFailure)].status;
            int64_t suspect = -1;
            if (unit == "rank" && WIFEXITED(firstStatus) && WEXITSTATUS(firstStatus) == kExitDistributed) {
                const auto until = Clock::now() + kBlameGrace;
                bool waiting = true;
                while (waiting && Clock::now() < until) {
                    waiting = false;
                    for (size_t r = 0; r < children.size(); ++r)
                        if (!children[r].done) {
                            if (reaped(children[r]))
                                consider(static_cast<int64_t>(r));
                            else if (!children[r].stopped)
                                waiting = true;
                        }
                    if (waiting)
                        std::this_thread::sleep_for(kPollInterval);
                }
                if (weight(children[static_cast<size_t>(firstFailure)].status) == 0) // still a witness
                    for (size_t r = 0; r < children.size() && suspect < 0; ++r)
                        if (!children[r].done)
                            suspect = static_cast<int64_t>(r);
            }
            const int status = children[static_cast<size_t>(firstFailure)].status;
            result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : kExitDistributed;
            if (suspect >= 0) {
                const bool stopped = children[static_cast<size_t>(suspect)].stopped;
                result.failedRank = suspect;
                result.failure = name(suspect) + " stopped answering (" +
                                 (stopped ? std::string("it was stopped by a signal, as by kill -STOP")
                                          : std::string("it was still running when the others gave up")) +
                                 "); " + name(firstFailure) + " " + describe(status);
            } else {
                result.failedRank = firstFailure;
                result.failure = result.exitCode == 127 ? name(firstFailure) + " could not start " + exe.string()
                                                        : name(firstFailure) + " " + describe(status);
            }
            const std::string line = lastLogLine(firstFailure);
            if (!line.empty())
                result.failure += ": " + line;
            const bool othersRunning =
                std::any_of(children.begin(), children.end(), [](const Child &c) { return !c.done; });
            stopAll(children);
            if (othersRunning)
                result.failure += "; the other ranks were stopped";
            // One child that is not a rank (the sweep's accumlab-cli): its failure as a code too.
            if (unit != "rank" && suspect < 0 && !othersRunning) {
                const char *how = result.exitCode == 127 ? "could-not-start"
                                  : WIFSIGNALED(status)  ? "killed"
                                                         : "exited";
                result.failureCode = std::string("distributed/cli-") + how + (line.empty() ? "" : "-said");
                const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
                result.failureArgs = TextArgs{{{"signal", double(sig)}, {"code", double(WIFEXITED(status) ? WEXITSTATUS(status) : 0)}},
                                              {{"exe", exe.string()},
                                               {"signal_name", sig ? std::string(::strsignal(sig)) : std::string()},
                                               {"line", line}}};
            }
            return result;
        }
        if (!running)
            return result;
        std::this_thread::sleep_for(kPollInterval);
    }
}

} // namespace launcher

using launcher::supervise;
using launcher::rankEnvironment;

LaunchResult launchLocalRanks(const std::filesystem::path &exe, const std::vector<std::string> &args,
                              const LaunchOptions &options, const CancelToken *cancel)
{
    if (options.worldSize < 1 || options.worldSize > kMaxWorldSize)
        throw ConfigError("distributed/world-size-range",
                          TextArgs{{{"max", double(kMaxWorldSize)}, {"world", double(options.worldSize)}}, {}});
    int port = options.masterPort;
    if (port == 0)
        port = pickFreePort();
    else
        requirePortFree("127.0.0.1", port);
    std::vector<std::vector<std::string>> envs;
    std::vector<std::string> logs;
    const std::string runId = randomId(); // fresh for each launch
    for (int64_t r = 0; r < options.worldSize; ++r) {
        envs.push_back(rankEnvironment(r, options.worldSize, port, runId));
        logs.push_back("rank-" + std::to_string(r) + ".log");
    }
    return supervise(exe, args, std::move(envs), options.logDir, logs, "rank", cancel);
}

} // namespace accumlab
