// accum-curve.v1 points, both ways: one sweep point to JSON, and the validating reader of a
// whole file (ours or the lesson's own eight-field points). Torch-free and Qt-free on purpose:
// the reader is what the desktop app's importer trusts, and it is fuzzed on its own
// (tests/fuzz/) without LibTorch. Not the place for the rest of an export (config,
// environment, equivalence): that is core/io/export.h.
#pragma once

#include "core/memory/memory_lab.h"
#include "core/sweep.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace accumlab {

extern const char *const kCurveSchema;    // "accum-curve.v1"
extern const char *const kTradeoffSchema; // "accum-tradeoff.v1"

// Files larger than this are refused before parsing (a curve of a few hundred points is a
// few hundred kilobytes; a classroom's stray video file is not a curve).
constexpr std::size_t kMaxCurveFileBytes = std::size_t(32) << 20;
// Deeper JSON nesting than this is refused (ours nests four levels).
constexpr int kMaxCurveJsonDepth = 64;

// Why a file is not a valid accum-curve.v1, for a caller that words it itself (the desktop
// app says it in the user's language). Each code names the arguments it fills below.
enum class CurveErrorCode {
    FileTooLarge,     // number: the file's size in MiB; limit: the largest accepted, in MiB
    NotJson,          // number: byte offset where parsing stopped (0 when not known)
    TooDeep,          // limit: kMaxCurveJsonDepth
    NotAnObject,      // the top level is not a JSON object
    WrongSchema,      // found: the schema the file names ("" when none); expected: kCurveSchema
    NoPoints,         // no "points" list
    EmptyPoints,      // the "points" list is empty
    PointNotAnObject, // point
    MissingField,     // point, field
    NotANumber,       // point, field
    NotFinite,        // point, field (a tree built in memory: the parser refuses 1e999)
    NotAWholeNumber,  // point, field, limit: the smallest accepted
    Negative,         // point, field
    NotTrueOrFalse,   // point, field
    NotAList,         // point, field
    BatchIdentity,    // point, number: the effective_batch written
    OutOfRange,       // point, field: a measurement no machine gives (samples_per_sec 1e308 or
                      // 5e-324, a batch of 2^60), which would also break the chart's axes
};

// What a measured point can hold: at most a trillion samples per second; a rate or a step time
// that is not zero is at least 1e-9 (below it a figure is noise or a subnormal); batches and
// accumulation steps at most 2^40.
constexpr double kMaxSamplesPerSec = 1e12;
constexpr double kMinNonZeroMeasure = 1e-9;
constexpr double kMaxStepMs = 1e12;
constexpr int64_t kMaxBatchCount = int64_t(1) << 40;

struct CurveErrorDetail {
    CurveErrorCode code = CurveErrorCode::NotJson;
    int64_t point = 0;  // 1-based index of the point at fault; 0 when not about one point
    std::string field;  // the field at fault, "samples_per_sec"
    int64_t number = 0; // see the code
    int64_t limit = 0;  // see the code
    std::string found;  // WrongSchema: the schema the file names
};

// A file that is not a valid accum-curve.v1: what() is one English sentence for the user (the
// CLI prints it); detail() says the same for a caller that words it in another language.
class CurveFormatError : public std::runtime_error {
public:
    CurveFormatError(CurveErrorDetail detail, const std::string &sentence)
        : std::runtime_error(sentence), m_detail(std::move(detail))
    {
    }
    const CurveErrorDetail &detail() const { return m_detail; }
    CurveErrorCode code() const { return m_detail.code; }

private:
    CurveErrorDetail m_detail;
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

// A parsed accum-tradeoff.v1 file (accumlab-cli tradeoff; docs/memory.md documents its fields):
// the same checks as a curve, and per point the batch identity, timed steps exactly when the
// point did not run out of memory, and no point that fitted with a peak above the budget.
struct TradeoffFile {
    int64_t effectiveBatch = 0;
    int64_t worldSize = 1;
    std::optional<int64_t> budgetBytes;
    std::vector<TradeoffPoint> points;
    nlohmann::json raw;
};
TradeoffFile parseTradeoffJson(const std::string &text);

} // namespace accumlab
