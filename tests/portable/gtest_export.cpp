// accum-curve.v1: the lesson's field names, a round trip through the reader, the reader's
// rejections, the atomic write leaving no partial file, a pair of files published together
// (rolled back when the second fails, never interleaved between writers), a symlink replaced
// rather than followed, a signal mid-export leaving no temporary file, and the other results'
// JSON objects.
#include "core/device.h"
#include "core/io/export.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <functional>
#include <string>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace accumlab;
using nlohmann::json;
namespace test = accumlab::test;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

SweepResult smallResult()
{
    SweepConfig s;
    s.base.preset = ModelPreset::Fixture;
    s.base.device = DeviceRequest::Cpu;
    s.accumGrid = {1, 2};
    s.numSteps = 3;
    s.warmupSteps = 0;
    return runSweep(s);
}

// What a folder listing takes in, as QDir's filters say it: regular files (and links to them),
// folders (and links to them), dot-files, and the rest (FIFOs, sockets, dangling links).
enum Listing : unsigned { Files = 1, Dirs = 2, AllEntries = Files | Dirs, Hidden = 4, System = 8 };

// The names in `folder` that `filter` takes in and the wildcard `glob` matches (case ignored,
// as QDir's name filters), sorted; "." and ".." never.
std::vector<std::string> entryList(const fs::path &folder, unsigned filter, const std::string &glob = "*")
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(folder)) {
        const std::string name = e.path().filename().string();
        if (!(filter & Hidden) && name.front() == '.')
            continue;
        if (::fnmatch(glob.c_str(), name.c_str(), FNM_CASEFOLD) != 0)
            continue;
        std::error_code ec;
        const fs::file_status s = fs::status(e.path(), ec); // through a link
        const bool wanted = fs::is_regular_file(s)   ? (filter & Files) != 0
                            : fs::is_directory(s) ? (filter & Dirs) != 0
                                                  : (filter & System) != 0;
        if (wanted)
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

using Names = std::vector<std::string>;

// One change to an AccumConfig (accumConfigJsonHasEveryField's rows).
using ConfigChange = std::function<void(AccumConfig &)>;

struct ConfigRow {
    const char *name;
    ConfigChange change;
    std::string key;
};

std::vector<ConfigRow> configRows()
{
    return {
        {"preset", [](AccumConfig &c) { c.preset = ModelPreset::Wide; }, "model"},
        {"shape", [](AccumConfig &c) { c.shape = ModelShape{64, 96, 16}; }, "hidden"},
        {"microBatch", [](AccumConfig &c) { c.microBatch = 8; }, "micro_batch"},
        {"accumSteps", [](AccumConfig &c) { c.accumSteps = 3; }, "accum_steps"},
        {"worldSize", [](AccumConfig &c) { c.worldSize = 2; }, "world_size"},
        {"optimizer.kind", [](AccumConfig &c) { c.optimizer.kind = OptimizerKind::AdamW; }, "optimizer"},
        {"optimizer.lr", [](AccumConfig &c) { c.optimizer.lr = 0.2; }, "lr"},
        {"optimizer.momentum", [](AccumConfig &c) { c.optimizer.momentum = 0.5; }, "momentum"},
        {"optimizer.weightDecay", [](AccumConfig &c) { c.optimizer.weightDecay = 0.1; }, "weight_decay"},
        {"optimizer.adamWeightDecay", [](AccumConfig &c) { c.optimizer.adamWeightDecay = 0.2; }, "adam_weight_decay"},
        {"optimizer.beta1", [](AccumConfig &c) { c.optimizer.beta1 = 0.8; }, "beta1"},
        {"optimizer.beta2", [](AccumConfig &c) { c.optimizer.beta2 = 0.99; }, "beta2"},
        {"optimizer.eps", [](AccumConfig &c) { c.optimizer.eps = 1e-6; }, "eps"},
        {"optimizer.clipNorm", [](AccumConfig &c) { c.optimizer.clipNorm = 1.0; }, "clip_norm"},
        {"optimizer.lrWarmup", [](AccumConfig &c) { c.optimizer.lrWarmup = 4; }, "lr_warmup"},
        {"scaling", [](AccumConfig &c) { c.scaling = Scaling::None; }, "scaling"},
        {"stepEveryMicro", [](AccumConfig &c) { c.stepEveryMicro = true; }, "step_every_micro"},
        {"bug", [](AccumConfig &c) { c.bug = AccumBug::CountMicroTwice; }, "bug"},
        {"noSync", [](AccumConfig &c) { c.noSync = false; }, "no_sync"},
        {"dtype", [](AccumConfig &c) { c.dtype = DType::Float64; }, "dtype"},
        {"lossScaler.enabled", [](AccumConfig &c) { c.lossScaler.enabled = true; }, "loss_scaling"},
        {"lossScaler.initScale", [](AccumConfig &c) { c.lossScaler.initScale = 1024; }, "scaler_init_scale"},
        {"lossScaler.growthFactor", [](AccumConfig &c) { c.lossScaler.growthFactor = 4; }, "scaler_growth_factor"},
        {"lossScaler.backoffFactor", [](AccumConfig &c) { c.lossScaler.backoffFactor = 0.25; },
         "scaler_backoff_factor"},
        {"lossScaler.growthInterval", [](AccumConfig &c) { c.lossScaler.growthInterval = 3; },
         "scaler_growth_interval"},
        {"lossScaler.bug", [](AccumConfig &c) { c.lossScaler.bug = ScalerBug::LogScaledLoss; }, "scaler_bug"},
        {"lossScaler.spikeWindow", [](AccumConfig &c) { c.lossScaler.spikeWindow = 2; }, "scaler_spike_window"},
        {"lossScaler.spikeMicro", [](AccumConfig &c) { c.lossScaler.spikeMicro = 1; }, "scaler_spike_micro"},
        {"device", [](AccumConfig &c) { c.device = DeviceRequest::Cuda; }, "device"},
        {"labels", [](AccumConfig &c) { c.labels = LabelKind::Random; }, "labels"},
        {"seed", [](AccumConfig &c) { c.seed = 99; }, "seed"},
    };
}

TEST(Export, LessonFieldNames)
{
    const auto sweep = smallResult();
    const json j = curveJson(sweep);
    EXPECT_EQ(j.at("schema").get<std::string>(), "accum-curve.v1");
    ASSERT_EQ(j.at("points").size(), size_t(2));
    for (const char *field : {"effective_batch", "accum_steps", "micro_batch", "avg_loss", "samples_per_sec",
                              "median_step_ms", "sync_calls", "steps"})
        EXPECT_TRUE(j.at("points")[0].contains(field)) << field;
    EXPECT_TRUE(j.at("points")[0].at("steps").is_number_integer());
    EXPECT_TRUE(j.contains("timed_region"));
    EXPECT_TRUE(j.contains("config"));
    EXPECT_TRUE(j.contains("environment"));
    EXPECT_EQ(j.at("config").at("accum_grid").size(), size_t(2));
}

// toJson(AccumConfig) is the one record of a run's settings: a checkpoint compares it on
// resume and the ranks of one job compare it before they start. Each row changes one
// field of AccumConfig; a field the record leaves out leaves it unchanged, and the fault
// goes unnoticed (a rank without the loss scaler once ran beside ranks with it).
class AccumConfigJsonHasEveryField : public testing::TestWithParam<ConfigRow> {};

TEST_P(AccumConfigJsonHasEveryField, Changes)
{
    const ConfigRow &row = GetParam();
    AccumConfig base;
    base.device = DeviceRequest::Cpu;
    AccumConfig changed = base;
    row.change(changed);
    if (row.key == "device" && !cudaAvailable())
        GTEST_SKIP() << "the device record is the resolved device: without CUDA every request resolves to the CPU";
    const auto a = toJson(base), b = toJson(changed);
    EXPECT_TRUE(a.at(row.key) != b.at(row.key)) << row.key;
}

INSTANTIATE_TEST_SUITE_P(Rows, AccumConfigJsonHasEveryField, testing::ValuesIn(configRows()), test::ByName());

// accumConfigFromJson reads back every key toJson writes (the window hands a sweep to its
// ranks as this record): each row's change survives the trip, and the record read back is
// the record written.
class AccumConfigJsonReadsBackEveryField : public testing::TestWithParam<ConfigRow> {};

TEST_P(AccumConfigJsonReadsBackEveryField, ReadsBack)
{
    const ConfigRow &row = GetParam();
    const std::string &key = row.key;
    if (key == "device" && !cudaAvailable())
        GTEST_SKIP() << "the device record is the resolved device: without CUDA every request resolves to the CPU";
    AccumConfig changed;
    changed.device = DeviceRequest::Cpu;
    row.change(changed);
    if (key.rfind("scaler_", 0) == 0 && key != "scaler_bug")
        changed.lossScaler.enabled = true;
    const auto written = toJson(changed);
    const AccumConfig read = accumConfigFromJson(nlohmann::json::parse(written.dump()));
    EXPECT_EQ(toJson(read).dump(), written.dump());
    const AccumConfig defaults = accumConfigFromJson(nlohmann::json::object({{key, written.at(key)}}), AccumConfig{});
    EXPECT_EQ(toJson(defaults).at(key).dump(), written.at(key).dump());
}

INSTANTIATE_TEST_SUITE_P(Rows, AccumConfigJsonReadsBackEveryField, testing::ValuesIn(configRows()), test::ByName());

// What the record refuses, each with the key at fault: a key toJson does not write, a value
// of another type, a name no enum has, a negative seed.
struct RefusedRecord {
    const char *name;
    std::string record;
    std::string code;
    std::string key; // "": the message is not checked for a key
};

class AccumConfigJsonRefuses : public testing::TestWithParam<RefusedRecord> {};

TEST_P(AccumConfigJsonRefuses, WithTheKeyAtFault)
{
    const RefusedRecord &row = GetParam();
    try {
        accumConfigFromJson(nlohmann::json::parse(row.record));
        FAIL() << "accepted";
    } catch (const ConfigError &e) {
        EXPECT_EQ(e.code(), row.code);
        if (!row.key.empty())
            EXPECT_TRUE(std::string(e.what()).find(row.key) != std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, AccumConfigJsonRefuses,
    testing::ValuesIn(std::vector<RefusedRecord>{
        {"unknown key", R"({"micro_batches": 4})", "config/settings-unknown-key", "micro_batches"},
        {"number as text", R"({"micro_batch": "4"})", "config/settings-not-whole", "micro_batch"},
        {"fraction for an integer", R"({"accum_steps": 2.5})", "config/settings-not-whole", "accum_steps"},
        {"switch as number", R"({"no_sync": 1})", "config/settings-not-true-false", "no_sync"},
        {"negative seed", R"({"seed": -1})", "config/settings-out-of-range", "seed"},
        {"not an object", R"([1, 2])", "config/settings-bad-value", "run"},
        {"unknown bug", R"({"bug": "zero-twice"})", "config/unknown-bug", ""},
    }),
    test::ByName());

// The sweep's record: every field of the sweep and of its run comes back (a run the lesson
// preset's command line could not express, another input width, included), and only that.
TEST(Export, SweepSettingsRoundTrip)
{
    SweepConfig c;
    c.base.device = DeviceRequest::Cpu;
    c.base.shape = ModelShape{8, 8, 2};
    c.base.bug = AccumBug::CountMicroTwice;
    c.base.optimizer.clipNorm = 0.5;
    c.base.optimizer.lrWarmup = 6;
    c.base.optimizer.lr = 0.05;
    c.base.stepEveryMicro = true;
    c.base.dtype = DType::Float16;
    c.base.lossScaler.enabled = true;
    c.base.lossScaler.growthInterval = 7;
    c.base.lossScaler.initScale = 1024;
    c.base.lossScaler.bug = ScalerBug::UnscaleEveryMicro;
    c.base.worldSize = 2;
    c.accumGrid = {2, 8};
    c.numSteps = 11;
    c.warmupSteps = 3;
    c.repeats = 4;
    c.threads = 1;
    c.equalWork = true;
    const auto written = sweepSettingsJson(c);
    EXPECT_EQ(written.at("schema").get<std::string>(), std::string(kSweepSettingsSchema));
    const SweepConfig read = sweepSettingsFromJson(nlohmann::json::parse(written.dump()));
    EXPECT_EQ(sweepSettingsJson(read).dump(), written.dump());
    EXPECT_EQ(read.base.modelShape().inFeatures, int64_t(8));
    EXPECT_TRUE(read.base.lossScaler.bug == ScalerBug::UnscaleEveryMicro);
    EXPECT_EQ(read.accumGrid, (std::vector<int64_t>{2, 8}));

    nlohmann::json extra = written;
    extra["accum_steps"] = 4; // the grid's: a run's key at the sweep's level is no setting
    EXPECT_THROW(sweepSettingsFromJson(extra), ConfigError);
    nlohmann::json other = written;
    other["schema"] = "accum-curve.v1";
    EXPECT_THROW(sweepSettingsFromJson(other), ConfigError);
    nlohmann::json grid = written;
    grid["accum_grid"] = {2, "8"};
    EXPECT_THROW(sweepSettingsFromJson(grid), ConfigError);
}

// A settings record file (accumlab-cli --settings FILE) that is not one is refused in one short
// sentence that names the file, never read whole, never dumped: a value nested 100,000 deep (once
// SIGSEGV in the refusal's recursive dump; 50,000 deep a 300 KB sentence), a FIFO (once blocked
// until killed), a folder (once "basic_filebuf::underflow error"), a sparse file past the bound,
// a 500 KB string, a 500 KB key (5 MB is past the bound).
struct SettingsFileRow {
    const char *name;
    std::function<void(const fs::path &)> make; // writes the file at the path
    const char *code;
    const char *says = nullptr; // a part of the sentence, where it matters
};
class SettingsFileRefusals : public testing::TestWithParam<SettingsFileRow> {};

TEST_P(SettingsFileRefusals, OneShortSentenceNamingTheFile)
{
    test::TempDir dir;
    const fs::path file = dir / "settings.json";
    GetParam().make(file);
    try {
        readSweepSettingsFile(file);
        FAIL() << "accepted";
    } catch (const ConfigError &e) {
        EXPECT_EQ(e.code(), GetParam().code) << e.what();
        const std::string what = e.what();
        EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
        // Nothing a terminal or a C string would cut or split: no NUL, no newline.
        EXPECT_EQ(std::count_if(what.begin(), what.end(), [](char ch) { return (unsigned char)ch < 0x20; }), 0) << what;
        if (GetParam().says)
            EXPECT_NE(what.find(GetParam().says), std::string::npos) << what;
        if (e.code().rfind("config/settings-file-", 0) == 0)
            EXPECT_NE(what.find(file.string()), std::string::npos) << what;
    }
}

namespace {

void writeText(const fs::path &file, const std::string &text)
{
    std::ofstream(file, std::ios::binary) << text;
}

std::string nested(int depth, const std::string &inner)
{
    return std::string(size_t(depth), '[') + inner + std::string(size_t(depth), ']');
}

std::string recordWith(const std::string &key, const std::string &value)
{
    return R"({"schema": "accumlab-sweep-settings.v1", ")" + key + "\": " + value + "}";
}

} // namespace

INSTANTIATE_TEST_SUITE_P(
    Rows, SettingsFileRefusals,
    testing::ValuesIn(std::vector<SettingsFileRow>{
        {"nested 100000 deep", [](const fs::path &f) { writeText(f, recordWith("accum_grid", nested(100000, "1"))); },
         "config/settings-file-too-deep"},
        {"objects nested 50000 deep",
         [](const fs::path &f) {
             std::string v;
             for (int i = 0; i < 50000; ++i)
                 v += "{\"a\":";
             writeText(f, recordWith("accum_grid", v + "1" + std::string(50000, '}')));
         },
         "config/settings-file-too-deep"},
        {"a FIFO", [](const fs::path &f) { ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0); }, "config/settings-file-not-regular"},
        {"a folder", [](const fs::path &f) { fs::create_directory(f); }, "config/settings-file-not-regular"},
        {"missing", [](const fs::path &) {}, "config/settings-file-unreadable"},
        {"a sparse file past the bound",
         [](const fs::path &f) {
             writeText(f, "{}");
             fs::resize_file(f, kMaxSettingsFileBytes + 1);
         },
         "config/settings-file-too-large"},
        {"not JSON", [](const fs::path &f) { writeText(f, "{\"schema\": "); }, "config/settings-file-not-json"},
        {"a 500 KB string where a grid goes (under the bound)",
         [](const fs::path &f) { writeText(f, recordWith("accum_grid", "\"" + std::string(500000, 'x') + "\"")); },
         "config/settings-bad-value"},
        {"a 500 KB key", [](const fs::path &f) { writeText(f, recordWith(std::string(500000, 'k'), "1")); },
         "config/settings-unknown-key"},
        {"a grid nested 10 deep (within the bound, still no grid)",
         [](const fs::path &f) { writeText(f, recordWith("accum_grid", nested(10, "1"))); }, "config/settings-not-whole"},
        // Issue 60, item 3: every number checked into its type, the key named.
        {"clip_norm 1e300, past float32",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"clip_norm": 1e300})")); }, "config/clip-norm-invalid"},
        {"eps 1e300, past float32",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"eps": 1e300})")); }, "config/adam-eps-not-positive"},
        {"scaler_init_scale 1e39, past float32",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"scaler_init_scale": 1e39})")); },
         "config/loss-scaler-invalid"},
        {"micro_batch 16.5",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"micro_batch": 16.5})")); }, "config/settings-not-whole",
         "micro_batch"},
        {"micro_batch \"16\"",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"micro_batch": "16"})")); }, "config/settings-not-whole",
         "micro_batch"},
        {"micro_batch 16.0 is 16",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"micro_batch": 16.0, "accum_steps": 0})")); },
         "config/range-accum-steps"},
        {"seed 2^64",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"seed": 18446744073709551616})")); },
         "config/settings-out-of-range", "seed"},
        {"seed -1",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"seed": -1})")); }, "config/settings-out-of-range",
         "seed"},
        {"num_steps 2^63",
         [](const fs::path &f) { writeText(f, recordWith("num_steps", "9223372036854775808")); },
         "config/settings-out-of-range", "9223372036854775808"},
        {"dtype [\"float64\"]",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"dtype": ["float64"]})")); },
         "config/settings-not-a-name", "dtype"},
        {"loss_scaling null",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"loss_scaling": null})")); },
         "config/settings-not-true-false", "loss_scaling"},
        {"a key with a NUL byte",
         [](const fs::path &f) { writeText(f, recordWith(std::string("a\\u0000b"), "1")); },
         "config/settings-unknown-key", "a\\u0000b"},
        {"a value with a newline",
         [](const fs::path &f) { writeText(f, recordWith("run", R"({"optimizer": "sgd\nrm -rf"})")); },
         "config/unknown-optimizer"},
    }),
    test::ByName());

