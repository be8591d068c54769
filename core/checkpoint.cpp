// Checkpoints: the engine's state (core/engine_state.h) as one manifest line and raw tensor
// bytes per rank, published generation by generation through latest.json.
#include "core/checkpoint.h"

#include "core/device.h"
#include "core/distributed.h"
#include "core/fault_hooks.h"
#include "core/engine.h"
#include "core/engine_state.h"
#include "core/export.h"
#include "core/model.h"
#include "core/sha256.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

namespace accumlab {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

constexpr const char *kLatest = "latest.json";
// Generations are named by the micro-batches done, zero-padded so that names sort by age.
constexpr int kGenerationDigits = 12;

std::string generationName(int64_t microBatches)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "gen-%0*lld", kGenerationDigits, static_cast<long long>(microBatches));
    return buf;
}

std::string rankFileName(int64_t rank) { return "rank-" + std::to_string(rank) + ".ckpt"; }

[[noreturn]] void refuse(const std::string &code, const fs::path &file, TextArgs args = {})
{
    args.strings["file"] = file.string();
    throw CheckpointError("checkpoint/" + code, std::move(args));
}

// The tensor dtypes a checkpoint holds, by the names the manifest writes.
const std::map<std::string, torch::Dtype> &dtypeNames()
{
    static const std::map<std::string, torch::Dtype> names = {
        {"float32", torch::kFloat32}, {"float64", torch::kFloat64}, {"bfloat16", torch::kBFloat16},
        {"int64", torch::kInt64},     {"uint8", torch::kUInt8}};
    return names;
}

std::string dtypeName(torch::Dtype t)
{
    for (const auto &[name, dtype] : dtypeNames())
        if (dtype == t)
            return name;
    TORCH_CHECK(false, "a checkpoint cannot hold a tensor of ", t);
}

// The settings a resumed run must share with the one that saved (besides the model's widths,
// the dtype and the world size, which have refusals of their own), in the order they are
// compared: the first difference is named.
// A figure of the run as JSON: a number, or "inf", "-inf" or "nan" (JSON has no such numbers,
// and a window skipped for an overflow leaves an infinite gradient norm to carry over).
json figureJson(double v)
{
    if (std::isfinite(v))
        return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

json runSettings(const AccumConfig &c)
{
    const OptimizerConfig &o = c.optimizer;
    return {{"model", toString(c.preset)},
            {"micro_batch", c.microBatch},
            {"accum_steps", c.accumSteps},
            {"optimizer", toString(o.kind)},
            {"lr", o.lr},
            {"momentum", o.momentum},
            {"weight_decay", o.weightDecay},
            {"adam_weight_decay", o.adamWeightDecay},
            {"beta1", o.beta1},
            {"beta2", o.beta2},
            {"eps", o.eps},
            {"clip_norm", o.clipNorm},
            {"lr_warmup", o.lrWarmup},
            {"scaling", toString(c.scaling)},
            {"step_every_micro", c.stepEveryMicro},
            {"bug", toString(c.bug)},
            {"no_sync", c.noSync},
            {"labels", toString(c.labels)},
            {"loss_scaling", c.lossScaler.enabled},
            {"scaler_init_scale", c.lossScaler.initScale},
            {"scaler_growth_interval", c.lossScaler.growthInterval},
            {"scaler_bug", toString(c.lossScaler.bug)},
            {"seed", c.seed},
            {"device", resolveDevice(c.device)}};
}

std::string widths(const ModelShape &s)
{
    return std::to_string(s.inFeatures) + "-" + std::to_string(s.hidden) + "-" + std::to_string(s.classes);
}

// One rank file being assembled: named tensors appended as raw bytes.
struct FileWriter {
    json tensors = json::array();
    std::string payload;

    void add(const std::string &name, const torch::Tensor &t)
    {
        if (!t.defined())
            return;
        const auto c = t.to(torch::kCPU).contiguous();
        std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end());
        tensors.push_back({{"name", name},
                           {"dtype", dtypeName(c.scalar_type())},
                           {"shape", shape},
                           {"offset", payload.size()},
                           {"bytes", c.nbytes()}});
        payload.append(static_cast<const char *>(c.data_ptr()), c.nbytes());
    }

    std::string file(json manifest) const
    {
        manifest["tensors"] = tensors;
        manifest["payload_bytes"] = payload.size();
        manifest["payload_sha256"] = sha256Hex(payload.data(), payload.size());
        return manifest.dump() + "\n" + payload;
    }
};

