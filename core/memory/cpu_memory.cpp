// The counting CPU allocator: it takes its blocks from LibTorch's default CPU allocator and
// counts them in and out.
#include "core/memory/cpu_memory.h"

#include "core/content/content.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/alignment.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <atomic>
#include <cstdio>
#include <limits>
#include <mutex>
#include <stdexcept>

// LibTorch 2.3 made Allocator::allocate non-const and added the pure copy_data.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define ACCUMLAB_ALLOCATOR_NONCONST 1
#endif

namespace accumlab {

namespace {

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_limit{kNoLimit}; // absolute: baseline + budget
std::atomic<int64_t> g_baseline{0};    // the live bytes when the budget was set
std::atomic<bool> g_budgetActive{false};
std::atomic<bool> g_installed{false};
std::atomic<bool> g_keptOff{false};
std::mutex g_installMutex;
std::atomic<CpuMemoryHook> g_hook{nullptr};

// Each counted block is the inner allocator's block with a header in front that keeps its
// size; the pointer handed out is just past the header, and it is its own context (LibTorch's
// raw_allocate, which some CPU kernels use for scratch buffers, needs that). The header is one
// alignment unit, so the data keeps the inner allocator's alignment.
constexpr size_t kHeader = c10::gAlignment;
c10::DeleterFnPtr g_innerDeleter = nullptr;

void deleteCounted(void *data)
{
    if (!data)
        return;
    void *block = static_cast<char *>(data) - kHeader;
    const int64_t bytes = *static_cast<int64_t *>(block);
    const int64_t after = g_live.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
    if (const CpuMemoryHook hook = g_hook.load(std::memory_order_acquire))
        hook(-bytes, after, data, false);
    g_innerDeleter(block);
}

class CountingAllocator final : public c10::Allocator {
public:
    explicit CountingAllocator(c10::Allocator *inner) : m_inner(inner) { g_innerDeleter = inner->raw_deleter(); }

#ifdef ACCUMLAB_ALLOCATOR_NONCONST
    c10::DataPtr allocate(size_t n) override { return counted(n); }
    void copy_data(void *dest, const void *src, std::size_t count) const override { default_copy_data(dest, src, count); }
#else
    c10::DataPtr allocate(size_t n) const override { return counted(n); }
#endif
    c10::DeleterFnPtr raw_deleter() const override { return &deleteCounted; }

private:
    c10::DataPtr counted(size_t n) const
    {
        if (n == 0)
            return {nullptr, nullptr, &deleteCounted, c10::Device(c10::DeviceType::CPU)};
        const auto bytes = static_cast<int64_t>(n);
        const int64_t after = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
        const int64_t limit = g_limit.load(std::memory_order_relaxed);
        if (after > limit) {
            g_live.fetch_sub(bytes, std::memory_order_relaxed);
            if (const CpuMemoryHook hook = g_hook.load(std::memory_order_acquire))
                hook(bytes, after, nullptr, true);
            const int64_t baseline = g_baseline.load(std::memory_order_relaxed);
            TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory. Tried to allocate ", formatByteCount(bytes),
                             " (budget ", formatByteCount(limit - baseline), ", ",
                             formatByteCount(after - bytes - baseline), " already allocated under it)");
        }
        int64_t peak = g_peak.load(std::memory_order_relaxed);
        while (after > peak && !g_peak.compare_exchange_weak(peak, after, std::memory_order_relaxed)) {
        }
        void *block = nullptr;
        try {
            block = m_inner->raw_allocate(n + kHeader);
        } catch (...) {
            g_live.fetch_sub(bytes, std::memory_order_relaxed);
            throw;
        }
        *static_cast<int64_t *>(block) = bytes;
        void *data = static_cast<char *>(block) + kHeader;
        if (const CpuMemoryHook hook = g_hook.load(std::memory_order_acquire))
            hook(bytes, after, data, false);
        return {data, data, &deleteCounted, c10::Device(c10::DeviceType::CPU)};
    }

    c10::Allocator *m_inner;
};

} // namespace

std::string formatByteCount(int64_t bytes) { return formatNumber(static_cast<double>(bytes), "B", NumberStyle{}); }

void installCpuMemoryCounter()
{
    if (g_installed.load(std::memory_order_acquire) || g_keptOff.load(std::memory_order_acquire))
        return;
    const std::lock_guard<std::mutex> lock(g_installMutex);
    if (g_installed.load(std::memory_order_relaxed) || g_keptOff.load(std::memory_order_relaxed))
        return;
    // Lives as long as the process: tensors anywhere may still hold its records' deleter.
    static CountingAllocator counting(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(&counting, /*priority=*/std::numeric_limits<uint8_t>::max());
    g_installed.store(true, std::memory_order_release);
}

void keepCpuMemoryCounterOff()
{
    const std::lock_guard<std::mutex> lock(g_installMutex);
    if (!g_installed.load(std::memory_order_relaxed))
        g_keptOff.store(true, std::memory_order_release);
}

void setCpuMemoryHook(CpuMemoryHook hook) { g_hook.store(hook, std::memory_order_release); }

bool cpuMemoryCounted() { return g_installed.load(std::memory_order_acquire); }

int64_t cpuLiveBytes() { return g_live.load(std::memory_order_relaxed); }

int64_t cpuPeakBytes() { return g_peak.load(std::memory_order_relaxed); }

void resetCpuPeakBytes() { g_peak.store(g_live.load(std::memory_order_relaxed), std::memory_order_relaxed); }

CpuMemoryBudget::CpuMemoryBudget(int64_t bytes, std::optional<int64_t> baselineBytes)
{
    if (bytes < 0)
        throw std::invalid_argument("a memory budget cannot be negative");
    installCpuMemoryCounter();
    if (!cpuMemoryCounted())
        throw std::logic_error("the CPU memory counter is kept off in this process; no budget can be held");
    if (g_budgetActive.exchange(true))
        throw std::logic_error("a CPU memory budget is already held");
    m_baseline = baselineBytes.value_or(cpuLiveBytes());
    g_baseline.store(m_baseline, std::memory_order_relaxed);
    g_limit.store(bytes > kNoLimit - m_baseline ? kNoLimit : m_baseline + bytes, std::memory_order_relaxed);
}

CpuMemoryBudget::~CpuMemoryBudget()
{
    g_limit.store(kNoLimit, std::memory_order_relaxed);
    g_baseline.store(0, std::memory_order_relaxed);
    g_budgetActive.store(false);
}

} // namespace accumlab
