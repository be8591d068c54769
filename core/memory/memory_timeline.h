// The memory timeline of a window, measured: every allocation and free the counting CPU
// allocator (core/memory/cpu_memory.h) sees while a recording runs, in order, each with the live bytes
// after it and the phase of the window it happened in (the window opening with its samples and
// zero_grad, the forward or backward of micro-batch k, the all-reduce, the optimizer step).
// It is what makes the lesson's memory move: a full batch piles its activations into one tall
// hill; the same samples by accumulation make N small hills on a floor of weights, gradient
// buffers, optimizer state and the window's samples that does not move.
//
// The engine marks its phases (markMemoryPhase: one relaxed store when nothing records); the
// memory lab records the out-of-memory demo's runs. An allocation the budget refused is an
// event too, the last of its run. The public surface holds no torch types.
#pragma once

#include "core/memory/memory.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace accumlab {

// Where the window is. Outside: between windows, or code that is not the window's.
enum class MemoryPhase : uint8_t { Outside, OpenWindow, Forward, Backward, Sync, Step };
std::string toString(MemoryPhase);

// The engine says where its window is, micro-batch `micro` (-1 for a phase of the whole window).
void markMemoryPhase(MemoryPhase phase, int64_t micro = -1);

// While alive, what this thread allocates and frees is left out of the timeline being
// recorded: AccumLab's own reads for its reports (the buffer fills and norms the window draws
// per micro-batch) are not the lesson's loop, and drawn they were the window's tallest hills.
// Later events still carry the counter's live bytes, so whatever such a read keeps alive shows
// as a step at the next recorded event. Costs a thread-local increment.
class UnrecordedMemory {
public:
    UnrecordedMemory();
    ~UnrecordedMemory();
    UnrecordedMemory(const UnrecordedMemory &) = delete;
    UnrecordedMemory &operator=(const UnrecordedMemory &) = delete;
};

struct MemoryEvent {
    int64_t deltaBytes = 0; // + allocated, - freed
    int64_t liveBytes = 0;  // counted bytes alive after it, from the recording's origin
    MemoryPhase phase = MemoryPhase::Outside;
    int64_t micro = -1;     // the micro-batch in its window; -1 for the window's own phases
    bool refused = false;   // the budget refused it: LibTorch's out-of-memory error followed
    uint64_t address = 0;   // the block's data pointer (pairs a free with its allocation); 0 when refused
};

struct MemoryTimeline {
    std::string label;           // "full batch of 512 in one pass", in English for files
    int64_t microBatch = 0;
    int64_t accumSteps = 0;
    int64_t originBytes = 0;     // live bytes the recording counts from (before the engine was built)
    int64_t startBytes = 0;      // live bytes, from the origin, when the recording began
    HeldBytes floor;             // what the engine holds between windows: the resident floor
    std::optional<int64_t> budgetBytes; // the budget the run held, from the origin
    std::vector<MemoryEvent> events;
    bool truncated = false;      // stopped at kMaxMemoryEvents
    // The counting CPU allocator's: every block its own malloc, so a block is a segment too. A
    // CUDA history's blocks live inside the caching allocator's segments, which it does not carry.
    bool blocksAreSegments = true;

    int64_t peakBytes() const;   // the most live bytes of any accepted event (startBytes if none)
    // The first event whose live bytes exceed `bytes` (a refused one counts): the point where
    // the run crosses the budget; nullopt when it never does.
    std::optional<size_t> firstAbove(int64_t bytes) const;
    // Each phase's peak: the most live bytes of its events, per micro-batch, in order of first
    // appearance.
    struct PhasePeak {
        MemoryPhase phase;
        int64_t micro;
        int64_t peakBytes;
    };
    std::vector<PhasePeak> phasePeaks() const;
    // What rises above the floor of the moment, measured: the most any micro-batch's forward and
    // backward add above the live bytes before its first event (its activations and the
    // backward's temporaries), and the most the optimizer step adds above the live bytes it
    // leaves (its temporaries; state it allocates for good is not among them). 0 where the
    // timeline has no such phase (a CUDA history carries none: phasesKnown()).
    int64_t activationBytes() const;
    int64_t stepTemporaryBytes() const;
    // Whether the events carry the window's phases (the counting CPU allocator's do).
    bool phasesKnown() const;
};

inline constexpr size_t kMaxMemoryEvents = 1'000'000;

// While alive, the counting allocator's events go into its timeline. One at a time (a second
// throws std::logic_error); needs the counter (installs it; throws std::logic_error when it is
// kept off). `originBytes`: the live bytes the figures count from.
class MemoryTimelineRecording {
public:
    explicit MemoryTimelineRecording(int64_t originBytes);
    ~MemoryTimelineRecording();
    MemoryTimelineRecording(const MemoryTimelineRecording &) = delete;
    MemoryTimelineRecording &operator=(const MemoryTimelineRecording &) = delete;
    // Stops recording and hands over what was recorded (once).
    MemoryTimeline finish();

private:
    bool m_finished = false;
};

// The same timeline on CUDA, from the caching allocator's own history (its recordHistory and
// snapshot, the API torch.cuda.memory._record_memory_history drives): while alive, every
// allocation and free on `device` is kept; finish() turns the trace into events, live bytes
// counted from `originBytes` (allocated bytes on the device before the engine was built), an
// out-of-memory the allocator threw as the refused last event. The trace carries no phase of
// the window (the events say Outside, micro-batch -1). Compiled where the build has a LibTorch
// with CUDA of 2.11 or later (the API changed its signature across 2.x); elsewhere
// available() is false and finish() returns nothing. Not yet run on a GPU.
class CudaMemoryHistory {
public:
    CudaMemoryHistory(const std::string &device, int64_t originBytes);
    ~CudaMemoryHistory();
    CudaMemoryHistory(const CudaMemoryHistory &) = delete;
    CudaMemoryHistory &operator=(const CudaMemoryHistory &) = delete;
    static bool available();
    std::optional<MemoryTimeline> finish(); // once; nothing where not available

private:
    int m_device = 0;
    int64_t m_origin = 0;
    int64_t m_start = 0;
    bool m_finished = false;
};

// schema memory-timeline.v1: one object per run, its events as parallel arrays (delta, live,
// phase, micro) so that a window of thousands of events stays a small file.
nlohmann::json toJson(const MemoryTimeline &);
inline constexpr const char *kMemoryTimelineSchema = "memory-timeline.v1";

// The runs as a memory snapshot in the layout torch.cuda.memory._snapshot() pickles, which
// PyTorch's memory visualiser opens (torch/cuda/_memory_viz.py, pytorch.org/memory_viz): one
// "device" trace per run, in order, each allocation an "alloc" and each free a
// "free_requested" and "free_completed" with its address and size, a refused allocation an
// "oom", and the phase as the one stack frame's name ("forward, micro-batch 3"). Blocks alive
// before the recording (the resident floor) are in no trace: the traces show what each window
// allocated on top of it. Where a block is its own segment (the counting CPU allocator: each
// block one malloc), each alloc follows a "segment_alloc" and each free precedes a
// "segment_free" of the same address and size, and `segments` holds what is alive at the end of
// each run (its device index) as one block each, so that the visualiser's segment view
// (segment_plot, "Allocator State History") replays it; the floor, allocated before the
// recording, is in neither. A CUDA history writes no segments (blocksAreSegments false).
// Pickle protocol 2, written here (no Python needed).
std::string memorySnapshotPickle(const std::vector<const MemoryTimeline *> &runs);

} // namespace accumlab
