// The full batch in one pass: the reference of every accumulation window.
#include "core/full_batch.h"

namespace accumlab {

Mlp modelAt(const ModelShape &shape, const std::vector<torch::Tensor> &params, torch::Dtype dtype,
            const torch::Device &device, HalfMode halfMode)
{
    Mlp model = makeModel(shape, /*seed=*/0, dtype, device);
    model->halfMode = halfMode;
    torch::NoGradGuard noGrad;
    auto mine = model->parameters();
    TORCH_CHECK(mine.size() == params.size(), "modelAt: ", params.size(), " tensors for ", mine.size(), " parameters");
    for (size_t i = 0; i < mine.size(); ++i)
        mine[i].copy_(params[i].to(device, dtype));
    return model;
}

Mlp modelAtFlat(const ModelShape &shape, const torch::Tensor &flat, torch::Dtype dtype, const torch::Device &device)
{
    Mlp model = makeModel(shape, /*seed=*/0, dtype, device);
    torch::NoGradGuard noGrad;
    int64_t offset = 0;
    for (auto &p : model->parameters()) {
        p.copy_(flat.narrow(/*dim=*/0, offset, p.numel()).view(p.sizes()).to(device, dtype));
        offset += p.numel();
    }
    TORCH_CHECK(offset == flat.numel(), "modelAtFlat: ", flat.numel(), " elements for ", offset);
    return model;
}

void fullBatchGradient(Mlp &model, FusedOptimizer &buffers, const torch::Tensor &x, const torch::Tensor &y,
                       double clipNorm)
{
    buffers.zeroGrad();
    torch::cross_entropy_loss(model->forward(x), y).backward(); // the mean over the whole batch
    if (clipNorm > 0.0)
        buffers.clipGradNorm(clipNorm);
}

double meanLoss(Mlp &model, const torch::Tensor &x, const torch::Tensor &y)
{
    torch::NoGradGuard noGrad;
    return torch::cross_entropy_loss(model->forward(x), y).item<double>();
}

} // namespace accumlab
