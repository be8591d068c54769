// Device and thread settings: which device a request resolves to, and what the machine has.
#pragma once

#include "core/config.h"

#include <string>

namespace accumlab {

bool cudaAvailable();
// "cpu" or "cuda:0"; throws ConfigError when CUDA is requested and absent.
std::string resolveDevice(DeviceRequest request);
// Sets LibTorch's intra-op threads when n > 0; returns the count in effect.
int applyThreads(int n);
int currentThreads();
std::string torchVersion();

} // namespace accumlab