// The excerpt a refusal quotes: short, two levels deep, cut at a character's boundary.
TEST(Export, JsonExcerptIsShort)
{
    EXPECT_EQ(jsonExcerpt(nlohmann::json::parse("[1, [2, [3, [4]]]]")), "[1,[2,[...]]]");
    EXPECT_EQ(jsonExcerpt(nlohmann::json::parse(R"({"a": {"b": {"c": 1}}})")), R"({"a":{"b":{...}}})");
    EXPECT_EQ(jsonExcerpt(nlohmann::json(7)), "7");
    EXPECT_LE(jsonExcerpt(nlohmann::json(std::string(200, 'x'))).size(), kExcerptChars + 3);
    // Cut at a character's boundary: no half of a two-byte Persian letter.
    std::string letters;
    for (int i = 0; i < 100; ++i)
        letters += "\u0628";
    EXPECT_EQ(textExcerpt(letters, 61), letters.substr(0, 60) + "..."); // byte 61 is half of a letter
    nlohmann::json deep = 1;
    for (int i = 0; i < 100000; ++i) { // built in code, not parsed: the excerpt still does not recurse
        nlohmann::json outer = nlohmann::json::array();
        outer.push_back(std::move(deep));
        deep = std::move(outer);
    }
    EXPECT_EQ(jsonExcerpt(deep), "[[[...]]]");
    deep = nullptr; // (its destruction is nlohmann's: iterative since 3.10)
}

