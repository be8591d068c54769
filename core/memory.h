// An honest, analytic estimate of the training memory the lesson's MLP needs for a batch:
// the activations autograd keeps for backward plus the parameter-gradient buffers.
// It is an estimate from the model shape and dtype (no allocator overhead, no workspace);
// measured peak memory on CUDA is a separate, device-side number. Pure C++: no torch, no Qt.
#pragma once

#include "core/config.h"

#include <cstdint>

namespace accumlab {

struct MemoryEstimate {
    int64_t activationBytes = 0; // saved for backward, grows with the batch
    int64_t gradientBytes = 0;   // parameter .grad buffers, independent of the batch
    int64_t totalBytes() const { return activationBytes + gradientBytes; }
};

int64_t bytesPerElement(DType dtype);
int64_t parameterCount(const ModelShape &shape);

// Linear-GELU-Linear-GELU-Linear with cross-entropy on `batch` samples.
MemoryEstimate estimateTrainingMemory(const ModelShape &shape, int64_t batch, DType dtype);

// The largest batch whose estimate fits in `budgetBytes` (0 when not even one sample fits).
int64_t largestBatchWithin(const ModelShape &shape, DType dtype, int64_t budgetBytes);

} // namespace accumlab
