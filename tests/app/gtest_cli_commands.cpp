// accumlab-cli end to end, the commands one by one: the main job's exports and verdicts,
// OMP_NUM_THREADS, equivalence's planted bugs, the memory commands, `train`'s divergence and
// refusals, what is lost when stdout or the disk fails, and --help's defaults (core's). The
// refusals row by row are gtest_cli_refusals (in-process); one of each kind through the program,
// and equivalence's exit code both ways, are portable.cli (gtest_cli.cpp), which the LibTorch 2.x
// stage runs too.
#include "core/config.h"
#include "core/io/curve_io.h"
#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/experiments/experiments.h"
#include "core/io/export.h"
#include "core/lesson.h"
#include "core/memory/memory_lab.h"
#include "core/memory/memory_sentences.h"

#include "app/cli/commands/common.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iomanip>
#include <map>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

using namespace accumlab;
using accumlab::test::ProcessResult;
using accumlab::test::runCli;
using accumlab::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using accumlab::test::contains;
using accumlab::test::PrintTo; // a table row prints as its label (support.h)

using Args = std::vector<std::string>;

Args operator+(Args a, const Args &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

Args fastSweep() { return {"--accum-grid", "1,2", "--num-steps", "3", "--warmup-steps", "0", "--threads", "1"}; }

size_t countLines(const std::string &text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

bool startsWith(const std::string &text, const std::string &prefix) { return text.rfind(prefix, 0) == 0; }
bool endsWith(const std::string &text, const std::string &suffix)
{
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

json outJson(const ProcessResult &r)
{
    const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json::object();
}

// The lines of `out` from the first that is `expected`'s first, as many as `expected` has:
// where a block of sentences stands in a command's output.
std::vector<std::string> linesFrom(const std::string &out, const std::vector<std::string> &expected)
{
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    const auto first = expected.empty() ? lines.end() : std::find(lines.begin(), lines.end(), expected.front());
    const auto n = std::min<std::ptrdiff_t>(std::distance(first, lines.end()), std::ptrdiff_t(expected.size()));
    return {first, first + n};
}

class CliCommands : public testing::Test {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

template <class Row>
class CliTable : public testing::TestWithParam<Row> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

// ---- OMP_NUM_THREADS -----------------------------------------------------------------------------

// OMP_NUM_THREADS is read by libgomp before main: 100000000 crashed it (SIGSEGV) and
// 99999999999 aborted it, even with --threads 1. Now refused in a sentence, exit 2; valid
// values (a count, a nesting list) run.
struct OmpRow {
    const char *name;
    std::string value;
    int exitCode;
};
using CliOmpNumThreads = CliTable<OmpRow>;

TEST_P(CliOmpNumThreads, RefusedInASentenceOrRun)
{
    const OmpRow &row = GetParam();
    TempDir dir;
    const ProcessResult r = runCli({"--no-write", "--accum-grid", "1", "--num-steps", "1", "--threads", "1"}, dir.path(),
                                   {{"OMP_NUM_THREADS", row.value}});
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    if (row.exitCode == 2) {
        EXPECT_EQ(r.err, "accumlab-cli: error: OMP_NUM_THREADS='" + row.value +
                             "' is not a thread count from 1 to 4096 (or a comma-separated list of them); unset it "
                             "or use --threads\n");
        EXPECT_EQ(r.out, "");
    }
}

INSTANTIATE_TEST_SUITE_P(Values, CliOmpNumThreads,
                         testing::Values(OmpRow{"100000000 (crashed libgomp)", "100000000", 2},
                                         OmpRow{"99999999999 (aborted libgomp)", "99999999999", 2},
                                         OmpRow{"4097", "4097", 2}, OmpRow{"0", "0", 2}, OmpRow{"-5", "-5", 2},
                                         OmpRow{"abc", "abc", 2}, OmpRow{"2,", "2,", 2}, OmpRow{"1e9", "1e9", 2},
                                         OmpRow{"2", "2", 0}, OmpRow{"4096", "4096", 0},
                                         OmpRow{"4,2 (nested)", "4,2", 0}),
                         accumlab::test::ByName());

// ---- The main job ------------------------------------------------------------------------------

TEST_F(CliCommands, MainJobWritesBothExports)
{
    TempDir dir;
    const fs::path out = dir / "out";
    const ProcessResult r = runCli(fastSweep() + Args{"--out-dir", out.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "equivalence holds"));
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(eff_batch\s+accum\s+micro\s+sps\s+median_ms\s+syncs\s+loss)")));
    EXPECT_TRUE(contains(r.out, "wrote " + (out / "accum-curve.json").string()));
    EXPECT_TRUE(contains(r.out, "wrote " + (out / "skill-gradient-accumulation.md").string()));
    const CurveFile file = parseCurveJson(accumlab::test::readFile(out / "accum-curve.json"));
    ASSERT_EQ(file.points.size(), size_t(2));
    EXPECT_EQ(file.points[1].effectiveBatch, 8);
    EXPECT_GT(fs::file_size(out / "skill-gradient-accumulation.md"), 1000u);
    // The printed equivalence JSON is the one written.
    const size_t start = r.out.find('{');
    const size_t end = r.out.find("\n}\n") + 2;
    ASSERT_NE(start, std::string::npos);
    const json printed = json::parse(r.out.substr(start, end - start));
    EXPECT_EQ(printed.at("max_grad_diff").get<double>(), file.raw.at("equivalence").at("max_grad_diff").get<double>());
}

// float16 with the loss scaler: the path that ran and the scaler's counters, per point, in
// the table and in accum-curve.json.
TEST_F(CliCommands, Float16LossScalingCounters)
{
    TempDir dir;
    const ProcessResult r =
        runCli(fastSweep() + Args{"--dtype", "float16", "--loss-scaling", "--out-dir", (dir / "out").string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // 3 timed windows per point, warm-up 0: one unscale each, nothing skipped, the default scale.
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex("accum 2: float16(-emulated)?, loss scale 65536, skipped windows 0, unscale calls 3")))
        << r.out;
    const CurveFile file = parseCurveJson(accumlab::test::readFile(dir / "out" / "accum-curve.json"));
    for (const SweepPoint &p : file.points) {
        EXPECT_TRUE(p.lossScaling);
        EXPECT_EQ(p.lossScale, 65536.0);
        EXPECT_EQ(p.unscaleCalls, p.steps);
        EXPECT_EQ(p.skippedWindows, int64_t(0));
        EXPECT_TRUE(p.float16Path == "float16" || p.float16Path == "float16-emulated") << p.float16Path;
    }
}

// A leading zero does not make a number octal: 010 is ten, in options as in the grid.
TEST_F(CliCommands, LeadingZerosAreDecimal)
{
    TempDir dir;
    const ProcessResult r =
        runCli({"--no-write", "--micro-batch", "010", "--accum-grid", "01,003", "--num-steps", "02"}, dir.path());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // eff_batch accum micro: 10 = 10 x 1 and 30 = 10 x 3.
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+10\s+1\s+10\s)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+30\s+3\s+10\s)"))) << r.out;
}

// The working folder deleted under a relative --out-dir: the folder cannot be created.
TEST_F(CliCommands, VanishedOutDir)
{
    TempDir dir;
    fs::create_directory(dir / "gone");
    accumlab::test::ProcessOptions o = accumlab::test::cliOptions(dir / "gone");
    const ProcessResult r = accumlab::test::runProcess(
        "/bin/sh", {"-c", "rmdir \"$PWD\" && exec \"$ACCUMLAB_CLI\" --out-dir out --accum-grid 1 --num-steps 1"}, o);
    // The oneMKL inside a PyTorch 2.x wheel's LibTorch cannot load itself without a working
    // folder and ends the process before main(); no AccumLab code runs to check anything.
    if (startsWith(r.err, "Intel oneMKL FATAL ERROR"))
        GTEST_SKIP() << "this LibTorch's oneMKL cannot start in a removed working folder (it exits before main)";
    EXPECT_FALSE(r.crashed);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_TRUE(startsWith(r.err, "accumlab-cli: error: ") && contains(r.err, "out")) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

// A disk that fills up while the run works: the exports fail at the end in one line, exit 4,
// and an earlier run's exports stay whole. The child's file-size limit stands in for the
// full disk (write() fails with EFBIG rather than ENOSPC; the code path is the same).
TEST_F(CliCommands, FullDiskKeepsEarlierExports)
{
    TempDir dir;
    const Args args = fastSweep() + Args{"--out-dir", dir.path().string()};
    ASSERT_EQ(runCli(args).exitCode, 0);
    const std::string earlier = accumlab::test::readFile(dir / "accum-curve.json");

    accumlab::test::ProcessOptions o = accumlab::test::cliOptions();
    o.inChild = [] {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{};
        ::getrlimit(RLIMIT_FSIZE, &limit);
        limit.rlim_cur = 1024;
        ::setrlimit(RLIMIT_FSIZE, &limit);
    };
    const ProcessResult r = accumlab::test::runProcess(accumlab::test::cliPath(), args, o);
    EXPECT_FALSE(r.crashed);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_TRUE(startsWith(r.err, "accumlab-cli: error: cannot write ") && contains(r.err, "earlier exports")) << r.err;
    EXPECT_EQ(accumlab::test::readFile(dir / "accum-curve.json"), earlier);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"accum-curve.json", "skill-gradient-accumulation.md"}));
}

