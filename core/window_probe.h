// Internal (includes LibTorch): a look inside the engine's window for the equivalence check,
// which compares the engine's own loop (the one the sweep and teaching mode run) with a
// full-batch step. The engine calls it around every optimizer step; the tensors are the
// engine's own, valid only during the call.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace accumlab {

struct WindowProbe {
    virtual ~WindowProbe() = default;
    // grads: the parameter buffers (accumulated and synced) just before optimizer.step(), and
    // the parameters they will update; closesWindow: this step ends the window (false for the
    // steps stepEveryMicro adds).
    virtual void beforeStep(const std::vector<torch::Tensor> &grads, const std::vector<torch::Tensor> &params,
                            bool closesWindow) = 0;
    // The buffers right after micro-batch `micro`'s backward (scaled, when a loss scaler runs):
    // after micro-batch 0 they hold that micro-batch's gradient alone.
    virtual void afterBackward(const std::vector<torch::Tensor> & /*grads*/, int64_t /*micro*/) {}
    // params right after the step, and the optimizer's state step.
    virtual void afterStep(const std::vector<torch::Tensor> &params, int64_t stateStep, bool closesWindow) = 0;
};

} // namespace accumlab
