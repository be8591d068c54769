// Every refusal of accumlab-cli's input, one row each, in this process: cli::run() from the
// commands' library with the program's arguments, its std::cout and std::cerr captured, in a
// fresh folder. A refusal is exit 2, one line on stderr, nothing on stdout, nothing written.
// gtest_cli (portable.cli) checks the same path through the program itself (runCli) for one row
// of each kind (the parser, core's config, the exports, a subcommand, the launcher); starting a
// process per row cost about 0.5 s a row, 2 s under AddressSanitizer.
#include "app/cli/cli.h"

#include "core/content/loop_code.h"

#include "support.h"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using accumlab::test::TempDir;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

struct Ran {
    int exitCode = -1;
    std::string out;
    std::string err;
};

// cli::run(args) in `workDir`, with the standard streams captured.
Ran runInProcess(const std::vector<std::string> &args, const fs::path &workDir)
{
    std::vector<std::string> words{"accumlab-cli"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &w : words)
        argv.push_back(w.data());
    argv.push_back(nullptr);

    const fs::path before = fs::current_path();
    fs::current_path(workDir);
    std::ostringstream out, err;
    std::streambuf *const coutBuf = std::cout.rdbuf(out.rdbuf());
    std::streambuf *const cerrBuf = std::cerr.rdbuf(err.rdbuf());
    Ran r;
    r.exitCode = accumlab::cli::run(int(words.size()), argv.data());
    std::cout.rdbuf(coutBuf);
    std::cerr.rdbuf(cerrBuf);
    fs::current_path(before);
    r.out = out.str();
    r.err = err.str();
    return r;
}

struct Refusal {
    const char *name;
    std::vector<std::string> args;
};

class CliRefusal : public testing::TestWithParam<Refusal> {};

// The folder holds one file, `blocker`, for the rows that give a file where a folder belongs:
// after the refusal it holds that file alone.
TEST_P(CliRefusal, ExitsTwoInOneLineAndWritesNothing)
{
    TempDir dir;
    accumlab::test::writeFile(dir / "blocker", "x");
    const Ran r = runInProcess(GetParam().args, dir.path());
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("accumlab-cli: error: ", 0), 0u) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"blocker"});
}

