// Measured CPU memory: a counting allocator in front of LibTorch's default CPU allocator.
// It keeps the live and the peak bytes of every CPU tensor allocated after it is installed
// (the peak resettable per phase), and it can hold a budget: an allocation that would take
// the bytes above the budget's baseline beyond it fails inside LibTorch with LibTorch's own
// out-of-memory error (c10::OutOfMemoryError, "CPU out of memory. Tried to allocate ..."),
// the way a full accelerator fails. The public surface holds no torch types.
//
// Installed once per process by the first engine or memory query (core/memory/gpu.h); tensors made
// before that are neither counted nor charged. Counting costs a size header of one alignment unit,
// two relaxed atomic updates and one load of the timeline hook per allocation (measured:
// scripts/bench/memory-counter-overhead.sh).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace accumlab {

// Idempotent and thread-safe. Does nothing after keepCpuMemoryCounterOff().
void installCpuMemoryCounter();
// Leaves LibTorch's allocator alone for the rest of the process (the overhead benchmark's
// baseline); the CPU figures are then not measured. Call before any engine is built.
void keepCpuMemoryCounterOff();
bool cpuMemoryCounted();

int64_t cpuLiveBytes(); // bytes of counted CPU tensors alive now
int64_t cpuPeakBytes(); // the most live bytes since the last reset
void resetCpuPeakBytes(); // starts a new peak window at the live bytes

// While alive, CPU allocations may take at most `bytes` above `baselineBytes` (by default the
// live bytes at its construction); one that would go beyond fails with c10::OutOfMemoryError.
// One at a time: a second, nested budget throws std::logic_error. Needs the counter (installs it).
class CpuMemoryBudget {
public:
    explicit CpuMemoryBudget(int64_t bytes, std::optional<int64_t> baselineBytes = std::nullopt);
    ~CpuMemoryBudget();
    CpuMemoryBudget(const CpuMemoryBudget &) = delete;
    CpuMemoryBudget &operator=(const CpuMemoryBudget &) = delete;
    int64_t baselineBytes() const { return m_baseline; }

private:
    int64_t m_baseline = 0;
};

// One function that sees every counted allocation and free, for the memory timeline
// (core/memory/memory_timeline.h): `deltaBytes` (+ allocated, - freed), the live bytes after it, the
// block's address (the data pointer a tensor sees; null when refused), and whether the budget
// refused it (then nothing was allocated). Called on the allocating thread; nullptr (the
// default) calls nothing. The function must outlive every allocation after it is set.
using CpuMemoryHook = void (*)(int64_t deltaBytes, int64_t liveBytesAfter, const void *address, bool refused);
void setCpuMemoryHook(CpuMemoryHook hook);

// "1.5 MiB": binary units, one decimal, in English (core's formatNumber with "B").
std::string formatByteCount(int64_t bytes);

} // namespace accumlab