// The results the CLI prints with --json are core's objects: every key, a "fails after"
// that was not asked for is null, the finder's tries in order, the listing's source whole.
TEST(Export, ResultsPrintTheirKeys)
{
    OomDemoResult oom;
    oom.budgetBytes = 1024;
    oom.accumulationSucceeded = true;
    oom.maxParamDiff = 1e-6;
    oom.paramTolerance = 1e-4;
    const json unjudged = toJson(oom); // no verdict yet: the step is not called the full batch's
    EXPECT_TRUE(unjudged["equivalence"].is_null());
    EXPECT_FALSE(unjudged["same_step"].get<bool>());
    oom.equivalence = runEquivalence(EquivalenceConfig{});
    const json o = toJson(oom);
    for (const char *key : {"device", "device_bytes", "budget_bytes", "fails_after_samples", "micro_batch",
                            "accum_steps", "effective_batch", "full_batch", "full_batch_out_of_memory",
                            "full_batch_error", "accumulation_succeeded", "accumulation_error", "accumulation",
                            "accumulation_loss", "max_param_diff", "lesson_bound", "equivalence", "same_step"})
        ASSERT_TRUE(o.contains(key)) << key; // o[key] below reads a const object
    EXPECT_EQ(o.size(), size_t(18));
    EXPECT_TRUE(o["fails_after_samples"].is_null());
    EXPECT_EQ(o["equivalence"], toJson(*oom.equivalence)); // the curve's verdict object, as it is
    EXPECT_EQ(o["same_step"].get<bool>(), true);
    EXPECT_EQ(o["full_batch"].size(), size_t(9));

    MicroBatchFinding found;
    found.microBatch = 32;
    found.accumSteps = 16;
    found.effectiveBatch = 512;
    found.tried = {{64, false}, {32, true}};
    const json f = toJson(found);
    ASSERT_EQ(f["tried"].size(), size_t(2));
    EXPECT_EQ(f["tried"][0]["micro_batch"].get<int64_t>(), int64_t(64));
    EXPECT_EQ(f["tried"][0]["fits"].get<bool>(), false);
    EXPECT_EQ(f["sentence"].get<std::string>(), "32 samples fit; effective 512 = 32 × 16 × 1 (budget 0 B)."); // the CLI's English

    AccumConfig c;
    c.scaling = Scaling::None;
    const LoopListing listing = loopListing(c, NumberStyle{}, LoopForm::AsConfigured);
    const nlohmann::ordered_json l = toJson(listing);
    EXPECT_EQ(l["variant"].get<std::string>(), listing.variant);
    EXPECT_EQ(l["lines"].size(), listing.lines.size());
    EXPECT_EQ(l["source"].get<std::string>(), loopSource(listing));
    EXPECT_EQ(l.begin().key(), std::string("variant"));
}

