// One training run of the engine, as `accumlab-cli train` runs it: --num-steps windows,
// continued from a checkpoint folder's latest when asked, checkpoints saved at a cadence and
// at the end, every closed window judged by a DivergenceWatch, and the trained parameters
// written as a safetensors file when asked (exportModel). The CLI declares the options and
// prints what this returns; ranks of a data-parallel run each call runTraining with their sync.
// Not here: Qt, torch (the engine holds the tensors).
#pragma once

#include "core/config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace accumlab {

class AccumEngine;
class GradSync;

// What the run does besides training.
struct TrainingPlan {
    int64_t numSteps = 10;       // windows (effective steps) the run ends after
    std::string checkpoint;      // folder for checkpoints ("" = none); the last one is saved at the end
    int64_t checkpointEvery = 0; // also one every K micro-batches (0 = only at the end)
    std::string resume;          // folder whose latest checkpoint the run continues from ("" = none)
    // Continue from `checkpoint`'s latest when the folder has one, start fresh when it has none
    // yet: the one command line for a first start and every restart (torchrun --max-restarts).
    bool autoResume = false;
    std::string exportModel;     // safetensors file for the trained parameters ("" = none; rank 0 writes it)
};

// The plan as one JSON record, its keys named as `accumlab-cli train`'s options name them
// ("checkpoint_every_micro" for --checkpoint-every-micro): num_steps, checkpoint,
// checkpoint_every_micro, resume, auto_resume, export_model. The ranks of a run compare it (app/cli).
nlohmann::ordered_json toJson(const TrainingPlan &plan);

struct TrainingOutcome {
    nlohmann::json report;  // docs/ranks-and-checkpoints.md, "Checkpoints" (train): windows, counters, loss, params_sha256, diverged, ...
    bool diverged = false;  // diverged or never stepped (exit kExitDiverged)
    std::string divergence; // the one sentence that says so; empty otherwise
};

// Throws CheckpointError (a checkpoint that cannot be read, fits another run or could not be
// written), ExportError (the model file could not be written: nothing is left beside it),
// ConfigError, Cancelled never (no token).
TrainingOutcome runTraining(const AccumConfig &config, std::shared_ptr<GradSync> sync, const TrainingPlan &plan);

// The format of the model file exportModel writes (its "__metadata__" says so).
inline constexpr const char *kModelFileFormat = "accumlab-model";
inline constexpr int kModelFileVersion = 1;

// The engine's parameters as a safetensors file, written whole or not at all (StagedFile):
// one tensor per parameter, named and shaped as torch.nn.Linear's state_dict() has it
// ("fc1.weight" (hidden, in), "fc1.bias" (hidden,), ... "fc3.bias" (classes,)), in the model's
// dtype, in registration order, so the data section's bytes are the flat buffer that
// params_sha256 hashes. "__metadata__" holds the format and version, params_sha256, the
// counters (windows_done, optimizer_steps, micro_batches), the model's widths and activation,
// and the run's settings as toJson(AccumConfig) text. docs/ranks-and-checkpoints.md, "The model file", has the Python
// that loads it into a torch.nn.Module. Throws ExportError.
void exportModel(const AccumEngine &engine, const std::filesystem::path &file);

// The check of the code on screen (core/content/loop_code.h, tests/pytorch/check_loop_code.py): a run
// of `windows` windows of one rank as a safetensors file: the parameters before it
// ("init.fc1.weight", ...), after it ("final.") and the gradient buffers it ends with
// ("grad.": the last window's sum), and every window's samples as the model saw them, "x"
// (windows x micro x accum, in) in the model's dtype and "y" (windows x micro x accum,) int64,
// in the stream's order. "__metadata__" holds the widths, the window count, params_sha256 and
// the settings. Throws ConfigError, std::invalid_argument for several ranks.
std::string recordLoopRun(const AccumConfig &config, int64_t windows);

} // namespace accumlab
