// Shared helpers for the portable GoogleTest suite: a table row printed as its label, a temp
// folder that removes itself, whole file reads, and accumlab-cli run as a child process with its
// exit code, both streams and its time captured (runCli: the one way every CLI test runs it).
// Plain C++ and POSIX, no Qt, so the suite builds wherever core does.
#pragma once

#include "core/config.h"
#include "core/sweep.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

extern char **environ;

namespace accumlab::test {

namespace fs = std::filesystem;

// GoogleTest names a table row by its label (test listings, "GetParam() = ..." in a failure)
// rather than dumping its bytes. Each suite's rows live in its unnamed namespace, where
// argument-dependent lookup looks, so a suite brings this in there with
// `using accumlab::test::PrintTo;`. A row printed otherwise keeps a PrintTo of its own, which
// wins over this template.
template <class Row>
    requires requires(std::ostream &os, const Row &row) { os << row.name; }
void PrintTo(const Row &row, std::ostream *os)
{
    *os << row.name;
}

// A fresh, empty folder under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
public:
    TempDir()
    {
        std::string pattern = (fs::temp_directory_path() / "accumlab-portable-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
        m_path = pattern;
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;

    const fs::path &path() const { return m_path; }
    fs::path operator/(const fs::path &name) const { return m_path / name; }
    // The names directly inside, sorted (an empty folder gives an empty list).
    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto &e : fs::directory_iterator(m_path))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    fs::path m_path;
};

inline std::string readFile(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeFile(const fs::path &path, const std::string &content)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

struct ProcessResult {
    int exitCode = -1;    // the child's exit status; 128 + signal when a signal ended it
    bool crashed = false; // a signal ended it
    std::string out;
    std::string err;
    int64_t ms = 0; // wall time from start to exit
};

// How a child starts besides its arguments.
struct ProcessOptions {
    fs::path workDir; // the caller's when empty
    std::vector<std::pair<std::string, std::string>> env; // set in the child's environment (this process's otherwise)
    std::vector<std::string> unset;                       // removed from the child's environment
    std::string stdoutFile;   // the child's stdout goes to this file (/dev/full) instead of being captured
    void (*inChild)() = nullptr; // runs in the child before exec: async-signal-safe calls only (setrlimit)
};

// A child process with its stdout and stderr read through pipes while it runs, so the child's
// working folder holds only what the child itself wrote and a test can wait for what it says
// (waitForStderr) before it ends.
class ChildProcess {
public:
    ChildProcess(const std::string &program, const std::vector<std::string> &args, const ProcessOptions &o = {})
        : m_start(std::chrono::steady_clock::now())
    {
        std::vector<std::string> env;
        for (char **e = environ; *e; ++e) {
            const std::string entry = *e;
            const std::string name = entry.substr(0, entry.find('='));
            const auto named = [&](const std::string &n) { return n == name; };
            if (std::none_of(o.unset.begin(), o.unset.end(), named) &&
                std::none_of(o.env.begin(), o.env.end(), [&](const auto &kv) { return kv.first == name; }))
                env.push_back(entry);
        }
        for (const auto &[name, value] : o.env)
            env.push_back(name + "=" + value);
        std::vector<char *> envp, argv{const_cast<char *>(program.c_str())};
        for (std::string &e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        for (const auto &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        int outPipe[2], errPipe[2];
        if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0)
            throw std::system_error(errno, std::generic_category(), "pipe");
        const std::string workDir = o.workDir.string();
        m_pid = ::fork();
        if (m_pid == 0) { // the child: async-signal-safe calls only until exec
            const int in = ::open("/dev/null", O_RDONLY);
            const int out = o.stdoutFile.empty() ? outPipe[1] : ::open(o.stdoutFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (in < 0 || out < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(out, STDOUT_FILENO) < 0 ||
                ::dup2(errPipe[1], STDERR_FILENO) < 0 || (!workDir.empty() && ::chdir(workDir.c_str()) != 0))
                ::_exit(126);
            if (o.inChild)
                o.inChild();
            ::execve(program.c_str(), argv.data(), envp.data());
            ::_exit(127);
        }
        ::close(outPipe[1]);
        ::close(errPipe[1]);
        if (m_pid < 0) {
            ::close(outPipe[0]);
            ::close(errPipe[0]);
            throw std::system_error(errno, std::generic_category(), "fork");
        }
        m_outReader = std::thread([this, fd = outPipe[0]] { drain(fd, m_result.out, m_outClosed); });
        m_errReader = std::thread([this, fd = errPipe[0]] { drain(fd, m_result.err, m_errClosed); });
    }
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;
    ~ChildProcess() { wait(); }

    // Blocks until the child's stderr holds `text` (true) or closed without it (false).
    bool waitForStderr(const std::string &text)
    {
        std::unique_lock lock(m_mutex);
        m_said.wait(lock, [&] { return m_result.err.find(text) != std::string::npos || m_errClosed; });
        return m_result.err.find(text) != std::string::npos;
    }

    // Waits for the child to exit and both streams to close.
    ProcessResult wait()
    {
        if (m_pid > 0) {
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            m_pid = 0;
            m_outReader.join();
            m_errReader.join();
            m_result.crashed = WIFSIGNALED(status);
            m_result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
            m_result.ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_start).count();
        }
        return m_result;
    }

private:
    void drain(int fd, std::string &into, bool &closed)
    {
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            std::lock_guard lock(m_mutex);
            if (n <= 0) {
                closed = true;
                m_said.notify_all();
                break;
            }
            into.append(buf, size_t(n));
            m_said.notify_all();
        }
        ::close(fd);
    }

    std::chrono::steady_clock::time_point m_start;
    pid_t m_pid = -1;
    std::mutex m_mutex;
    std::condition_variable m_said;
    ProcessResult m_result;
    bool m_outClosed = false, m_errClosed = false;
    std::thread m_outReader, m_errReader;
};

// Runs `program args...` and waits for it.
inline ProcessResult runProcess(const std::string &program, const std::vector<std::string> &args,
                                const ProcessOptions &options = {})
{
    return ChildProcess(program, args, options).wait();
}

// The accumlab-cli under test: $ACCUMLAB_CLI, which CTest sets to the build's binary.
inline std::string cliPath()
{
    const char *path = std::getenv("ACCUMLAB_CLI");
    return path ? path : "";
}

// accumlab-cli's options for one run: `env` added, torchrun's and the fault hooks' variables
// cleared unless `env` sets them (a test started under torchrun stays one process).
inline ProcessOptions cliOptions(const fs::path &workDir = {}, std::vector<std::pair<std::string, std::string>> env = {})
{
    ProcessOptions o;
    o.workDir = workDir;
    o.env = std::move(env);
    o.unset = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "ACCUMLAB_FAULT_KILL_AT_MICRO",
               "ACCUMLAB_FAULT_KILL_POINT"};
    return o;
}

// The one way the tests run accumlab-cli: `args` in `workDir` (the caller's when empty), with
// `env` set in its environment (cliOptions).
inline ProcessResult runCli(const std::vector<std::string> &args, const fs::path &workDir = {},
                            std::vector<std::pair<std::string, std::string>> env = {})
{
    return runProcess(cliPath(), args, cliOptions(workDir, std::move(env)));
}

// gtest_discover_tests runs each test in its own process; this fails the test early, in words,
// when the suite was started by hand without the variable.
inline void requireCli()
{
    const std::string path = cliPath();
    ASSERT_FALSE(path.empty()) << "ACCUMLAB_CLI is not set; run the suite through ctest";
    ASSERT_EQ(::access(path.c_str(), X_OK), 0) << "ACCUMLAB_CLI=" << path << " is not an executable";
}

// A two-point sweep (accum 1 and 2) of the lesson's fixture model (in 32, hidden 48, 8 classes),
// micro-batch 4, a few steps per point, on `device`.
inline SweepConfig tinySweep(DeviceRequest device)
{
    SweepConfig s;
    s.base.preset = ModelPreset::Fixture;
    s.base.device = device;
    s.base.microBatch = 4;
    s.accumGrid = {1, 2};
    s.numSteps = 3;
    s.warmupSteps = 1;
    return s;
}

// Whether `text` holds `part`.
inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// Lines joined with newlines: a list of problems as one failure message.
inline std::string joinLines(const std::vector<std::string> &lines)
{
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i)
        out += (i ? "\n" : "") + lines[i];
    return out;
}

