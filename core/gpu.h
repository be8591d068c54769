// CUDA-only measurements: peak device memory per sweep point and the out-of-memory demo
// (cap the caching allocator so the full effective batch really fails, then run the same
// effective batch by accumulation). In a build without CUDA every query says so plainly.
#pragma once

#include "core/config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace accumlab {

// True when this binary was built against a LibTorch with CUDA.
bool builtWithCuda();
// Starts a new peak-memory window on `device` ("cuda:0"); no-op elsewhere.
void resetPeakMemory(const std::string &device);
// Peak bytes allocated on `device` since the last reset; empty on the CPU.
std::optional<int64_t> peakMemoryBytes(const std::string &device);
// Bytes allocated on `device` now; empty on the CPU.
std::optional<int64_t> currentMemoryBytes(const std::string &device);

struct OomDemoConfig {
    ModelPreset preset = ModelPreset::Wide;
    int64_t microBatch = 256;
    int64_t accumSteps = 16;
    DType dtype = DType::Float32;
    uint64_t seed = 0;
};

struct OomDemoResult {
    std::string device;
    int64_t totalDeviceBytes = 0;
    int64_t capBytes = 0;               // the allocator's cap during the demo
    int64_t microPeakBytes = 0;         // measured peak of one micro-batch's forward+backward
    int64_t effectiveBatch = 0;
    bool fullBatchOutOfMemory = false;  // the full effective batch in one pass failed with CUDA OOM
    std::string fullBatchError;         // the allocator's message, first line
    bool accumulationSucceeded = false; // the same effective batch by accumulation ran
    int64_t accumulationPeakBytes = 0;
    double accumulationLoss = 0.0;
};

// Throws ConfigError when CUDA is not available.
OomDemoResult runOomDemo(const OomDemoConfig &config);

} // namespace accumlab
