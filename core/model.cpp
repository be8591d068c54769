// The lesson's MLP and its seeded initialisation.
#include "core/model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <map>
#include <mutex>

namespace accumlab {

MlpImpl::MlpImpl(const ModelShape &shape)
{
    fc1 = register_module("fc1", torch::nn::Linear(shape.inFeatures, shape.hidden));
    fc2 = register_module("fc2", torch::nn::Linear(shape.hidden, shape.hidden));
    fc3 = register_module("fc3", torch::nn::Linear(shape.hidden, shape.classes));
}

torch::Tensor MlpImpl::forward(const torch::Tensor &x)
{
    if (halfMode == HalfMode::Off) {
        // x: (batch, in)
        auto h = torch::gelu(fc1->forward(x));  // h: (batch, hidden)
        h = torch::gelu(fc2->forward(h));       // h: (batch, hidden)
        return fc3->forward(h);                 // logits: (batch, classes)
    }
    // Autocast's float16 region: each layer's weights cast to float16, the activations float16.
    const bool real = halfMode == HalfMode::Real;
    const auto half = [real](const torch::Tensor &t) { return real ? t.to(torch::kHalf) : roundThroughHalf(t); };
    const auto layer = [&](torch::nn::Linear &l, const torch::Tensor &in) {
        auto out = torch::linear(in, half(l->weight), half(l->bias));
        return real ? out : roundThroughHalf(out); // a float16 matmul's output is stored in float16
    };
    auto h = half(x);                                  // h: (batch, in) float16 values
    h = torch::gelu(layer(fc1, h));                    // h: (batch, hidden)
    h = torch::gelu(layer(fc2, real ? h : roundThroughHalf(h))); // h: (batch, hidden)
    h = layer(fc3, real ? h : roundThroughHalf(h));    // (batch, classes)
    return h.to(torch::kFloat32);                      // logits: (batch, classes), float32 for the loss
}

torch::Tensor roundThroughHalf(const torch::Tensor &t) { return t.to(torch::kHalf).to(t.scalar_type()); }

void roundParametersThrough(const std::vector<torch::Tensor> &params, torch::Dtype dtype)
{
    torch::NoGradGuard noGrad;
    for (torch::Tensor p : params)
        p.copy_(p.to(dtype));
}

bool realFloat16Works(const torch::Device &device)
{
    static std::mutex mutex;
    static std::map<std::string, bool> known; // by device type
    const std::string key = device.is_cpu() ? "cpu" : device.str();
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end())
        return it->second;
    bool works = false;
    try {
        // x: (2, 4) float16; a linear layer of 4 -> 3, its GELU, and the backward through both.
        const auto opts = torch::TensorOptions().dtype(torch::kHalf).device(device);
        auto x = torch::ones({2, 4}, opts);
        auto w = torch::full({3, 4}, 0.5, opts.requires_grad(true));
        auto b = torch::zeros({3}, opts.requires_grad(true));
        auto y = torch::gelu(torch::linear(x, w, b)).to(torch::kFloat32).sum();
        y.backward();
        works = w.grad().defined() && std::isfinite(w.grad().to(torch::kFloat32).sum().item<double>());
    } catch (const std::exception &) {
        works = false; // e.g. "addmm_impl_cpu_" not implemented for 'Half'
    }
    known[key] = works;
    return works;
}

HalfMode halfModeFor(DType dtype, const torch::Device &device)
{
    if (dtype != DType::Float16)
        return HalfMode::Off;
    return realFloat16Works(device) ? HalfMode::Real : HalfMode::Emulated;
}

std::string toString(HalfMode m)
{
    switch (m) {
    case HalfMode::Off: return {};
    case HalfMode::Real: return "float16";
    case HalfMode::Emulated: return "float16-emulated";
    }
    return {};
}

torch::Dtype toTorch(DType d)
{
    switch (d) {
    case DType::Float32: return torch::kFloat32;
    case DType::Float64: return torch::kFloat64;
    case DType::BFloat16: return torch::kBFloat16;
    case DType::Float16: return torch::kFloat32; // float32 weights under float16 compute
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
