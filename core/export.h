// The exports: accum-curve.json (schema accum-curve.v1, lesson field names) and the
// atomic file write every export goes through. Also the reader that validates a curve.
#pragma once

#include "core/equivalence.h"
#include "core/sweep.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace accumlab {

extern const char *const kCurveSchema; // "accum-curve.v1"

nlohmann::json toJson(const EquivalenceResult &);
nlohmann::json toJson(const SweepPoint &);
nlohmann::json toJson(const SweepConfig &);
nlohmann::json environmentJson(const SweepConfig &);
// {"schema", "points", "timed_region", "config", "environment", "equivalence"?}
nlohmann::json curveJson(const SweepResult &, const EquivalenceResult *equivalence = nullptr);

// Writes `content` to a temp file beside `path`, flushes, then renames over `path`.
// Throws std::runtime_error with a sentence on failure; never leaves a partial file.
void writeFileAtomic(const std::filesystem::path &path, const std::string &content);

// A parsed accum-curve.v1 file (ours or the lesson's own).
struct CurveFile {
    std::vector<SweepPoint> points;
    nlohmann::json raw;
};
// Validates schema and each point's lesson fields; throws std::runtime_error with a sentence.
CurveFile parseCurveJson(const std::string &text);

} // namespace accumlab
