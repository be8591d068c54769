// The fused optimizers against LibTorch's own torch::optim implementations, step by step,
// on the same parameters and gradients (an independent computation of the same update).
#include "core/optimizer.h"

#include "support.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

std::vector<torch::Tensor> makeParams(uint64_t seed)
{
    torch::manual_seed(seed);
    return {torch::randn({8, 5}, torch::kFloat64).requires_grad_(),
            torch::randn({8}, torch::kFloat64).requires_grad_(),
            torch::randn({3, 8}, torch::kFloat64).requires_grad_()};
}

struct MatchesTorchOptimRow {
    const char *name;
    OptimizerKind kind;
    double weightDecay;
};

const std::vector<MatchesTorchOptimRow> &matchesTorchOptimRows()
{
    static const std::vector<MatchesTorchOptimRow> rows = {
        {"sgd", OptimizerKind::Sgd, 0.0},
        {"sgd+wd", OptimizerKind::Sgd, 0.01},
        {"momentum", OptimizerKind::Momentum, 0.0},
        {"momentum+wd", OptimizerKind::Momentum, 0.01},
        {"adamw", OptimizerKind::AdamW, 0.01},
        {"adamw no decay", OptimizerKind::AdamW, 0.0},
    };
    return rows;
}

class MatchesTorchOptim : public testing::TestWithParam<MatchesTorchOptimRow> {};

} // namespace

TEST_P(MatchesTorchOptim, StepByStep)
{
    const MatchesTorchOptimRow &row = GetParam();
    const double weightDecay = row.weightDecay;
    OptimizerConfig cfg;
    cfg.kind = row.kind;
    cfg.lr = 0.03;
    cfg.weightDecay = weightDecay;
    cfg.adamWeightDecay = weightDecay;

    auto ours = makeParams(1);
    auto theirs = makeParams(1);
    FusedOptimizer fused(ours, cfg);
    std::unique_ptr<torch::optim::Optimizer> reference;
    if (cfg.kind == OptimizerKind::AdamW)
        reference = std::make_unique<torch::optim::AdamW>(
            theirs,
            torch::optim::AdamWOptions(cfg.lr).betas({cfg.beta1, cfg.beta2}).eps(cfg.eps).weight_decay(weightDecay));
    else
        reference = std::make_unique<torch::optim::SGD>(
            theirs, torch::optim::SGDOptions(cfg.lr)
                        .momentum(cfg.kind == OptimizerKind::Momentum ? cfg.momentum : 0.0)
                        .weight_decay(weightDecay));

    torch::manual_seed(99);
    for (int step = 1; step <= 5; ++step) {
        fused.zeroGrad();
        reference->zero_grad();
        for (size_t i = 0; i < ours.size(); ++i) {
            auto g = torch::randn(ours[i].sizes(), torch::kFloat64);
            ours[i].mutable_grad().copy_(g);
            theirs[i].mutable_grad() = g.clone();
        }
        fused.step();
        reference->step();
        EXPECT_EQ(fused.stateStep(), int64_t(step));
        for (size_t i = 0; i < ours.size(); ++i) {
            const double diff = (ours[i] - theirs[i]).abs().max().item<double>();
            EXPECT_LT(diff, 1e-12) << "step " << step << " tensor " << i << " differs by " << diff;
        }
    }
    if (cfg.kind == OptimizerKind::AdamW) {
        // torch::optim keys its state by the TensorImpl: as a string in 1.13, as the pointer in 2.x.
#if TORCH_VERSION_MAJOR >= 2
        void *key = theirs[0].unsafeGetTensorImpl();
#else
        const std::string key = c10::guts::to_string(theirs[0].unsafeGetTensorImpl());
#endif
        auto &state = static_cast<torch::optim::AdamWParamState &>(*reference->state().at(key));
        EXPECT_EQ(fused.stateStep(), state.step());
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, MatchesTorchOptim, testing::ValuesIn(matchesTorchOptimRows()), test::ByName());

TEST(Optimizer, ZeroGradAllocatesAndClears)
{
    auto params = makeParams(2);
    FusedOptimizer opt(params, OptimizerConfig{});
    opt.zeroGrad();
    for (const auto &p : params) {
        ASSERT_TRUE(p.grad().defined());
        EXPECT_DOUBLE_EQ(p.grad().abs().sum().item<double>(), 0.0);
        p.grad().fill_(3.0);
    }
    opt.zeroGrad();
    for (const auto &p : params)
        EXPECT_DOUBLE_EQ(p.grad().abs().sum().item<double>(), 0.0);
}
