// Internal (includes LibTorch's c10d): the GradSync that really all-reduces, over a c10d
// process group that met through a c10d TCPStore served by rank 0.
// Not thread-safe: one engine thread drives it (as it drives the engine).
#pragma once

#include "core/distributed/fault_hooks.h"
#include "core/distributed/grad_sync.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

#include <chrono>
#include <string>

namespace accumlab {

// LibTorch 1.13: ProcessGroupGloo and ProcessGroupNCCL derive from c10d::ProcessGroup.
// LibTorch 2.x: they derive from c10d::Backend (ProcessGroup became a dispatcher over
// backends, and the backends' Options derive from Backend::Options). Both bases declare
// the allreduce(std::vector<at::Tensor>&, const AllreduceOptions&) used here.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveBackend = c10d::Backend;
#else
using CollectiveBackend = c10d::ProcessGroup;
#endif

class C10dSync final : public GradSync {
public:
    // Joins the group (blocks until every rank arrived or the timeout passes).
    // Throws DistributedError.
    explicit C10dSync(const DistributedOptions &options);
    ~C10dSync() override;

    int64_t worldSize() const override { return m_options.worldSize; }
    int64_t rank() const override { return m_options.rank; }
    // One all-reduce SUM of the whole flat buffer, then a division by the world size (Gloo has
    // no AVG; NCCL's AVG needs NCCL >= 2.10, so SUM + div_ works everywhere), waited on with
    // the timeout. Throws DistributedError naming the rank and the cause.
    void allReduceMean(torch::Tensor &flatGrad) override;
    SyncStats stats() const override { return m_stats; }
    const char *backendName() const { return m_backendName; }

private:
    void checkSettings(); // throws ConfigError naming the first setting that differs

    DistributedOptions m_options;
    std::string m_who; // "rank R of W"
    std::chrono::milliseconds m_timeout{0};
    c10::intrusive_ptr<c10d::Store> m_store;
    c10::intrusive_ptr<CollectiveBackend> m_group;
    const char *m_backendName = "gloo";
    SyncStats m_stats;
    FaultPlan m_fault;
};

} // namespace accumlab