// One rank file read back and checked: its manifest and its tensors by name.
struct FileReader {
    fs::path path;
    json manifest;
    std::map<std::string, torch::Tensor> tensors;

    explicit FileReader(fs::path p) : path(std::move(p))
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            refuse("unreadable", path, TextArgs{{}, {{"reason", std::strerror(errno)}}});
        const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t eol = all.find('\n');
        if (eol == std::string::npos)
            refuse("not-a-checkpoint", path);
        manifest = json::parse(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(eol), nullptr, false);
        if (!manifest.is_object() || manifest.value("format", "") != kCheckpointFormat ||
            !manifest.contains("version") || !manifest["version"].is_number_integer())
            refuse("not-a-checkpoint", path);
        const int version = manifest["version"].get<int>();
        if (version != kCheckpointVersion)
            refuse("version", path, TextArgs{{{"found", double(version)}, {"supported", double(kCheckpointVersion)}}, {}});
        try {
            const auto expected = manifest.at("payload_bytes").get<uint64_t>();
            const uint64_t found = all.size() - eol - 1;
            if (found < expected)
                refuse("truncated", path, TextArgs{{{"found", double(found)}, {"expected", double(expected)}}, {}});
            const char *payload = all.data() + eol + 1;
            if (found != expected || sha256Hex(payload, found) != manifest.at("payload_sha256").get<std::string>())
                refuse("corrupt", path);
            for (const auto &t : manifest.at("tensors")) {
                const auto offset = t.at("offset").get<uint64_t>();
                const auto bytes = t.at("bytes").get<uint64_t>();
                const auto dtype = dtypeNames().at(t.at("dtype").get<std::string>());
                const auto shape = t.at("shape").get<std::vector<int64_t>>();
                // The announced size must be what the shape takes, and inside the data, before
                // anything is allocated.
                uint64_t expect = c10::elementSize(dtype);
                for (int64_t d : shape) {
                    if (d < 0 || (d > 0 && expect > found / uint64_t(d)))
                        refuse("corrupt", path);
                    expect *= uint64_t(d);
                }
                if (expect != bytes || offset > found || bytes > found - offset)
                    refuse("corrupt", path);
                auto tensor = torch::empty(shape, torch::dtype(dtype));
                std::memcpy(tensor.data_ptr(), payload + offset, bytes);
                tensors[t.at("name").get<std::string>()] = tensor;
            }
        } catch (const json::exception &) {
            refuse("not-a-checkpoint", path);
        } catch (const std::out_of_range &) { // an unknown dtype name
            refuse("not-a-checkpoint", path);
        }
    }

    torch::Tensor tensor(const std::string &name, bool required = true) const
    {
        const auto it = tensors.find(name);
        if (it == tensors.end()) {
            if (required)
                refuse("not-a-checkpoint", path);
            return {};
        }
        return it->second;
    }

    // A figure written by figureJson.
    double figure(const json &object, const char *key) const
    {
        const json &v = object.contains(key) ? object.at(key) : json();
        if (v.is_number())
            return v.get<double>();
        if (v == "inf")
            return std::numeric_limits<double>::infinity();
        if (v == "-inf")
            return -std::numeric_limits<double>::infinity();
        if (v == "nan")
            return std::numeric_limits<double>::quiet_NaN();
        refuse("not-a-checkpoint", path);
    }

    template <class T>
    T number(const json &object, const char *key) const
    {
        try {
            return object.at(key).get<T>();
        } catch (const json::exception &) {
            refuse("not-a-checkpoint", path);
        }
    }

    // Refuses a file of another run: model widths, dtype, world size, then each setting.
    void requireRun(const AccumConfig &c) const
    {
        try {
            const ModelShape run = c.modelShape();
            const ModelShape saved{manifest.at("model").at("in_features").get<int64_t>(),
                                   manifest.at("model").at("hidden").get<int64_t>(),
                                   manifest.at("model").at("classes").get<int64_t>()};
            if (saved.inFeatures != run.inFeatures || saved.hidden != run.hidden || saved.classes != run.classes)
                throw CheckpointError("checkpoint/shape-differs", TextArgs{{}, {{"saved", widths(saved)}, {"run", widths(run)}}});
            const auto dtype = manifest.at("dtype").get<std::string>();
            if (dtype != toString(c.dtype))
                throw CheckpointError("checkpoint/dtype-differs", TextArgs{{}, {{"saved", dtype}, {"run", toString(c.dtype)}}});
            const auto world = manifest.at("world_size").get<int64_t>();
            if (world != c.worldSize)
                throw CheckpointError("checkpoint/world-size-differs",
                                      TextArgs{{{"saved", double(world)}, {"run", double(c.worldSize)}}, {}});
            const json &saved_ = manifest.at("config");
            const json mine = runSettings(c);
            for (auto it = mine.begin(); it != mine.end(); ++it) {
                const json theirs = saved_.contains(it.key()) ? saved_.at(it.key()) : json();
                if (theirs != it.value()) {
                    auto text = [](const json &v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
                    throw CheckpointError("checkpoint/config-differs",
                                          TextArgs{{}, {{"key", it.key()}, {"saved", text(theirs)}, {"run", text(it.value())}}});
                }
            }
            // A scaler's state in a run without one (the settings' loss_scaling says which).
            const json &scaler = manifest.contains("loss_scaler") ? manifest.at("loss_scaler") : json();
            if (!scaler.is_null() && !c.lossScaler.enabled)
                throw CheckpointError("checkpoint/unsupported-section", TextArgs{{}, {{"section", "loss_scaler"}}});
        } catch (const json::exception &) {
            refuse("not-a-checkpoint", path);
        }
    }
};