// A tripwire for the table above: a field added to AccumConfig (or OptimizerConfig,
// LossScalerConfig) usually changes its size (x86-64, GCC); then this fails until the field
// has its key in toJson(AccumConfig) and its row above, and the size here is updated.
TEST(Export, AccumConfigJsonTableIsComplete)
{
    EXPECT_EQ(toJson(AccumConfig{}).size(), size_t(33)); // 31 rows; in_features and classes follow the shape
    EXPECT_EQ(sizeof(AccumConfig), size_t(248));
}

TEST(Export, RoundTrip)
{
    test::TempDir dir;
    const auto sweep = smallResult();
    const auto eq = runEquivalence(EquivalenceConfig{});
    const std::string path = (dir / "accum-curve.json").string();
    writeFileAtomic(path, curveJson(sweep, &eq).dump(2));
    const CurveFile file = parseCurveJson(test::readFile(path));
    ASSERT_EQ(file.points.size(), sweep.points.size());
    for (size_t i = 0; i < file.points.size(); ++i) {
        EXPECT_EQ(file.points[i].effectiveBatch, sweep.points[i].effectiveBatch);
        EXPECT_DOUBLE_EQ(file.points[i].samplesPerSec, sweep.points[i].samplesPerSec);
        EXPECT_DOUBLE_EQ(file.points[i].avgLoss, sweep.points[i].avgLoss);
        EXPECT_EQ(file.points[i].syncCalls, sweep.points[i].syncCalls);
    }
    EXPECT_DOUBLE_EQ(file.raw.at("equivalence").at("max_grad_diff").get<double>(), eq.maxGradDiff);
    EXPECT_TRUE(file.raw.at("equivalence").at("holds").get<bool>());
}

