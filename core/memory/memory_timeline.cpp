// The memory timeline's recorder: the counting allocator's hook appends one event per
// allocation or free, tagged with the phase the engine last marked.
#include "core/memory/memory_timeline.h"

#include "core/memory/cpu_memory.h"
#include "core/memory/gpu.h"

#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

// The caching allocator's history API in the form this code calls it (LibTorch 2.11).
#if defined(ACCUMLAB_WITH_CUDA) && (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 11))
#define ACCUMLAB_CUDA_HISTORY 1
#include <c10/core/Device.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

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

thread_local int t_unrecorded = 0; // UnrecordedMemory guards alive on this thread

void record(int64_t deltaBytes, int64_t liveBytesAfter, const void *address, bool refused)
{
    if (t_unrecorded > 0)
        return;
    const int64_t mark = g_mark.load(std::memory_order_relaxed);
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_recording)
        return;
    if (g_timeline.events.size() >= kMaxMemoryEvents) {
        g_timeline.truncated = true;
        return;
    }
    g_timeline.events.push_back({deltaBytes, liveBytesAfter - g_timeline.originBytes, phaseOf(mark), microOf(mark), refused,
                                 reinterpret_cast<uint64_t>(address)});
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

UnrecordedMemory::UnrecordedMemory() { ++t_unrecorded; }
UnrecordedMemory::~UnrecordedMemory() { --t_unrecorded; }

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

bool MemoryTimeline::phasesKnown() const
{
    return std::any_of(events.begin(), events.end(), [](const MemoryEvent &e) { return e.phase != MemoryPhase::Outside; });
}

int64_t MemoryTimeline::activationBytes() const
{
    int64_t most = 0, floor = 0, peak = 0, micro = -2;
    for (const MemoryEvent &e : events) {
        if (e.refused || (e.phase != MemoryPhase::Forward && e.phase != MemoryPhase::Backward))
            continue;
        if (e.micro != micro) { // a micro-batch's first event: its floor is the live bytes before it
            micro = e.micro;
            floor = e.liveBytes - e.deltaBytes;
            peak = floor;
        }
        peak = std::max(peak, e.liveBytes);
        most = std::max(most, peak - floor);
    }
    return most;
}

int64_t MemoryTimeline::stepTemporaryBytes() const
{
    int64_t most = 0;
    for (size_t i = 0; i < events.size();) {
        if (events[i].phase != MemoryPhase::Step || events[i].refused) {
            ++i;
            continue;
        }
        int64_t peak = events[i].liveBytes - events[i].deltaBytes, after = peak;
        for (; i < events.size() && events[i].phase == MemoryPhase::Step && !events[i].refused; ++i) {
            peak = std::max(peak, events[i].liveBytes);
            after = events[i].liveBytes;
        }
        most = std::max(most, peak - after);
    }
    return most;
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

namespace {

// Just enough of pickle protocol 2 for a snapshot: dicts, lists, strings, integers, None.
class Pickler {
public:
    Pickler() { m_out += "\x80\x02"; } // PROTO 2
    std::string finish()
    {
        m_out += '.'; // STOP
        return std::move(m_out);
    }
    void none() { m_out += 'N'; }
    void integer(int64_t v)
    {
        if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
            m_out += 'J'; // BININT: 4 bytes, little-endian, signed
            bytes(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
            return;
        }
        m_out += '\x8a'; // LONG1: a length byte, then two's complement little-endian
        m_out += static_cast<char>(8);
        bytes(static_cast<uint64_t>(v), 8);
    }
    void unsignedInteger(uint64_t v)
    {
        if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            integer(static_cast<int64_t>(v));
            return;
        }
        m_out += '\x8a'; // nine bytes, so that the top bit is not read as a sign
        m_out += static_cast<char>(9);
        bytes(v, 8);
        m_out += '\0';
    }
    void string(const std::string &s)
    {
        m_out += 'X'; // BINUNICODE: 4-byte length, UTF-8
        bytes(s.size(), 4);
        m_out += s;
    }
    void beginDict() { m_out += "}("; }  // EMPTY_DICT, MARK
    void endDict() { m_out += 'u'; }      // SETITEMS
    void beginList() { m_out += "]("; }  // EMPTY_LIST, MARK
    void endList() { m_out += 'e'; }      // APPENDS
    void key(const char *k) { string(k); }

private:
    void bytes(uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            m_out += static_cast<char>((v >> (8 * i)) & 0xff);
    }
    std::string m_out;
};

std::string frameName(const MemoryEvent &e)
{
    std::string name = toString(e.phase);
    if (e.micro >= 0)
        name += ", micro-batch " + std::to_string(e.micro);
    return name;
}

// The one stack frame an event has: the window's phase as its name.
void frame(Pickler &p, const MemoryEvent &e)
{
    p.beginDict();
    p.key("filename");
    p.string("accumlab");
    p.key("line");
    p.integer(0);
    p.key("name");
    p.string(frameName(e));
    p.endDict();
}

void traceEntry(Pickler &p, const char *action, const MemoryEvent &e, int64_t size, int64_t deviceFree)
{
    p.beginDict();
    p.key("action");
    p.string(action);
    p.key("addr");
    p.unsignedInteger(e.address);
    p.key("size");
    p.integer(size);
    p.key("stream");
    p.integer(0);
    if (deviceFree >= 0) {
        p.key("device_free");
        p.integer(deviceFree);
    }
    p.key("frames");
    p.beginList();
    frame(p, e);
    p.endList();
    p.endDict();
}

} // namespace

