// Shared helpers for the portable GoogleTest suite: a table row printed as its label, a temp
// folder that removes itself, whole file reads, and accumlab-cli run as a child process with its
// exit code and both streams captured. Plain C++ and POSIX, no Qt, so the suite builds wherever core does.
#pragma once

#include "core/config.h"
#include "core/sweep.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
    int exitCode = -1; // the child's exit status; 128 + signal when a signal ended it
    std::string out;
    std::string err;
};

// Runs `program args...` in `workDir` (the caller's when empty) and waits for it. Both streams
// go to files in a folder of their own, so the child's working folder holds only what the
// child itself wrote.
inline ProcessResult runProcess(const std::string &program, const std::vector<std::string> &args,
                                const fs::path &workDir = {})
{
    TempDir capture;
    const std::string outPath = (capture / "stdout").string();
    const std::string errPath = (capture / "stderr").string();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!workDir.empty())
        posix_spawn_file_actions_addchdir_np(&actions, workDir.c_str());

    std::vector<char *> argv{const_cast<char *>(program.c_str())};
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);

    pid_t pid = 0;
    const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ProcessResult r;
    if (rc != 0) {
        r.err = "cannot start " + program + ": " + std::strerror(rc);
        return r;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
    r.out = readFile(outPath);
    r.err = readFile(errPath);
    return r;
}

// The accumlab-cli under test: $ACCUMLAB_CLI, which CTest sets to the build's binary.
inline std::string cliPath()
{
    const char *path = std::getenv("ACCUMLAB_CLI");
    return path ? path : "";
}

inline ProcessResult runCli(const std::vector<std::string> &args, const fs::path &workDir = {})
{
    return runProcess(cliPath(), args, workDir);
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