// The lesson's own file: eight fields per point, nothing else.
TEST(Export, ReadsTheLessonsFile)
{
    const std::string lesson = R"({"schema": "accum-curve.v1", "points": [
      {"effective_batch": 4, "accum_steps": 1, "micro_batch": 4, "avg_loss": 2.79,
       "samples_per_sec": 7200.5, "median_step_ms": 0.5, "sync_calls": 25, "steps": 25}]})";
    const CurveFile file = parseCurveJson(lesson);
    ASSERT_EQ(file.points.size(), size_t(1));
    EXPECT_DOUBLE_EQ(file.points[0].samplesPerSec, 7200.5);
}

struct BadFile {
    const char *name;
    std::string text;
    std::string mentions;
};

class RejectsBadFiles : public testing::TestWithParam<BadFile> {};

TEST_P(RejectsBadFiles, NamingTheFault)
{
    const BadFile &row = GetParam();
    try {
        parseCurveJson(row.text);
        FAIL() << "a bad file was accepted";
    } catch (const std::runtime_error &e) {
        EXPECT_TRUE(std::string(e.what()).find(row.mentions) != std::string::npos) << e.what();
        EXPECT_TRUE(dynamic_cast<const CurveFormatError *>(&e));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, RejectsBadFiles,
    testing::ValuesIn(std::vector<BadFile>{
        {"not json", "{oops", "JSON"},
        {"array", "[]", "object"},
        {"wrong schema", R"({"schema":"accum-curve.v2","points":[]})", "schema"},
        {"no points", R"({"schema":"accum-curve.v1"})", "points"},
        {"empty points", R"({"schema":"accum-curve.v1","points":[]})", "empty"},
        {"missing field",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4}]})",
         "avg_loss"},
        {"string sps",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":1,"samples_per_sec":"fast","median_step_ms":1,"sync_calls":1,"steps":1}]})",
         "samples_per_sec"},
        {"negative sps",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":1,"samples_per_sec":-1,"median_step_ms":1,"sync_calls":1,"steps":1}]})",
         "negative"},
        {"identity broken",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":5,"accum_steps":2,"micro_batch":4,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})",
         "micro_batch x accum_steps"},
    }),
    test::ByName());

