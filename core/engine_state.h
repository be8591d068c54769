// Internal (includes LibTorch): everything an AccumEngine holds that its next micro-batch
// depends on, as tensors and counters, so that a checkpoint (core/checkpoint.*) can write it
// and a new engine of the same run continue bit for bit. The engine fills and restores it;
// the checkpoint decides which parts every rank shares (written by rank 0) and which are a
// rank's own. Not a file format: the checkpoint's manifest is.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

struct EngineState {
    // Shared by every rank (identical after each window's all-reduce and the one data stream).
    torch::Tensor params;          // (total,) the flat parameter buffer, in the model's dtype
    // How `params` splits into the model's parameters, in registration order: each one's name
    // as torch names it ("fc1.weight") and its shape ((hidden, in)).
    std::vector<std::string> paramNames;
    std::vector<std::vector<int64_t>> paramShapes;
    int64_t optimizerStateStep = 0; // the optimizer's own step count (AdamW's bias correction)
    torch::Tensor momentum;        // (total,) SGD+momentum buffer; undefined before the first step
    torch::Tensor expAvg;          // (total,) AdamW first moment; undefined before the first step
    torch::Tensor expAvgSq;        // (total,) AdamW second moment
    int64_t schedulerSteps = 0;    // the LR schedule's position (scheduler.step() calls)
    double lastLr = 0.0;           // the rate of the last optimizer step
    torch::Tensor generator;       // the data stream's generator state (uint8, CPU)
    int64_t optimizerSteps = 0;
    int64_t microBatches = 0;
    int64_t windowsDone = 0;
    int64_t syncCalls = 0;
    double lastLoss = 0.0;         // the last completed window's loss and gradient norm
    double lastGradNorm = 0.0;

    // A rank's own: the gradient buffers (partial sums mid-window; what the never-zero bug
    // carries across windows) and the open window.
    torch::Tensor grads;           // (total,) the flat gradient buffer
    bool open = false;             // a window is open: the fields below are meaningful
    int64_t micro = 0;             // micro-batches done in the open window
    torch::Tensor windowX;         // (per-rank window, in) float32 noise as drawn
    // (per-rank window, in) the inputs the model sees, composed from windowX and windowY by the
    // data stream (the teacher's prototype added); captured for a reader, not restored.
    torch::Tensor windowInputs;
    torch::Tensor windowY;         // (per-rank window,) int64 class ids
    torch::Tensor windowLosses;    // (ran,) the raw losses of the micro-batches that ran
    torch::Tensor windowStartParams; // (total,) step-every-micro only; undefined otherwise
};

} // namespace accumlab
