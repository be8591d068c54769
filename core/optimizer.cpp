// SGD / SGD+momentum / AdamW over flat parameter and gradient buffers.
#include "core/optimizer.h"

#include <torch/version.h>

#include <cmath>

namespace accumlab {

FusedOptimizer::FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig &config)
    : m_params(std::move(params)), m_config(config)
{
    TORCH_CHECK(!m_params.empty(), "the optimizer needs parameters");
    torch::NoGradGuard noGrad;
    int64_t total = 0;
    for (const auto &p : m_params)
        total += p.numel();
    const auto options = m_params.front().options().requires_grad(false);
    m_flatParam = torch::empty({total}, options);
    m_flatGrad = torch::zeros({total}, options);
    int64_t offset = 0;
    for (auto &p : m_params) {
        const int64_t n = p.numel();
        auto paramView = m_flatParam.narrow(/*dim=*/0, offset, n).view(p.sizes());
        paramView.copy_(p.detach());
        p.set_data(paramView);
        p.mutable_grad() = m_flatGrad.narrow(/*dim=*/0, offset, n).view(p.sizes());
        m_grads.push_back(p.grad());
        offset += n;
    }
}

void FusedOptimizer::zeroGrad()
{
    torch::NoGradGuard noGrad;
    m_flatGrad.zero_();
}

void FusedOptimizer::clipGradNorm(double maxNorm)
{
    torch::NoGradGuard noGrad;
    // The total norm in float32 at least (as torch accumulates a bfloat16 norm), the coefficient
    // clamped to 1 so that a small gradient is left as it is.
    auto total = m_flatGrad.to(m_flatGrad.scalar_type() == torch::kFloat64 ? torch::kFloat64 : torch::kFloat32).norm();
    auto coef = (maxNorm / (total + 1e-6)).clamp_max(1.0);
    m_flatGrad.mul_(coef.to(m_flatGrad.scalar_type()));
}

torch::Tensor FusedOptimizer::gradNorms() const
{
    torch::NoGradGuard noGrad;
    // One fused norm over the per-parameter views (measured faster on the CPU than a segmented
    // reduction over the flat buffer), stacked: (P,) in float32.
    return torch::stack(gradNormList()).to(torch::kFloat32);
}

std::vector<torch::Tensor> FusedOptimizer::gradNormList() const
{
    torch::NoGradGuard noGrad;
    return at::_foreach_norm(m_grads);
}

void FusedOptimizer::step()
{
    torch::NoGradGuard noGrad;
    ++m_step;
    const double lr = m_config.lr;
    const auto &g = m_flatGrad;
    switch (m_config.kind) {
    case OptimizerKind::Sgd:
    case OptimizerKind::Momentum: {
        torch::Tensor d = g;
        if (m_config.weightDecay != 0.0)
            d = g.add(m_flatParam, m_config.weightDecay); // d = g + wd * p
        if (m_config.kind == OptimizerKind::Momentum) {
            if (!m_momentum.defined())
                m_momentum = d.clone(); // torch.optim: buf = g on the first step
            else
                m_momentum.mul_(m_config.momentum).add_(d); // buf = momentum * buf + g
            d = m_momentum;
        }
        m_flatParam.add_(d, -lr); // p -= lr * d
        break;
    }
    case OptimizerKind::AdamW: {
        if (!m_expAvg.defined()) {
            m_expAvg = torch::zeros_like(m_flatParam);
            m_expAvgSq = torch::zeros_like(m_flatParam);
        }
        const double b1 = m_config.beta1, b2 = m_config.beta2;
        const double t = static_cast<double>(m_step);
        const double bc1 = 1.0 - std::pow(b1, t);
        const double bc2 = 1.0 - std::pow(b2, t);
        m_flatParam.mul_(1.0 - lr * m_config.adamWeightDecay); // decoupled decay
#if TORCH_VERSION_MAJOR >= 2
        m_expAvg.lerp_(g, 1.0 - b1);                            // m = b1 m + (1-b1) g, as torch.optim 2.x rounds it
#else
        m_expAvg.mul_(b1).add_(g, 1.0 - b1);                    // m = b1 m + (1-b1) g, as torch.optim 1.13 rounds it
#endif
        m_expAvgSq.mul_(b2).addcmul_(g, g, 1.0 - b2);           // v = b2 v + (1-b2) g^2
        auto denom = (m_expAvgSq.sqrt() / std::sqrt(bc2)).add_(m_config.eps); // sqrt(v / bc2) + eps
        m_flatParam.addcdiv_(m_expAvg, denom, -lr / bc1);       // p -= lr/bc1 * m / denom
        break;
    }
    }
}

FusedOptimizer::State FusedOptimizer::state() const
{
    return {m_step, m_momentum, m_expAvg, m_expAvgSq};
}

void FusedOptimizer::setState(const State &s)
{
    torch::NoGradGuard noGrad;
    const auto options = m_flatParam.options();
    auto in = [&](const torch::Tensor &t) { return t.defined() ? t.to(options).clone() : torch::Tensor(); };
    m_step = s.step;
    m_momentum = in(s.momentum);
    m_expAvg = in(s.expAvg);
    m_expAvgSq = in(s.expAvgSq);
}

int64_t FusedOptimizer::stateBytes() const
{
    int64_t bytes = 0;
    for (const auto *t : {&m_momentum, &m_expAvg, &m_expAvgSq})
        if (t->defined())
            bytes += static_cast<int64_t>(t->nbytes());
    return bytes;
}

} // namespace accumlab
