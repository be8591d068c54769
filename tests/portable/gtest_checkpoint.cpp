// Checkpoints (core/io/checkpoint.h): a run saved at any micro-batch and resumed in a fresh engine
// ends bit-identical to the uninterrupted run (SGD, momentum, AdamW with a warmup); checkpoints
// of another model shape, dtype or world size, and corrupt or truncated files, are refused with
// their codes; a failed write leaves the previous checkpoint whole.
#include "core/io/checkpoint.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/io/sha256.h"

#include "support.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace accumlab;
namespace fs = std::filesystem;
namespace test = accumlab::test;
using nlohmann::json;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

AccumConfig runConfig(OptimizerKind kind)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 3;
    c.accumSteps = 4;
    c.optimizer.kind = kind;
    c.optimizer.lr = kind == OptimizerKind::AdamW ? 0.01 : 0.1;
    c.optimizer.lrWarmup = 3; // the schedule's position matters on resume
    c.device = DeviceRequest::Cpu;
    c.seed = 11;
    return c;
}

void runMicro(AccumEngine &e, int64_t untilMicroBatches)
{
    while (e.microBatches() < untilMicroBatches)
        e.microStep();
}

// A checkpoint of a fresh run of `c` saved in `dir` after `micro` micro-batches.
void saveAfter(const AccumConfig &c, const fs::path &dir, int64_t micro)
{
    AccumEngine e(c);
    runMicro(e, micro);
    saveCheckpoint(e, dir);
}

// A rank file (format 3, safetensors) in its parts: the header (JSON) and the data after it.
struct RankFile {
    json header;
    std::string data;
    size_t headerBytes = 0; // the header's length as the file states it
};
RankFile splitRankFile(const std::string &bytes)
{
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), sizeof n);
    return {json::parse(bytes.substr(8, n)), bytes.substr(8 + n), size_t(n)};
}
std::string joinRankFile(const RankFile &f)
{
    std::string header = f.header.dump();
    header.append((8 - header.size() % 8) % 8, ' ');
    const uint64_t n = header.size();
    std::string out(sizeof n, '\0');
    std::memcpy(out.data(), &n, sizeof n);
    return out + header + f.data;
}
// The manifest's text as the file holds it (the header's __metadata__.manifest).
std::string manifestText(const fs::path &file)
{
    return splitRankFile(test::readFile(file)).header.at("__metadata__").at("manifest").get<std::string>();
}

// Rewrites a rank file's manifest with `edit` applied and its checksum recomputed, as a student
// who read the format would: only the checks of the fields themselves stand between that file
// and the engine.
void editManifest(const fs::path &file, const std::function<void(json &)> &edit, bool reseal = true)
{
    RankFile f = splitRankFile(test::readFile(file));
    json manifest = json::parse(f.header["__metadata__"]["manifest"].get<std::string>());
    manifest.erase("manifest_sha256");
    // The header's tensor table offered to `edit` as the manifest's "tensors" (name, dtype,
    // shape, offset, bytes), written back into the header and its checksum when it changed.
    json tensors = json::array();
    for (auto it = f.header.begin(); it != f.header.end(); ++it)
        if (it.key() != "__metadata__") {
            const auto range = it.value()["data_offsets"];
            tensors.push_back({{"name", it.key()}, {"dtype", it.value()["dtype"]}, {"shape", it.value()["shape"]},
                               {"offset", range[0]}, {"bytes", range[1].get<uint64_t>() - range[0].get<uint64_t>()}});
        }
    manifest["tensors"] = tensors;
    edit(manifest);
    const json edited = manifest["tensors"];
    manifest.erase("tensors");
    if (edited != tensors) {
        json header = json::object({{"__metadata__", f.header["__metadata__"]}});
        for (const json &t : edited) {
            const uint64_t offset = t["offset"].get<uint64_t>();
            header[t["name"].get<std::string>()] = {{"dtype", t["dtype"]}, {"shape", t["shape"]},
                                                    {"data_offsets", {offset, offset + t["bytes"].get<uint64_t>()}}};
        }
        f.header = header;
        json table = json::object();
        for (auto it = header.begin(); it != header.end(); ++it)
            if (it.key() != "__metadata__")
                table[it.key()] = it.value();
        const std::string text = table.dump();
        manifest["tensors_sha256"] = sha256Hex(text.data(), text.size());
    }
    if (reseal) {
        const std::string unsealed = manifest.dump();
        manifest["manifest_sha256"] = sha256Hex(unsealed.data(), unsealed.size());
    }
    f.header["__metadata__"]["manifest"] = manifest.dump();
    test::writeFile(file, joinRankFile(f));
}

// The code a load of `dir` into an engine of `c` is refused with; empty when it loads.
std::string refusal(const AccumConfig &c, const fs::path &dir)
{
    try {
        AccumEngine e(c);
        loadCheckpoint(e, dir);
    } catch (const CheckpointError &ex) {
        return ex.code();
    }
    return {};
}

using ManifestEdit = std::function<void(json &)>;

// ---- Table rows (each carries its label as `name`) ---------------------------------------

struct Sha256Row {
    std::string name;
    std::string input;
    std::string digest;
};

struct RunConfigRow {
    std::string name; // the change, as the row's label
};

struct UnknownSettingRow {
    std::string name;
    std::string from;
    std::string to;
};

struct ResumeRow {
    std::string name;
    OptimizerKind kind;
    int64_t stopAt; // micro-batches done when the checkpoint is taken
    bool scaled;    // float16 with the loss scaler, an overflow in window 1
};

struct ResumeBugRow {
    std::string name;
    ResumeBug bug;
};

struct RefusalRow {
    std::string name;
    std::string change;
    std::string code;
};

struct ManifestEditRow {
    std::string name;
    ManifestEdit edit;
    std::string code;
};

struct Format2Row {
    std::string name;
    std::string folder;
    int micro;
};

struct ScalerStateRow {
    std::string name;
    std::string key;
    double value;
    std::string code;
};

struct RegularFileRow {
    std::string name;
    std::string which; // latest.json or the rank file
    std::string node;
    std::string code;
};

class Sha256KnownAnswers : public testing::TestWithParam<Sha256Row> {};
class RunConfigReadsBack : public testing::TestWithParam<RunConfigRow> {};
class RunConfigRefusesUnknownSettings : public testing::TestWithParam<UnknownSettingRow> {};
class ResumeIsBitIdentical : public testing::TestWithParam<ResumeRow> {};
class ResumeBugsDrift : public testing::TestWithParam<ResumeBugRow> {};
class Refusals : public testing::TestWithParam<RefusalRow> {};
class ManifestCheckedFieldByField : public testing::TestWithParam<ManifestEditRow> {};
class ReadsFormat2 : public testing::TestWithParam<Format2Row> {};
class ScalerStateChecked : public testing::TestWithParam<ScalerStateRow> {};
class ReadsOnlyRegularFiles : public testing::TestWithParam<RegularFileRow> {};

} // namespace

// ---- sha256 -------------------------------------------------------------------------------------

