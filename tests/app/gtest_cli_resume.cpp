// accumlab-cli train with --checkpoint and --resume, end to end: a run killed with SIGKILL at
// seeded random micro-batches (and while a checkpoint is being written) and resumed from its
// folder ends with the params_sha256 of the run that was never killed; one process and two
// ranks. A checkpoint of another run, world size or a damaged file is refused in words, exit 2.
#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

using accumlab::test::ProcessResult;
using accumlab::test::runCli;
using accumlab::test::TempDir;
using nlohmann::json;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// The run every row trains: 6 windows of 4 micro-batches of the fixture model.
constexpr int kWindows = 6;
constexpr int kAccum = 4;
constexpr int kTotalMicro = kWindows * kAccum;
// Kill points drawn from this seed, so that a failure names a point that can be rerun.
constexpr unsigned kKillSeed = 16;
constexpr int kRandomKills = 5;

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// `optimizerAndDtype` may end in "+float16": float16 with the loss scaler, whose scale grows
// every two clean windows, so its state changes between checkpoints.
std::vector<std::string> trainArgs(const std::string &optimizerAndDtype, int world)
{
    const std::string optimizer = optimizerAndDtype.substr(0, optimizerAndDtype.find('+'));
    std::vector<std::string> a{"train", "--model", "fixture", "--micro-batch", "3", "--accum-steps", std::to_string(kAccum),
                               "--num-steps", std::to_string(kWindows), "--optimizer", optimizer, "--lr-warmup", "3",
                               "--lr", optimizer == "adamw" ? "0.01" : "0.1", "--device", "cpu", "--seed", "5"};
    if (optimizerAndDtype.find("+float16") != std::string::npos)
        a = a + std::vector<std::string>{"--dtype", "float16", "--loss-scaling", "--scaler-growth-interval", "2"};
    if (world > 1)
        a = a + std::vector<std::string>{"--world-size", std::to_string(world)};
    return a;
}

json outJson(const ProcessResult &r)
{
    const json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    return j.is_object() ? j : json::object();
}

std::string uninterruptedSha(const std::string &optimizer, int world)
{
    static std::map<std::string, std::string> cache;
    const std::string key = optimizer + std::to_string(world);
    if (!cache.count(key)) {
        const ProcessResult r = runCli(trainArgs(optimizer, world));
        if (r.exitCode != 0)
            ADD_FAILURE() << "the uninterrupted run failed: " << r.err;
        cache[key] = outJson(r).value("params_sha256", std::string());
    }
    return cache[key];
}

struct Kill {
    std::string name;
    std::string optimizer;
    int every;         // --checkpoint-every-micro
    int killAt;        // micro-batches done when the process is killed
    std::string point; // ACCUMLAB_FAULT_KILL_POINT
    int world;
};

std::vector<Kill> kills()
{
    std::vector<Kill> rows;
    std::mt19937 gen(kKillSeed);
    const std::vector<std::string> optimizers{"sgd", "momentum", "adamw"};
    for (int i = 0; i < kRandomKills; ++i) {
        const int every = 1 + int(gen() % 3);
        // After the first checkpoint, before the run's end: inside or at the end of a window.
        const int killAt = every + int(gen() % unsigned(kTotalMicro - every - 1));
        const std::string optimizer = optimizers[size_t(i) % optimizers.size()];
        rows.push_back({optimizer + " every " + std::to_string(every) + " killed after micro " + std::to_string(killAt),
                        optimizer, every, killAt, "after-micro", 1});
    }
    // Killed while the checkpoint at micro 10 is written (its file in place, not yet the
    // latest): the resume takes the one before, whole.
    rows.push_back({"adamw killed while writing at micro 10", "adamw", 5, 10, "mid-checkpoint", 1});
    rows.push_back({"momentum killed while writing at micro 12", "momentum", 4, 12, "mid-checkpoint", 1});
    // float16 with the loss scaler: its scale and counters are part of the checkpoint.
    rows.push_back({"adamw float16 scaled killed after micro 9", "adamw+float16", 2, 9, "after-micro", 1});
    // Two ranks: each saves its own buffers, rank 0 the shared parts.
    rows.push_back({"two ranks momentum killed after micro 7", "momentum", 3, 7, "after-micro", 2});
    return rows;
}

