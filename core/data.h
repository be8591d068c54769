// Internal (includes LibTorch): the seeded synthetic data stream.
// Class ids are uniform. With the teacher each sample is a fixed random prototype of its class
// plus standard-normal noise (a Gaussian mixture with a margin, so the loss visibly falls
// within the default steps and bigger batches give smoother curves); with random labels the
// inputs are the noise alone and the ids independent of them, as the lesson draws them (the
// loss stays near ln(classes)).
#pragma once

#include "core/config.h"

#include <torch/torch.h>

#include <optional>

namespace accumlab {

class DataStream {
public:
    DataStream(const ModelShape &shape, LabelKind labels, uint64_t seed, torch::Dtype dtype,
               const torch::Device &device);

    // x: (batch, in) in the model's dtype on the device; y: (batch,) int64 class ids.
    std::pair<torch::Tensor, torch::Tensor> next(int64_t batch);

    // next() in two halves, for a window that holds its samples once and composes each
    // micro-batch's inputs only when it runs (no window-sized temporaries): draw() gives the
    // noise (batch, in) in float32 and the ids (batch,), in the stream's order; inputs() of any
    // rows of them gives exactly the x that next() gives for those rows.
    std::pair<torch::Tensor, torch::Tensor> draw(int64_t batch);
    torch::Tensor inputs(const torch::Tensor &noise, const torch::Tensor &y) const;

    // The generator's state (a uint8 tensor on the CPU), for a checkpoint: a stream given it
    // back draws exactly what this one draws next.
    torch::Tensor generatorState() const { return m_gen.get_state(); }
    void setGeneratorState(const torch::Tensor &state) { m_gen.set_state(state); }

    // From now on every input is rounded to `dtype`'s values before it takes the stream's own
    // dtype: a float64 twin of a run in `dtype` sees that run's very samples.
    void roundInputsThrough(torch::Dtype dtype) { m_roundThrough = dtype; }

private:
    ModelShape m_shape;
    LabelKind m_labels;
    torch::Dtype m_dtype;
    torch::Device m_device;
    torch::Generator m_gen;
    torch::Tensor m_prototypes; // (classes, in), float32 on the device
    std::optional<torch::Dtype> m_roundThrough; // roundInputsThrough
};

} // namespace accumlab