namespace {

std::vector<Sha256Row> sha256Rows()
{
    // FIPS 180-4 examples and the empty message.
    return {
        {"empty", std::string(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"two blocks", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a million a", std::string(1000000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
}

} // namespace

TEST_P(Sha256KnownAnswers, Digest)
{
    const Sha256Row &row = GetParam();
    EXPECT_EQ(sha256Hex(row.input.data(), row.input.size()), row.digest);
}

INSTANTIATE_TEST_SUITE_P(Rows, Sha256KnownAnswers, testing::ValuesIn(sha256Rows()), test::ByName());

// ---- Reading a checkpoint's run back ------------------------------------------------------------

namespace {

std::vector<RunConfigRow> runConfigRows()
{
    std::vector<RunConfigRow> rows;
    for (const char *change : {"defaults", "adamw clip decay", "momentum", "float16 scaler", "wide", "shape",
                               "random labels", "undivided", "never-zero", "step every micro", "sync every micro",
                               "scaler bug", "float64", "seed"})
        rows.push_back({change});
    return rows;
}

} // namespace

// core's checkpointConfig reads back the run a checkpoint belongs to: an engine of that
// config resumes it (every setting the resume compares is equal), for each kind of setting.
TEST_P(RunConfigReadsBack, EngineOfItResumes)
{
    const std::string &change = GetParam().name;
    AccumConfig c = runConfig(OptimizerKind::Sgd);
    if (change == "adamw clip decay") {
        c.optimizer.kind = OptimizerKind::AdamW;
        c.optimizer.clipNorm = 0.5;
        c.optimizer.adamWeightDecay = 0.05;
        c.optimizer.beta1 = 0.8;
        c.optimizer.beta2 = 0.99;
        c.optimizer.eps = 1e-6;
    } else if (change == "momentum") {
        c.optimizer.kind = OptimizerKind::Momentum;
        c.optimizer.momentum = 0.7;
        c.optimizer.weightDecay = 0.001;
    } else if (change == "float16 scaler") {
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        c.lossScaler.initScale = 1024;
        c.lossScaler.growthInterval = 3;
    } else if (change == "wide") {
        c.preset = ModelPreset::Wide;
    } else if (change == "shape") {
        c.shape = ModelShape{5, 7, 3};
    } else if (change == "random labels") {
        c.labels = LabelKind::Random;
    } else if (change == "undivided") {
        c.scaling = Scaling::None;
    } else if (change == "never-zero") {
        c.bug = AccumBug::NeverZero;
    } else if (change == "step every micro") {
        c.stepEveryMicro = true;
    } else if (change == "sync every micro") {
        c.noSync = false;
    } else if (change == "scaler bug") {
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        c.lossScaler.bug = ScalerBug::LogScaledLoss;
    } else if (change == "float64") {
        c.dtype = DType::Float64;
    } else if (change == "seed") {
        c.seed = 123456789012345ULL;
    }
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(c, dir, 6);
    const AccumConfig back = checkpointConfig(dir);
    EXPECT_EQ(refusal(back, dir), std::string());
    const ModelShape a = c.modelShape(), b = back.modelShape();
    EXPECT_EQ(b.inFeatures, a.inFeatures);
    EXPECT_EQ(b.hidden, a.hidden);
    EXPECT_EQ(b.classes, a.classes);
    EXPECT_EQ(back.shape.has_value(), c.shape.has_value());
    EXPECT_EQ(back.worldSize, c.worldSize);
    EXPECT_TRUE(back.device == DeviceRequest::Cpu) << toString(back.device);
}

INSTANTIATE_TEST_SUITE_P(Rows, RunConfigReadsBack, testing::ValuesIn(runConfigRows()), test::ByName());

namespace {

std::vector<UnknownSettingRow> unknownSettingRows()
{
    return {
        {"optimizer", "\"optimizer\":\"sgd\"", "\"optimizer\":\"lamb\""},
        {"micro-batch out of range", "\"micro_batch\":3", "\"micro_batch\":0"},
        {"missing setting", "\"labels\":\"teacher\",", ""},
    };
}

} // namespace

// Settings this build does not know are refused in words, not guessed.
TEST_P(RunConfigRefusesUnknownSettings, NotACheckpoint)
{
    const std::string &from = GetParam().from;
    const std::string &to = GetParam().to;
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(runConfig(OptimizerKind::Sgd), dir, 2);
    // The manifest sits in the safetensors header, sealed by its own checksum: an edit
    // resealed (as one who read the format could) is refused by the setting's own check.
    const fs::path file = latestRankFile(dir, 0);
    ASSERT_NE(manifestText(file).find(from), std::string::npos);
    editManifest(file, [&](json &m) {
        std::string text = m.dump();
        text.replace(text.find(from), from.size(), to);
        m = json::parse(text);
    });
    try {
        checkpointConfig(dir);
        FAIL() << "read a setting this build does not accept";
    } catch (const CheckpointError &ex) {
        EXPECT_EQ(ex.code(), std::string("checkpoint/not-a-checkpoint"));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, RunConfigRefusesUnknownSettings, testing::ValuesIn(unknownSettingRows()),
                         test::ByName());

// ---- Resume ----------------------------------------------------------------------------------

namespace {

std::vector<ResumeRow> resumeRows()
{
    std::vector<ResumeRow> rows;
    const std::pair<const char *, OptimizerKind> kinds[] = {
        {"sgd", OptimizerKind::Sgd}, {"momentum", OptimizerKind::Momentum}, {"adamw", OptimizerKind::AdamW}};
    for (const auto &[name, kind] : kinds) {
        // At a window's end (4, 8), inside the first window (1, 3) and inside a later one (6).
        for (int64_t stop : {1, 3, 4, 6, 8})
            rows.push_back({std::string(name) + " at micro " + std::to_string(stop), kind, stop, false});
    }
    // The scaler's state travels too: its scale after a skipped window (the overflow in
    // window 1) and a growth, its counters, and mid-window its unscale stage.
    for (int64_t stop : {2, 6, 8, 11})
        rows.push_back({"adamw float16 scaled at micro " + std::to_string(stop), OptimizerKind::AdamW, stop, true});
    return rows;
}

} // namespace

TEST_P(ResumeIsBitIdentical, EndsAsTheUninterruptedRun)
{
    const OptimizerKind kind = GetParam().kind;
    const int64_t stopAt = GetParam().stopAt;
    const bool scaled = GetParam().scaled;
    AccumConfig c = runConfig(kind);
    if (scaled) {
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        c.lossScaler.growthInterval = 2;
        c.lossScaler.spikeWindow = 1;
        c.lossScaler.spikeMicro = 1;
    }
    const int64_t total = 5 * c.accumSteps;
    AccumEngine straight(c);
    runMicro(straight, total);

    test::TempDir tmp;
    const fs::path dir = tmp.path();
    {
        AccumEngine first(c);
        runMicro(first, stopAt);
        saveCheckpoint(first, dir);
    } // the first process is gone
    AccumEngine resumed(c);
    const CheckpointSummary s = loadCheckpoint(resumed, dir);
    EXPECT_EQ(s.microBatches, stopAt);
    EXPECT_EQ(s.microIndex, stopAt % c.accumSteps);
    runMicro(resumed, total);
    // Bit-identical: the doubles below compare exactly.
    EXPECT_EQ(resumed.maxAbsParamDiff(straight), 0.0);
    EXPECT_EQ(resumed.paramsSha256(), straight.paramsSha256());
    EXPECT_EQ(resumed.optimizerStateStep(), straight.optimizerStateStep());
    EXPECT_EQ(resumed.optimizerSteps(), straight.optimizerSteps());
    EXPECT_EQ(resumed.lastStep().lr, straight.lastStep().lr);
    EXPECT_EQ(resumed.lastStep().loss, straight.lastStep().loss);
    if (scaled) {
        const LossScalerState a = resumed.lossScalerState(), b = straight.lossScalerState();
        EXPECT_EQ(b.skippedWindows, int64_t(1)); // the overflow happened, so there is state to carry
        EXPECT_EQ(a.scale, b.scale);
        EXPECT_EQ(a.growthTracker, b.growthTracker);
        EXPECT_EQ(a.skippedWindows, b.skippedWindows);
        EXPECT_EQ(a.unscaleCalls, b.unscaleCalls);
        EXPECT_EQ(a.growths, b.growths);
        EXPECT_EQ(a.backoffs, b.backoffs);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, ResumeIsBitIdentical, testing::ValuesIn(resumeRows()), test::ByName());

namespace {

std::vector<ResumeBugRow> resumeBugRows()
{
    return {
        {"drop partial buffers", ResumeBug::DropPartialBuffers},
        {"restart window count", ResumeBug::RestartWindowCount},
    };
}

} // namespace

// The planted resume bugs change the result, so the identity above is not by construction.
TEST_P(ResumeBugsDrift, FromTheUninterruptedRun)
{
    const ResumeBug bug = GetParam().bug;
    const AccumConfig c = runConfig(OptimizerKind::Momentum);
    AccumEngine straight(c);
    runMicro(straight, 12);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    AccumEngine first(c);
    runMicro(first, 6);
    saveCheckpoint(first, dir);
    AccumEngine resumed(c);
    loadCheckpoint(resumed, dir, bug);
    runMicro(resumed, 12);
    EXPECT_GT(resumed.maxAbsParamDiff(straight), 0.0) << "a resume without the window's state must drift";
    EXPECT_NE(resumed.paramsSha256(), straight.paramsSha256());
}

INSTANTIATE_TEST_SUITE_P(Rows, ResumeBugsDrift, testing::ValuesIn(resumeBugRows()), test::ByName());

// ---- Refusals ----------------------------------------------------------------------------------

namespace {

std::vector<RefusalRow> refusalRows()
{
    return {
        {"other hidden width", "hidden", "checkpoint/shape-differs"},
        {"other dtype", "dtype", "checkpoint/dtype-differs"},
        {"other world size", "world", "checkpoint/world-size-differs"},
        {"other learning rate", "lr", "checkpoint/config-differs"},
        {"flipped payload byte", "corrupt", "checkpoint/corrupt"},
        {"cut payload", "truncate", "checkpoint/truncated"},
        {"cut manifest", "truncate-manifest", "checkpoint/not-a-checkpoint"},
        {"newer format version", "version", "checkpoint/version"},
        {"older format version", "version-1", "checkpoint/version"},
        {"a loss scaler section", "scaler", "checkpoint/unsupported-section"},
        {"edited manifest", "edit-manifest", "checkpoint/manifest-corrupt"},
        {"manifest without its seal", "unseal", "checkpoint/manifest-corrupt"},
        {"tensor table edited", "table", "checkpoint/corrupt"},
        {"no checkpoint", "empty", "checkpoint/none"},
        {"unchanged", "", ""},
    };
}

} // namespace

TEST_P(Refusals, WithTheirCodes)
{
    const std::string &change = GetParam().change;
    const std::string &code = GetParam().code;
    AccumConfig c = runConfig(OptimizerKind::AdamW);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    if (change != "empty") {
        AccumEngine e(c);
        runMicro(e, 6);
        saveCheckpoint(e, dir);
    }
    const fs::path file = change == "empty" ? fs::path() : latestRankFile(dir, 0);
    if (change == "hidden")
        c.shape = ModelShape{32, 40, 8};
    else if (change == "dtype")
        c.dtype = DType::Float64;
    else if (change == "world")
        c.worldSize = 2; // refused before an engine of two ranks is needed: by latest.json
    else if (change == "lr")
        c.optimizer.lr *= 2;
    else if (change == "scaler")
        editManifest(file, [](json &m) { m["loss_scaler"] = json::object(); });
    else if (change == "edit-manifest") // the sed: one digit of micro_index
        editManifest(file, [](json &m) { m["window"]["micro_index"] = 3; }, /*reseal=*/false);
    else if (change == "table") // a tensor's byte range moved in the header (its shape kept)
        [&] {
            RankFile f = splitRankFile(test::readFile(file));
            auto &range = f.header["fc1.bias"]["data_offsets"];
            range[0] = range[0].get<uint64_t>() + 4;
            range[1] = range[1].get<uint64_t>() + 4;
            test::writeFile(file, joinRankFile(f));
        }();
    else if (change == "unseal")
        editManifest(file, [](json &) {}, /*reseal=*/false);
    else if (change == "corrupt" || change == "truncate" || change == "truncate-manifest" || change == "version" ||
             change == "version-1") {
        std::string bytes = test::readFile(file);
        const size_t header = splitRankFile(bytes).headerBytes;
        const size_t data = 8 + header;
        const auto setVersion = [&](const char *to) {
            const std::string from = "\\\"version\\\":3"; // inside the manifest's string
            const size_t at = bytes.find(from);
            ASSERT_TRUE(at != std::string::npos && at < data);
            bytes.replace(at, from.size(), std::string("\\\"version\\\":") + to);
        };
        if (change == "corrupt")
            bytes[data + (bytes.size() - data) / 2] ^= 0x01;
        else if (change == "truncate")
            bytes.resize(bytes.size() - 7);
        else if (change == "truncate-manifest")
            bytes.resize(8 + header / 2);
        else if (change == "version")
            setVersion("4");
        else
            setVersion("1");
        test::writeFile(file, bytes);
    }
    if (change == "world") {
        // An engine of two ranks needs a process group; the refusal comes before the engine
        // is touched, so an engine of one rank reading a two-rank checkpoint shows it as well.
        std::string latest = test::readFile(dir / "latest.json");
        latest.replace(latest.find("\"world_size\": 1"), 15, "\"world_size\": 2");
        test::writeFile(dir / "latest.json", latest);
        c.worldSize = 1;
    }
    const std::string got = refusal(c, dir);
    EXPECT_EQ(got, code);
    if (!code.empty()) {
        // Worded in every language the content has.
        try {
            AccumEngine e(c);
            loadCheckpoint(e, dir);
        } catch (const CheckpointError &ex) {
            EXPECT_FALSE(ex.text(NumberStyle{"fa"}).empty());
            EXPECT_GT(std::string(ex.what()).size(), 10u);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, Refusals, testing::ValuesIn(refusalRows()), test::ByName());

namespace {

std::vector<ManifestEditRow> manifestEditRows()
{
    std::vector<ManifestEditRow> rows;
    const auto row = [&](const char *name, ManifestEdit e, const char *code) { rows.push_back({name, e, code}); };
    const auto micro = [](int64_t v) { return [v](json &m) { m["window"]["micro_index"] = v; }; };
    row("resealed, unchanged", [](json &) {}, "");
    row("micro_index 4", micro(4), "checkpoint/out-of-range");
    row("micro_index 5", micro(5), "checkpoint/out-of-range");
    row("micro_index 7", micro(7), "checkpoint/out-of-range");
    row("micro_index 100", micro(100), "checkpoint/out-of-range");
    row("micro_index -1", micro(-1), "checkpoint/out-of-range");
    row("micro_index 2^40", micro(int64_t(1) << 40), "checkpoint/out-of-range");
    row("micro_index 3, two losses", micro(3), "checkpoint/out-of-range");
    row("micro_index 1, counters at 2", micro(1), "checkpoint/out-of-range");
    row("window closed, micro-batches mid-window", [](json &m) { m["window"]["open"] = false; },
        "checkpoint/out-of-range");
    row("micro_batches 7", [](json &m) { m["micro_batches"] = 7; }, "checkpoint/out-of-range");
    row("rank 1's file in rank 0's place", [](json &m) { m["rank"] = 1; }, "checkpoint/wrong-rank");
    row("windows_done -1", [](json &m) { m["shared"]["windows_done"] = -1; }, "checkpoint/out-of-range");
    row("windows_done 2^62", [](json &m) { m["shared"]["windows_done"] = int64_t(1) << 62; },
        "checkpoint/out-of-range");
    row("optimizer_steps 99", [](json &m) { m["shared"]["optimizer_steps"] = 99; }, "checkpoint/out-of-range");
    row("last_lr -1", [](json &m) { m["shared"]["last_lr"] = -1.0; }, "checkpoint/out-of-range");
    row("last_lr as text", [](json &m) { m["shared"]["last_lr"] = "0.01"; }, "checkpoint/not-a-checkpoint");
    row("a setting as an object", [](json &m) { m["config"]["lr"] = {{"a", 1}}; }, "checkpoint/config-differs");
    // Issue 60, N9: every counter checked into its type, never truncated or run past int64.
    row("sync_calls 2^63 - 1", [](json &m) { m["shared"]["sync_calls"] = INT64_MAX; }, "checkpoint/out-of-range");
    row("sync_calls 7, past the micro-batches", [](json &m) { m["shared"]["sync_calls"] = 7; }, "checkpoint/out-of-range");
    row("micro_batches 6.5", [](json &m) { m["micro_batches"] = 6.5; }, "checkpoint/out-of-range");
    row("micro_index 2.5", [](json &m) { m["window"]["micro_index"] = 2.5; }, "checkpoint/out-of-range");
    row("windows_done 1.0 is 1", [](json &m) { m["shared"]["windows_done"] = 1.0; }, "");
    row("windows_done 2^64", [](json &m) { m["shared"]["windows_done"] = 18446744073709551615ull; },
        "checkpoint/out-of-range");
    row("in_features 32.5", [](json &m) { m["model"]["in_features"] = 32.5; }, "checkpoint/out-of-range");
    const auto tensor = [](const std::string &name, std::function<void(json &)> f) {
        return [name, f](json &m) {
            for (json &t : m["tensors"])
                if (t["name"] == name)
                    f(t);
        };
    };
    // Both leave bytes no tensor covers (the renamed one replaces grad.fc1.weight's entry; the
    // cut one ends early): the format refuses them before the run's checks.
    row("window.y named as a gradient", tensor("window.y", [](json &t) { t["name"] = "grad.fc1.weight"; }),
        "checkpoint/tensor-layout");
    row("window.noise reshaped, same bytes", tensor("window.noise", [](json &t) {
            const auto shape = t["shape"].get<std::vector<int64_t>>();
            t["shape"] = {shape[0] / 2, shape[1] * 2};
        }),
        "checkpoint/out-of-range");
    row("fc1.weight as one row", tensor("fc1.weight", [](json &t) {
            const auto shape = t["shape"].get<std::vector<int64_t>>();
            t["shape"] = {1, shape[0] * shape[1]};
        }),
        "checkpoint/out-of-range");
    row("window.losses cut to one", tensor("window.losses", [](json &t) {
            t["shape"] = {1};
            t["bytes"] = 4;
        }),
        "checkpoint/tensor-layout");
    return rows;
}

} // namespace

// A manifest resealed after an edit (its checksums recomputed) is checked field by field
// against the run before the engine sees it. The crash: micro_index 4 in a window of
// 4 indexed past the window's micro-batches (a segmentation fault); 100 and -1 read other
// memory. Saved mid-window: AdamW, micro 3 x accum 4, 6 micro-batches (window 2, micro 2).
TEST_P(ManifestCheckedFieldByField, RefusedWithItsCode)
{
    const ManifestEdit &edit = GetParam().edit;
    const std::string &code = GetParam().code;
    const AccumConfig c = runConfig(OptimizerKind::AdamW);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    std::string sha;
    {
        AccumEngine e(c);
        runMicro(e, 6);
        saveCheckpoint(e, dir);
        runMicro(e, 12);
        sha = e.paramsSha256();
    }
    editManifest(latestRankFile(dir, 0), edit);
    ASSERT_EQ(refusal(c, dir), code);
    if (code.empty()) { // and it resumes to the same end
        AccumEngine e(c);
        loadCheckpoint(e, dir);
        runMicro(e, 12);
        EXPECT_EQ(e.paramsSha256(), sha);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, ManifestCheckedFieldByField, testing::ValuesIn(manifestEditRows()), test::ByName());

// ---- Format 2 ----------------------------------------------------------------------------------

namespace {

std::vector<Format2Row> format2Rows()
{
    return {
        {"adamw, inside a window", "adamw-mid-window", 6},
        {"momentum, at a window's end", "momentum-window-end", 8},
    };
}

} // namespace

// Format 2 (one manifest line, raw bytes: the files of the previous build, kept in
// tests/data/checkpoint-v2) is still read, and resumes bit for bit: AdamW inside a window
// (6 micro-batches of 4-micro windows), momentum with the teacher's labels at a window's end.
TEST_P(ReadsFormat2, ResumesAndSavesAsFormat3)
{
    const std::string &folder = GetParam().folder;
    const int micro = GetParam().micro;
    const char *rootVar = std::getenv("ACCUMLAB_SOURCE_DIR");
    const std::string root = rootVar ? rootVar : "";
    if (root.empty())
        GTEST_SKIP() << "ACCUMLAB_SOURCE_DIR is not set";
    const fs::path dir = root + "/tests/data/checkpoint-v2/" + folder;
    ASSERT_TRUE(fs::exists(dir / "latest.json"));
    ASSERT_NE(test::readFile(dir / "latest.json").find("\"version\": 2"), std::string::npos);
    const AccumConfig c = checkpointConfig(dir);
    AccumEngine straight(c);
    runMicro(straight, micro);
    const std::string atSave = straight.paramsSha256();
    runMicro(straight, 16);
    AccumEngine resumed(c);
    const CheckpointSummary from = loadCheckpoint(resumed, dir);
    EXPECT_EQ(from.microBatches, int64_t(micro));
    // The files were written by this project on Debian's LibTorch 1.13 on an AVX-512 CPU. Where
    // this build computes the saved micro-batches to the files' very bits (the same kernels), the
    // resumed run is the uninterrupted one bit for bit; another LibTorch, or a CPU whose kernels
    // round otherwise (AVX2), computed them with other roundings, so the runs agree within
    // float32 rounding.
    const bool sameKernels = resumed.paramsSha256() == atSave;
    runMicro(resumed, 16);
    if (sameKernels)
        EXPECT_EQ(resumed.paramsSha256(), straight.paramsSha256());
    else
        EXPECT_LT(resumed.maxAbsParamDiff(straight), 1e-5) << torchVersion();
    // Saved again, it is format 3.
    test::TempDir tmp;
    saveCheckpoint(resumed, tmp.path());
    ASSERT_TRUE(fs::exists(latestRankFile(tmp.path(), 0)));
    EXPECT_EQ(latestRankFile(tmp.path(), 0).extension().string(), std::string(".safetensors"));
}

INSTANTIATE_TEST_SUITE_P(Rows, ReadsFormat2, testing::ValuesIn(format2Rows()), test::ByName());

// ---- Hostile manifests and files -----------------------------------------------------------------

// A value nested 100,000 deep overflowed the stack when the refusal printed it: the depth
// is counted (without recursion) before the manifest is parsed. (A header that deep is now
// refused by its size as well.)
TEST(Checkpoint, DeeplyNestedManifestRefused)
{
    const AccumConfig c = runConfig(OptimizerKind::AdamW);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(c, dir, 6);
    const fs::path file = latestRankFile(dir, 0);
    RankFile f = splitRankFile(test::readFile(file));
    std::string manifest = f.header["__metadata__"]["manifest"].get<std::string>();
    const size_t at = manifest.find("\"lr\":");
    ASSERT_NE(at, std::string::npos);
    const size_t end = manifest.find_first_of(",}", at);
    // 30,000 deep: 60 KB, inside the header's 64 KiB bound, so that the depth is what refuses it
    // (deeper, the header's size refuses it first)
    manifest.replace(at + 5, end - at - 5, std::string(30000, '[') + std::string(30000, ']'));
    f.header["__metadata__"]["manifest"] = manifest;
    test::writeFile(file, joinRankFile(f));
    EXPECT_EQ(refusal(c, dir), "checkpoint/not-a-checkpoint");
    try {
        checkpointConfig(dir);
        FAIL() << "read a manifest nested 30000 deep";
    } catch (const CheckpointError &ex) {
        EXPECT_LT(std::string(ex.what()).size(), 300u);
    }
}

// Issue 60, N9 and N16: a refusal of a manifest's value says it as it is written. Version 2^63
// once read as "format version 0"; a setting written as the string "0.01" as the number 0.01
// ("lr is 0.01; this run's is 0.01"); a long string was echoed whole; a NUL byte cut the sentence.
TEST(Checkpoint, RefusalsQuoteTheValueAsWritten)
{
    const AccumConfig c = runConfig(OptimizerKind::AdamW);
    const auto what = [&](const ManifestEdit &edit) {
        test::TempDir tmp;
        saveAfter(c, tmp.path(), 6);
        editManifest(latestRankFile(tmp.path(), 0), edit);
        try {
            AccumEngine e(c);
            loadCheckpoint(e, tmp.path());
        } catch (const CheckpointError &ex) {
            return std::string(ex.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(what([](json &m) { m["version"] = uint64_t(1) << 63; }).find("version 9223372036854775808"),
              std::string::npos);
    EXPECT_NE(what([](json &m) { m["config"]["lr"] = "0.01"; }).find("lr is \"0.01\"; this run's is 0.01"),
              std::string::npos);
    const std::string longName = what([](json &m) { m["config"]["optimizer"] = std::string(200000, 'x'); });
    EXPECT_LT(longName.size(), 400u);
    const std::string nul = what([](json &m) { m["config"]["optimizer"] = std::string("adam\0w", 6); });
    EXPECT_EQ(nul.find('\0'), std::string::npos);
    EXPECT_NE(nul.find("adam\\u0000w"), std::string::npos) << nul;
}

// Issue 60, N10: unscale_() since the last update() at a window's end is no state the loop
// leaves (update() ran): once accepted, then reported as a training divergence.
TEST(Checkpoint, UnscaledAtAWindowsEndRefused)
{
    AccumConfig c = runConfig(OptimizerKind::Sgd);
    c.dtype = DType::Float16;
    c.lossScaler.enabled = true;
    test::TempDir tmp;
    saveAfter(c, tmp.path(), 8); // two whole windows of 4
    editManifest(latestRankFile(tmp.path(), 0), [](json &m) { m["loss_scaler"]["unscaled_since_update"] = true; });
    EXPECT_EQ(refusal(c, tmp.path()), "checkpoint/out-of-range");
}

// Issue 60, N6: the data stream's generator state edited (its checksums recomputed) printed
// LibTorch's "Invalid mt19937 state" and a C++ stack trace, naming no file. One sentence that
// names the file and the field.
TEST(Checkpoint, BadGeneratorStateRefusedInWords)
{
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    saveAfter(c, tmp.path(), 6);
    const fs::path file = latestRankFile(tmp.path(), 0);
    RankFile f = splitRankFile(test::readFile(file));
    const auto range = f.header.at("data.generator").at("data_offsets");
    for (uint64_t i = range[0].get<uint64_t>(); i < range[1].get<uint64_t>(); ++i)
        f.data[i] = char(0xFF);
    test::writeFile(file, joinRankFile(f));
    const std::string payload = f.data;
    editManifest(file, [&](json &m) { m["payload_sha256"] = sha256Hex(payload.data(), payload.size()); });
    std::string what;
    try {
        AccumEngine e(c);
        loadCheckpoint(e, tmp.path());
    } catch (const CheckpointError &ex) {
        EXPECT_EQ(ex.code(), "checkpoint/out-of-range");
        what = ex.what();
    } catch (const std::exception &ex) {
        FAIL() << "not a checkpoint's refusal: " << std::string(ex.what()).substr(0, 300);
    }
    EXPECT_NE(what.find(file.string()), std::string::npos) << what;
    EXPECT_NE(what.find("data.generator"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

namespace {

std::vector<ScalerStateRow> scalerStateRows()
{
    return {
        {"unchanged", "", 0.0, ""},
        {"scale -1", "scale", -1.0, "checkpoint/out-of-range"},
        {"scale 0", "scale", 0.0, "checkpoint/out-of-range"},
        {"growth_tracker -1e18", "growth_tracker", -1e18, "checkpoint/out-of-range"},
        {"growth_tracker at the interval", "growth_tracker", 2000.0, "checkpoint/out-of-range"},
        {"skipped_windows 5", "skipped_windows", 5.0, "checkpoint/out-of-range"},
    };
}

} // namespace

// The loss scaler's restored state, range-checked the same way: a scale of -1 or 0 or a
// growth tracker of -1e18 once ran on to a final loss scale of -0.125.
TEST_P(ScalerStateChecked, RefusedOutOfRange)
{
    const std::string &key = GetParam().key;
    const double value = GetParam().value;
    const std::string &code = GetParam().code;
    AccumConfig c = runConfig(OptimizerKind::Sgd);
    c.dtype = DType::Float16;
    c.lossScaler.enabled = true;
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(c, dir, 6);
    editManifest(latestRankFile(dir, 0), [&](json &m) {
        if (key.empty())
            return;
        if (key == "scale")
            m["loss_scaler"]["scale"] = value;
        else
            m["loss_scaler"][key] = static_cast<int64_t>(value);
    });
    EXPECT_EQ(refusal(c, dir), code);
}

INSTANTIATE_TEST_SUITE_P(Rows, ScalerStateChecked, testing::ValuesIn(scalerStateRows()), test::ByName());

namespace {

std::vector<RegularFileRow> regularFileRows()
{
    std::vector<RegularFileRow> rows;
    for (const std::string which : {"latest", "rank"}) {
        rows.push_back({which + " FIFO", which, "fifo", "checkpoint/not-a-file"});
        rows.push_back({which + " folder", which, "folder", "checkpoint/not-a-file"});
        rows.push_back({which + " link to /dev/zero", which, "zero", "checkpoint/not-a-file"});
        rows.push_back({which + " sparse file of 2^40 bytes", which, "huge", "checkpoint/too-large"});
    }
    return rows;
}

} // namespace

// Checkpoint files are read only when they are regular files of a bounded size: a FIFO in
// place of latest.json or a rank file hung the resume, /dev/zero was read until memory ran
// out. Refused at once (the FIFO is opened without blocking).
TEST_P(ReadsOnlyRegularFiles, RefusedAtOnce)
{
    const std::string &which = GetParam().which;
    const std::string &node = GetParam().node;
    const std::string &code = GetParam().code;
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(c, dir, 5);
    const fs::path file = which == "latest" ? dir / "latest.json" : latestRankFile(dir, 0);
    fs::remove(file);
    if (node == "fifo")
        ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    else if (node == "folder")
        fs::create_directory(file);
    else if (node == "zero")
        fs::create_symlink("/dev/zero", file);
    else {
        test::writeFile(file, "x");
        fs::resize_file(file, uint64_t(1) << 40); // sparse: no disk is used
    }
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(refusal(c, dir), code);
    const auto elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(elapsedMs, 10000);
}

INSTANTIATE_TEST_SUITE_P(Rows, ReadsOnlyRegularFiles, testing::ValuesIn(regularFileRows()), test::ByName());

// ---- Writers -----------------------------------------------------------------------------------

// One run at a time writes checkpoints into a folder: a second run's rank 0 is refused while
// the first holds the folder (two writers pruned each other's generations and one ended on
// the other's latest.json); once it ends, the folder is free. Ranks other than 0 of the
// same run do not take it. A folder that is a file is refused before anything trains.
TEST(Checkpoint, OneWriterPerFolder)
{
    test::TempDir tmp;
    const fs::path dir = tmp / "ck";
    std::string code;
    {
        const CheckpointFolderLock first = prepareCheckpointFolder(dir);
        const CheckpointFolderLock otherRank = prepareCheckpointFolder(dir, /*lock=*/false);
        try {
            prepareCheckpointFolder(dir);
        } catch (const CheckpointError &e) {
            code = e.code();
            EXPECT_FALSE(e.text(NumberStyle{"fa"}).empty());
        }
        // The lock keeps nothing else out: the run's own checkpoints are written as before.
        saveAfter(runConfig(OptimizerKind::Sgd), dir, 2);
    }
    EXPECT_EQ(code, "checkpoint/folder-in-use");
    const CheckpointFolderLock again = prepareCheckpointFolder(dir);
    test::writeFile(tmp / "file", "x");
    code.clear();
    try {
        prepareCheckpointFolder(tmp / "file");
    } catch (const CheckpointError &e) {
        code = e.code();
    }
    EXPECT_EQ(code, "checkpoint/write-failed-first");
}

// A write that fails leaves the previous checkpoint whole and the latest.
TEST(Checkpoint, FailedWriteKeepsPrevious)
{
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    AccumEngine e(c);
    runMicro(e, 5);
    saveCheckpoint(e, dir);
    const std::string sha = e.paramsSha256();
    const std::string before = test::readFile(latestRankFile(dir, 0));
    runMicro(e, 7);
    test::writeFile(dir / "gen-000000000007", "a file where the generation's folder would go");
    ASSERT_THROW(saveCheckpoint(e, dir), CheckpointError);
    EXPECT_EQ(test::readFile(latestRankFile(dir, 0)), before);
    AccumEngine resumed(c);
    EXPECT_EQ(loadCheckpoint(resumed, dir).microBatches, int64_t(5));
    EXPECT_EQ(resumed.paramsSha256(), sha);
    // and the next write that succeeds replaces it, pruning the older generation
    fs::remove(dir / "gen-000000000007");
    saveCheckpoint(e, dir);
    EXPECT_FALSE(fs::exists(dir / "gen-000000000005"));
    AccumEngine again(c);
    EXPECT_EQ(loadCheckpoint(again, dir).microBatches, int64_t(7));
    EXPECT_EQ(again.paramsSha256(), e.paramsSha256());
}

// ---- Writes stay inside the folder (issue 60, N3, N14) ------------------------------------------

namespace {

struct InsideRow {
    std::string name;
    std::string plant; // what is put into the checkpoint folder before the save
    std::string code;  // the save's refusal ("" when it saves)
};

class WritesStayInside : public testing::TestWithParam<InsideRow> {};

std::vector<InsideRow> insideRows()
{
    return {
        // N3: the issue's `ln -s ../out ck/gen-000000000008`; refused, not followed and not removed
        {"generation linked out of the folder", "gen-link", "checkpoint/write-failed-link"},
        {"generation linked to a folder inside", "gen-link-inside", "checkpoint/write-failed-link"},
        {"generation is a file", "gen-file", "checkpoint/write-failed-link"},
        // a link at a file's name is replaced by the rename, the file it pointed to untouched
        {"latest.json linked out of the folder", "latest-link", ""},
        {"rank file linked out of an own generation", "rank-link", ""},
    };
}

} // namespace

// A target is resolved inside the folder the user named: a link planted at a generation's name
// (or a file there) is refused in words, before the run trains too, and the files outside keep
// their content; a link at a file's own name is replaced, never written through.
TEST_P(WritesStayInside, NothingOutsideIsWritten)
{
    const std::string &plant = GetParam().plant;
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp / "ck";
    const fs::path out = tmp / "out";
    fs::create_directories(dir);
    fs::create_directories(out);
    for (const char *name : {"rank-0.safetensors", "latest.json", "notes.txt"})
        test::writeFile(out / name, "data");
    AccumEngine e(c);
    runMicro(e, 4);
    if (plant == "rank-link") { // an earlier save made the generation; the link replaces its file
        saveCheckpoint(e, dir);
        fs::remove(dir / "gen-000000000004" / "rank-0.safetensors");
        fs::create_symlink(out / "rank-0.safetensors", dir / "gen-000000000004" / "rank-0.safetensors");
    } else if (plant == "gen-link") {
        fs::create_symlink("../out", dir / "gen-000000000004");
    } else if (plant == "gen-link-inside") {
        fs::create_directories(dir / "elsewhere");
        fs::create_symlink("elsewhere", dir / "gen-000000000004");
    } else if (plant == "gen-file") {
        test::writeFile(dir / "gen-000000000004", "data");
    } else if (plant == "latest-link") {
        fs::create_symlink(out / "latest.json", dir / "latest.json");
    }
    std::string code, sentence;
    try {
        saveCheckpoint(e, dir);
    } catch (const CheckpointError &ex) {
        code = ex.code();
        sentence = ex.what();
        EXPECT_FALSE(ex.text(NumberStyle{"fa"}).empty());
    }
    EXPECT_EQ(code, GetParam().code) << sentence;
    for (const char *name : {"rank-0.safetensors", "latest.json", "notes.txt"})
        EXPECT_TRUE(test::readFile(out / name) == "data") << name << " outside the folder was written";
    if (!code.empty()) {
        EXPECT_NE(sentence.find((dir / "gen-000000000004").string()), std::string::npos) << sentence;
        EXPECT_TRUE(fs::exists(fs::symlink_status(dir / "gen-000000000004"))); // the user's, left there
        if (plant != "gen-file") { // and a run is refused before it trains
            std::string early;
            try {
                prepareCheckpointFolder(dir);
            } catch (const CheckpointError &ex) {
                early = ex.code();
            }
            EXPECT_EQ(early, "checkpoint/write-failed-link");
        }
    } else {
        AccumEngine resumed(c);
        EXPECT_EQ(loadCheckpoint(resumed, dir).microBatches, int64_t(4));
        EXPECT_FALSE(fs::is_symlink(dir / "latest.json"));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, WritesStayInside, testing::ValuesIn(insideRows()), test::ByName());

// ---- Reads stay inside the folder (issue 60, N3 on resume) --------------------------------------

namespace {

struct ReadInsideRow {
    std::string name;
    std::string plant; // how the latest generation is replaced by a link
};

class ResumeReadsOnlyInside : public testing::TestWithParam<ReadInsideRow> {};

} // namespace

// A resume reads the latest generation only inside the folder, as a save writes it: the
// generation moved out (or aside) and a link left at its name is refused in one sentence naming
// the link, by loadCheckpoint and checkpointConfig alike, and the link stays.
TEST_P(ResumeReadsOnlyInside, ALinkedGenerationIsRefused)
{
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp / "ck";
    saveAfter(c, dir, 4);
    const fs::path gen = dir / "gen-000000000004";
    ASSERT_TRUE(fs::is_directory(gen));
    if (GetParam().plant == "out") {
        fs::create_directories(tmp / "out");
        fs::rename(gen, tmp / "out" / "gen-000000000004");
        fs::create_symlink("../out/gen-000000000004", gen);
    } else {
        fs::rename(gen, dir / "elsewhere");
        fs::create_symlink("elsewhere", gen);
    }
    EXPECT_EQ(refusal(c, dir), "checkpoint/resume-link");
    try {
        checkpointConfig(dir);
        ADD_FAILURE() << "read a generation through a link";
    } catch (const CheckpointError &ex) {
        EXPECT_EQ(ex.code(), "checkpoint/resume-link");
        EXPECT_NE(std::string(ex.what()).find(gen.string() + " is a link or not a folder"), std::string::npos) << ex.what();
        EXPECT_FALSE(ex.text(NumberStyle{"fa"}).empty());
    }
    EXPECT_TRUE(fs::is_symlink(gen));
}

INSTANTIATE_TEST_SUITE_P(Rows, ResumeReadsOnlyInside,
                         testing::ValuesIn(std::vector<ReadInsideRow>{
                             {"generation linked out of the folder", "out"},
                             {"generation linked to a folder inside", "inside"},
                         }),
                         test::ByName());

// Pruning removes only the generations this program wrote (their marker says so), and in them
// only the files a checkpoint writes: a user's gen-* folder with a notes.txt, and a link named
// like a generation, stay with what they hold (N14).
TEST(Checkpoint, PruningRemovesOnlyItsOwnGenerations)
{
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp / "ck";
    fs::create_directories(dir / "gen-000000000001");
    test::writeFile(dir / "gen-000000000001" / "notes.txt", "mine");
    fs::create_directories(tmp / "out");
    test::writeFile(tmp / "out" / "rank-0.safetensors", "data");
    fs::create_symlink("../out", dir / "gen-000000000002");
    AccumEngine e(c);
    runMicro(e, 3);
    saveCheckpoint(e, dir);
    test::writeFile(dir / "gen-000000000003" / "notes.txt", "added to an own generation");
    runMicro(e, 5);
    saveCheckpoint(e, dir);
    runMicro(e, 6);
    saveCheckpoint(e, dir);
    EXPECT_EQ(test::readFile(dir / "gen-000000000001" / "notes.txt"), "mine");
    EXPECT_TRUE(fs::is_symlink(dir / "gen-000000000002"));
    EXPECT_TRUE(test::readFile(tmp / "out" / "rank-0.safetensors") == "data");
    // the own generation keeps only the user's file; the next older one is gone whole
    EXPECT_EQ(test::readFile(dir / "gen-000000000003" / "notes.txt"), "added to an own generation");
    EXPECT_FALSE(fs::exists(dir / "gen-000000000003" / "rank-0.safetensors"));
    EXPECT_FALSE(fs::exists(dir / "gen-000000000005"));
    EXPECT_TRUE(fs::exists(dir / "gen-000000000006" / "rank-0.safetensors"));
}

namespace {

struct FailedPublishRow {
    std::string name;
    std::string fault;
};

class FailedPublish : public testing::TestWithParam<FailedPublishRow> {};

std::vector<FailedPublishRow> failedPublishRows()
{
    return {
        {"disk full at the rank file", "disk-full"},
        {"latest.json not replaceable", "latest-folder"},
        {"publish lock held", "lock"},
    };
}

} // namespace

// A publish that fails removes the generation it made (N14): no orphan gen-* folder is left,
// and the previous checkpoint stays the latest and whole.
TEST_P(FailedPublish, LeavesNoOrphanGeneration)
{
    const std::string &fault = GetParam().fault;
    const AccumConfig c = runConfig(OptimizerKind::Sgd);
    test::TempDir tmp;
    const fs::path dir = tmp / "ck";
    AccumEngine e(c);
    runMicro(e, 3);
    if (fault != "latest-folder")
        saveCheckpoint(e, dir);
    const std::string before = fault != "latest-folder" ? test::readFile(latestRankFile(dir, 0)) : std::string();
    runMicro(e, 5);
    int lockFd = -1;
    struct rlimit limit {};
    if (fault == "disk-full") { // a file may not grow past 1 KB: write() fails with EFBIG, as on a full disk
        ::signal(SIGXFSZ, SIG_IGN);
        ::getrlimit(RLIMIT_FSIZE, &limit);
        struct rlimit small = limit;
        small.rlim_cur = 1024;
        ::setrlimit(RLIMIT_FSIZE, &small);
    } else if (fault == "latest-folder") {
        fs::create_directories(dir / "latest.json");
    } else { // another writer holds the folder's publish lock past the writer's wait
        lockFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
        ASSERT_EQ(::flock(lockFd, LOCK_EX), 0);
    }
    std::string code;
    try {
        saveCheckpoint(e, dir);
    } catch (const CheckpointError &ex) {
        code = ex.code();
    }
    if (fault == "disk-full")
        ::setrlimit(RLIMIT_FSIZE, &limit);
    if (lockFd >= 0)
        ::close(lockFd);
    EXPECT_EQ(code.rfind("checkpoint/write-failed", 0), 0u) << code;
    EXPECT_FALSE(fs::exists(dir / "gen-000000000005"));
    if (fault != "latest-folder") {
        EXPECT_EQ(test::readFile(latestRankFile(dir, 0)), before);
        AccumEngine resumed(c);
        EXPECT_EQ(loadCheckpoint(resumed, dir).microBatches, int64_t(3));
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, FailedPublish, testing::ValuesIn(failedPublishRows()), test::ByName());

// ---- The reader follows the format and the run (issue 60, N5, N7, N8) ---------------------------

namespace {

// Rewrites a rank file's tensors: `edit` may change a tensor's dtype and bytes; the data is
// laid out again back to back and every checksum recomputed (payload, tensor table,
// manifest), as someone who read the format would.
void rewriteTensors(const fs::path &file, const std::function<void(const std::string &, std::string &, std::string &)> &edit)
{
    RankFile f = splitRankFile(test::readFile(file));
    json manifest = json::parse(f.header["__metadata__"]["manifest"].get<std::string>());
    std::vector<std::pair<uint64_t, std::string>> order;
    for (auto it = f.header.begin(); it != f.header.end(); ++it)
        if (it.key() != "__metadata__")
            order.emplace_back(it.value()["data_offsets"][0].get<uint64_t>(), it.key());
    std::sort(order.begin(), order.end());
    std::string data;
    for (const auto &[offset, name] : order) {
        json &t = f.header[name];
        std::string dtype = t["dtype"].get<std::string>();
        std::string bytes = f.data.substr(offset, t["data_offsets"][1].get<uint64_t>() - offset);
        edit(name, dtype, bytes);
        t["dtype"] = dtype;
        t["data_offsets"] = {data.size(), data.size() + bytes.size()};
        data += bytes;
    }
    f.data = data;
    json table = json::object();
    for (auto it = f.header.begin(); it != f.header.end(); ++it)
        if (it.key() != "__metadata__")
            table[it.key()] = it.value();
    const std::string text = table.dump();
    manifest.erase("manifest_sha256");
    manifest["tensors_sha256"] = sha256Hex(text.data(), text.size());
    manifest["payload_bytes"] = data.size();
    manifest["payload_sha256"] = sha256Hex(data.data(), data.size());
    const std::string unsealed = manifest.dump();
    manifest["manifest_sha256"] = sha256Hex(unsealed.data(), unsealed.size());
    f.header["__metadata__"]["manifest"] = manifest.dump();
    test::writeFile(file, joinRankFile(f));
}

std::string toBF16(const std::string &f32)
{
    std::string out;
    for (size_t i = 0; i + 4 <= f32.size(); i += 4)
        out += f32.substr(i + 2, 2); // the upper half of a little-endian float32
    return out;
}

std::string toF64(const std::string &f32)
{
    std::string out;
    for (size_t i = 0; i + 4 <= f32.size(); i += 4) {
        float v;
        std::memcpy(&v, f32.data() + i, 4);
        const double d = v;
        out.append(reinterpret_cast<const char *>(&d), 8);
    }
    return out;
}

struct FormatRow {
    std::string name;
    OptimizerKind kind;
    std::string change;
    std::string code;
    std::string field; // the field the sentence names
};

class ReaderFollowsTheFormat : public testing::TestWithParam<FormatRow> {};

std::vector<FormatRow> formatRows()
{
    return {
        // N7: dtypes as the run needs them, not promoted
        {"BF16 fc1.bias", OptimizerKind::Sgd, "bf16-bias", "checkpoint/out-of-range", "fc1.bias"},
        {"F64 momentum buffers", OptimizerKind::Momentum, "f64-momentum", "checkpoint/out-of-range",
         "optimizer.momentum_buffer.fc1.weight"},
        {"F64 exp_avg_sq", OptimizerKind::AdamW, "f64-exp-avg-sq", "checkpoint/out-of-range", "optimizer.exp_avg_sq.fc1.weight"},
        // N8: data_offsets contiguous, without overlap, covering the data
        {"overlapping data_offsets", OptimizerKind::Sgd, "overlap", "checkpoint/tensor-layout", "fc2.bias"},
        {"bytes after the last tensor", OptimizerKind::Sgd, "trailing", "checkpoint/tensor-layout", ""},
        // the header's size bounded
        {"header padded past its bound", OptimizerKind::Sgd, "big-header", "checkpoint/header-too-large", ""},
        // N5: the size bound comes from this run (a fixture model's file is a few KB)
        {"sparse file of 256 MB", OptimizerKind::Sgd, "sparse", "checkpoint/too-large", ""},
        {"unchanged", OptimizerKind::AdamW, "", "", ""},
    };
}

} // namespace

TEST_P(ReaderFollowsTheFormat, RefusedInOneSentence)
{
    const FormatRow &row = GetParam();
    const AccumConfig c = runConfig(row.kind);
    test::TempDir tmp;
    const fs::path dir = tmp.path();
    saveAfter(c, dir, 6);
    const fs::path file = latestRankFile(dir, 0);
    if (row.change == "bf16-bias")
        rewriteTensors(file, [](const std::string &name, std::string &dtype, std::string &bytes) {
            if (name == "fc1.bias") {
                dtype = "BF16";
                bytes = toBF16(bytes);
            }
        });
    else if (row.change == "f64-momentum" || row.change == "f64-exp-avg-sq")
        rewriteTensors(file, [&](const std::string &name, std::string &dtype, std::string &bytes) {
            const std::string prefix = row.change == "f64-momentum" ? "optimizer.momentum_buffer." : "optimizer.exp_avg_sq.";
            if (name.rfind(prefix, 0) == 0) {
                dtype = "F64";
                bytes = toF64(bytes);
            }
        });
    else if (row.change == "overlap") // fc2.bias read from fc1.bias's bytes (both hidden-wide)
        editManifest(file, [](json &m) {
            json *from = nullptr, *to = nullptr;
            for (json &t : m["tensors"]) {
                if (t["name"] == "fc1.bias")
                    from = &t;
                if (t["name"] == "fc2.bias")
                    to = &t;
            }
            (*to)["offset"] = (*from)["offset"];
        });
    else if (row.change == "trailing")
        rewriteTensors(file, [](const std::string &, std::string &, std::string &) {});
    if (row.change == "trailing") { // 8 bytes after the last tensor, the checksums made to match
        RankFile f = splitRankFile(test::readFile(file));
        f.data += std::string(8, '\0');
        json manifest = json::parse(f.header["__metadata__"]["manifest"].get<std::string>());
        manifest.erase("manifest_sha256");
        manifest["payload_bytes"] = f.data.size();
        manifest["payload_sha256"] = sha256Hex(f.data.data(), f.data.size());
        const std::string unsealed = manifest.dump();
        manifest["manifest_sha256"] = sha256Hex(unsealed.data(), unsealed.size());
        f.header["__metadata__"]["manifest"] = manifest.dump();
        test::writeFile(file, joinRankFile(f));
    } else if (row.change == "big-header") { // spaces after the JSON, as the format pads it: 64 KiB of them
        std::string bytes = test::readFile(file);
        RankFile f = splitRankFile(bytes);
        const uint64_t n = f.headerBytes + 64 * 1024;
        std::string out(8, '\0');
        std::memcpy(out.data(), &n, 8);
        test::writeFile(file, out + bytes.substr(8, f.headerBytes) + std::string(64 * 1024, ' ') + f.data);
    } else if (row.change == "sparse") {
        fs::resize_file(file, uint64_t(256) << 20);
    }
    const auto start = std::chrono::steady_clock::now();
    std::string code, sentence;
    try {
        AccumEngine e(c);
        loadCheckpoint(e, dir);
    } catch (const CheckpointError &ex) {
        code = ex.code();
        sentence = ex.what();
        EXPECT_FALSE(ex.text(NumberStyle{"fa"}).empty());
    }
    EXPECT_EQ(code, row.code) << sentence;
    if (!row.code.empty()) {
        EXPECT_NE(sentence.find(file.string()), std::string::npos) << sentence;
        EXPECT_NE(sentence.find(row.field), std::string::npos) << sentence;
        EXPECT_EQ(sentence.find('\n'), std::string::npos) << sentence;
        // the window's path (no engine yet) refuses a file too large for its run the same way
        if (row.change == "sparse") {
            EXPECT_THROW(checkpointConfig(dir), CheckpointError);
            EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, ReaderFollowsTheFormat, testing::ValuesIn(formatRows()), test::ByName());
