// Measured memory per device: on CUDA the caching allocator's figures and its cap; on the CPU
// the counting allocator's (core/memory/cpu_memory.h). In a build without CUDA the CUDA calls say so
// plainly. The budgets built on them are in core/memory/memory_lab.h.
#pragma once

#include "core/config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace accumlab {

// True when this binary was built against a LibTorch with CUDA.
bool builtWithCuda();
// Starts a new peak-memory window on `device` ("cpu", "cuda:0").
void resetPeakMemory(const std::string &device);
// Peak bytes allocated on `device` since the last reset; empty where nothing is measured
// (the CPU counter kept off).
std::optional<int64_t> peakMemoryBytes(const std::string &device);
// Bytes allocated on `device` now; empty where nothing is measured.
std::optional<int64_t> currentMemoryBytes(const std::string &device);

// CUDA: holds the caching allocator to `bytes` above `baselineBytes` allocated (its cache
// emptied, then setMemoryFraction), so that an allocation beyond fails with CUDA's out of
// memory; nullopt lifts the cap. Throws ConfigError in a build or on a machine without CUDA.
void capCudaMemory(const std::string &device, std::optional<int64_t> bytes, int64_t baselineBytes = 0);
// The GPU's total memory in bytes; 0 without CUDA.
int64_t cudaTotalBytes(const std::string &device);

} // namespace accumlab
