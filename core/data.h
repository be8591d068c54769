// Internal (includes LibTorch): the seeded synthetic data stream.
// Inputs are standard normal. Labels come from a fixed random linear teacher
// (argmax of x W_t, so the loss can really fall and bigger batches give smoother curves)
// or are drawn independently of the inputs, as the lesson does (loss stays near ln(classes)).
#pragma once

#include "core/config.h"

#include <torch/torch.h>

namespace accumlab {

class DataStream {
public:
    DataStream(const ModelShape &shape, LabelKind labels, uint64_t seed, torch::Dtype dtype,
               const torch::Device &device);

    // x: (batch, in) in the model's dtype on the device; y: (batch,) int64 class ids.
    std::pair<torch::Tensor, torch::Tensor> next(int64_t batch);

private:
    ModelShape m_shape;
    LabelKind m_labels;
    torch::Dtype m_dtype;
    torch::Device m_device;
    torch::Generator m_gen;
    torch::Tensor m_teacher; // (in, classes), float32 on the device
};

} // namespace accumlab
