// Internal (includes LibTorch): the full batch in one pass, the reference every accumulation
// window is measured against. The engine's fill markers (the full-batch gradient its bars
// should reach), the equivalence check's reference run and its per-window gradients, and the
// experiments' held-out curves all start here: a model at given parameters, and the whole
// batch's gradient in an optimizer's buffers.
#pragma once

#include "core/model.h"
#include "core/optimizer.h"

#include <torch/torch.h>

#include <vector>

namespace accumlab {

// A model of `shape` (seed's initialisation, then overwritten) holding copies of `params`, one
// tensor per parameter in registration order, converted to `dtype` on `device`.
Mlp modelAt(const ModelShape &shape, const std::vector<torch::Tensor> &params, torch::Dtype dtype,
            const torch::Device &device, HalfMode halfMode = HalfMode::Off);
// The same from a flat buffer (total,) of every parameter in registration order (the engine's
// EngineState::params).
Mlp modelAtFlat(const ModelShape &shape, const torch::Tensor &flat, torch::Dtype dtype, const torch::Device &device);

// optimizer.zero_grad(); criterion(model(x), y).backward() over the whole batch (the mean over
// its samples); clip_grad_norm_(max_norm) once when clipNorm > 0. `buffers` is an optimizer over
// model's parameters: the gradient is left in its .grad views.
// x: (batch, in); y: (batch,) class ids.
void fullBatchGradient(Mlp &model, FusedOptimizer &buffers, const torch::Tensor &x, const torch::Tensor &y,
                       double clipNorm = 0.0);

// The mean loss of the whole batch at the model's parameters, without a graph.
double meanLoss(Mlp &model, const torch::Tensor &x, const torch::Tensor &y);

} // namespace accumlab
