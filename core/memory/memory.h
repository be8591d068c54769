// An analytic estimate of the training memory the lesson's MLP needs, to set beside the
// measured figures (core/memory/memory_lab.h): the weights, their gradient buffers, the optimizer's
// state, the window's drawn samples, and the activations autograd keeps for backward for one
// forward/backward pass. From the model shape, dtype and optimizer only: no allocator overhead,
// no temporaries of the backward or the step. Pure C++: no torch, no Qt.
#pragma once

#include "core/config.h"

#include <cstdint>

namespace accumlab {

// What an engine holds between windows, from its tensors' sizes, in bytes. A window's
// activations come on top while a micro-batch runs: those are measured (core/memory/gpu.h).
struct HeldBytes {
    int64_t weights = 0;        // the flat parameter buffer
    int64_t gradients = 0;      // the flat .grad buffer
    int64_t optimizerState = 0; // momentum, or AdamW's two moments
    int64_t windowSamples = 0;  // the last window's samples and labels (drawn at its start)
    int64_t total() const { return weights + gradients + optimizerState + windowSamples; }
    bool operator==(const HeldBytes &) const = default;
};

struct MemoryEstimate {
    int64_t weightBytes = 0;         // the parameters
    int64_t gradientBytes = 0;       // their .grad buffers
    int64_t optimizerStateBytes = 0; // momentum: one buffer; AdamW: two
    int64_t windowSampleBytes = 0;   // the window's inputs (float32) and labels (int64)
    int64_t activationBytes = 0;     // saved for backward, grows with the pass's batch
    int64_t fixedBytes() const { return weightBytes + gradientBytes + optimizerStateBytes + windowSampleBytes; }
    int64_t totalBytes() const { return fixedBytes() + activationBytes; }
};

int64_t bytesPerElement(DType dtype);
int64_t parameterCount(const ModelShape &shape);

// Linear-GELU-Linear-GELU-Linear with cross-entropy: `passBatch` samples in one forward and
// backward, `windowSamples` samples drawn for the optimizer step (config's model, dtype and
// optimizer).
MemoryEstimate estimateTrainingMemory(const AccumConfig &config, int64_t passBatch, int64_t windowSamples);

// The largest pass batch whose estimate fits in `budgetBytes` (0 when not even one sample fits).
int64_t largestBatchWithin(const AccumConfig &config, int64_t windowSamples, int64_t budgetBytes);

} // namespace accumlab