// The code points of UTF-8 text, so that a check on characters sees characters, not bytes. A
// byte that starts no valid sequence (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, a code point past U+10FFFF) reads as U+FFFD, as QString::fromStdString
// reads it, and clears *valid.
inline std::u32string codePoints(const std::string &text, bool *valid = nullptr)
{
    std::u32string out;
    for (size_t i = 0; i < text.size();) {
        const auto b = static_cast<unsigned char>(text[i]);
        const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        char32_t c = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        bool ok = len != 0 && i + len <= text.size();
        for (size_t k = 1; ok && k < len; ++k) {
            const auto cont = static_cast<unsigned char>(text[i + k]);
            ok = (cont & 0xC0) == 0x80;
            c = (c << 6) | (cont & 0x3F);
        }
        static constexpr char32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
        ok = ok && c >= kMinForLength[len] && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
        if (!ok && valid)
            *valid = false;
        out.push_back(ok ? c : U'\uFFFD');
        i += ok ? len : 1;
    }
    return out;
}

// A table row's GoogleTest name from its label ("float32 sgd 4x4" -> "float32_sgd_4x4"): names
// take letters, digits and underscores only.
inline std::string caseName(std::string label)
{
    for (char &c : label)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return label;
}

// INSTANTIATE_TEST_SUITE_P's name generator for rows that carry their label in `name`:
//   INSTANTIATE_TEST_SUITE_P(Rows, Suite, testing::ValuesIn(rows()), test::ByName());
struct ByName {
    template <class Row>
    std::string operator()(const testing::TestParamInfo<Row> &info) const
    {
        return caseName(info.param.name);
    }
};

// |actual - expected| <= rel * |expected|, naming both values when it fails:
//   EXPECT_TRUE(relNear(measured, predicted, 1e-6));
inline testing::AssertionResult relNear(double actual, double expected, double rel)
{
    if (std::abs(actual - expected) <= rel * std::abs(expected))
        return testing::AssertionSuccess();
    return testing::AssertionFailure() << std::setprecision(10) << actual << ", expected " << expected << " within "
                                       << rel << " relative";
}

} // namespace accumlab::test

namespace accumlab {

// Parameter values in GoogleTest's messages by name ("adamw"), not as raw bytes. Found by
// argument-dependent lookup, so they live beside the enums.
inline void PrintTo(OptimizerKind v, std::ostream *os) { *os << toString(v); }
inline void PrintTo(DType v, std::ostream *os) { *os << toString(v); }

} // namespace accumlab