json readLatest(const fs::path &dir)
{
    const fs::path file = dir / kLatest;
    std::ifstream in(file);
    if (!in)
        throw CheckpointError("checkpoint/none", TextArgs{{}, {{"dir", dir.string()}}});
    const json latest = json::parse(in, nullptr, false);
    if (!latest.is_object() || latest.value("format", "") != kCheckpointFormat || !latest.contains("version") ||
        !latest["version"].is_number_integer() || !latest.contains("generation") || !latest["generation"].is_string() ||
        !latest.contains("world_size") || !latest["world_size"].is_number_integer())
        refuse("not-a-checkpoint", file);
    const int version = latest["version"].get<int>();
    if (version != kCheckpointVersion)
        refuse("version", file, TextArgs{{{"found", double(version)}, {"supported", double(kCheckpointVersion)}}, {}});
    const std::string gen = latest["generation"].get<std::string>();
    if (gen.find('/') != std::string::npos || gen.find("..") != std::string::npos)
        refuse("not-a-checkpoint", file);
    return latest;
}

void pruneOlderGenerations(const fs::path &dir, const std::string &current)
{
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        // Only older generations: a rank may already be writing a newer one.
        if (name.rfind("gen-", 0) == 0 && name.size() == current.size() && name < current)
            fs::remove_all(entry.path(), ec); // best effort: a leftover costs space, never correctness
    }
}

} // namespace

fs::path latestRankFile(const fs::path &dir, int64_t rank)
{
    return dir / readLatest(dir)["generation"].get<std::string>() / rankFileName(rank);
}

