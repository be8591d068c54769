// The exports: accum-curve.json (schema accum-curve.v1, lesson field names) and the
// atomic file write every export goes through. The point writer and the validating reader
// live in core/io/curve_io.h (torch-free, fuzzed).
#pragma once

#include "core/io/curve_io.h"
#include "core/io/json_reader.h"
#include "core/io/settings_io.h"
#include "core/equivalence.h"
#include "core/content/errors.h"
#include "core/content/loop_code.h"
#include "core/memory/memory_lab.h"
#include "core/sweep.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace accumlab {

nlohmann::json toJson(const EquivalenceResult &);
// Every setting of one run (AccumConfig) as core/io/settings_io.h's settingsRecord writes it,
// the device resolved ("cuda:0", "cpu"): what a checkpoint records and a resumed run must match,
// and what the ranks of one job must agree on. A new AccumConfig field belongs in that record,
// or neither comparison sees it (tst_export::accumConfigJsonHasEveryField).
nlohmann::ordered_json toJson(const AccumConfig &);
nlohmann::json toJson(const SweepConfig &);
// A sweep's whole settings (settings_io.h's sweepSettingsRecord), the device resolved: what the
// window hands the ranks it starts (accumlab-cli --settings FILE).
nlohmann::ordered_json sweepSettingsJson(const SweepConfig &);
// What the exports were measured on: LibTorch's version, the BLAS, the threads in effect, CUDA,
// AccumLab's version.
nlohmann::json environmentJson();
// accum-tradeoff.v1 (docs/memory.md: "The file"); parseTradeoffJson reads it back.
nlohmann::json tradeoffJson(const TradeoffResult &);
// {"schema", "points", "timed_region", "config", "environment", "equivalence"?}
nlohmann::json curveJson(const SweepResult &, const EquivalenceResult *equivalence = nullptr);
// The other results' one JSON object each, as `accumlab-cli ... --json` prints it: the
// out-of-memory demo (oom-demo), the micro-batch finder (find-micro-batch) and the loop's
// code as a run's settings call for it (loop-code).
nlohmann::json toJson(const WindowMemory &);
nlohmann::json toJson(const OomDemoResult &);
nlohmann::json toJson(const MicroBatchFinding &);
nlohmann::ordered_json toJson(const LoopListing &);

// A file that could not be written (full disk, vanished or read-only folder): a code of the
// content's errors/export.json with its arguments (core/content/errors.h); what() is the English
// sentence.
class ExportError : public CodedError {
public:
    ExportError(std::string code, TextArgs args, std::string reason = {})
        : CodedError(std::move(code), std::move(args)), m_reason(std::move(reason))
    {
    }
    // The cause alone (strerror's words), for a caller that writes its own sentence.
    const std::string &reason() const { return m_reason; }

private:
    std::string m_reason;
};

// A whole file written and flushed beside its destination, not yet visible: commit() renames
// it over the destination (a symlink there is replaced, never followed); destroyed
// uncommitted, it is removed. While it exists its temporary name is registered, so a signal
// handler can remove it (removeStagedFilesNow). Several files can be staged, then published
// together (publishTogether) or dropped together (a cancelled export leaves nothing behind).
// Its folder is opened once and every step (the temporary, the rename, the earlier file kept
// aside) is taken relative to that descriptor, so the folder cannot be swapped for a link
// between the write and the rename.
class StagedFile {
public:
    // Throws ExportError with a sentence; on failure nothing is left beside `path`. The folder
    // of `path` is the one the user named: it is created if missing, and a link to it is
    // followed (the user chose it).
    StagedFile(std::filesystem::path path, const std::string &content);
    // `inside` is a relative path below `root` (the folder the user named, e.g. a checkpoint
    // folder): each of its folders is opened without following a link (or created), so a link
    // planted there (gen-... -> ../elsewhere) is refused with export/path-leaves-folder, never
    // followed; "..", "." and absolute paths are refused the same way.
    StagedFile(const std::filesystem::path &root, const std::filesystem::path &inside, const std::string &content);
    ~StagedFile();
    StagedFile(const StagedFile &) = delete;
    StagedFile &operator=(const StagedFile &) = delete;
    void commit(); // throws ExportError; the destination keeps its earlier content then
    const std::filesystem::path &path() const { return m_path; }

private:
    friend void publishTogether(const std::vector<StagedFile *> &files);
    void stage(int dirFd, const std::string &content);
    std::filesystem::path m_path;
    std::string m_name;     // the destination's name in its folder
    std::string m_tmpName;  // the temporary's name in its folder
    int m_dirFd = -1;       // the folder, opened once
    int m_slot = -1; // in the signal-time registry
    bool m_committed = false;
};

// Opens the folder `inside` below `root` (root itself when empty), creating what is missing,
// without following a link below `root`: a descriptor for *at calls, closed by the caller.
// `created` (when given) says whether the last folder was made by this call. Throws
// ExportError export/path-leaves-folder for a link, a file or ".." on the way, and
// export/folder-not-created when a folder cannot be made.
int openFolderInside(const std::filesystem::path &root, const std::filesystem::path &inside, bool *created = nullptr);

// Publishes staged files in one folder as a set: under an exclusive lock on the folder (so
// writers of one out-dir publish one after the other, never interleaved), with the signals
// that end a process held back for the few renames, and with the earlier files kept aside
// until every rename succeeded. When one fails, the files already replaced get their earlier
// content back and ExportError says so; only if that also fails does the sentence name
// exactly which file is new and which is old.
void publishTogether(const std::vector<StagedFile *> &files);
// How long publishTogether waits for another writer's lock on the folder before it refuses
// (export/folder-busy): a publish holds it for a few renames.
inline constexpr std::chrono::seconds kFolderLockWait{10};

// One exclusive flock on `fd`, tried until `wait` has passed (zero: tried once), an
// interrupted try tried again: Held, Busy (another holder kept it past the wait), or
// Unsupported (a file system without locks, where the caller goes on unguarded). The lock
// goes with the descriptor.
enum class FileLock { Held, Busy, Unsupported };
FileLock lockExclusive(int fd, std::chrono::milliseconds wait);

// 16 hex digits from std::random_device: the id that pairs two exports of one run (and
// that keeps the ranks of one launch apart from another's).
std::string randomId();

// Async-signal-safe: removes every staged temporary file of this process. For a SIGINT or
// SIGTERM handler; installExportSignalCleanup() installs one.
void removeStagedFilesNow() noexcept;
// SIGINT, SIGTERM and SIGHUP remove the staged files, then end the process as the signal
// would have (exit status 128 + signal). Call once, early in main.
void installExportSignalCleanup();

// Writes `content` to a temp file beside `path`, flushes, then renames over `path`.
// Throws ExportError with a sentence on failure; never leaves a partial file.
void writeFileAtomic(const std::filesystem::path &path, const std::string &content);
// The same for `inside`, a relative path below `root` (StagedFile's second constructor): no
// link below `root` is followed.
void writeFileAtomic(const std::filesystem::path &root, const std::filesystem::path &inside, const std::string &content);

} // namespace accumlab
