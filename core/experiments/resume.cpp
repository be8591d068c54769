// Experiment 12, resume-mid-window: the next chapter's lesson, measured. A run is checkpointed
// inside a window (core/io/checkpoint.h), its process ends, and a fresh engine resumes from the
// files: with the window's partial gradient buffers and micro-batch index restored it ends
// bit-identical to the run that never stopped (max abs diff exactly 0, and at a window's end
// too); resumed without the partial buffers, or with the window's micro-batch count restarted,
// it drifts, and with the weights alone (the optimizer's momentum not restored) it drifts even
// from a window's end. The checkpoints go through the real files in a temporary folder, removed after.
// Not here: the words (resources/content/experiments/resume-mid-window.json).
#include "core/experiments/internal.h"

#include "core/io/checkpoint.h"
#include "core/engine.h"
#include "core/io/export.h"

#include <filesystem>

namespace accumlab::experiments {

namespace {

namespace fs = std::filesystem;

// A folder of its own under the system's temporary folder, removed with everything in it.
struct ScratchDir {
    fs::path path = fs::temp_directory_path() / ("accumlab-resume-" + randomId());
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void runTo(AccumEngine &e, int64_t microBatches, const CancelToken *cancel)
{
    while (e.microBatches() < microBatches)
        e.microStep(nullptr, cancel);
}

} // namespace

ExperimentLabSettings resumeMidWindowSettings(const ExperimentOptions &o)
{
    ExperimentLabSettings s;
    s.config = fixtureConfig(o.seed);
    s.config.optimizer.kind = OptimizerKind::Momentum; // a state that a resume must carry too
    return s;
}

ExperimentResult resumeMidWindow(const ExperimentOptions &o, const CancelToken *cancel)
{
    ExperimentResult r;
    const AccumConfig c = resumeMidWindowSettings(o).config;
    r.ran = ExperimentLabSettings{c};
    r.ran->config.shape = c.modelShape();
    const int64_t n = c.accumSteps;
    const int64_t windows = o.fast ? 4 : 8;
    const int64_t total = windows * n;
    // Stopped in the second window after half of its micro-batches; and at the end of the second.
    const int64_t stopIndex = n / 2;
    const int64_t stopMid = n + stopIndex;
    const int64_t stopEnd = 2 * n;

    AccumEngine straight(c);
    runTo(straight, total, cancel);

    // Runs to `stop`, checkpoints, ends that engine, resumes a fresh one with `bug`, finishes.
    const auto resumed = [&](int64_t stop, ResumeBug bug) {
        ScratchDir dir;
        {
            AccumEngine first(c);
            runTo(first, stop, cancel);
            saveCheckpoint(first, dir.path);
        }
        AccumEngine second(c);
        loadCheckpoint(second, dir.path, bug);
        runTo(second, total, cancel);
        return std::pair{second.maxAbsParamDiff(straight), second.paramsSha256() == straight.paramsSha256()};
    };
    // With the pitfall planted the correct resumes lose what each needs: the partial buffers
    // inside the window, the optimizer's state at its end (no buffers are open there).
    const ResumeBug midBug = o.plantPitfall ? ResumeBug::DropPartialBuffers : ResumeBug::None;
    const ResumeBug endBug = o.plantPitfall ? ResumeBug::DropOptimizerState : ResumeBug::None;
    const auto [diffMid, sameMid] = resumed(stopMid, midBug);
    const auto [diffEnd, sameEnd] = resumed(stopEnd, endBug);
    const auto [diffNoBuffer, sameNoBuffer] = resumed(stopMid, ResumeBug::DropPartialBuffers);
    const auto [diffRestart, sameRestart] = resumed(stopMid, ResumeBug::RestartWindowCount);
    const auto [diffNoState, sameNoState] = resumed(stopEnd, ResumeBug::DropOptimizerState);

    addValue(r, "accum_steps", static_cast<double>(n));
    addValue(r, "windows", static_cast<double>(windows));
    addValue(r, "stop_micro_batch", static_cast<double>(stopMid));
    addValue(r, "stop_micro_index", static_cast<double>(stopIndex));
    addValue(r, "stop_window_end", static_cast<double>(stopEnd));
    addValue(r, "param_diff_resumed_mid_window", diffMid);
    addValue(r, "param_diff_resumed_at_window_end", diffEnd);
    addValue(r, "param_diff_without_partial_buffers", diffNoBuffer);
    addValue(r, "param_diff_restarted_window_count", diffRestart);
    addValue(r, "param_diff_without_optimizer_state", diffNoState);

    addClaim(r, "mid-window-identical",
             "param_diff_resumed_mid_window == 0 and params_sha256 equal to the uninterrupted run's",
             diffMid == 0.0 && sameMid);
    addClaim(r, "window-end-identical",
             "param_diff_resumed_at_window_end == 0 and params_sha256 equal to the uninterrupted run's",
             diffEnd == 0.0 && sameEnd);
    addClaim(r, "without-buffers-drifts", "param_diff_without_partial_buffers > 0",
             diffNoBuffer > 0.0 && !sameNoBuffer);
    addClaim(r, "restarted-count-drifts", "param_diff_restarted_window_count > 0",
             diffRestart > 0.0 && !sameRestart);
    addClaim(r, "without-optimizer-state-drifts", "param_diff_without_optimizer_state > 0",
             diffNoState > 0.0 && !sameNoState);
    return r;
}

} // namespace accumlab::experiments
