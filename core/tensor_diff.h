// How far apart two sets of tensors are, as the equivalence check and the experiments report
// it: one copy of these helpers for every .cpp in core that compares gradients or parameters.
// Internal to core (it includes torch; core's public headers do not).
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace accumlab {

// Each tensor detached, on the CPU, in float64: a copy that later steps do not change and
// that compares without the compared runs' own rounding.
inline std::vector<torch::Tensor> float64Copies(const std::vector<torch::Tensor> &ts)
{
    std::vector<torch::Tensor> out;
    out.reserve(ts.size());
    for (const auto &t : ts)
        out.push_back(t.detach().to(torch::kCPU, torch::kFloat64).clone());
    return out;
}

// max |a - b| over all elements.
inline double maxAbsDiff(const torch::Tensor &a, const torch::Tensor &b)
{
    return (a - b).abs().max().item<double>();
}

// max |a[i] - b[i]| over the tensors of two lists of the same shapes.
inline double maxAbsDiff(const std::vector<torch::Tensor> &a, const std::vector<torch::Tensor> &b)
{
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, maxAbsDiff(a[i], b[i]));
    return m;
}

// sum of squares of every element, in float64.
inline double sumSquares(const torch::Tensor &t) { return t.pow(2).sum().item<double>(); }

// The Euclidean norm of a list of tensors taken as one vector.
inline double l2Norm(const std::vector<torch::Tensor> &ts)
{
    double s = 0.0;
    for (const auto &t : ts)
        s += sumSquares(t);
    return std::sqrt(s);
}

} // namespace accumlab