INSTANTIATE_TEST_SUITE_P(Rows, CliRefusal, testing::Values(
    Refusal{"unknown flag", {"--frobnicate"}},
    Refusal{"auto-resume without a checkpoint folder", {"train", "--auto-resume"}},
    Refusal{"auto-resume beside resume", {"train", "--checkpoint", ".", "--auto-resume", "--resume", "."}},
    Refusal{"zero micro", {"--micro-batch", "0"}},
    Refusal{"negative micro", {"--micro-batch", "-4"}},
    Refusal{"huge micro", {"--micro-batch", "1000000000"}},
    Refusal{"non-numeric micro", {"--micro-batch", "four"}},
    Refusal{"bad grid", {"--accum-grid", "1,x,4"}},
    // --settings: the sweep's record instead of its options, never beside them.
    Refusal{"settings beside an option", {"--settings", "sweep-settings.json", "--lr", "0.1"}},
    Refusal{"settings beside the world size", {"--settings", "sweep-settings.json", "--world-size", "2"}},
    Refusal{"settings unreadable", {"--settings", "/nonexistent/sweep-settings.json"}},
    Refusal{"empty grid entry", {"--accum-grid", "1,,4"}},
    Refusal{"zero steps", {"--num-steps", "0"}},
    Refusal{"huge accum", {"--accum-grid", "1000000"}},
    Refusal{"unknown dtype", {"--dtype", "float8"}},
    Refusal{"scaler bug without the scaler", {"--scaler-bug", "log-scaled-loss"}},
    Refusal{"unknown scaler bug", {"--loss-scaling", "--scaler-bug", "nope"}},
    Refusal{"unknown optimizer", {"--optimizer", "lion"}},
    Refusal{"unknown device", {"--device", "tpu"}},
    Refusal{"bad no-sync", {"--no-sync", "maybe"}},
    Refusal{"bad lang", {"--lang", "de"}},
    Refusal{"zero hidden", {"--hidden", "-3"}},
    Refusal{"oom demo, budget zero", {"oom-demo", "--budget", "0"}},
    Refusal{"oom demo, negative budget", {"oom-demo", "--budget", "-5"}},
    Refusal{"oom demo, budget under the weights", {"oom-demo", "--budget", "1000"}},
    Refusal{"oom demo, budget beyond the machine", {"oom-demo", "--budget", "1000000000000000000"}},
    Refusal{"oom demo, fails after a non-divisor", {"oom-demo", "--fails-after", "48"}},
    Refusal{"oom demo, micro-batch is the whole batch", {"oom-demo", "--fails-after", "512"}},
    Refusal{"tradeoff, fails after 0", {"tradeoff", "--fails-after", "0"}},
    Refusal{"oom demo, fails after 0", {"oom-demo", "--fails-after", "0"}},
    Refusal{"tradeoff, effective over ranks", {"tradeoff", "--effective-batch", "513", "--world-size", "2"}},
    Refusal{"tradeoff, grid entry not dividing", {"tradeoff", "--micro-grid", "3,4"}},
    Refusal{"tradeoff, out-dir is a file", {"tradeoff", "--out-dir", "blocker"}},
    Refusal{"finder, budget zero", {"find-micro-batch", "--budget", "0"}},
    Refusal{"out-dir is a file", {"--out-dir", "blocker"}},
    Refusal{"unwritable out-dir", {"--out-dir", "/proc/accumlab"}},
    Refusal{"split does not divide", {"equivalence", "--accum-steps", "3"}},
    Refusal{"compare split does not cover", {"equivalence", "--compare-split", "3x5"}},
    Refusal{"bad split", {"equivalence", "--compare-split", "4by4"}},
    Refusal{"zero big batch", {"equivalence", "--big-batch", "0"}},
    // Numbers: zero, negative, non-numeric, huge, overflowing.
    Refusal{"zero grid entry", {"--accum-grid", "1,0,4"}},
    Refusal{"negative grid entry", {"--accum-grid=1,-2"}},
    Refusal{"huge micro, small grid", {"--micro-batch", "1000000000", "--accum-grid", "1"}},
    Refusal{"huge accum 10^6 with micro 1", {"--micro-batch", "1", "--accum-grid", "1000000"}},
    Refusal{"huge effective batch", {"--micro-batch", "65536", "--accum-grid", "4096"}},
    Refusal{"huge wide window", {"--model", "wide", "--micro-batch", "4096", "--accum-grid", "128"}},
    Refusal{"huge width", {"--hidden", "65536"}},
    Refusal{"huge activations", {"--model", "wide", "--micro-batch", "32768", "--accum-grid", "1"}},
    Refusal{"overflowing micro", {"--micro-batch", "99999999999999999999"}},
    Refusal{"overflowing grid", {"--accum-grid", "99999999999999999999"}},
    Refusal{"non-numeric num-steps", {"--num-steps", "many"}},
    Refusal{"negative warm-up", {"--warmup-steps", "-1"}},
    Refusal{"negative threads", {"--threads", "-1"}},
    Refusal{"huge threads", {"--threads", "100000"}},
    Refusal{"negative seed", {"--seed", "-1"}},
    Refusal{"zero lr", {"--lr", "0"}},
    Refusal{"negative lr", {"--lr", "-0.1"}},
    Refusal{"non-numeric lr", {"--lr", "fast"}},
    Refusal{"nan lr", {"--lr", "nan"}},
    Refusal{"inf lr", {"--lr", "inf"}},
    Refusal{"huge lr", {"--lr", "1e9"}},
    Refusal{"huge world size", {"--world-size", "1000"}},
    Refusal{"zero world size", {"--world-size", "0"}},
    // Malformed grids.
    Refusal{"empty grid", {"--accum-grid", ""}},
    Refusal{"blank grid", {"--accum-grid", " , "}},
    Refusal{"trailing comma", {"--accum-grid", "1,2,"}},
    Refusal{"semicolons", {"--accum-grid", "1;2;4"}},
    Refusal{"fraction in grid", {"--accum-grid", "1,2.5"}},
    Refusal{"hex in grid", {"--accum-grid", "0x10"}},
    // Unknown names.
    Refusal{"unknown model", {"--model", "giant"}},
    Refusal{"unknown labels", {"--labels", "noisy"}},
    Refusal{"unknown scaling", {"--scaling", "half"}},
    Refusal{"unknown dtype on equivalence", {"equivalence", "--dtype", "int8"}},
    Refusal{"unknown device on equivalence", {"equivalence", "--device", "mps"}},
    Refusal{"unknown subcommand argument", {"experiment"}},
    // Sizes that do not divide or cover.
    Refusal{"big batch 10 into 4", {"equivalence", "--big-batch", "10", "--accum-steps", "4"}},
    Refusal{"zero accum steps", {"equivalence", "--accum-steps", "0"}},
    Refusal{"split 0x16", {"equivalence", "--compare-split", "0x16"}},
    Refusal{"split 4x", {"equivalence", "--compare-split", "4x"}},
    Refusal{"ranks do not divide", {"equivalence", "--world-size", "3"}},
    // Numbers are decimal, in range, and belong to the command that uses them (each of these
    // ran before: 0x10 as 16, the seed clamped to 2^64-1, inf as a timeout, the rate ignored).
    Refusal{"hex micro", {"--micro-batch", "0x10"}},
    Refusal{"hex grid-free option", {"equivalence", "--big-batch", "0x10"}},
    Refusal{"seed beyond 2^64", {"--seed", "99999999999999999999"}},
    Refusal{"threads in exponent form", {"--threads", "1e3"}},
    Refusal{"threads beyond int", {"--threads", "4294967297"}},
    Refusal{"lr hex float", {"--lr", "0x1p-3"}},
    Refusal{"lr overflowing", {"--lr", "1e999"}},
    Refusal{"dist-timeout inf", {"--world-size", "2", "--dist-timeout", "inf"}},
    // The launcher accepted it, made the out-dir, and the ranks refused it.
    Refusal{"dist-timeout 1e300", {"--world-size", "2", "--dist-timeout", "1e300"}},
    Refusal{"main job's lr before equivalence", {"--lr", "0.5", "equivalence"}},
    Refusal{"main job's seed before experiment", {"--seed", "3", "experiment", "list"}},
    // loop-code: a language the content lacks, a record it cannot make.
    Refusal{"loop-code in an unknown language", {"loop-code", "--lang", "xx"}},
    Refusal{"loop-code record of two ranks", {"loop-code", "--ranks", "2", "--record", "run.safetensors"}},
    Refusal{"loop-code record in bfloat16", {"loop-code", "--dtype", "bfloat16", "--record", "run.safetensors"}},
    Refusal{"loop-code record of a scaler's pitfall", {"loop-code", "--loss-scaling", "--scaler-bug", "update-every-micro", "--record", "run.safetensors"}},
    Refusal{"loop-code ranks 0", {"loop-code", "--ranks", "0"}},
    // A settings record that is none: a folder, no name at all (once the default sweep ran).
    Refusal{"settings a folder", {"--settings", "."}},
    Refusal{"settings with no name", {"--settings", ""}},
    Refusal{"settings not JSON", {"--settings", "blocker"}},
    // Output folders that cannot be used.
    Refusal{"out-dir under a file", {"--out-dir", "blocker/sub"}},
    Refusal{"empty out-dir", {"--out-dir", ""}},
    Refusal{"read-only file system", {"--out-dir", "/sys/accumlab"}},
    // Issue 60: float flags past float32's range (N11), outputs named by nothing (N13).
    Refusal{"clip-norm 1e300", {"train", "--num-steps", "1", "--clip-norm", "1e300"}},
    Refusal{"clip-norm 3.5e38", {"train", "--num-steps", "1", "--clip-norm", "3.5e38"}},
    Refusal{"equivalence clip-norm 1e308", {"equivalence", "--clip-norm", "1e308"}},
    Refusal{"oom demo, empty timeline", {"oom-demo", "--timeline", ""}},
    Refusal{"oom demo, empty snapshot", {"oom-demo", "--snapshot", ""}},
    Refusal{"tradeoff, empty out-dir", {"tradeoff", "--out-dir", ""}}), accumlab::test::ByName());