class CliKillAndResume : public testing::TestWithParam<Kill> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_P(CliKillAndResume, EndsWithTheUninterruptedParameters)
{
    const Kill &k = GetParam();
    TempDir tmp;
    const std::string dir = (tmp / "ckpt").string();
    const std::vector<std::string> args =
        trainArgs(k.optimizer, k.world) + std::vector<std::string>{"--checkpoint", dir, "--checkpoint-every-micro", std::to_string(k.every)};
    const ProcessResult killed =
        runCli(args, {}, {{"ACCUMLAB_FAULT_KILL_AT_MICRO", std::to_string(k.killAt)}, {"ACCUMLAB_FAULT_KILL_POINT", k.point}});
    // One process dies of the signal; a launcher of ranks reports the killed rank (exit 3).
    EXPECT_TRUE(k.world == 1 ? killed.crashed : killed.exitCode == 3) << killed.err;
    const ProcessResult resumed = runCli(args + std::vector<std::string>{"--resume", dir});
    ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
    const json report = outJson(resumed);
    // The latest whole checkpoint: the one at the kill point unless it was being written.
    const int expectedFrom = k.point == "after-micro" ? k.killAt / k.every * k.every : k.killAt - k.every;
    const json from = report.value("resumed_from", json::object());
    EXPECT_EQ(from.value("micro_batches", -1), expectedFrom);
    EXPECT_EQ(from.value("micro_index", -1), expectedFrom % kAccum);
    EXPECT_EQ(report.value("micro_batches", -1), kTotalMicro);
    EXPECT_EQ(report.value("params_sha256", std::string()), uninterruptedSha(k.optimizer, k.world));
    if (k.optimizer.find("+float16") != std::string::npos) {
        // The scaler's counters carried on: every window unscaled once, the scale grown
        // every two clean windows from 65536.
        EXPECT_EQ(report.value("float16_path", std::string()).rfind("float16", 0), 0u);
        EXPECT_EQ(report.value("unscale_calls", -1), kWindows);
        EXPECT_EQ(report.value("skipped_windows", -1), 0);
        EXPECT_EQ(report.value("loss_scale", 0.0), 65536.0 * std::pow(2.0, kWindows / 2));
    }
}

INSTANTIATE_TEST_SUITE_P(Kills, CliKillAndResume, testing::ValuesIn(kills()), accumlab::test::ByName());

struct ResumeRefusal {
    const char *name;
    std::vector<std::string> resumeArgs;
    std::string damage; // "", "truncate" or "corrupt"
    std::string words;
};

class CliResumeRefusal : public testing::TestWithParam<ResumeRefusal> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_P(CliResumeRefusal, RefusesInWords)
{
    const ResumeRefusal &row = GetParam();
    TempDir tmp;
    const std::string dir = (tmp / "ckpt").string();
    const ProcessResult saved = runCli(trainArgs("sgd", 1) + std::vector<std::string>{"--checkpoint", dir});
    ASSERT_EQ(saved.exitCode, 0) << saved.err;
    if (!row.damage.empty()) {
        const std::string file = dir + "/gen-000000000024/rank-0.safetensors";
        std::string bytes = accumlab::test::readFile(file);
        ASSERT_GT(bytes.size(), 100u) << file;
        if (row.damage == "truncate")
            bytes.resize(bytes.size() - 100);
        else
            bytes[bytes.size() - 100] = char(bytes[bytes.size() - 100] ^ 0x40);
        accumlab::test::writeFile(file, bytes);
    }
    const ProcessResult r = runCli(row.resumeArgs + std::vector<std::string>{"--resume", dir});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(row.words), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliResumeRefusal,
    testing::Values(ResumeRefusal{"another world size", trainArgs("sgd", 2), "", "taken with 1 ranks; this run has 2"},
                    ResumeRefusal{"another optimizer", trainArgs("momentum", 1), "", "setting optimizer is sgd"},
                    ResumeRefusal{"another dtype", trainArgs("sgd", 1) + std::vector<std::string>{"--dtype", "float64"}, "",
                                  "taken in float32; this run computes in float64"},
                    ResumeRefusal{"another width", trainArgs("sgd", 1) + std::vector<std::string>{"--hidden", "20"}, "",
                                  "model of widths 32-48-8; this run's model is 32-20-8"},
                    ResumeRefusal{"truncated", trainArgs("sgd", 1), "truncate", "is truncated"},
                    ResumeRefusal{"corrupt", trainArgs("sgd", 1), "corrupt", "is corrupt"}),
    accumlab::test::ByName());

// --auto-resume, the one command line for torchrun's restarts: a first start with an empty
// folder runs fresh; the same command again, longer, continues from the checkpoint the first
// left and ends where one uninterrupted run ends.
TEST(CliAutoResume, StartsFreshThenContinues)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    TempDir tmp;
    const std::string dir = (tmp / "ckpt").string();
    auto args = [&](int windows) {
        std::vector<std::string> a = trainArgs("momentum", 1);
        a[std::find(a.begin(), a.end(), "--num-steps") - a.begin() + 1] = std::to_string(windows);
        return a;
    };
    const ProcessResult first = runCli(args(2) + std::vector<std::string>{"--checkpoint", dir, "--auto-resume"});
    ASSERT_EQ(first.exitCode, 0) << first.err;
    EXPECT_TRUE(outJson(first).value("resumed_from", json::object()).is_null()) << first.out;
    const ProcessResult second = runCli(args(kWindows) + std::vector<std::string>{"--checkpoint", dir, "--auto-resume"});
    ASSERT_EQ(second.exitCode, 0) << second.err;
    EXPECT_EQ(outJson(second).value("resumed_from", json::object()).value("windows_done", -1), 2) << second.out;
    EXPECT_EQ(outJson(second).value("params_sha256", std::string("none")), uninterruptedSha("momentum", 1));
}

