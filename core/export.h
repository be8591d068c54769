// The exports: accum-curve.json (schema accum-curve.v1, lesson field names) and the
// atomic file write every export goes through. The point writer and the validating reader
// live in core/curve_io.h (torch-free, fuzzed).
#pragma once

#include "core/curve_io.h"
#include "core/equivalence.h"
#include "core/sweep.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace accumlab {

nlohmann::json toJson(const EquivalenceResult &);
nlohmann::json toJson(const SweepConfig &);
nlohmann::json environmentJson(const SweepConfig &);
// {"schema", "points", "timed_region", "config", "environment", "equivalence"?}
nlohmann::json curveJson(const SweepResult &, const EquivalenceResult *equivalence = nullptr);

// A file that could not be written (full disk, vanished or read-only folder): one sentence.
class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A whole file written and flushed beside its destination, not yet visible: commit() renames
// it over the destination; destroyed uncommitted, it is removed. Several files can be staged,
// then published together or dropped together (a cancelled export leaves nothing behind).
class StagedFile {
public:
    // Throws ExportError with a sentence; on failure nothing is left beside `path`.
    StagedFile(std::filesystem::path path, const std::string &content);
    ~StagedFile();
    StagedFile(const StagedFile &) = delete;
    StagedFile &operator=(const StagedFile &) = delete;
    void commit(); // throws ExportError; the destination keeps its earlier content then

private:
    std::filesystem::path m_path;
    std::filesystem::path m_tmp;
    bool m_committed = false;
};

// Writes `content` to a temp file beside `path`, flushes, then renames over `path`.
// Throws ExportError with a sentence on failure; never leaves a partial file.
void writeFileAtomic(const std::filesystem::path &path, const std::string &content);

} // namespace accumlab
