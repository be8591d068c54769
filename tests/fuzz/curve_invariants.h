// What must hold for any input to the accum-curve.v1 reader (and to the accum-tradeoff.v1
// reader beside it), shared by the libFuzzer target
// (fuzz_curve_json.cpp) and the corpus replay in the Qt Test suite (tst_curve_corpus.cpp):
//  - the reader returns or throws CurveFormatError, nothing else;
//  - an accepted file has points that satisfy the lesson's identity and bounds;
//  - an accepted file's points, written back with toJson and read again, are the same points.
// Torch-free and Qt-free, like core/io/curve_io.cpp.
#pragma once

#include "core/io/curve_io.h"

#include <cmath>
#include <exception>
#include <string>

namespace accumlab::fuzz {

inline bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline bool samePoint(const SweepPoint &a, const SweepPoint &b)
{
    if (a.losses.size() != b.losses.size())
        return false;
    for (size_t i = 0; i < a.losses.size(); ++i)
        if (!sameValue(a.losses[i], b.losses[i]))
            return false;
    return a.effectiveBatch == b.effectiveBatch && a.accumSteps == b.accumSteps && a.microBatch == b.microBatch &&
           sameValue(a.avgLoss, b.avgLoss) && a.samplesPerSec == b.samplesPerSec &&
           a.medianStepMs == b.medianStepMs && a.syncCalls == b.syncCalls && a.steps == b.steps &&
           a.worldSize == b.worldSize && a.diverged == b.diverged && a.divergedAtStep == b.divergedAtStep &&
           a.peakMemBytes == b.peakMemBytes && a.held == b.held && a.device == b.device && a.dtype == b.dtype;
}

// The accum-tradeoff.v1 reader on the same text: it returns or throws CurveFormatError; an
// accepted file keeps the batch identity, timed steps exactly where memory held, and no
// fitted point above the budget.
inline std::string tradeoffInvariantViolation(const std::string &text)
{
    TradeoffFile file;
    try {
        file = parseTradeoffJson(text);
    } catch (const CurveFormatError &e) {
        return std::string(e.what()).empty() ? "a trade-off rejection without a message" : "";
    } catch (const std::exception &e) {
        return std::string("the trade-off reader threw something other than CurveFormatError: ") + e.what();
    }
    for (const TradeoffPoint &p : file.points) {
        if (p.microBatch < 1 || p.accumSteps < 1 || p.effectiveBatch != file.effectiveBatch ||
            static_cast<__int128>(p.microBatch) * p.accumSteps * file.worldSize != file.effectiveBatch)
            return "an accepted trade-off point breaks effective = micro x accum x world";
        if (p.outOfMemory != (p.steps == 0))
            return "an accepted trade-off point has timed steps and ran out of memory, or neither";
        if (file.budgetBytes && p.peakMemBytes && !p.outOfMemory && *p.peakMemBytes > *file.budgetBytes)
            return "an accepted trade-off point fitted above its budget";
    }
    return "";
}

// Empty when every invariant holds, else what broke. `accepted` tells which way the reader went.
inline std::string curveInvariantViolation(const std::string &text, bool *accepted = nullptr)
{
    if (std::string tradeoff = tradeoffInvariantViolation(text); !tradeoff.empty())
        return tradeoff;
    CurveFile file;
    try {
        file = parseCurveJson(text);
    } catch (const CurveFormatError &e) {
        if (accepted)
            *accepted = false;
        return std::string(e.what()).empty() ? "a rejection without a message" : "";
    } catch (const std::exception &e) {
        return std::string("the reader threw something other than CurveFormatError: ") + e.what();
    }
    if (accepted)
        *accepted = true;
    if (file.points.empty())
        return "an accepted file has no points";
    nlohmann::json back = {{"schema", kCurveSchema}, {"points", nlohmann::json::array()}};
    for (const SweepPoint &p : file.points) {
        if (p.effectiveBatch != p.microBatch * p.accumSteps * p.worldSize || p.microBatch < 1 || p.accumSteps < 1 ||
            p.worldSize < 1)
            return "an accepted point breaks effective = micro x accum x world";
        if (!std::isfinite(p.samplesPerSec) || p.samplesPerSec < 0 || !std::isfinite(p.medianStepMs) ||
            p.medianStepMs < 0)
            return "an accepted point has a negative or non-finite speed";
        if (!p.diverged && !std::isfinite(p.avgLoss))
            return "an accepted point that did not diverge has a non-finite loss";
        if (p.diverged && p.divergedAtStep < 0)
            return "an accepted diverged point has no step";
        back["points"].push_back(toJson(p));
    }
    CurveFile again;
    try {
        again = parseCurveJson(back.dump());
    } catch (const std::exception &e) {
        return std::string("the reader refused its own points written back: ") + e.what();
    }
    if (again.points.size() != file.points.size())
        return "the round trip changed the number of points";
    for (size_t i = 0; i < file.points.size(); ++i)
        if (!samePoint(file.points[i], again.points[i]))
            return "the round trip changed point " + std::to_string(i + 1);
    return {};
}

} // namespace accumlab::fuzz