// The refusal names what the user typed: the option, in its own words (issue 60: --clip-norm
// 1e300 came back in c10's words, naming no option; 2^63 - 1 samples "did not divide" 512).
struct Says {
    const char *name;
    std::vector<std::string> args;
    const char *text;
};

class CliRefusalSays : public testing::TestWithParam<Says> {};

TEST_P(CliRefusalSays, TheOptionsName)
{
    TempDir dir;
    const Ran r = runInProcess(GetParam().args, dir.path());
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find(GetParam().text), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Rows, CliRefusalSays, testing::Values(
    Says{"clip-norm 1e300", {"train", "--num-steps", "1", "--clip-norm", "1e300"}, "--clip-norm"},
    Says{"clip-norm 3.5e38", {"train", "--num-steps", "1", "--clip-norm", "3.5e38"}, "--clip-norm"},
    Says{"timeline empty", {"oom-demo", "--timeline", ""}, "--timeline"},
    Says{"snapshot empty", {"oom-demo", "--snapshot", ""}, "--snapshot"},
    Says{"fails after past the share", {"oom-demo", "--fails-after", "9223372036854775807"},
         "at most the effective batch's share of one rank, 512 samples"}), accumlab::test::ByName());

// A refusal repeats the number it was given, digit for digit: 2^63 - 1 is not rounded
// through a double into ...808.
class CliHugeInteger : public testing::TestWithParam<Refusal> {};

