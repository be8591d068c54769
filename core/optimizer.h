// Internal (includes LibTorch): SGD, SGD with momentum and AdamW as fused _foreach updates
// (one dispatch per operation for all parameter tensors, as torch.optim's foreach=True path).
// Semantics follow torch.optim.SGD (dampening 0, no Nesterov) and torch.optim.AdamW
// (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019); tests check both
// against LibTorch's own torch::optim implementations.
#pragma once

#include "core/config.h"

#include <torch/torch.h>

#include <vector>

namespace accumlab {

class FusedOptimizer {
public:
    FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig &config);

    // Applies one update from the parameters' .grad buffers. Advances the state step by one.
    void step();
    // Zeroes every gradient buffer in one fused op (allocating them the first time).
    void zeroGrad();

    int64_t stateStep() const { return m_step; }
    const OptimizerConfig &config() const { return m_config; }
    const std::vector<torch::Tensor> &params() const { return m_params; }
    std::vector<torch::Tensor> grads() const;

private:
    std::vector<torch::Tensor> m_params;
    OptimizerConfig m_config;
    int64_t m_step = 0;
    std::vector<torch::Tensor> m_momentum; // momentum buffers (SGD+momentum)
    std::vector<torch::Tensor> m_expAvg;   // Adam first moments
    std::vector<torch::Tensor> m_expAvgSq; // Adam second moments
};

} // namespace accumlab
