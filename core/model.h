// Internal (includes LibTorch): the lesson's MLP and its seeded initialisation.
// Linear-GELU-Linear-GELU-Linear, parameters named fc1.weight ... fc3.bias.
#pragma once

#include "core/config.h"

#include <torch/torch.h>

namespace accumlab {

struct MlpImpl : torch::nn::Module {
    explicit MlpImpl(const ModelShape &shape);
    // x: (batch, in) -> logits: (batch, classes)
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};
TORCH_MODULE(Mlp);

// Builds the MLP with parameters drawn from `seed` alone (torch.nn.Linear's default
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) law, but from a private generator, not the global one),
// in `dtype` on `device`. Two calls with one seed give bit-identical models.
Mlp makeModel(const ModelShape &shape, uint64_t seed, torch::Dtype dtype, const torch::Device &device);

torch::Dtype toTorch(DType);

// Parameter tensors in registration order and their names.
std::vector<torch::Tensor> parameterList(torch::nn::Module &model);
std::vector<std::string> parameterNames(torch::nn::Module &model);

} // namespace accumlab
