// Checkpoints of an AccumEngine: written atomically, versioned, refused in words when they do
// not fit the run, and exact: a run resumed from one, at any micro-batch (inside a window or at
// its end), ends with bit-identical parameters to the run that was never interrupted.
//
// On disk (docs/ranks-and-checkpoints.md, "Checkpoints"): a folder with latest.json naming the last complete
// generation, and per generation one file per rank, gen-<micro-batches>/rank-<r>.safetensors: a
// safetensors file whose header's metadata holds the manifest (format, version, model widths,
// dtype, world size, rank, the run's settings, the checksums of the tensor table and data) and
// whose tensors are named as PyTorch names them. Rank 0's file holds the parts every rank shares
// (parameters, optimizer state, LR schedule position, data stream generator, counters); every
// rank's file holds its own gradient buffers (where they carry over) and open window. A
// generation becomes the latest only once every rank's file is written (latest.json is replaced
// by rename), so a process killed while writing leaves the previous checkpoint whole.
// Rank 0's manifest also holds the loss scaler's state ("loss_scaler", null without a scaler).
// Not here: any Qt. Plain C++ (no torch).
#pragma once

#include "core/config.h"
#include "core/content/errors.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace accumlab {

class AccumEngine;

// The manifest's "format" and the version this build writes; it reads every version from
// kOldestCheckpointVersion on. Version 2: the manifest carries its own checksum
// (manifest_sha256), so no field of it is used unchecked. Version 3: each rank file is a
// safetensors file (the manifest in its header's __metadata__, the tensors named as PyTorch
// names them: fc1.weight, optimizer.exp_avg.fc1.weight, grad.fc1.weight, window.x, ...), which
// safetensors.torch.load_file opens and model.load_state_dict takes.
inline constexpr const char *kCheckpointFormat = "accumlab-checkpoint";
inline constexpr int kCheckpointVersion = 3;
inline constexpr int kOldestCheckpointVersion = 2;

// A checkpoint that is missing, damaged, of another version or of another run; a code of the
// content's errors/checkpoint.json with its arguments.
class CheckpointError : public CodedError {
public:
    using CodedError::CodedError;
};

// What a resume found.
struct CheckpointSummary {
    int64_t microBatches = 0;  // micro-batches the run had done
    int64_t windowsDone = 0;   // completed windows (optimizer steps of the correct loop)
    int64_t microIndex = 0;    // micro-batches done in the open window (0: at a window's end)
    int64_t worldSize = 1;
};

// How a resume goes wrong on purpose (the resume-mid-window experiment's planted bugs):
//   DropPartialBuffers  the open window's partial gradient sums are not restored (zeros)
//   RestartWindowCount  the micro-batch index restarts at 0: the window's first micro-batches
//                       run again on top of the restored buffers
//   DropOptimizerState  the weights are restored but the optimizer starts afresh (no momentum
//                       or Adam moments, step count 0): wrong even at a window's end
enum class ResumeBug { None, DropPartialBuffers, RestartWindowCount, DropOptimizerState };

// Saves the engine's state into `dir` (created if needed) as a new generation and makes it the
// latest. With several ranks every rank calls it at the same micro-batch (it meets the others
// once). Throws CheckpointError("checkpoint/write-failed") with the previous checkpoint whole.
void saveCheckpoint(AccumEngine &engine, const std::filesystem::path &dir);
// Held while a run writes checkpoints into a folder (its rank 0 holds it): a second run
// writing into the same folder pruned the first one's generations and moved latest.json
// under it. A lock on the file `.accumlab-writer.lock` in the folder; released when destroyed
// or when the process ends, however it ends.
class CheckpointFolderLock {
public:
    CheckpointFolderLock() = default;
    explicit CheckpointFolderLock(int fd) : m_fd(fd) {}
    CheckpointFolderLock(CheckpointFolderLock &&o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
    CheckpointFolderLock &operator=(CheckpointFolderLock &&o) noexcept;
    CheckpointFolderLock(const CheckpointFolderLock &) = delete;
    CheckpointFolderLock &operator=(const CheckpointFolderLock &) = delete;
    ~CheckpointFolderLock();

private:
    int m_fd = -1;
};

// Makes `dir` and stages (then drops) a file in it through the one writer, so that a folder
// that cannot hold a checkpoint is refused before a run trains, not after; with `lock`
// (rank 0), takes the folder's writer lock for as long as the result is kept. Throws
// CheckpointError "checkpoint/write-failed-first" (or "write-failed" when the folder already
// holds a checkpoint, which is left whole), or "checkpoint/folder-in-use" when another run
// holds the lock.
CheckpointFolderLock prepareCheckpointFolder(const std::filesystem::path &dir, bool lock = true);

// Restores the latest checkpoint in `dir` into `engine`, freshly built with the run's settings.
// Throws CheckpointError when there is none, when a file is truncated or corrupt, of another
// version, or of another model shape, dtype, world size or setting; the engine is untouched then.
// A generation that is a link or not a folder is refused ("checkpoint/resume-link"), never read
// through: a checkpoint is read only inside `dir`, as it is written.
CheckpointSummary loadCheckpoint(AccumEngine &engine, const std::filesystem::path &dir,
                                 ResumeBug bug = ResumeBug::None);

// The settings of the run the latest checkpoint in `dir` belongs to (every setting a resume
// compares, the model's widths, the dtype and the world size), so that a window can build that
// run's engine and resume it. Throws CheckpointError as loadCheckpoint does, and
// "checkpoint/not-a-checkpoint" for settings this build does not know or accept.
AccumConfig checkpointConfig(const std::filesystem::path &dir);

// Whether `dir` holds a checkpoint to continue from (its latest.json is there: a generation
// is named by it only once every rank's file is whole). `train --auto-resume` asks it, so that
// the one command line starts a run fresh and continues it after every restart.
bool hasCheckpoint(const std::filesystem::path &dir);

// The rank file of `rank` in the latest generation (for tests and messages); throws as
// loadCheckpoint does when there is no checkpoint.
std::filesystem::path latestRankFile(const std::filesystem::path &dir, int64_t rank);

} // namespace accumlab
