// The lesson's MLP and its seeded initialisation.
#include "core/model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

namespace accumlab {

MlpImpl::MlpImpl(const ModelShape &shape)
{
    fc1 = register_module("fc1", torch::nn::Linear(shape.inFeatures, shape.hidden));
    fc2 = register_module("fc2", torch::nn::Linear(shape.hidden, shape.hidden));
    fc3 = register_module("fc3", torch::nn::Linear(shape.hidden, shape.classes));
}

torch::Tensor MlpImpl::forward(const torch::Tensor &x)
{
    // x: (batch, in)
    auto h = torch::gelu(fc1->forward(x));  // h: (batch, hidden)
    h = torch::gelu(fc2->forward(h));       // h: (batch, hidden)
    return fc3->forward(h);                 // logits: (batch, classes)
}

torch::Dtype toTorch(DType d)
{
    switch (d) {
    case DType::Float32: return torch::kFloat32;
    case DType::Float64: return torch::kFloat64;
    case DType::BFloat16: return torch::kBFloat16;
    }
    return torch::kFloat32;
}

Mlp makeModel(const ModelShape &shape, uint64_t seed, torch::Dtype dtype, const torch::Device &device)
{
    Mlp model(shape);
    auto gen = at::detail::createCPUGenerator(seed);
    torch::NoGradGuard noGrad;
    for (auto *layer : {&model->fc1, &model->fc2, &model->fc3}) {
        // torch.nn.Linear: weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)), drawn in float64 on
        // the CPU so every dtype and device starts from the same rounded values.
        const double bound = 1.0 / std::sqrt(static_cast<double>((*layer)->options.in_features()));
        for (auto *p : {&(*layer)->weight, &(*layer)->bias}) {
            auto init = torch::empty(p->sizes(), torch::kFloat64).uniform_(-bound, bound, gen);
            p->set_data(init.to(device, dtype));
        }
    }
    return model;
}

std::vector<torch::Tensor> parameterList(torch::nn::Module &model) { return model.parameters(); }

std::vector<std::string> parameterNames(torch::nn::Module &model)
{
    std::vector<std::string> names;
    for (const auto &item : model.named_parameters())
        names.push_back(item.key());
    return names;
}

} // namespace accumlab