void saveCheckpoint(AccumEngine &engine, const fs::path &dir)
{
    EngineState s;
    engine.captureState(s);
    const AccumConfig &c = engine.config();
    const int64_t rank = engine.rank();
    const std::string gen = generationName(s.microBatches);
    const ModelShape shape = c.modelShape();

    json manifest = {{"format", kCheckpointFormat},
                     {"version", kCheckpointVersion},
                     {"rank", rank},
                     {"world_size", c.worldSize},
                     {"model", {{"in_features", shape.inFeatures}, {"hidden", shape.hidden}, {"classes", shape.classes}}},
                     {"dtype", toString(c.dtype)},
                     {"config", runSettings(c)},
                     {"micro_batches", s.microBatches},
                     {"window", {{"open", s.open}, {"micro_index", s.micro}}}};
    FileWriter w;
    if (rank == 0) {
        manifest["shared"] = {{"optimizer_state_step", s.optimizerStateStep},
                              {"scheduler_steps", s.schedulerSteps},
                              {"last_lr", s.lastLr},
                              {"optimizer_steps", s.optimizerSteps},
                              {"windows_done", s.windowsDone},
                              {"sync_calls", s.syncCalls},
                              {"last_loss", figureJson(s.lastLoss)},
                              {"last_grad_norm", figureJson(s.lastGradNorm)}};
        // The loss scaler's state (one for all ranks: an Inf reaches every rank through the
        // all-reduce, so all skip and back off alike); null when the run has none.
        if (c.lossScaler.enabled) {
            const LossScalerState ls = engine.lossScalerState();
            manifest["loss_scaler"] = {{"scale", ls.scale},
                                       {"growth_tracker", ls.growthTracker},
                                       {"skipped_windows", ls.skippedWindows},
                                       {"unscale_calls", ls.unscaleCalls},
                                       {"growths", ls.growths},
                                       {"backoffs", ls.backoffs},
                                       {"unscaled_since_update", ls.unscaledSinceUpdate}};
        } else {
            manifest["loss_scaler"] = nullptr;
        }
        w.add("params", s.params);
        w.add("optimizer.momentum", s.momentum);
        w.add("optimizer.exp_avg", s.expAvg);
        w.add("optimizer.exp_avg_sq", s.expAvgSq);
        w.add("data.generator", s.generator);
    }
    w.add("grads", s.grads);
    w.add("window.x", s.windowX);
    w.add("window.y", s.windowY);
    w.add("window.losses", s.windowLosses);
    w.add("window.start_params", s.windowStartParams);

    auto failed = [&](const std::string &reason) {
        return CheckpointError("checkpoint/write-failed", TextArgs{{}, {{"dir", dir.string()}, {"reason", reason}}});
    };
    try {
        fs::create_directories(dir / gen);
        writeFileAtomic(dir / gen / rankFileName(rank), w.file(manifest));
    } catch (const fs::filesystem_error &e) {
        throw failed(e.code().message());
    } catch (const ExportError &e) {
        throw failed(e.reason().empty() ? e.what() : e.reason());
    }
    faultKillAtMicro(s.microBatches, "mid-checkpoint");
    engine.rendezvous(); // every rank's file is in place
    if (rank != 0)
        return;
    const json latest = {{"format", kCheckpointFormat},
                         {"version", kCheckpointVersion},
                         {"generation", gen},
                         {"world_size", c.worldSize},
                         {"micro_batches", s.microBatches}};
    try {
        writeFileAtomic(dir / kLatest, latest.dump(2) + "\n");
    } catch (const ExportError &e) {
        throw failed(e.reason().empty() ? e.what() : e.reason());
    }
    pruneOlderGenerations(dir, gen);
}