// /proc takes no new files, even from root: the write fails with a sentence.
TEST(Export, AtomicWriteToAnUnwritableFolder)
{
    try {
        writeFileAtomic("/proc/accumlab-test.json", "{}");
        FAIL() << "the write succeeded";
    } catch (const std::runtime_error &e) {
        EXPECT_TRUE(std::string(e.what()).find("cannot write") != std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists("/proc/accumlab-test.json"));
}

TEST(Export, AtomicWriteFailsOnAFileAsFolder)
{
    test::TempDir dir;
    const std::string blocker = (dir / "blocker").string();
    test::writeFile(blocker, "x");
    EXPECT_THROW(writeFileAtomic(blocker + "/a.json", "{}"), std::runtime_error);
    EXPECT_EQ(entryList(dir.path(), AllEntries), Names{"blocker"});
}

// Staged files become visible only on commit; dropped, they leave nothing behind.
TEST(Export, StagedFilesPublishOnCommitOnly)
{
    test::TempDir dir;
    const std::string a = (dir / "a.json").string();
    const std::string b = (dir / "b.md").string();
    {
        StagedFile fa(a, "A");
        StagedFile fb(b, "B");
        EXPECT_EQ(entryList(dir.path(), Files).size(), size_t(2)); // two temp files
        EXPECT_FALSE(fs::exists(a));
    }
    EXPECT_TRUE(entryList(dir.path(), AllEntries).empty());
    {
        StagedFile fa(a, "A");
        StagedFile fb(b, "B");
        fa.commit();
        fb.commit();
    }
    EXPECT_EQ(entryList(dir.path(), Files), (Names{"a.json", "b.md"}));
    EXPECT_EQ(test::readFile(b), "B");
    EXPECT_EQ(fs::status(a).permissions() & fs::perms::others_read, fs::perms::others_read);
}

// A full disk, simulated by this process's file-size limit (EFBIG instead of ENOSPC; both
// fail write() the same way): the error names the file, the earlier content stays.
TEST(Export, AtomicWriteOnAFullDisk)
{
    test::TempDir dir;
    const std::string path = (dir / "x.json").string();
    writeFileAtomic(path, "earlier");
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved;
    lowered.rlim_cur = 4096;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
    std::string message;
    try {
        writeFileAtomic(path, std::string(65536, 'z'));
    } catch (const ExportError &e) {
        message = e.what();
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, oldHandler);
    EXPECT_TRUE(message.find("cannot write") != std::string::npos && message.find("x.json") != std::string::npos)
        << message;
    EXPECT_EQ(test::readFile(path), "earlier");
    EXPECT_EQ(entryList(dir.path(), AllEntries), Names{"x.json"});
}

// The second file of a pair cannot be published (its name is taken by a folder): the first
// gets its earlier content back, or goes away if it had none, and the sentence names the
// file that failed. Publishing one after the other without the rollback fails this test.
struct PairRow {
    const char *name;
    bool earlier;
};

class PairRollsBack : public testing::TestWithParam<PairRow> {};

TEST_P(PairRollsBack, WhenTheSecondFails)
{
    const bool earlier = GetParam().earlier;
    test::TempDir dir;
    const std::string a = (dir / "a.json").string();
    const std::string b = (dir / "b.md").string();
    if (earlier)
        writeFileAtomic(a, "old A");
    std::string message;
    {
        StagedFile fa(a, "new A");
        StagedFile fb(b, "new B");
        // The second rename fails: its staged file is gone (ENOENT) when the pair publishes.
        const Names staged = entryList(dir.path(), Files | Hidden, "b.md.tmp-*");
        ASSERT_EQ(staged.size(), size_t(1));
        ASSERT_TRUE(fs::remove(dir / staged.front()));
        try {
            publishTogether({&fa, &fb});
        } catch (const ExportError &e) {
            message = e.what();
        }
    }
    EXPECT_TRUE(message.rfind("cannot write " + b, 0) == 0) << message;
    EXPECT_TRUE(message.find("is new") == std::string::npos) << message;
    if (earlier)
        EXPECT_EQ(test::readFile(a), "old A");
    else
        EXPECT_FALSE(fs::exists(a));
    Names expected;
    if (earlier)
        expected.push_back("a.json");
    EXPECT_EQ(entryList(dir.path(), AllEntries | Hidden), expected);
}

INSTANTIATE_TEST_SUITE_P(Rows, PairRollsBack,
                         testing::ValuesIn(std::vector<PairRow>{{"earlier exports present", true},
                                                                {"first export", false}}),
                         test::ByName());

// The one writer refuses a destination that exists and is not a regular file or a link to
// one: a rename would replace a device node, a FIFO or a socket (as root, /dev/null became a
// PNG). Made in a temporary folder, never on /dev: a FIFO, a socket, a folder, links to
// them; a regular file, a link to one and a dangling link are replaced as before.
struct TargetRow {
    const char *name;
    std::string kind;
    std::string code; // "" when the write succeeds
};

class RefusesTargetsThatAreNotFiles : public testing::TestWithParam<TargetRow> {};

TEST_P(RefusesTargetsThatAreNotFiles, OrReplacesThem)
{
    const std::string &kind = GetParam().kind;
    const std::string &code = GetParam().code;
    test::TempDir dir;
    const std::string target = (dir / "accum-curve.json").string();
    const std::string other = (dir / "other").string();
    auto makeNode = [](const std::string &k, const std::string &path) {
        if (k == "file")
            writeFileAtomic(path, "earlier");
        else if (k == "folder")
            ASSERT_TRUE(fs::create_directories(path));
        else if (k == "fifo")
            ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
        else if (k == "socket") {
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            ASSERT_GE(fd, 0);
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            ASSERT_LT(path.size(), sizeof(addr.sun_path));
            std::strcpy(addr.sun_path, path.c_str());
            const int bound = ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr));
            ::close(fd); // the socket's node stays
            ASSERT_EQ(bound, 0);
        }
    };
    if (kind.rfind("link-", 0) == 0) {
        const std::string to = kind.substr(5);
        if (to != "dangling")
            makeNode(to, other);
        ASSERT_EQ(::symlink(other.c_str(), target.c_str()), 0);
    } else if (kind != "absent") {
        makeNode(kind, target);
    }
    ASSERT_FALSE(HasFatalFailure()); // a node makeNode could not make
    struct stat before {};
    const bool existed = ::lstat(target.c_str(), &before) == 0;
    std::string got;
    try {
        writeFileAtomic(target, "new");
    } catch (const ExportError &e) {
        got = e.code();
        EXPECT_TRUE(std::string(e.what()).find(target) != std::string::npos) << e.what();
        EXPECT_FALSE(e.text(NumberStyle{"fa"}).empty());
    }
    EXPECT_EQ(got, code);
    struct stat after {};
    ASSERT_EQ(::lstat(target.c_str(), &after), 0);
    if (code.empty()) {
        EXPECT_TRUE(S_ISREG(after.st_mode)); // the file itself, a link replaced by it
        EXPECT_EQ(test::readFile(target), "new");
    } else {
        EXPECT_TRUE(existed);
        EXPECT_EQ(after.st_ino, before.st_ino); // the node is untouched
        EXPECT_EQ(after.st_mode, before.st_mode);
    }
    // Nothing staged is left beside it.
    EXPECT_EQ(entryList(dir.path(), AllEntries | Hidden | System, "*.tmp-*"), Names());
}

