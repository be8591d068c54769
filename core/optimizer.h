// Internal (includes LibTorch): SGD, SGD with momentum and AdamW over flat buffers.
// The parameters are re-homed as views into one contiguous parameter tensor and their .grad
// buffers as views into one contiguous gradient tensor (as DDP's gradient_as_bucket_view and
// apex's flat master weights do). Autograd still accumulates into each parameter's own .grad
// (AccumulateGrad adds in place into a defined buffer), but zeroing, the update, the per-tensor
// norms and a data-parallel all-reduce each become one operation on one tensor instead of one
// per parameter. Update rules follow torch.optim.SGD (dampening 0, no Nesterov) and
// torch.optim.AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019),
// rounded as the Python torch.optim of the same LibTorch rounds them (AdamW's first moment by
// lerp_ from PyTorch 2, by mul_ and add_ in 1.13), so that a checkpoint continued in PyTorch
// ends on the same bits (tests/pytorch/check_checkpoint.py); tests check both against
// LibTorch's own torch::optim, step by step.
#pragma once

#include "core/config.h"

#include <torch/torch.h>

#include <vector>

namespace accumlab {

class FusedOptimizer {
public:
    // Re-homes `params` (all of one dtype and device) into the flat buffers.
    FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig &config);

    // Applies one update from the gradient buffers. Advances the state step by one.
    void step();
    // Zeroes every gradient buffer in one op.
    void zeroGrad();
    // torch.nn.utils.clip_grad_norm_ over every buffer: scales them by
    // min(1, maxNorm / (total L2 norm + 1e-6)), on the device, with no host read.
    void clipGradNorm(double maxNorm);
    // Per parameter tensor L2 norms of the gradient buffers: (P,) in float32 on the device.
    torch::Tensor gradNorms() const;
    // The same norms as P 0-d tensors in the parameters' dtype, for callers that stack them
    // together with other scalars into one host transfer.
    std::vector<torch::Tensor> gradNormList() const;

    int64_t stateStep() const { return m_step; }
    // Bytes of the flat buffers: parameters, gradients, and the optimizer's state.
    int64_t paramBytes() const { return static_cast<int64_t>(m_flatParam.nbytes()); }
    int64_t gradBytes() const { return static_cast<int64_t>(m_flatGrad.nbytes()); }
    int64_t stateBytes() const;
    // The rate the next step() uses (a schedule sets it before each update).
    void setLearningRate(double lr) { m_config.lr = lr; }
    const OptimizerConfig &config() const { return m_config; }
    const std::vector<torch::Tensor> &params() const { return m_params; }
    const std::vector<torch::Tensor> &grads() const { return m_grads; }
    // The flat gradient buffer: (total elements,). All-reduce this once to sync every tensor.
    torch::Tensor &flatGrad() { return m_flatGrad; }
    const torch::Tensor &flatParam() const { return m_flatParam; }

    // The state a checkpoint keeps (core/engine_state.h): the step count and the moment or
    // momentum buffers, each (total,) or undefined before the first step.
    struct State {
        int64_t step = 0;
        torch::Tensor momentum, expAvg, expAvgSq;
    };
    State state() const;
    // Copies `s` in (buffers cloned onto the parameters' device and dtype).
    void setState(const State &s);

private:
    std::vector<torch::Tensor> m_params;
    std::vector<torch::Tensor> m_grads; // each parameter's .grad, a view into m_flatGrad
    OptimizerConfig m_config;
    int64_t m_step = 0;
    torch::Tensor m_flatParam;   // (total,)
    torch::Tensor m_flatGrad;    // (total,)
    torch::Tensor m_momentum;    // (total,) SGD+momentum buffer
    torch::Tensor m_expAvg;      // (total,) Adam first moment
    torch::Tensor m_expAvgSq;    // (total,) Adam second moment
};

} // namespace accumlab
