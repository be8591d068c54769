// The memory timeline's recorder: the counting allocator's hook appends one event per
// allocation or free, tagged with the phase the engine last marked.
#include "core/memory_timeline.h"

#include "core/cpu_memory.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>

namespace accumlab {

namespace {

// The phase and micro-batch, packed in one word so that a mark is one store.
std::atomic<int64_t> g_mark{0};
int64_t pack(MemoryPhase phase, int64_t micro) { return (micro + 1) * 8 + static_cast<int64_t>(phase); }
MemoryPhase phaseOf(int64_t packed) { return static_cast<MemoryPhase>(packed % 8); }
int64_t microOf(int64_t packed) { return packed / 8 - 1; }

std::mutex g_mutex; // guards g_recording and g_timeline
bool g_recording = false;
MemoryTimeline g_timeline;

void record(int64_t deltaBytes, int64_t liveBytesAfter, bool refused)
{
    const int64_t mark = g_mark.load(std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_recording)
        return;
    if (g_timeline.events.size() >= kMaxMemoryEvents) {
        g_timeline.truncated = true;
        return;
    }
    g_timeline.events.push_back(
        {deltaBytes, liveBytesAfter - g_timeline.originBytes, phaseOf(mark), microOf(mark), refused});
}

} // namespace

std::string toString(MemoryPhase phase)
{
    switch (phase) {
    case MemoryPhase::Outside: return "outside";
    case MemoryPhase::OpenWindow: return "open-window";
    case MemoryPhase::Forward: return "forward";
    case MemoryPhase::Backward: return "backward";
    case MemoryPhase::Sync: return "sync";
    case MemoryPhase::Step: return "step";
    }
    return "outside";
}

void markMemoryPhase(MemoryPhase phase, int64_t micro) { g_mark.store(pack(phase, micro), std::memory_order_relaxed); }

int64_t MemoryTimeline::peakBytes() const
{
    int64_t peak = startBytes;
    for (const MemoryEvent &e : events)
        if (!e.refused)
            peak = std::max(peak, e.liveBytes);
    return peak;
}

std::optional<size_t> MemoryTimeline::firstAbove(int64_t bytes) const
{
    for (size_t i = 0; i < events.size(); ++i)
        if (events[i].liveBytes > bytes)
            return i;
    return std::nullopt;
}

std::vector<MemoryTimeline::PhasePeak> MemoryTimeline::phasePeaks() const
{
    std::vector<PhasePeak> peaks;
    for (const MemoryEvent &e : events) {
        if (e.refused)
            continue;
        auto it = std::find_if(peaks.begin(), peaks.end(),
                               [&](const PhasePeak &p) { return p.phase == e.phase && p.micro == e.micro; });
        if (it == peaks.end())
            peaks.push_back({e.phase, e.micro, e.liveBytes});
        else
            it->peakBytes = std::max(it->peakBytes, e.liveBytes);
    }
    return peaks;
}

MemoryTimelineRecording::MemoryTimelineRecording(int64_t originBytes)
{
    installCpuMemoryCounter();
    if (!cpuMemoryCounted())
        throw std::logic_error("the CPU memory counter is kept off in this process; no timeline can be recorded");
    {
        const std::lock_guard<std::mutex> lock(g_mutex);
        if (g_recording)
            throw std::logic_error("a memory timeline is already being recorded");
        g_timeline = MemoryTimeline{};
        g_timeline.originBytes = originBytes;
        g_timeline.startBytes = cpuLiveBytes() - originBytes;
        g_recording = true;
    }
    markMemoryPhase(MemoryPhase::Outside);
    setCpuMemoryHook(&record);
}

MemoryTimelineRecording::~MemoryTimelineRecording()
{
    if (!m_finished)
        finish();
}

MemoryTimeline MemoryTimelineRecording::finish()
{
    setCpuMemoryHook(nullptr);
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (m_finished)
        return {};
    m_finished = true;
    g_recording = false;
    MemoryTimeline out = std::move(g_timeline);
    g_timeline = MemoryTimeline{};
    return out;
}

nlohmann::json toJson(const MemoryTimeline &t)
{
    nlohmann::json delta = nlohmann::json::array(), live = nlohmann::json::array(), phase = nlohmann::json::array(),
                   micro = nlohmann::json::array();
    std::optional<size_t> refused;
    for (size_t i = 0; i < t.events.size(); ++i) {
        const MemoryEvent &e = t.events[i];
        delta.push_back(e.deltaBytes);
        live.push_back(e.liveBytes);
        phase.push_back(toString(e.phase));
        micro.push_back(e.micro);
        if (e.refused && !refused)
            refused = i;
    }
    nlohmann::json peaks = nlohmann::json::array();
    for (const auto &p : t.phasePeaks())
        peaks.push_back({{"phase", toString(p.phase)}, {"micro", p.micro}, {"peak_bytes", p.peakBytes}});
    nlohmann::json j = {
        {"label", t.label},
        {"micro_batch", t.microBatch},
        {"accum_steps", t.accumSteps},
        {"origin_bytes", t.originBytes},
        {"start_bytes", t.startBytes},
        {"floor_bytes",
         {{"weights", t.floor.weights},
          {"gradients", t.floor.gradients},
          {"optimizer_state", t.floor.optimizerState},
          {"window_samples", t.floor.windowSamples},
          {"total", t.floor.total()}}},
        {"budget_bytes", t.budgetBytes ? nlohmann::json(*t.budgetBytes) : nlohmann::json(nullptr)},
        {"peak_bytes", t.peakBytes()},
        {"phase_peaks", peaks},
        {"refused_event", refused ? nlohmann::json(*refused) : nlohmann::json(nullptr)},
        {"truncated", t.truncated},
        {"events", {{"delta_bytes", delta}, {"live_bytes", live}, {"phase", phase}, {"micro", micro}}},
    };
    return j;
}

} // namespace accumlab
