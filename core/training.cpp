// One training run (core/training.h), and the model file it exports.
#include "core/training.h"

#include "core/io/checkpoint.h"
#include "core/data.h"
#include "core/divergence.h"
#include "core/engine.h"
#include "core/engine_state.h"
#include "core/io/export.h"
#include "core/distributed/distributed.h"
#include "core/distributed/fault_hooks.h"
#include "core/io/safetensors.h"
#include "core/io/sha256.h"

namespace accumlab {

namespace {

std::string safetensorsDtype(torch::Dtype d)
{
    switch (d) {
    case torch::kFloat64: return "F64";
    case torch::kFloat32: return "F32";
    case torch::kHalf: return "F16";
    case torch::kBFloat16: return "BF16";
    case torch::kInt64: return "I64";
    default: break;
    }
    throw std::invalid_argument(std::string("model file: no safetensors dtype for ") + c10::toString(d));
}

// A flat buffer's parameters as entries named prefix + "fc1.weight", ...
void addParameters(std::vector<SafetensorsEntry> &entries, const EngineState &state, const torch::Tensor &flat,
                   const std::string &prefix)
{
    const auto *bytes = static_cast<const char *>(flat.data_ptr());
    size_t offset = 0;
    for (size_t i = 0; i < state.paramNames.size(); ++i) {
        SafetensorsEntry e{prefix + state.paramNames[i], safetensorsDtype(flat.scalar_type()), state.paramShapes[i], nullptr, 0};
        int64_t count = 1;
        for (int64_t d : e.shape)
            count *= d;
        e.bytes = static_cast<size_t>(count) * flat.element_size();
        e.data = bytes + offset;
        offset += e.bytes;
        entries.push_back(std::move(e));
    }
}

SafetensorsEntry tensorEntry(const std::string &name, const torch::Tensor &t)
{
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    return {name, safetensorsDtype(t.scalar_type()), shape, t.data_ptr(), static_cast<size_t>(t.nbytes())};
}

} // namespace

void exportModel(const AccumEngine &engine, const std::filesystem::path &file)
{
    EngineState state;
    engine.captureState(state);
    const torch::Tensor flat = state.params; // (total,) on the CPU, contiguous
    std::vector<SafetensorsEntry> entries;
    addParameters(entries, state, flat, "");
    const AccumConfig &c = engine.config();
    const ModelShape shape = c.modelShape();
    const std::map<std::string, std::string> metadata{
        {"format", kModelFileFormat},
        {"version", std::to_string(kModelFileVersion)},
        {"params_sha256", sha256Hex(flat.data_ptr(), flat.nbytes())}, // paramsSha256(): the same bytes
        {"windows_done", std::to_string(engine.windowsDone())},
        {"optimizer_steps", std::to_string(engine.optimizerSteps())},
        {"micro_batches", std::to_string(engine.microBatches())},
        {"model", toString(c.preset)},
        {"in_features", std::to_string(shape.inFeatures)},
        {"hidden", std::to_string(shape.hidden)},
        {"classes", std::to_string(shape.classes)},
        {"activation", "gelu"},
        {"config", toJson(c).dump()}};
    StagedFile staged(file, safetensorsFile(entries, metadata));
    staged.commit();
}

nlohmann::ordered_json toJson(const TrainingPlan &plan)
{
    return {{"num_steps", plan.numSteps},
            {"checkpoint", plan.checkpoint},
            {"checkpoint_every_micro", plan.checkpointEvery},
            {"resume", plan.resume},
            {"auto_resume", plan.autoResume},
            {"export_model", plan.exportModel}};
}

namespace {

// A rank whose peer `refusedBy` refused the checkpoint: it waits until that rank has left (its
// sentence is written by then: one more meeting, which its leaving ends, bounded by the
// timeout) and stops as a witness, so that its own sentence never comes before the refusal.
[[noreturn]] void stopForPeerRefusal(AccumEngine &engine, int64_t refusedBy)
{
    try {
        engine.rendezvous();
    } catch (const std::exception &) { // the refusing rank left: what was waited for
    }
    throw DistributedError("distributed/peer-refused-checkpoint",
                           TextArgs{{{"rank", double(engine.rank())}, {"world", double(engine.config().worldSize)},
                                     {"other", double(refusedBy)}}, {}});
}

} // namespace

TrainingOutcome runTraining(const AccumConfig &c, std::shared_ptr<GradSync> sync, const TrainingPlan &plan)
{
    AccumEngine engine(c, std::move(sync));
    const bool lead = engine.rank() == 0;
    CheckpointFolderLock folderLock; // rank 0 keeps other runs out of the folder while it trains
    if (!plan.checkpoint.empty()) // refused before the run trains, not after
        folderLock = prepareCheckpointFolder(plan.checkpoint, /*lock=*/lead);
    if (lead && !plan.exportModel.empty()) // a model file that could not be written is refused before the run trains
        StagedFile(plan.exportModel, std::string());
    nlohmann::json resumed = nullptr;
    DivergenceWatch watch;
    const std::string resumeFrom = !plan.resume.empty() ? plan.resume
                                   : plan.autoResume && hasCheckpoint(plan.checkpoint) ? plan.checkpoint
                                                                                       : std::string();
    if (!resumeFrom.empty()) {
        // Every rank reads its files, then the ranks agree before any of them trains: a rank
        // that refused its checkpoint says so in its own sentence (exit 2), and the others
        // stop without a collective that would fail against it first (issue 60, N15).
        std::exception_ptr refusal;
        CheckpointSummary r;
        try {
            r = loadCheckpoint(engine, resumeFrom);
        } catch (const CheckpointError &) {
            if (c.worldSize <= 1)
                throw;
            refusal = std::current_exception();
        }
        if (c.worldSize > 1) {
            const int64_t refusedBy = engine.firstRankWith(refusal != nullptr);
            if (refusal)
                std::rethrow_exception(refusal);
            if (refusedBy >= 0)
                stopForPeerRefusal(engine, refusedBy);
        }
        // A checkpoint past this run's end: the loop would run nothing and report the
        // checkpoint's windows as this run's, without a word. Refused (exit 2) as a resume
        // that cannot be done: the user asked for fewer windows than were already trained.
        // Exactly at the end resumes to nothing, as a restart after the last save must.
        if (r.microBatches > plan.numSteps * c.accumSteps) {
            TextArgs args{{}, {{"dir", resumeFrom}}};
            putInteger(args, "micro", r.microBatches);
            putInteger(args, "windows", r.windowsDone);
            putInteger(args, "steps", plan.numSteps);
            putInteger(args, "needed", (r.microBatches + c.accumSteps - 1) / c.accumSteps);
            throw CheckpointError("checkpoint/past-the-run", std::move(args));
        }
        resumed = {{"micro_batches", r.microBatches}, {"windows_done", r.windowsDone}, {"micro_index", r.microIndex}};
        // Without the scaler no window is skipped (its state's count stays 0).
        watch.carryOver(r.windowsDone, r.windowsDone - engine.lossScalerState().skippedWindows);
    }
    const int64_t target = plan.numSteps * c.accumSteps; // micro-batches of the whole run
    int64_t written = 0;
    int64_t savedAt = -1;
    int64_t dropped = 0; // skip-overflowed-micro: micro-batches dropped in this run
    while (engine.microBatches() < target) {
        if (engine.microStep()) {
            const StepResult &w = engine.lastStep();
            watch.observe(windowOutcome(w, c));
            dropped += w.droppedMicroBatches;
        }
        const int64_t done = engine.microBatches();
        if (plan.checkpointEvery > 0 && done % plan.checkpointEvery == 0) {
            saveCheckpoint(engine, plan.checkpoint);
            ++written;
            savedAt = done;
        }
        faultKillAtMicro(done, "after-micro");
    }
    if (!plan.checkpoint.empty() && savedAt != engine.microBatches()) {
        saveCheckpoint(engine, plan.checkpoint);
        ++written;
    }
    watch.finish();
    if (lead && !plan.exportModel.empty())
        exportModel(engine, plan.exportModel);
    const StepResult &last = engine.lastStep();
    TrainingOutcome out;
    out.report = {{"windows", last.step + 1},
                  {"micro_batches", engine.microBatches()},
                  {"optimizer_steps", engine.optimizerSteps()},
                  {"optimizer_state_step", engine.optimizerStateStep()},
                  {"sync_calls", engine.syncCalls()},
                  {"loss", last.loss},
                  {"lr", last.lr},
                  {"world_size", c.worldSize},
                  {"device", engine.deviceName()},
                  {"resumed_from", resumed},
                  {"checkpoints_written", written},
                  {"params_sha256", engine.paramsSha256()},
                  {"model_file", plan.exportModel.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan.exportModel)},
                  {"stepped_windows", watch.steppedWindows()},
                  {"diverged", nullptr}};
    if (watch.diverged()) {
        out.report["diverged"] = {{"reason", toString(watch.reason())}, {"at_step", watch.atStep()}};
        out.diverged = true;
        out.divergence = divergenceSentence(watch, plan.numSteps);
    }
    // float16: which path ran and, with the scaler, its counters (as the sweep's points carry them).
    if (c.dtype == DType::Float16)
        out.report["float16_path"] = engine.float16Path();
    if (c.lossScaler.enabled) {
        const LossScalerState ls = engine.lossScalerState();
        out.report["loss_scale"] = ls.scale;
        out.report["skipped_windows"] = ls.skippedWindows;
        out.report["unscale_calls"] = ls.unscaleCalls;
        if (c.lossScaler.bug == ScalerBug::SkipOverflowedMicro)
            out.report["dropped_micro_batches"] = dropped;
    }
    return out;
}