// No division and a high learning rate: the accum-16 point diverges, is reported in a
// sentence on stderr and in the table, marked in the JSON; the accum-1 point after it runs.
// At lr 0.3 accum 1 trains (its loss falls from 2.9 to about 1.5) and accum 16 without division
// (16x the step) blows up within 4 steps; at lr 0.7 accum 1 also climbs past 4x its first loss
// by step 11 (issue 62, N19: one divergence rule now says so).
// The planted bug is shown first (exit kExitBugShown), and the sweep still runs with it.
TEST_F(CliCommands, DivergenceIsReportedAndTheSweepCarriesOn)
{
    TempDir dir;
    const ProcessResult run = runCli({"--scaling", "none", "--lr", "0.3", "--accum-grid", "16,1", "--num-steps", "20",
                                      "--warmup-steps", "1", "--threads", "1", "--out-dir", dir.path().string()});
    ASSERT_EQ(run.exitCode, kExitBugShown) << run.err;
    ASSERT_TRUE(startsWith(run.err, "equivalence does not hold, as planted (--scaling none)")) << run.err;
    const size_t warning = run.err.find("warning: ");
    ASSERT_NE(warning, std::string::npos) << run.err;
    const std::string err = run.err.substr(warning); // the sweep's own lines
    const CurveFile file = parseCurveJson(accumlab::test::readFile(dir / "accum-curve.json"));
    ASSERT_EQ(file.points.size(), size_t(2));
    EXPECT_TRUE(file.points[0].diverged);
    EXPECT_TRUE(file.raw.at("points")[0].at("diverged").get<bool>());
    const int64_t k = file.raw.at("points")[0].at("diverged_at_step").get<int64_t>();
    const std::string sentence = "diverged at step " + std::to_string(k) + " of effective batch 64";
    EXPECT_TRUE(startsWith(err, "warning: " + sentence + " (") && endsWith(err, "the rest of the sweep carried on\n")) << err;
    EXPECT_EQ(countLines(err), 1u);
    EXPECT_TRUE(contains(run.out, sentence));
    EXPECT_FALSE(file.points[1].diverged);
    EXPECT_EQ(file.points[1].steps, 20);
    EXPECT_FALSE(file.raw.at("points")[1].contains("diverged_at_step"));
}