INSTANTIATE_TEST_SUITE_P(Rows, RefusesTargetsThatAreNotFiles,
                         testing::ValuesIn(std::vector<TargetRow>{
                             {"absent", "absent", ""},
                             {"regular file", "file", ""},
                             {"link to a file", "link-file", ""},
                             {"dangling link", "link-dangling", ""},
                             {"folder", "folder", "export/target-is-folder"},
                             {"FIFO", "fifo", "export/target-is-fifo"},
                             {"socket", "socket", "export/target-is-socket"},
                             {"link to a FIFO", "link-fifo", "export/target-is-fifo"},
                             {"link to a folder", "link-folder", "export/target-is-folder"},
                         }),
                         test::ByName());

// The folder's lock is waited for a bounded time: a process that holds it for ever (a 30 s
// flock kept a write waiting 29.6 s, and the window's export waits on the GUI thread) makes
// the write fail in a sentence after kFolderLockWait, with nothing left behind.
TEST(Export, LockedFolderIsWaitedForABoundedTime)
{
    test::TempDir dir;
    const int held = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    const auto start = std::chrono::steady_clock::now();
    std::string code;
    try {
        writeFileAtomic((dir / "accum-curve.json").string(), "new");
    } catch (const ExportError &e) {
        code = e.code();
        EXPECT_TRUE(std::string(e.what()).find("10 seconds") != std::string::npos) << e.what();
    }
    ::close(held);
    EXPECT_EQ(code, "export/folder-busy");
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(waited >= 9500 && waited < 20000) << waited;
    EXPECT_EQ(entryList(dir.path(), AllEntries | Hidden), Names());
    writeFileAtomic((dir / "accum-curve.json").string(), "new"); // released: it writes
    EXPECT_EQ(test::readFile(dir / "accum-curve.json"), "new");
}

