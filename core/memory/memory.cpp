// The training-memory estimate. Per sample, autograd keeps for backward:
//   the input x (in), fc1's output and its GELU (2 x hidden), fc2's output and its GELU
//   (2 x hidden), the logits and the softmax cross-entropy keeps (2 x classes).
// Parameter gradients: one element per parameter.
#include "core/memory/memory.h"

namespace accumlab {

int64_t bytesPerElement(DType dtype)
{
    switch (dtype) {
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::BFloat16: return 2;
    case DType::Float16: return 4; // float32 weights and buffers (mixed precision)
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

MemoryEstimate estimateTrainingMemory(const AccumConfig &config, int64_t passBatch, int64_t windowSamples)
{
    const ModelShape shape = config.modelShape();
    const int64_t bytes = bytesPerElement(config.dtype);
    const int64_t params = parameterCount(shape) * bytes;
    MemoryEstimate m;
    m.weightBytes = params;
    m.gradientBytes = params;
    switch (config.optimizer.kind) {
    case OptimizerKind::Sgd: m.optimizerStateBytes = 0; break;
    case OptimizerKind::Momentum: m.optimizerStateBytes = params; break;
    case OptimizerKind::AdamW: m.optimizerStateBytes = 2 * params; break;
    }
    m.windowSampleBytes = windowSamples * (shape.inFeatures * 4 + 8);
    m.activationBytes = passBatch * activationElementsPerSample(shape) * bytes;
    return m;
}

int64_t largestBatchWithin(const AccumConfig &config, int64_t windowSamples, int64_t budgetBytes)
{
    const MemoryEstimate none = estimateTrainingMemory(config, 0, windowSamples);
    if (budgetBytes <= none.fixedBytes())
        return 0;
    const int64_t perSample = activationElementsPerSample(config.modelShape()) * bytesPerElement(config.dtype);
    return (budgetBytes - none.fixedBytes()) / perSample;
}

} // namespace accumlab