// The main job judges the settings it was given: a planted bug is shown with its figures at
// step 1 and why, the sweep still runs with it, the exit code says which, and both exports
// carry that run's own settings and verdict; the correct loop says it holds.
struct JudgeRow {
    const char *name;
    Args args;
    int exitCode;
    std::string verdict;
    std::string stderrStarts;
};
using CliMainJobJudges = CliTable<JudgeRow>;

TEST_P(CliMainJobJudges, ItsOwnSettings)
{
    const JudgeRow &row = GetParam();
    TempDir dir;
    const ProcessResult r =
        runCli(row.args + Args{"--num-steps", "5", "--warmup-steps", "0", "--threads", "1", "--out-dir", dir.path().string()});
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    if (row.stderrStarts.empty())
        EXPECT_EQ(r.err, "");
    else
        EXPECT_TRUE(startsWith(r.err, row.stderrStarts)) << r.err;
    EXPECT_EQ(contains(r.out, "equivalence holds"), row.verdict == "holds");
    if (row.exitCode == kExitBugShown) // the lesson's second exercise: its figures at step 1
        EXPECT_TRUE(contains(r.err, "after step 1: max |param diff| ") && contains(r.err, "update ratio")) << r.err;
    ASSERT_TRUE(fs::is_regular_file(dir / "accum-curve.json")) << "the sweep ran and wrote its exports";
    const json doc = json::parse(accumlab::test::readFile(dir / "accum-curve.json"));
    const json &eq = doc.at("equivalence");
    EXPECT_EQ(eq.at("verdict").get<std::string>(), row.verdict);
    EXPECT_EQ(eq.at("holds").get<bool>(), row.verdict != "fails");
    // The check is the run's: its settings are the sweep's, at the grid's largest accum_steps.
    EXPECT_EQ(eq.at("config").at("scaling"), doc.at("config").at("scaling"));
    EXPECT_EQ(eq.at("config").at("bug"), doc.at("config").at("bug"));
    EXPECT_EQ(eq.at("config").at("optimizer"), doc.at("config").at("optimizer"));
    EXPECT_EQ(eq.at("config").at("micro_batch"), doc.at("config").at("micro_batch"));
    const std::string md = accumlab::test::readFile(dir / "skill-gradient-accumulation.md");
    const std::string words = row.verdict == "holds"   ? "| verdict | equivalent (holds) |"
                              : row.verdict == "fails" ? "| verdict | not equivalent (fails): "
                                                       : "| verdict | the planted bug had no effect here: ";
    EXPECT_TRUE(contains(md, words)) << md;
    const bool none = std::find(row.args.begin(), row.args.end(), "none") != row.args.end();
    EXPECT_TRUE(contains(md, none ? "loss scaling none" : "loss scaling divide"));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliMainJobJudges,
    testing::Values(JudgeRow{"correct loop", {"--accum-grid", "1,4"}, 0, "holds", ""},
                    JudgeRow{"no division", {"--scaling", "none", "--accum-grid", "1,4"}, kExitBugShown, "fails",
                             "equivalence does not hold, as planted (--scaling none): the accumulated "
                             "gradient is 4.00× the full-batch one"},
                    JudgeRow{"never-zero, adamw", {"--bug", "never-zero", "--optimizer", "adamw", "--accum-grid", "2"},
                             kExitBugShown, "fails", "equivalence does not hold, as planted (--bug never-zero)"},
                    JudgeRow{"no division at accum 1", {"--scaling", "none", "--accum-grid", "1"}, kExitBugNoEffect,
                             "no-effect", "the planted bug (--scaling none) had no effect here"}),
    accumlab::test::ByName());