AccumConfig checkpointConfig(const fs::path &dir)
{
    const json latest = readLatest(dir);
    const FileReader shared(dir / latest["generation"].get<std::string>() / rankFileName(0));
    const json &m = shared.manifest;
    AccumConfig c;
    try {
        const json &s = m.at("config");
        c.preset = presetFromString(s.at("model").get<std::string>());
        const ModelShape saved{m.at("model").at("in_features").get<int64_t>(), m.at("model").at("hidden").get<int64_t>(),
                               m.at("model").at("classes").get<int64_t>()};
        const ModelShape preset = shapeOf(c.preset);
        if (saved.inFeatures != preset.inFeatures || saved.hidden != preset.hidden || saved.classes != preset.classes)
            c.shape = saved;
        c.microBatch = s.at("micro_batch").get<int64_t>();
        c.accumSteps = s.at("accum_steps").get<int64_t>();
        c.worldSize = m.at("world_size").get<int64_t>();
        OptimizerConfig &o = c.optimizer;
        o.kind = optimizerFromString(s.at("optimizer").get<std::string>());
        o.lr = s.at("lr").get<double>();
        o.momentum = s.at("momentum").get<double>();
        o.weightDecay = s.at("weight_decay").get<double>();
        o.adamWeightDecay = s.at("adam_weight_decay").get<double>();
        o.beta1 = s.at("beta1").get<double>();
        o.beta2 = s.at("beta2").get<double>();
        o.eps = s.at("eps").get<double>();
        o.clipNorm = s.at("clip_norm").get<double>();
        o.lrWarmup = s.at("lr_warmup").get<int64_t>();
        c.scaling = scalingFromString(s.at("scaling").get<std::string>());
        c.stepEveryMicro = s.at("step_every_micro").get<bool>();
        c.bug = accumBugFromString(s.at("bug").get<std::string>());
        c.noSync = s.at("no_sync").get<bool>();
        c.labels = labelsFromString(s.at("labels").get<std::string>());
        c.lossScaler.enabled = s.at("loss_scaling").get<bool>();
        c.lossScaler.initScale = s.at("scaler_init_scale").get<double>();
        c.lossScaler.growthInterval = s.at("scaler_growth_interval").get<int64_t>();
        c.lossScaler.bug = scalerBugFromString(s.at("scaler_bug").get<std::string>());
        c.seed = s.at("seed").get<uint64_t>();
        c.dtype = dtypeFromString(m.at("dtype").get<std::string>());
        // The device it ran on: "cpu", or "cuda:<index>" (a resume asks for CUDA again).
        const auto device = s.at("device").get<std::string>();
        c.device = device.rfind("cuda", 0) == 0 ? DeviceRequest::Cuda : deviceFromString(device);
        validate(c);
    } catch (const json::exception &) {
        refuse("not-a-checkpoint", shared.path);
    } catch (const ConfigError &) { // a setting this build does not know, or out of its range
        refuse("not-a-checkpoint", shared.path);
    }
    return c;
}

