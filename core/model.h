// Internal (includes LibTorch): the lesson's MLP and its seeded initialisation.
// Linear-GELU-Linear-GELU-Linear, parameters named fc1.weight ... fc3.bias.
#pragma once

#include "core/config.h"

#include <torch/torch.h>

namespace accumlab {

// How the forward computes for DType::Float16, as PyTorch's autocast does: float32 weights
// cast to float16 for each layer, activations in float16, logits back in float32 for the loss.
//   Off       the parameters' own dtype throughout
//   Real      real float16 tensors and kernels (LibTorch 2.x, CUDA)
//   Emulated  float32 kernels on operands rounded through float16 storage: the weights' and the
//             activations' casts round their values forward and their gradients backward, so
//             every micro-batch's parameter gradient is a float16 number (underflow to zero
//             below 2^-25, Inf above 65504) before it is added into the float32 buffer, as a
//             real float16 gradient would be.
enum class HalfMode { Off, Real, Emulated };

struct MlpImpl : torch::nn::Module {
    explicit MlpImpl(const ModelShape &shape);
    // x: (batch, in) -> logits: (batch, classes)
    torch::Tensor forward(const torch::Tensor &x);

    torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
    HalfMode halfMode = HalfMode::Off;
};
TORCH_MODULE(Mlp);

// Builds the MLP with parameters drawn from `seed` alone (torch.nn.Linear's default
// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) law, but from a private generator, not the global one),
// in `dtype` on `device`. Two calls with one seed give bit-identical models.
Mlp makeModel(const ModelShape &shape, uint64_t seed, torch::Dtype dtype, const torch::Device &device);

// The parameters' dtype: float32 for Float16 (its weights stay float32, as under autocast).
torch::Dtype toTorch(DType);

// Whether real float16 matmuls, GELU and their backward run on `device` (LibTorch 1.13 has no
// float16 matmul on the CPU): a tiny float16 forward and backward in a try/catch, asked once per
// device type.
bool realFloat16Works(const torch::Device &device);
// The float16 path for `dtype` on `device`: Off unless Float16, then Real or Emulated.
HalfMode halfModeFor(DType dtype, const torch::Device &device);
// "float16" or "float16-emulated" (empty for Off): what the results say ran.
std::string toString(HalfMode);
// t rounded through float16 storage and back to its own dtype; its gradient is rounded the same
// way on the way back.
torch::Tensor roundThroughHalf(const torch::Tensor &t);
// Rounds each parameter, in place, to `dtype`'s values and keeps its own dtype: a float64 twin
// of a run that stores its weights in `dtype` starts where that run starts (core/equivalence.h).
void roundParametersThrough(const std::vector<torch::Tensor> &params, torch::Dtype dtype);

// Parameter tensors in registration order and their names.
std::vector<torch::Tensor> parameterList(torch::nn::Module &model);
std::vector<std::string> parameterNames(torch::nn::Module &model);

} // namespace accumlab
