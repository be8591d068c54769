// accum-curve.v1 points, both ways: one sweep point to JSON, and the validating reader of a
// whole file (ours or the lesson's own eight-field points). Torch-free and Qt-free on purpose:
// the reader is what the desktop app's importer trusts, and it is fuzzed on its own
// (tests/fuzz/) without LibTorch. Not the place for the rest of an export (config,
// environment, equivalence): that is core/export.h.
#pragma once

#include "core/sweep.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace accumlab {

extern const char *const kCurveSchema; // "accum-curve.v1"

// Files larger than this are refused before parsing (a curve of a few hundred points is a
// few hundred kilobytes; a classroom's stray video file is not a curve).
constexpr std::size_t kMaxCurveFileBytes = std::size_t(32) << 20;
// Deeper JSON nesting than this is refused (ours nests four levels).
constexpr int kMaxCurveJsonDepth = 64;

// A file that is not a valid accum-curve.v1: the message is one sentence for the user.
class CurveFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

nlohmann::json toJson(const SweepPoint &);

// A parsed accum-curve.v1 file (ours or the lesson's own).
struct CurveFile {
    std::vector<SweepPoint> points;
    nlohmann::json raw;
};
// Validates schema and each point's lesson fields; throws CurveFormatError with a sentence.
// A diverged point (ours: "diverged": true) may carry null where a loss was not finite.
CurveFile parseCurveJson(const std::string &text);

} // namespace accumlab