// A group torchrun restarted (TORCHELASTIC_RESTART_COUNT above 0) whose train would start
// again from step 0 is refused in one line, exit 2.
TEST(CliAutoResume, ARestartWithoutACheckpointIsRefused)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    const ProcessResult r = runCli(trainArgs("sgd", 1), {},
                                   {{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"TORCHELASTIC_RESTART_COUNT", "1"}});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("--checkpoint DIR --auto-resume"), std::string::npos) << r.err;
}

// Two ranks, rank 1's file damaged (issue 60, N15): rank 1's sentence, naming its file, is the
// first error line, no rank's all-reduce failure comes before it, and the job exits with the
// refusal's code (2), not the transport's (3).
TEST(CliResumeRefusal, ARankRefusalComesFirst)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    TempDir tmp;
    const std::string dir = (tmp / "ckpt").string();
    const ProcessResult saved = runCli(trainArgs("sgd", 2) + std::vector<std::string>{"--checkpoint", dir});
    ASSERT_EQ(saved.exitCode, 0) << saved.err;
    // at a window's end rank 1's file is its header alone: one byte of its manifest changed
    const std::string file = dir + "/gen-000000000024/rank-1.safetensors";
    std::string bytes = accumlab::test::readFile(file);
    ASSERT_GT(bytes.size(), 100u) << file;
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x01);
    accumlab::test::writeFile(file, bytes);
    const ProcessResult r = runCli(trainArgs("sgd", 2) + std::vector<std::string>{"--resume", dir});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(first.rfind("accumlab-cli: error: rank 1: ", 0), 0u) << r.err;
    EXPECT_NE(first.find("rank-1.safetensors"), std::string::npos) << r.err; // its file named
    EXPECT_EQ(r.err.find("all-reduce"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out; // rank 0 reports no run
}

// The reproduction (issue 60, N3): a generation folder that is a link out of the
// checkpoint folder is refused before the run trains (exit 4, a checkpoint that cannot be
// written), and the file it points at keeps its content.
TEST(CliCheckpointFolder, ALinkOutOfTheFolderIsNotFollowed)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    TempDir tmp;
    std::filesystem::create_directories(tmp / "out");
    std::filesystem::create_directories(tmp / "ck");
    accumlab::test::writeFile(tmp / "out" / "rank-0.safetensors", "data\n");
    std::filesystem::create_symlink("../out", tmp / "ck" / "gen-000000000008");
    const ProcessResult r = runCli({"train", "--num-steps", "2", "--checkpoint", (tmp / "ck").string()});
    EXPECT_EQ(r.exitCode, 4) << r.err;
    EXPECT_NE(r.err.find("gen-000000000008 is a link or not a folder"), std::string::npos) << r.err;
    EXPECT_TRUE(accumlab::test::readFile(tmp / "out" / "rank-0.safetensors") == "data\n") << "the file outside was written";
    EXPECT_TRUE(std::filesystem::is_symlink(tmp / "ck" / "gen-000000000008"));
}

// The same link met on resume (--resume reads, it does not write): the latest generation moved
// out of the folder and a link left at its name is refused with the write's exit code (4) and a
// sentence naming it, not read through.
TEST(CliCheckpointFolder, ResumeDoesNotReadThroughALink)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    TempDir tmp;
    const std::string dir = (tmp / "ck").string();
    const ProcessResult saved = runCli(trainArgs("sgd", 1) + std::vector<std::string>{"--checkpoint", dir});
    ASSERT_EQ(saved.exitCode, 0) << saved.err;
    const std::string latest = accumlab::test::readFile(tmp / "ck" / "latest.json");
    const std::string gen = json::parse(latest).at("generation").get<std::string>();
    std::filesystem::create_directories(tmp / "out");
    std::filesystem::rename(tmp / "ck" / gen, tmp / "out" / gen);
    std::filesystem::create_symlink("../out/" + gen, tmp / "ck" / gen);
    const ProcessResult r = runCli(trainArgs("sgd", 1) + std::vector<std::string>{"--resume", dir});
    EXPECT_EQ(r.exitCode, 4) << r.err;
    EXPECT_NE(r.err.find("cannot resume from " + dir + ": " + dir + "/" + gen + " is a link or not a folder"), std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

} // namespace
