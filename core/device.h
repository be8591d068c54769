// Device and thread settings: which device a request resolves to, and what the machine has.
#pragma once

#include "core/config.h"

#include <exception>
#include <string>

namespace accumlab {

bool cudaAvailable();
// "cpu" or "cuda:N" (N from setCudaDeviceIndex, 0 unless set); throws ConfigError when CUDA is
// requested and absent.
std::string resolveDevice(DeviceRequest request);
// Whether a device name of resolveDevice's names a GPU ("cuda", "cuda:1").
bool isCudaName(const std::string &device);
// Waits for the device's queued work (a clock around GPU work reads the work, not its launch);
// nothing to wait for on the CPU.
void synchronizeDevice(const std::string &device);
// The CUDA device this process uses: a data-parallel rank takes its LOCAL_RANK, so that each
// rank has a GPU of its own (NCCL refuses two ranks on one device). Throws ConfigError when the
// machine has no such device. Process-wide: one rank is one process.
void setCudaDeviceIndex(int index);
// Sets LibTorch's intra-op threads (and OpenBLAS's) to n, or for 0 back to LibTorch's own
// default, the count it chose before any call (a window's next sweep may need more threads
// than the last one's); returns the count in effect.
int applyThreads(int n);
int currentThreads();
// Whether OMP_NUM_THREADS or MKL_NUM_THREADS names a thread count (LibTorch's default then
// follows it).
bool environmentNamesThreads();
std::string torchVersion();
// The BLAS that LibTorch's CPU matmuls run on, as the exports' environment names it: OpenBLAS's
// own description and how it threads ("OpenBLAS 0.3.21 ... (OpenMP threads)"), else LibTorch's
// build setting (a PyTorch wheel: "mkl").
std::string blasName();
// The first line of an exception's message, without LibTorch's C++ backtrace (a c10::Error's
// what() carries one).
std::string firstLine(const std::exception &e);

} // namespace accumlab