// --hidden overrides the preset's width; --lang fa writes the Persian recipe; peak memory
// is measured on the CPU by the counting allocator, and null with the counter kept off.
TEST_F(CliCommands, ModelWidthAndRecipeLanguage)
{
    TempDir dir;
    const ProcessResult r = runCli(fastSweep() + Args{"--hidden", "32", "--lang", "fa", "--out-dir", dir.path().string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const CurveFile file = parseCurveJson(accumlab::test::readFile(dir / "accum-curve.json"));
    EXPECT_EQ(file.raw.at("config").at("hidden").get<int>(), 32);
    // Weights and gradients of the 64-32-32-16 model alone are 4 x 3.7k parameters x 2.
    EXPECT_GT(file.raw.at("points")[0].at("peak_mem_bytes").get<int64_t>(), 2 * 4 * 3600);
    TempDir off;
    const ProcessResult r2 =
        runCli(fastSweep() + Args{"--memory-counter", "off", "--hidden", "32", "--out-dir", off.path().string()});
    ASSERT_EQ(r2.exitCode, 0) << r2.err;
    EXPECT_TRUE(parseCurveJson(accumlab::test::readFile(off / "accum-curve.json")).raw.at("points")[0].at("peak_mem_bytes").is_null());
    const std::string md = accumlab::test::readFile(dir / "skill-gradient-accumulation.md");
    EXPECT_TRUE(contains(md, "انباشت گرادیان"));
    EXPECT_TRUE(contains(md, "accum_steps = effective_batch // (micro_batch * world_size)"));
}

// ---- What is lost when stdout fails --------------------------------------------------------------

// A verdict printed into a full disk is lost: the run says so and exits 4, not 0 (the main
// job, the equivalence check, and --version alike).
struct LostRow {
    const char *name;
    Args args;
};
using CliLostStdout = CliTable<LostRow>;

TEST_P(CliLostStdout, IsAnError)
{
    accumlab::test::ProcessOptions o = accumlab::test::cliOptions();
    o.stdoutFile = "/dev/full";
    const ProcessResult r = accumlab::test::runProcess(accumlab::test::cliPath(), GetParam().args, o);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_TRUE(contains(r.err, "could not write to standard output")) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Rows, CliLostStdout,
                         testing::Values(LostRow{"equivalence", {"equivalence"}},
                                         LostRow{"main job", {"--no-write", "--accum-grid", "1", "--num-steps", "1"}},
                                         LostRow{"experiment list", {"experiment", "list"}}),
                         accumlab::test::ByName());

// ---- Planted bugs --------------------------------------------------------------------------------

// The bug zoo from the command line: `--bug list` names every bug core knows (so the list
// cannot drift from the engine), an unknown name is bad input, and each planted bug makes
// `equivalence` exit 1 with its measured cause while `--bug none` holds.
struct BugRow {
    const char *name;
    std::string bug;
    int exitCode;
    std::string mentions;
};
using CliBugZoo = CliTable<BugRow>;

TEST_P(CliBugZoo, EquivalenceSaysTheCause)
{
    const BugRow &row = GetParam();
    const ProcessResult r = runCli({"equivalence", "--bug", row.bug});
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    EXPECT_TRUE(contains(r.err, row.mentions)) << r.err;
    if (row.exitCode == 1)
        EXPECT_EQ(outJson(r).value("config", json::object()).value("bug", std::string()), row.bug);
}

INSTANTIATE_TEST_SUITE_P(
    Bugs, CliBugZoo,
    testing::Values(BugRow{"none", "none", 0, ""},
                    BugRow{"zero-every-micro", "zero-every-micro", 1, "zero_grad() ran before every micro-batch"},
                    BugRow{"never-zero", "never-zero", 1, "zero_grad() was never called after the first window"},
                    BugRow{"divide-by-n-plus-1", "divide-by-n-plus-1", 1, "divided by 5 instead of accum_steps (4)"},
                    BugRow{"skip-last-micro", "skip-last-micro", 1, "(3 of 4 ran)"},
                    BugRow{"count-micro-twice", "count-micro-twice", 1, "backward ran twice"},
                    BugRow{"clip-each-micro", "clip-each-micro", 1, "clip_grad_norm_() ran after every micro-batch"},
                    BugRow{"schedule-every-micro", "schedule-every-micro", 1, "the warmup of 8 updates advanced 4 times"},
                    BugRow{"unknown", "sometimes", 2, "bug"}),
    accumlab::test::ByName());

TEST_F(CliCommands, BugList)
{
    for (const Args &args : {Args{"--bug", "list"}, Args{"equivalence", "--bug", "list"}}) {
        const ProcessResult r = runCli(args);
        EXPECT_EQ(r.exitCode, 0);
        for (const std::string &name : accumBugNames())
            EXPECT_TRUE(contains(r.out, "  " + name + " ")) << name;
    }
}

// ---- The memory commands -------------------------------------------------------------------------

// The lesson's story on this CPU: under the "fails after 32 samples" budget the full batch
// of 512 fails inside LibTorch and 16 x 32 fits with the full batch's parameters. The
// planted row gives a budget the whole batch fits: the demo must say the contrast did not show.
struct OomRow {
    const char *name;
    Args args;
    int exitCode;
};
using CliOomDemo = CliTable<OomRow>;

TEST_P(CliOomDemo, ContrastAndItsFiles)
{
    const OomRow &row = GetParam();
    TempDir dir;
    const fs::path timeline = dir / "memory-timeline.json";
    const fs::path snapshot = dir / "memory-snapshot.pickle";
    const ProcessResult r = runCli(Args{"oom-demo", "--json", "--device", "cpu", "--timeline", timeline.string(),
                                        "--snapshot", snapshot.string()} +
                                   row.args);
    EXPECT_EQ(r.exitCode, row.exitCode);
    const json o = outJson(r);
    // --timeline: the two runs' measured timelines, whose peaks are the demo's; stdout
    // stays one JSON object.
    ASSERT_TRUE(fs::is_regular_file(timeline));
    const json t = json::parse(accumlab::test::readFile(timeline));
    EXPECT_EQ(t.at("schema"), "memory-timeline.v1");
    const json &runs = t.at("runs");
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].at("peak_bytes").get<double>(), o.at("full_batch").at("peak_bytes").get<double>());
    EXPECT_EQ(runs[1].at("peak_bytes").get<double>(), o.at("accumulation").at("peak_bytes").get<double>());
    EXPECT_EQ(t.value("full_batch_crosses_budget_at_event", json()).is_null(), row.exitCode != 0);
    // --snapshot: a pickle (protocol 2) that PyTorch's memory visualiser reads; the torch 2.x
    // stage opens it with torch.cuda._memory_viz (tests/pytorch/check_memory_snapshot.py).
    ASSERT_TRUE(fs::is_regular_file(snapshot));
    const std::string bytes = accumlab::test::readFile(snapshot);
    EXPECT_TRUE(startsWith(bytes, std::string("\x80\x02", 2)) && endsWith(bytes, "."));
    EXPECT_TRUE(contains(bytes, "device_traces") && contains(bytes, "free_completed") &&
                contains(bytes, "forward, micro-batch 0"));
    EXPECT_EQ(o.value("full_batch_out_of_memory", false), row.exitCode == 0);
    EXPECT_TRUE(o.value("accumulation_succeeded", false));
    // The one verdict on the loop, not the lesson's 1e-4: the step is the full batch's.
    EXPECT_EQ(o.at("equivalence").at("verdict"), "holds");
    EXPECT_TRUE(o.value("same_step", false));
    EXPECT_LE(o.at("accumulation").at("peak_bytes").get<double>(), o.at("budget_bytes").get<double>());
    if (row.exitCode == 0) {
        EXPECT_EQ(o.at("fails_after_samples").get<int>(), 32);
        EXPECT_TRUE(startsWith(o.at("full_batch_error").get<std::string>(), "CPU out of memory. Tried to allocate"));
        EXPECT_GT(o.at("full_batch").at("peak_bytes").get<double>(), o.at("budget_bytes").get<double>());
    } else {
        EXPECT_TRUE(contains(r.err, "the out-of-memory contrast did not show")) << r.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, CliOomDemo,
                         testing::Values(OomRow{"fails after 32", {}, 0},
                                         OomRow{"planted: a roomy budget", {"--budget", "64000000"}, 1}),
                         accumlab::test::ByName());

// The trade-off sweep writes accum-tradeoff.json, which the validating reader takes back:
// micro-batches 1 to 32 fit the lesson's budget, 64 to 512 ran out of memory.
TEST_F(CliCommands, TradeoffWritesAReadableFile)
{
    TempDir dir;
    const ProcessResult r = runCli({"tradeoff", "--device", "cpu", "--num-steps", "2", "--out-dir", (dir / "out").string()});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_TRUE(contains(r.out, "CPU out of memory")) << r.out;
    const TradeoffFile t = parseTradeoffJson(accumlab::test::readFile(dir / "out" / "accum-tradeoff.json"));
    EXPECT_EQ(t.effectiveBatch, int64_t(512));
    ASSERT_EQ(t.points.size(), size_t(10));
    for (const TradeoffPoint &p : t.points)
        EXPECT_EQ(p.outOfMemory, p.microBatch > 32) << p.microBatch;
    // Under the table, the sweep in core's English sentences, the Memory tab's: said of this
    // run as its file holds it (times included), line for line.
    TradeoffResult run;
    run.config.lab.effectiveBatch = t.effectiveBatch;
    run.device = t.raw.at("device").get<std::string>();
    run.budgetBytes = t.budgetBytes.value_or(0);
    run.points = t.points;
    EXPECT_EQ(linesFrom(r.out, tradeoffSentences(run, NumberStyle{})), tradeoffSentences(run, NumberStyle{})) << r.out;
    EXPECT_TRUE(contains(r.out, "\nTrade-off at an effective batch of 512 on cpu: 6 of 10 micro-batches fit the budget of ")) << r.out;
}

// The finder in core's English sentences, the Memory tab's, line for line: said of the run as
// its --json answer gives it (the counting allocator measures the same on every run).
TEST_F(CliCommands, FinderSaysItInWords)
{
    const ProcessResult r = runCli({"find-micro-batch", "--device", "cpu"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_TRUE(contains(r.out, "64 does not fit")) << r.out;
    EXPECT_TRUE(contains(r.out, "32 samples fit; effective 512 = 32 × 16 × 1 (budget ")) << r.out;
    const json j = outJson(runCli({"find-micro-batch", "--device", "cpu", "--json"}));
    ASSERT_TRUE(j.contains("tried")) << j.dump();
    MicroBatchFinding f;
    f.budgetBytes = j.at("budget_bytes").get<int64_t>();
    f.microBatch = j.at("micro_batch").get<int64_t>();
    f.accumSteps = j.at("accum_steps").get<int64_t>();
    f.effectiveBatch = j.at("effective_batch").get<int64_t>();
    f.worldSize = j.at("world_size").get<int64_t>();
    for (const json &t : j.at("tried"))
        f.tried.emplace_back(t.at("micro_batch").get<int64_t>(), t.at("fits").get<bool>());
    EXPECT_EQ(r.out, accumlab::test::joinLines(finderSentences(f, NumberStyle{})) + "\n");
    EXPECT_EQ(j.at("sentence").get<std::string>(), finderSentences(f, NumberStyle{}).front());
}

// The demo in core's English sentences, the Memory tab's, line for line: the CLI's run against
// the same demo run here, with the settings the CLI's flags give (the counting allocator's
// figures and the float64 twin's are the same on every run of one build).
TEST_F(CliCommands, OomDemoSaysItInCoresSentences)
{
    const ProcessResult r = runCli({"oom-demo", "--device", "cpu"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    cli::MemoryFlags flags;
    flags.run.device = "cpu";
    const OomDemoResult demo = runOomDemo(flags.lab());
    const std::vector<std::string> said = oomDemoSentences(demo, NumberStyle{});
    EXPECT_EQ(r.out, accumlab::test::joinLines(said) + "\n");
    ASSERT_GE(said.size(), size_t(6));
    EXPECT_TRUE(startsWith(said.front(), "Budget ")) << said.front();
    EXPECT_TRUE(startsWith(said.back(), "LibTorch's words: CPU out of memory. Tried to allocate ")) << said.back();
}

struct CudaRow {
    const char *name;
    Args args;
};
using CliCudaWhereThereIsNone = CliTable<CudaRow>;

TEST_P(CliCudaWhereThereIsNone, IsBadInput)
{
    if (cudaAvailable())
        GTEST_SKIP() << "this machine has a GPU";
    const ProcessResult r = runCli(GetParam().args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(contains(r.err, "CUDA")) << r.err;
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Rows, CliCudaWhereThereIsNone,
                         testing::Values(CudaRow{"sweep on cuda", {"--device", "cuda", "--no-write"}},
                                         CudaRow{"equivalence on cuda", {"equivalence", "--device", "cuda"}},
                                         CudaRow{"oom demo", {"oom-demo", "--device", "cuda"}}),
                         accumlab::test::ByName());

// ---- train ---------------------------------------------------------------------------------------

// `train` that diverged is no success: float16 at lr 1000 steps once, then every window's
// loss is NaN and the scaler skips it (the scale halving towards 0). The JSON says where
// and why, stderr says it in one line, the exit code is 5; rank 0's verdict decides with
// two ranks. The same run at the default rate, and the defaults, exit 0 with every window
// stepped and nothing on stderr.
struct DivergenceRow {
    const char *name;
    Args args;
    int exitCode;
    std::string reason; // empty: "diverged" is null
    int atMost;         // the window it diverges at, at the latest
};
using CliTrainDivergence = CliTable<DivergenceRow>;

TEST_P(CliTrainDivergence, IsReported)
{
    const DivergenceRow &row = GetParam();
    const ProcessResult r = runCli(row.args);
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    const json j = outJson(r);
    EXPECT_EQ(j.value("windows", -1), 50);
    ASSERT_TRUE(j.contains("stepped_windows"));
    const int stepped = j.at("stepped_windows").get<int>();
    // Only the scaler skips a step: what it skipped did not step, all the rest did.
    EXPECT_EQ(stepped, 50 - j.value("skipped_windows", 0));
    ASSERT_TRUE(j.contains("diverged"));
    if (row.reason.empty()) {
        EXPECT_TRUE(j.at("diverged").is_null());
        EXPECT_GT(stepped, 25); // the scaler may skip a window or two while its scale settles
        EXPECT_EQ(r.err, "");
        return;
    }
    const json &diverged = j.at("diverged");
    EXPECT_EQ(diverged.value("reason", std::string()), row.reason);
    const int atStep = diverged.value("at_step", 0);
    EXPECT_TRUE(atStep >= 2 && atStep <= row.atMost) << atStep;
    EXPECT_TRUE(j.at("loss").is_null()); // NaN: JSON has none
    EXPECT_TRUE(stepped >= 1 && stepped < atStep) << stepped;
    EXPECT_EQ(r.err, "diverged at step " + std::to_string(atStep) + " of 50 (" + row.reason + "); " +
                         std::to_string(stepped) + " of 50 windows stepped\n");
}

const Args kFp16{"train", "--dtype", "float16", "--loss-scaling", "--accum-steps", "1", "--micro-batch", "1", "--num-steps", "50"};

// The first window's step at lr 1000 leaves the parameters huge: one rank's next loss is
// not finite; two ranks' next window overflows the scaler first, the one after is NaN.
INSTANTIATE_TEST_SUITE_P(
    Rows, CliTrainDivergence,
    testing::Values(DivergenceRow{"float16, lr 1000", kFp16 + Args{"--lr", "1000"}, 5, "loss-not-finite", 3},
                    DivergenceRow{"float16, lr 1000, two ranks", kFp16 + Args{"--lr", "1000", "--world-size", "2"}, 5,
                                  "loss-not-finite", 3},
                    DivergenceRow{"float16, default rate", kFp16, 0, "", -1},
                    DivergenceRow{"defaults", {"train", "--num-steps", "50"}, 0, "", -1}),
    accumlab::test::ByName());

// `train` refuses what would waste or lose a run before it trains: an empty folder name
// (a run that saved nothing or silently started afresh), steps whose micro-batch count
// overflows (4611686018427387904 ran 0 micro-batches and exited 0), and a checkpoint folder
// that cannot take a file (found only after the training, exit 2 and "the previous
// checkpoint is left whole" when there was none). A checkpoint that cannot be written is an
// export that failed: exit 4.
struct TrainRefusal {
    const char *name;
    Args args;
    std::string setup; // "file": a file where the folder goes; "fifo": latest.json a FIFO
    int exitCode;
    std::string words;
};
using CliTrainRefuses = CliTable<TrainRefusal>;

TEST_P(CliTrainRefuses, BeforeItTrains)
{
    const TrainRefusal &row = GetParam();
    TempDir dir;
    if (row.setup == "file") {
        accumlab::test::writeFile(dir / "ck", "");
    } else if (row.setup == "fifo") {
        fs::create_directory(dir / "ck");
        ASSERT_EQ(::mkfifo((dir / "ck" / "latest.json").c_str(), 0600), 0);
    }
    const ProcessResult r = runCli(row.args, dir.path());
    ASSERT_EQ(r.exitCode, row.exitCode) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_TRUE(contains(r.err, row.words)) << r.err;
    EXPECT_LT(r.ms, 60000) << "refused only after training"; // 100000 windows take minutes
    if (row.setup == "fifo")
        EXPECT_TRUE(fs::exists(dir / "ck" / "latest.json") && !fs::is_regular_file(dir / "ck" / "latest.json"));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliTrainRefuses,
    testing::Values(TrainRefusal{"--resume ''", {"train", "--resume", ""}, "", 2, "--resume"},
                    TrainRefusal{"--checkpoint ''", {"train", "--checkpoint", ""}, "", 2, "--checkpoint"},
                    TrainRefusal{"--num-steps 2^62", {"train", "--num-steps", "4611686018427387904"}, "", 2,
                                 "--num-steps must be between 1 and 1000000"},
                    TrainRefusal{"--num-steps 10^12", {"train", "--num-steps", "1000000000000"}, "", 2,
                                 "--num-steps must be between 1 and 1000000"},
                    TrainRefusal{"checkpoint folder is a file", {"train", "--num-steps", "100000", "--checkpoint", "ck"},
                                 "file", 4, "there was no earlier checkpoint"},
                    TrainRefusal{"latest.json is a FIFO", {"train", "--num-steps", "100000", "--checkpoint", "ck"}, "fifo",
                                 4, "cannot write the checkpoint in"}),
    accumlab::test::ByName());

// ---- --help --------------------------------------------------------------------------------------

// Every default --help shows is core's own (the config structs' defaults), not a number
// restated in the CLI: read from the help text and compared with core here.
struct HelpRow {
    std::string name;
    std::string command; // the subcommand, empty for the main job
    std::string option;
    std::string expected;
};
using CliHelpDefaults = CliTable<HelpRow>;

std::vector<HelpRow> helpRows()
{
    const auto n = [](double v) {
        std::ostringstream s;
        s << std::setprecision(17) << v;
        return s.str();
    };
    std::vector<HelpRow> rows;
    const auto add = [&](const std::string &command, const std::vector<std::pair<const char *, std::string>> &options) {
        for (const auto &[option, value] : options)
            rows.push_back({(command.empty() ? "" : command + " ") + option, command, option, value});
    };
    const LessonOptions lesson;
    const AccumConfig &b = lesson.sweep.base;
    std::string grid;
    for (const int64_t v : lesson.sweep.accumGrid)
        grid += (grid.empty() ? "" : ",") + std::to_string(v);
    add("", {{"--micro-batch", n(b.microBatch)}, {"--accum-grid", grid}, {"--num-steps", n(lesson.sweep.numSteps)},
             {"--warmup-steps", n(lesson.sweep.warmupSteps)}, {"--repeats", n(lesson.sweep.repeats)}, {"--seed", n(b.seed)},
             {"--lr", n(b.optimizer.lr)}, {"--clip-norm", n(b.optimizer.clipNorm)}, {"--lr-warmup", n(b.optimizer.lrWarmup)},
             {"--out-dir", lesson.outDir.string()}, {"--optimizer", toString(b.optimizer.kind)},
             {"--scaling", toString(b.scaling)}, {"--bug", toString(b.bug)}, {"--no-sync", b.noSync ? "on" : "off"},
             {"--dtype", toString(b.dtype)}, {"--device", toString(b.device)}, {"--threads", n(lesson.sweep.threads)},
             {"--model", toString(b.preset)}, {"--labels", toString(b.labels)}, {"--lang", lesson.language},
             {"--world-size", n(b.worldSize)}, {"--dist-timeout", n(kDefaultDistTimeoutS)}});
    const EquivalenceConfig e;
    add("equivalence", {{"--big-batch", n(e.bigBatch())}, {"--accum-steps", n(e.run.accumSteps)},
                        {"--optimizer", toString(e.run.optimizer.kind)}, {"--lr", n(e.run.optimizer.lr)},
                        {"--clip-norm", n(e.run.optimizer.clipNorm)}, {"--lr-warmup", n(e.run.optimizer.lrWarmup)},
                        {"--scaling", toString(e.run.scaling)}, {"--bug", toString(e.run.bug)},
                        {"--dtype", toString(e.run.dtype)}, {"--device", toString(e.run.device)},
                        {"--labels", toString(e.run.labels)}, {"--seed", n(e.run.seed)}});
    const TradeoffConfig t;
    add("tradeoff", {{"--model", toString(t.lab.base.preset)}, {"--device", toString(t.lab.base.device)},
                     {"--dtype", toString(t.lab.base.dtype)}, {"--optimizer", toString(t.lab.base.optimizer.kind)},
                     {"--lr", n(t.lab.base.optimizer.lr)}, {"--seed", n(t.lab.base.seed)},
                     {"--effective-batch", n(t.lab.effectiveBatch)}, {"--world-size", n(t.lab.base.worldSize)},
                     {"--fails-after", n(kLessonFailsAfterSamples)}, {"--num-steps", n(t.numSteps)},
                     {"--warmup-steps", n(t.warmupSteps)}});
    const ExperimentOptions x;
    add("experiment", {{"--sweep-steps", n(x.sweepSteps)}, {"--seed", n(x.seed)}, {"--threads", n(x.threads)}});
    return rows;
}

TEST_P(CliHelpDefaults, AreCores)
{
    const HelpRow &row = GetParam();
    // One run per command's help (each start loads LibTorch).
    static std::map<std::string, ProcessResult> helps;
    if (!helps.count(row.command))
        helps[row.command] = runCli(row.command.empty() ? Args{"--help"} : Args{row.command, "--help"});
    const ProcessResult &r = helps[row.command];
    ASSERT_EQ(r.exitCode, 0);
    // CLI11 writes "  --option TYPE=default  description".
    const std::regex line("^\\s+" + row.option + "\\s+[^=\\s]+=(\\S+)");
    std::string shown;
    bool found = false;
    std::istringstream lines(r.out);
    for (std::string text; !found && std::getline(lines, text);) {
        std::smatch m;
        if ((found = std::regex_search(text, m, line)))
            shown = m[1];
    }
    ASSERT_TRUE(found) << row.option << " shows no default in:\n" << r.out;
    char *wantEnd = nullptr, *gotEnd = nullptr;
    const double want = std::strtod(row.expected.c_str(), &wantEnd), got = std::strtod(shown.c_str(), &gotEnd);
    const bool numeric = !row.expected.empty() && *wantEnd == '\0', shownNumeric = !shown.empty() && *gotEnd == '\0';
    if (numeric && shownNumeric)
        EXPECT_EQ(got, want) << row.option << " shows " << shown << ", core's default is " << row.expected;
    else
        EXPECT_EQ(shown, row.expected);
}

INSTANTIATE_TEST_SUITE_P(Options, CliHelpDefaults, testing::ValuesIn(helpRows()), accumlab::test::ByName());

} // namespace
