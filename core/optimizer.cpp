// Fused SGD / SGD+momentum / AdamW.
#include "core/optimizer.h"

#include <cmath>

namespace accumlab {

FusedOptimizer::FusedOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig &config)
    : m_params(std::move(params)), m_config(config)
{
}

std::vector<torch::Tensor> FusedOptimizer::grads() const
{
    std::vector<torch::Tensor> g;
    g.reserve(m_params.size());
    for (const auto &p : m_params)
        g.push_back(p.grad());
    return g;
}

void FusedOptimizer::zeroGrad()
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> g;
    g.reserve(m_params.size());
    for (auto &p : m_params) {
        if (!p.grad().defined())
            p.mutable_grad() = torch::zeros_like(p);
        g.push_back(p.grad());
    }
    at::_foreach_zero_(g);
}

void FusedOptimizer::step()
{
    torch::NoGradGuard noGrad;
    ++m_step;
    auto g = grads();
    const double lr = m_config.lr;
    switch (m_config.kind) {
    case OptimizerKind::Sgd:
    case OptimizerKind::Momentum: {
        std::vector<torch::Tensor> d = g;
        if (m_config.weightDecay != 0.0)
            d = at::_foreach_add(g, m_params, m_config.weightDecay); // d = g + wd * p
        if (m_config.kind == OptimizerKind::Momentum) {
            if (m_momentum.empty()) {
                for (const auto &t : d)
                    m_momentum.push_back(t.clone()); // torch.optim: buf = g on the first step
            } else {
                at::_foreach_mul_(m_momentum, m_config.momentum);
                at::_foreach_add_(m_momentum, d); // buf = momentum * buf + g
            }
            d = m_momentum;
        }
        at::_foreach_add_(m_params, d, -lr); // p -= lr * d
        break;
    }
    case OptimizerKind::AdamW: {
        if (m_expAvg.empty()) {
            for (const auto &p : m_params) {
                m_expAvg.push_back(torch::zeros_like(p));
                m_expAvgSq.push_back(torch::zeros_like(p));
            }
        }
        const double b1 = m_config.beta1, b2 = m_config.beta2;
        const double t = static_cast<double>(m_step);
        const double bc1 = 1.0 - std::pow(b1, t);
        const double bc2 = 1.0 - std::pow(b2, t);
        at::_foreach_mul_(m_params, 1.0 - lr * m_config.adamWeightDecay); // decoupled decay
        at::_foreach_mul_(m_expAvg, b1);
        at::_foreach_add_(m_expAvg, g, 1.0 - b1);           // m = b1 m + (1-b1) g
        at::_foreach_mul_(m_expAvgSq, b2);
        at::_foreach_addcmul_(m_expAvgSq, g, g, 1.0 - b2);  // v = b2 v + (1-b2) g^2
        auto denom = at::_foreach_sqrt(m_expAvgSq);
        at::_foreach_div_(denom, std::sqrt(bc2));
        at::_foreach_add_(denom, m_config.eps);             // sqrt(v / bc2) + eps
        at::_foreach_addcdiv_(m_params, m_expAvg, denom, -lr / bc1); // p -= lr/bc1 * m / denom
        break;
    }
    }
}

} // namespace accumlab