std::string recordLoopRun(const AccumConfig &config, int64_t windows)
{
    if (config.worldSize != 1)
        throw std::invalid_argument("recordLoopRun: one rank only");
    AccumEngine engine(config);
    EngineState start;
    engine.captureState(start);
    // The windows' samples as the engine's stream draws them: one draw of micro x accum per
    // window, each composed into the inputs the model sees.
    const torch::Device cpu(torch::kCPU);
    DataStream data(config.modelShape(), config.labels, config.seed, start.params.scalar_type(), cpu);
    std::vector<torch::Tensor> xs, ys;
    for (int64_t w = 0; w < windows; ++w) {
        auto [noise, y] = data.draw(config.microBatch * config.accumSteps); // (effective, in), (effective,)
        xs.push_back(data.inputs(noise, y));
        ys.push_back(y);
    }
    const torch::Tensor x = torch::cat(xs).contiguous(); // (windows x effective, in)
    const torch::Tensor y = torch::cat(ys).to(torch::kInt64).contiguous(); // (windows x effective,)
    for (int64_t w = 0; w < windows; ++w)
        engine.step();
    EngineState end;
    engine.captureState(end);
    std::vector<SafetensorsEntry> entries;
    addParameters(entries, start, start.params, "init.");
    addParameters(entries, end, end.params, "final.");
    addParameters(entries, end, end.grads, "grad.");
    entries.push_back(tensorEntry("x", x));
    entries.push_back(tensorEntry("y", y));
    const ModelShape shape = config.modelShape();
    return safetensorsFile(entries, {{"windows", std::to_string(windows)},
                                     {"in_features", std::to_string(shape.inFeatures)},
                                     {"hidden", std::to_string(shape.hidden)},
                                     {"classes", std::to_string(shape.classes)},
                                     {"params_sha256", engine.paramsSha256()},
                                     {"config", toJson(config).dump()}});
}

} // namespace accumlab