// Writers of one out-dir (threads here; processes take the same lock) publish whole pairs:
// after every round the two files carry the same writer's mark.
TEST(Export, ConcurrentWritersPublishPairs)
{
    test::TempDir dir;
    const std::string a = (dir / "a.json").string();
    const std::string b = (dir / "b.md").string();
    for (int round = 0; round < 200; ++round) {
        std::vector<std::thread> writers;
        for (int w = 0; w < 3; ++w)
            writers.emplace_back([&, w] {
                const std::string mark = std::to_string(round) + "/" + std::to_string(w);
                StagedFile fa(a, mark + std::string(size_t(4096 * (w + 1)), 'a'));
                StagedFile fb(b, mark + std::string(size_t(4096 * (3 - w)), 'b'));
                publishTogether({&fa, &fb});
            });
        for (auto &t : writers)
            t.join();
        const std::string ca = test::readFile(a), cb = test::readFile(b);
        ASSERT_EQ(ca.substr(0, ca.find('a')), cb.substr(0, cb.find('b'))) << "round " << round;
    }
    EXPECT_EQ(entryList(dir.path(), AllEntries | Hidden), (Names{"a.json", "b.md"}));
}

// A symlink in the out-dir pointing outside it: the export replaces the link with a file
// and leaves the link's target untouched (QSaveFile and a plain open() would write through).
TEST(Export, SymlinkIsReplacedNotFollowed)
{
    test::TempDir dir;
    const std::string target = (dir / "elsewhere.txt").string();
    writeFileAtomic(target, "precious");
    ASSERT_TRUE(fs::create_directories(dir / "out"));
    const fs::path link = dir / "out/accum-curve.json";
    ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
    writeFileAtomic(link.string(), "export");
    EXPECT_EQ(test::readFile(target), "precious");
    EXPECT_FALSE(fs::is_symlink(link));
    EXPECT_EQ(test::readFile(link), "export");
}

// SIGINT or SIGTERM while files are staged: with the cleanup installed (as both mains do)
// no temporary file is left; without it the same run leaves them, which is the fault.
struct SignalRow {
    const char *name;
    int sig;
    bool cleanup;
};

class SignalMidExport : public testing::TestWithParam<SignalRow> {};

TEST_P(SignalMidExport, LeavesNoTemporaryFile)
{
    const int sig = GetParam().sig;
    const bool cleanup = GetParam().cleanup;
    test::TempDir dir;
    const std::string a = (dir / "a.json").string();
    const std::string b = (dir / "b.md").string();
    const std::string ready = (dir / "ready").string();
    const pid_t child = ::fork();
    if (child == 0) {
        try {
            for (int s : {SIGINT, SIGTERM, SIGHUP})
                std::signal(s, SIG_DFL);
            if (cleanup)
                installExportSignalCleanup();
            StagedFile fa(a, std::string(100000, 'a'));
            StagedFile fb(b, std::string(100000, 'b'));
            ::close(::open(ready.c_str(), O_WRONLY | O_CREAT, 0644));
            for (;;)
                ::pause();
        } catch (...) {
            ::_exit(1); // never back into the test runner
        }
    }
    ASSERT_GT(child, 0);
    // The child marks that both files are staged (QTRY_VERIFY_WITH_TIMEOUT's 10 s).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!fs::exists(ready) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!fs::exists(ready)) {
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        FAIL() << "the child did not stage its files within 10 s";
    }
    ASSERT_EQ(::kill(child, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), sig); // ended as the signal ends a process
    const Names left = entryList(dir.path(), AllEntries | Hidden);
    if (cleanup)
        EXPECT_EQ(left, Names{"ready"});
    else
        EXPECT_EQ(left.size(), size_t(3)); // two temporary files beside the marker
}

INSTANTIATE_TEST_SUITE_P(Rows, SignalMidExport,
                         testing::ValuesIn(std::vector<SignalRow>{
                             {"SIGTERM", SIGTERM, true},
                             {"SIGINT", SIGINT, true},
                             {"SIGHUP", SIGHUP, true},
                             {"SIGTERM without the cleanup (planted)", SIGTERM, false},
                         }),
                         test::ByName());

TEST(Export, AtomicWriteReplacesWhole)
{
    test::TempDir dir;
    const std::string path = (dir / "x.json").string();
    writeFileAtomic(path, std::string(10000, 'a'));
    writeFileAtomic(path, "short");
    EXPECT_EQ(test::readFile(path), "short");
    EXPECT_EQ(entryList(dir.path(), AllEntries), Names{"x.json"});
}

} // namespace
