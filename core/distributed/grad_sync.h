// Internal (includes LibTorch): where the accumulated gradients of data-parallel ranks meet.
// A GradSync averages gradient buffers across ranks. With one rank the average is the
// identity, so LocalSync issues nothing; the engine still counts the sync points it executes.
// C10dSync (core/distributed/c10d_sync.h) is the real one: one c10d all-reduce per call.
#pragma once

#include "core/distributed/distributed.h"

#include <torch/torch.h>

#include <vector>

namespace accumlab {

class GradSync {
public:
    virtual ~GradSync() = default;
    virtual int64_t worldSize() const = 0;
    virtual int64_t rank() const = 0;
    // Averages the flat gradient buffer (every parameter's .grad is a view into it) in place
    // across all ranks.
    virtual void allReduceMean(torch::Tensor &flatGrad) = 0;
    // The collectives issued so far.
    virtual SyncStats stats() const { return {}; }
};

class LocalSync final : public GradSync {
public:
    int64_t worldSize() const override { return 1; }
    int64_t rank() const override { return 0; }
    void allReduceMean(torch::Tensor &) override {}
};

} // namespace accumlab