std::string memorySnapshotPickle(const std::vector<const MemoryTimeline *> &runs)
{
    // What each run allocated during its recording and still holds at its end: its segments.
    // address -> the event that allocated it, in address order.
    std::vector<std::map<uint64_t, const MemoryEvent *>> alive(runs.size());
    for (size_t d = 0; d < runs.size(); ++d) {
        if (!runs[d]->blocksAreSegments)
            continue;
        for (const MemoryEvent &e : runs[d]->events) {
            if (e.refused)
                continue;
            if (e.deltaBytes >= 0)
                alive[d][e.address] = &e;
            else
                alive[d].erase(e.address); // a block of the floor freed: never in the map
        }
    }
    Pickler p;
    p.beginDict();
    p.key("segments");
    p.beginList();
    for (size_t d = 0; d < runs.size(); ++d)
        for (const auto &[address, e] : alive[d]) {
            const int64_t size = e->deltaBytes;
            p.beginDict();
            p.key("device");
            p.integer(static_cast<int64_t>(d));
            p.key("address");
            p.unsignedInteger(address);
            for (const char *k : {"total_size", "allocated_size", "active_size", "requested_size"}) {
                p.key(k);
                p.integer(size);
            }
            p.key("stream");
            p.integer(0);
            p.key("segment_type");
            p.string("large");
            p.key("frames");
            p.beginList();
            p.endList();
            p.key("blocks");
            p.beginList();
            p.beginDict();
            p.key("size");
            p.integer(size);
            p.key("requested_size");
            p.integer(size);
            p.key("state");
            p.string("active_allocated");
            p.key("frames");
            p.beginList();
            frame(p, *e);
            p.endList();
            p.endDict();
            p.endList();
            p.endDict();
        }
    p.endList();
    p.key("device_traces");
    p.beginList();
    for (const MemoryTimeline *t : runs) {
        const bool segments = t->blocksAreSegments;
        p.beginList();
        for (size_t i = 0; i < t->events.size(); ++i) {
            const MemoryEvent &e = t->events[i];
            if (e.refused) {
                const int64_t liveBefore = e.liveBytes - e.deltaBytes;
                const int64_t free = t->budgetBytes ? std::max<int64_t>(*t->budgetBytes - liveBefore, 0) : 0;
                traceEntry(p, "oom", e, e.deltaBytes, free);
            } else if (e.deltaBytes >= 0) {
                if (segments)
                    traceEntry(p, "segment_alloc", e, e.deltaBytes, -1);
                traceEntry(p, "alloc", e, e.deltaBytes, -1);
            } else {
                traceEntry(p, "free_requested", e, -e.deltaBytes, -1);
                traceEntry(p, "free_completed", e, -e.deltaBytes, -1);
                if (segments)
                    traceEntry(p, "segment_free", e, -e.deltaBytes, -1);
            }
        }
        p.endList();
    }
    p.endList();
    p.endDict();
    return p.finish();
}

bool CudaMemoryHistory::available()
{
#ifdef ACCUMLAB_CUDA_HISTORY
    return true;
#else
    return false;
#endif
}

CudaMemoryHistory::CudaMemoryHistory(const std::string &device, int64_t originBytes) : m_origin(originBytes)
{
#ifdef ACCUMLAB_CUDA_HISTORY
    namespace alloc = c10::cuda::CUDACachingAllocator;
    const c10::Device d(device);
    m_device = d.has_index() ? d.index() : 0;
    m_start = currentMemoryBytes(device).value_or(0) - originBytes;
    alloc::recordHistory(true, nullptr, kMaxMemoryEvents, alloc::RecordContext::NEVER, /*clearHistory=*/true, {});
#else
    (void)device;
    m_finished = true;
#endif
}

CudaMemoryHistory::~CudaMemoryHistory()
{
    if (!m_finished)
        finish();
}

std::optional<MemoryTimeline> CudaMemoryHistory::finish()
{
    if (m_finished)
        return std::nullopt;
    m_finished = true;
#ifdef ACCUMLAB_CUDA_HISTORY
    namespace alloc = c10::cuda::CUDACachingAllocator;
    using Action = c10::CachingDeviceAllocator::TraceEntry::Action;
    const alloc::SnapshotInfo snapshot = alloc::snapshot();
    alloc::recordHistory(false, nullptr, 0, alloc::RecordContext::NEVER, /*clearHistory=*/true, {});
    MemoryTimeline t;
    t.blocksAreSegments = false; // the caching allocator's segments are not in its history
    t.originBytes = m_origin;
    t.startBytes = m_start;
    if (static_cast<size_t>(m_device) >= snapshot.device_traces.size())
        return t;
    int64_t live = m_start;
    for (const auto &entry : snapshot.device_traces[static_cast<size_t>(m_device)]) {
        if (t.events.size() >= kMaxMemoryEvents) {
            t.truncated = true;
            break;
        }
        const auto size = static_cast<int64_t>(entry.size_);
        if (entry.action_ == Action::ALLOC) {
            live += size;
            t.events.push_back({size, live, MemoryPhase::Outside, -1, false, static_cast<uint64_t>(entry.addr_)});
        } else if (entry.action_ == Action::FREE_COMPLETED) {
            live -= size;
            t.events.push_back({-size, live, MemoryPhase::Outside, -1, false, static_cast<uint64_t>(entry.addr_)});
        } else if (entry.action_ == Action::OOM) {
            t.events.push_back({size, live, MemoryPhase::Outside, -1, true, 0});
            break;
        }
    }
    return t;
#else
    return std::nullopt;
#endif
}

} // namespace accumlab