CheckpointSummary loadCheckpoint(AccumEngine &engine, const fs::path &dir, ResumeBug bug)
{
    const AccumConfig &c = engine.config();
    const json latest = readLatest(dir);
    const auto world = latest["world_size"].get<int64_t>();
    if (world != c.worldSize)
        throw CheckpointError("checkpoint/world-size-differs", TextArgs{{{"saved", double(world)}, {"run", double(c.worldSize)}}, {}});
    const fs::path genDir = dir / latest["generation"].get<std::string>();
    const int64_t rank = engine.rank();
    const FileReader shared(genDir / rankFileName(0));
    shared.requireRun(c);
    std::optional<FileReader> ownFile;
    if (rank != 0) {
        ownFile.emplace(genDir / rankFileName(rank));
        ownFile->requireRun(c);
    }
    const FileReader &own = ownFile ? *ownFile : shared;
    const auto expected = shared.number<int64_t>(shared.manifest, "micro_batches");
    for (const FileReader *f : {&shared, &own}) {
        const auto found = f->number<int64_t>(f->manifest, "micro_batches");
        if (found != expected || f->number<int64_t>(f->manifest, "rank") != (f == &shared ? 0 : rank))
            refuse("inconsistent", f->path, TextArgs{{{"found", double(found)}, {"expected", double(expected)}}, {}});
    }

    EngineState s;
    const json &sh = shared.manifest.contains("shared") ? shared.manifest["shared"] : json();
    if (!sh.is_object())
        refuse("not-a-checkpoint", shared.path);
    s.params = shared.tensor("params");
    s.optimizerStateStep = shared.number<int64_t>(sh, "optimizer_state_step");
    s.momentum = shared.tensor("optimizer.momentum", false);
    s.expAvg = shared.tensor("optimizer.exp_avg", false);
    s.expAvgSq = shared.tensor("optimizer.exp_avg_sq", false);
    s.schedulerSteps = shared.number<int64_t>(sh, "scheduler_steps");
    s.lastLr = shared.number<double>(sh, "last_lr");
    s.generator = shared.tensor("data.generator");
    s.optimizerSteps = shared.number<int64_t>(sh, "optimizer_steps");
    s.microBatches = expected;
    s.windowsDone = shared.number<int64_t>(sh, "windows_done");
    s.syncCalls = shared.number<int64_t>(sh, "sync_calls");
    s.lastLoss = shared.figure(sh, "last_loss");
    s.lastGradNorm = shared.figure(sh, "last_grad_norm");

    const json &window = own.manifest.contains("window") ? own.manifest["window"] : json();
    if (!window.is_object())
        refuse("not-a-checkpoint", own.path);
    s.grads = own.tensor("grads");
    s.open = own.number<bool>(window, "open");
    s.micro = own.number<int64_t>(window, "micro_index");
    if (s.open) {
        s.windowX = own.tensor("window.x");
        s.windowY = own.tensor("window.y");
        s.windowLosses = own.tensor("window.losses");
    }
    s.windowStartParams = own.tensor("window.start_params", false);

    // The teaching bugs of the resume-mid-window experiment.
    if (s.open && bug == ResumeBug::DropPartialBuffers)
        s.grads.zero_();
    if (s.open && bug == ResumeBug::RestartWindowCount) {
        s.micro = 0;
        s.windowLosses = s.windowLosses.narrow(/*dim=*/0, 0, 0);
    }

    const ModelShape shape = c.modelShape();
    const int64_t total = shape.hidden * (shape.inFeatures + 1) + shape.hidden * (shape.hidden + 1) +
                          shape.classes * (shape.hidden + 1); // fc1, fc2, fc3 weights and biases
    if (s.params.numel() != total || s.grads.numel() != total)
        refuse("corrupt", s.params.numel() != total ? shared.path : own.path);
    std::optional<LossScalerState> scaler;
    if (c.lossScaler.enabled) {
        const json &ls = shared.manifest.contains("loss_scaler") ? shared.manifest["loss_scaler"] : json();
        if (!ls.is_object())
            refuse("not-a-checkpoint", shared.path);
        LossScalerState st;
        st.scale = shared.number<double>(ls, "scale");
        st.growthTracker = shared.number<int64_t>(ls, "growth_tracker");
        st.skippedWindows = shared.number<int64_t>(ls, "skipped_windows");
        st.unscaleCalls = shared.number<int64_t>(ls, "unscale_calls");
        st.growths = shared.number<int64_t>(ls, "growths");
        st.backoffs = shared.number<int64_t>(ls, "backoffs");
        st.unscaledSinceUpdate = shared.number<bool>(ls, "unscaled_since_update");
        scaler = st;
    }
    engine.restoreState(s);
    if (scaler)
        engine.restoreLossScalerState(*scaler);
    return {s.microBatches, s.windowsDone, s.open ? s.micro : 0, world};
}

} // namespace accumlab