TEST_P(CliHugeInteger, ReadsBackWhole)
{
    TempDir dir;
    const Ran r = runInProcess(GetParam().args, dir.path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("9223372036854775807"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Rows, CliHugeInteger,
                         testing::Values(Refusal{"oom demo", {"oom-demo", "--fails-after", "9223372036854775807"}},
                                         Refusal{"finder", {"find-micro-batch", "--fails-after", "9223372036854775807"}},
                                         Refusal{"tradeoff micro grid", {"tradeoff", "--micro-grid", "9223372036854775807"}}),
                         accumlab::test::ByName());

// A resume with a --num-steps the checkpoint already passed (issue 60, N17): once it ran
// nothing and reported the checkpoint's windows as this run's, exit 0. Refused, exit 2, with
// the --num-steps that continues it; exactly at the end it resumes to nothing, as a restart
// after the last save must.
TEST(CliInProcess, ResumePastTheRunIsRefused)
{
    TempDir dir;
    ASSERT_EQ(runInProcess({"train", "--num-steps", "3", "--checkpoint", "ck"}, dir.path()).exitCode, 0);
    const Ran past = runInProcess({"train", "--num-steps", "2", "--resume", "ck"}, dir.path());
    EXPECT_EQ(past.exitCode, 2) << past.out;
    EXPECT_NE(past.err.find("--num-steps 3 or more"), std::string::npos) << past.err;
    EXPECT_EQ(std::count(past.err.begin(), past.err.end(), '\n'), 1) << past.err;
    const Ran atTheEnd = runInProcess({"train", "--num-steps", "3", "--resume", "ck"}, dir.path());
    EXPECT_EQ(atTheEnd.exitCode, 0) << atTheEnd.err;
}

// The control: the same call runs a valid command (so a refusal above is the input's, not the
// harness's).
TEST(CliInProcess, ValidInputRuns)
{
    TempDir dir;
    const Ran r = runInProcess({"experiment", "list"}, dir.path());
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("sweep-flattening"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
}

// loop-code prints the listing core builds for the settings, as Python that parses.
TEST(CliInProcess, LoopCodePrintsTheListing)
{
    TempDir dir;
    const Ran r = runInProcess({"loop-code", "--bug", "never-zero", "--accum-steps", "8"}, dir.path());
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.err, "");
    accumlab::AccumConfig c;
    c.accumSteps = 8;
    c.bug = accumlab::AccumBug::NeverZero;
    EXPECT_EQ(r.out, accumlab::loopSource(accumlab::loopListing(c)));
    EXPECT_EQ(r.out.rfind("criterion = torch.nn.CrossEntropyLoss()\n", 0), 0u);
    EXPECT_NE(r.out.find("accum_steps = 8\n"), std::string::npos);
    // never-zero: zero_grad() before the windows, none inside them.
    EXPECT_NE(r.out.find("# bug: zeroed once, before the first window only\noptimizer.zero_grad()\n"
                         "# one update: accum_steps micro-batches (x, y)\nfor window in windows:\n"
                         "    for k, (x, y) in enumerate(window):\n"),
              std::string::npos)
        << r.out;
}

} // namespace
