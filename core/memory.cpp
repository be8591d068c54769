// The training-memory estimate. Per sample, autograd keeps for backward:
//   the input x (in), fc1's output and its GELU (2 x hidden), fc2's output and its GELU
//   (2 x hidden), the logits and the softmax cross-entropy keeps (2 x classes).
// Parameter gradients: one element per parameter.
#include "core/memory.h"

namespace accumlab {

int64_t bytesPerElement(DType dtype)
{
    switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::BFloat16: return 2;
    }
    return 4;
}

int64_t parameterCount(const ModelShape &s)
{
    return s.inFeatures * s.hidden + s.hidden      // fc1
           + s.hidden * s.hidden + s.hidden        // fc2
           + s.hidden * s.classes + s.classes;     // fc3
}

namespace {

int64_t activationElementsPerSample(const ModelShape &s)
{
    return s.inFeatures + 4 * s.hidden + 2 * s.classes;
}

} // namespace

MemoryEstimate estimateTrainingMemory(const ModelShape &shape, int64_t batch, DType dtype)
{
    const int64_t bytes = bytesPerElement(dtype);
    MemoryEstimate m;
    m.activationBytes = batch * activationElementsPerSample(shape) * bytes;
    m.gradientBytes = parameterCount(shape) * bytes;
    return m;
}

int64_t largestBatchWithin(const ModelShape &shape, DType dtype, int64_t budgetBytes)
{
    const int64_t bytes = bytesPerElement(dtype);
    const int64_t fixed = parameterCount(shape) * bytes;
    if (budgetBytes <= fixed)
        return 0;
    return (budgetBytes - fixed) / (activationElementsPerSample(shape) * bytes);
}

} // namespace accumlab
