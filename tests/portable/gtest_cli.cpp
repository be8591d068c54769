// accumlab-cli end to end, as a script would meet it, in every build (the LibTorch 2.x stage
// too): the lesson's main job with and without its exports, bad input through the program (exit
// 2, one line, nothing written; one row of each kind, every refusal's own row is
// tests/app/gtest_cli_refusals, in-process), the equivalence subcommand's exit code and JSON
// both ways (0 when it holds, 1 with the cause when a planted bug breaks it), `train
// --export-model`'s safetensors file, and the BLAS the program names in its environment. The
// rest of the CLI's tests are tests/app/gtest_cli_* (the desktop build's suite).
#include "core/io/curve_io.h"
#include "core/io/safetensors.h"
#include "core/io/sha256.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace accumlab;
using accumlab::test::ProcessResult;
using accumlab::test::runCli;
using accumlab::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

constexpr int kExitHolds = 0;
constexpr int kExitFails = 1;    // the equivalence check does not hold
constexpr int kExitBadInput = 2;

// The main job kept small: two points, three timed steps each, one thread.
std::vector<std::string> fastSweep(std::vector<std::string> more = {})
{
    std::vector<std::string> args{"--accum-grid", "1,2", "--num-steps", "3", "--warmup-steps", "0", "--threads", "1"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

std::string describe(const ProcessResult &r)
{
    return "exit " + std::to_string(r.exitCode) + "\n--- stdout\n" + r.out + "\n--- stderr\n" + r.err;
}

size_t countLines(const std::string &text)
{
    size_t n = 0;
    for (char c : text)
        n += c == '\n';
    return n;
}

class Cli : public testing::Test {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_F(Cli, MainJobWithNoWriteCreatesNothing)
{
    TempDir work;
    const ProcessResult r = runCli(fastSweep({"--no-write"}), work.path());
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_NE(r.out.find("equivalence holds"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("eff_batch"), std::string::npos) << r.out; // the sweep table
    EXPECT_EQ(work.entries(), std::vector<std::string>{}) << "--no-write left files in the working folder";
}

// The other side of the check above: without --no-write the same run in the same kind of
// folder does write outputs/, so an empty folder there means something.
TEST_F(Cli, MainJobWritesOutputsByDefault)
{
    TempDir work;
    const ProcessResult r = runCli(fastSweep(), work.path());
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_EQ(work.entries(), std::vector<std::string>{"outputs"});
    EXPECT_TRUE(fs::is_regular_file(work / "outputs" / "accum-curve.json"));
    EXPECT_TRUE(fs::is_regular_file(work / "outputs" / "skill-gradient-accumulation.md"));
}

TEST_F(Cli, MainJobWritesBothFilesToOutDir)
{
    TempDir work;
    const fs::path out = work / "exports";
    const ProcessResult r = runCli(fastSweep({"--out-dir", out.string()}), work.path());
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    EXPECT_NE(r.out.find("wrote " + (out / "accum-curve.json").string()), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("wrote " + (out / "skill-gradient-accumulation.md").string()), std::string::npos) << r.out;
    EXPECT_EQ(work.entries(), std::vector<std::string>{"exports"}); // no outputs/ beside it

    const CurveFile curve = parseCurveJson(accumlab::test::readFile(out / "accum-curve.json"));
    ASSERT_EQ(curve.points.size(), 2u);
    EXPECT_EQ(curve.points[0].effectiveBatch, 4); // the CLI's default micro-batch of 4, times accum 1
    EXPECT_EQ(curve.points[1].effectiveBatch, 8);
    EXPECT_EQ(curve.points[1].steps, 3);
    EXPECT_TRUE(curve.raw.at("equivalence").at("holds").get<bool>());
    const std::string skill = accumlab::test::readFile(out / "skill-gradient-accumulation.md");
    EXPECT_NE(skill.find("## Measured in this run"), std::string::npos);
}

// The curve's environment names the BLAS the program's matmuls ran on. Where the build has the
// apps load OpenBLAS's OpenMP build (ACCUMLAB_OPENBLAS_OPENMP, top-level CMakeLists.txt), the
// program must have loaded that one and not the system's choice.
TEST_F(Cli, MainJobNamesTheBlasItRanOn)
{
    TempDir work;
    const ProcessResult r = runCli(fastSweep({"--out-dir", work.path().string()}), work.path());
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    const CurveFile curve = parseCurveJson(accumlab::test::readFile(work / "accum-curve.json"));
    const std::string blas = curve.raw.at("environment").at("blas").get<std::string>();
    EXPECT_NE(blas, "unknown");
    EXPECT_FALSE(blas.empty());
    if (ACCUMLAB_APPS_OPENBLAS_OPENMP)
        EXPECT_NE(blas.find("(OpenMP threads)"), std::string::npos) << blas;
}

// ---- Bad input: exit 2, one line on stderr, nothing written -------------------------------------

struct BadInput {
    const char *name;
    std::vector<std::string> args;
};

class CliBadInput : public testing::TestWithParam<BadInput> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

// The program's refusal path, end to end: exit 2, one line, nothing on stdout, nothing
// written. The folder holds one file, `blocker`, for the rows that give a file where a folder
// belongs; without --no-write a run that got past the input check would create outputs/ there.
TEST_P(CliBadInput, ExitsTwoAndWritesNothing)
{
    TempDir work;
    accumlab::test::writeFile(work / "blocker", "x");
    const ProcessResult r = runCli(GetParam().args, work.path());
    EXPECT_EQ(r.exitCode, kExitBadInput) << describe(r);
    EXPECT_EQ(r.err.rfind("accumlab-cli: error: ", 0), 0u) << r.err;
    EXPECT_EQ(countLines(r.err), 1u) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(work.entries(), std::vector<std::string>{"blocker"});
}

INSTANTIATE_TEST_SUITE_P(Flags, CliBadInput,
                         testing::Values(BadInput{"micro_batch_0", {"--micro-batch", "0"}},
                                         BadInput{"empty_grid_entry", {"--accum-grid", "1,,2"}},
                                         BadInput{"unknown_flag", {"--frobnicate"}},
                                         BadInput{"equivalence_split_does_not_divide",
                                                  {"equivalence", "--accum-steps", "3"}},
                                         BadInput{"out-dir is a file (the exports)", {"--out-dir", "blocker"}},
                                         BadInput{"oom demo, budget under the weights (a subcommand)",
                                                  {"oom-demo", "--budget", "1000"}},
                                         BadInput{"dist-timeout 1e300 (the launcher)",
                                                  {"--world-size", "2", "--dist-timeout", "1e300"}}),
                         accumlab::test::ByName());

// ---- equivalence: the verdict in the exit code, both ways ---------------------------------------

struct EquivalenceRun {
    const char *name;
    std::vector<std::string> args;
    int exitCode;
    std::vector<std::string> stderrMentions;
    // The lesson's float32 figures: both diffs under 1e-4 when it holds, and stderr empty
    // unless the row names what it mentions.
    bool lessonFigures;
};

class CliEquivalence : public testing::TestWithParam<EquivalenceRun> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_P(CliEquivalence, ExitCodeAndJsonAgree)
{
    const EquivalenceRun &row = GetParam();
    std::vector<std::string> args{"equivalence"};
    args.insert(args.end(), row.args.begin(), row.args.end());
    const ProcessResult r = runCli(args);
    EXPECT_EQ(r.exitCode, row.exitCode) << describe(r);
    json j;
    ASSERT_NO_THROW(j = json::parse(r.out)) << "stdout is not one JSON object:\n" << r.out;
    ASSERT_TRUE(j.is_object());
    for (const char *key : {"max_grad_diff", "max_param_diff", "params_init_match", "update_ratio", "layers"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j.at("holds").get<bool>(), row.exitCode == kExitHolds);
    EXPECT_TRUE(j.at("params_init_match").get<bool>());
    if (row.lessonFigures && row.exitCode == kExitHolds) {
        EXPECT_LT(j.at("max_grad_diff").get<double>(), 1e-4);
        EXPECT_LT(j.at("max_param_diff").get<double>(), 1e-4);
    }
    for (const std::string &mention : row.stderrMentions)
        EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
    if (row.lessonFigures && row.stderrMentions.empty())
        EXPECT_EQ(r.err, "");
}

INSTANTIATE_TEST_SUITE_P(
    Runs, CliEquivalence,
    testing::Values(EquivalenceRun{"default", {}, kExitHolds, {}, true},
                    EquivalenceRun{"no_division", {"--scaling", "none"}, kExitFails, {"not divided", "4.00×"}, true},
                    EquivalenceRun{"no_division_8", {"--scaling", "none", "--accum-steps", "8"}, kExitFails, {"8.00×"}, true},
                    EquivalenceRun{"step_every_micro", {"--step-every-micro", "--optimizer", "adamw"}, kExitFails,
                                   {"every micro-batch"}, true},
                    EquivalenceRun{"2x8 compare", {"--compare-split", "2x8"}, kExitHolds, {}, false},
                    EquivalenceRun{"float64 adamw", {"--dtype", "float64", "--optimizer", "adamw"}, kExitHolds, {}, false},
                    EquivalenceRun{"bf16 dtype-aware", {"--dtype", "bfloat16"}, kExitHolds, {}, false},
                    EquivalenceRun{"float16 dtype-aware", {"--dtype", "float16"}, kExitHolds, {}, false}),
    accumlab::test::ByName());

// `train --export-model`: a safetensors file whose header names the parameters as torch does,
// with the lesson model's shapes, offsets that tile the data with no hole, and data whose
// SHA-256 is the run's params_sha256 (the same bytes the checkpoints and the JSON hash).
// tests/pytorch/check_model_file.py loads it with safetensors and torch (the LibTorch 2.x stage).
TEST_F(Cli, TrainExportsTheModelAsSafetensors)
{
    TempDir work;
    const fs::path file = work / "model.safetensors";
    const ProcessResult r = runCli({"train", "--num-steps", "3", "--optimizer", "adamw", "--export-model", file.string()},
                                   work.path());
    ASSERT_EQ(r.exitCode, 0) << describe(r);
    const json report = json::parse(r.out);
    EXPECT_EQ(report.at("model_file"), file.string());
    const std::string bytes = accumlab::test::readFile(file);
    const std::string text = safetensorsHeader(bytes);
    ASSERT_EQ(text.size() % 8, 0u) << "the tensors start 8-byte aligned";
    const json header = json::parse(text);
    const json meta = header.at("__metadata__");
    EXPECT_EQ(meta.at("format"), "accumlab-model");
    EXPECT_EQ(meta.at("version"), "1");
    EXPECT_EQ(meta.at("params_sha256"), report.at("params_sha256"));
    EXPECT_EQ(meta.at("windows_done"), "3");
    EXPECT_EQ(json::parse(meta.at("config").get<std::string>()).at("optimizer"), "adamw");
    const std::vector<std::pair<std::string, std::vector<int64_t>>> expected{
        {"fc1.weight", {128, 64}}, {"fc1.bias", {128}}, {"fc2.weight", {128, 128}},
        {"fc2.bias", {128}},       {"fc3.weight", {16, 128}}, {"fc3.bias", {16}}};
    EXPECT_EQ(header.size(), expected.size() + 1);
    size_t offset = 0;
    for (const auto &[name, shape] : expected) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(header.contains(name));
        const json &t = header.at(name);
        EXPECT_EQ(t.at("dtype"), "F32");
        EXPECT_EQ(t.at("shape").get<std::vector<int64_t>>(), shape);
        size_t count = 1;
        for (int64_t d : shape)
            count *= static_cast<size_t>(d);
        EXPECT_EQ(t.at("data_offsets").get<std::vector<size_t>>(), (std::vector<size_t>{offset, offset + 4 * count}));
        offset += 4 * count;
    }
    const size_t start = 8 + text.size();
    ASSERT_EQ(bytes.size(), start + offset) << "the data ends where the last tensor does";
    EXPECT_EQ(sha256Hex(bytes.data() + start, offset), report.at("params_sha256").get<std::string>());
}

// A model file that cannot be written is refused before the run trains: exit 4, nothing left.
TEST_F(Cli, TrainRefusesAnUnwritableModelFileFirst)
{
    TempDir work;
    std::ofstream(work / "notes.txt") << "a file where the model's folder would be\n";
    const fs::path file = work / "notes.txt" / "model.safetensors";
    const ProcessResult r = runCli({"train", "--num-steps", "2000", "--export-model", file.string()}, work.path());
    EXPECT_EQ(r.exitCode, 4) << describe(r);
    EXPECT_EQ(r.out, "") << "no run was reported";
    EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
    EXPECT_EQ(work.entries(), std::vector<std::string>{"notes.txt"});
}

// The writer itself: header length, padding, offsets in the order given, refusals.
TEST(Safetensors, LayoutAndRefusals)
{
    const float a[3] = {1.0f, 2.0f, 3.0f};
    const double b[2] = {4.0, 5.0};
    const std::string file = safetensorsFile({{"a", "F32", {3}, a, sizeof a}, {"b.x", "F64", {1, 2}, b, sizeof b}},
                                             {{"k", "v"}});
    const std::string text = safetensorsHeader(file);
    EXPECT_EQ(text.size() % 8, 0u);
    EXPECT_EQ(text.front(), '{');
    const json header = json::parse(text);
    EXPECT_EQ(header.at("__metadata__").at("k"), "v");
    EXPECT_EQ(header.at("a").at("data_offsets"), json::array({0, 12}));
    EXPECT_EQ(header.at("b.x").at("data_offsets"), json::array({12, 28}));
    EXPECT_EQ(header.at("b.x").at("shape"), json::array({1, 2}));
    ASSERT_EQ(file.size(), 8 + text.size() + 28);
    EXPECT_EQ(std::memcmp(file.data() + 8 + text.size() + 12, b, sizeof b), 0);
    EXPECT_THROW(safetensorsFile({{"a", "F32", {2}, a, sizeof a}}, {}), std::invalid_argument); // 12 bytes for 2
    EXPECT_THROW(safetensorsFile({{"a", "F32", {3}, a, sizeof a}, {"a", "F32", {3}, a, sizeof a}}, {}),
                 std::invalid_argument);
    EXPECT_THROW(safetensorsFile({{"a", "Q7", {3}, a, sizeof a}}, {}), std::invalid_argument);
    EXPECT_THROW(safetensorsHeader(std::string("\xff\xff\xff\xff\x00\x00\x00\x00{}", 10)), std::invalid_argument);
}

} // namespace
