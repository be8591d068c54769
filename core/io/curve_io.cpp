// accum-curve.v1 points: the writer of one point and the validating reader of a whole file.
// Torch-free (see curve_io.h); the fuzz target in tests/fuzz/ compiles this file alone.
#include "core/io/curve_io.h"
#include "core/io/json_reader.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace accumlab {

const char *const kCurveSchema = "accum-curve.v1";
const char *const kTradeoffSchema = "accum-tradeoff.v1";

using nlohmann::json;

json toJson(const SweepPoint &p)
{
    json j = {
        // The lesson's eight fields, by name and in its order.
        {"effective_batch", p.effectiveBatch},
        {"accum_steps", p.accumSteps},
        {"micro_batch", p.microBatch},
        {"avg_loss", p.avgLoss},
        {"samples_per_sec", p.samplesPerSec},
        {"median_step_ms", p.medianStepMs},
        {"sync_calls", p.syncCalls},
        {"steps", p.steps},
        // AccumLab's additions.
        {"world_size", p.worldSize},
        {"allreduce_calls", p.allreduceCalls},
        {"allreduce_bytes", p.allreduceBytes},
        {"allreduce_ms", p.allreduceMs},
        {"micro_batches", p.microBatches},
        {"optimizer_state_step", p.optimizerStateStep},
        {"warmup_steps", p.warmupSteps},
        {"wall_s", p.wallS},
        {"final_loss", p.finalLoss},
        {"losses", p.losses},
        // The interleaved timing blocks and their spread (median, slowest, fastest).
        {"samples_per_sec_blocks", p.blockSamplesPerSec},
        {"samples_per_sec_median", p.blockMedian()},
        {"samples_per_sec_min", p.blockMin()},
        {"samples_per_sec_max", p.blockMax()},
        {"diverged", p.diverged},
        {"device", p.device},
        {"dtype", p.dtype},
        {"threads", p.threads},
    };
    // A non-finite loss is written as null (JSON has no NaN); "diverged" says why.
    if (p.diverged) {
        j["diverged_at_step"] = p.divergedAtStep;
        if (!p.divergedReason.empty())
            j["diverged_reason"] = p.divergedReason;
    }
    // The logged loss, where it was measured (a point read from a file without it has none).
    if (!std::isnan(p.avgLoggedLoss) || p.diverged)
        j["avg_logged_loss"] = p.avgLoggedLoss;
    // float16 and the loss scaler, only where they ran (a reader takes files without them).
    if (!p.float16Path.empty())
        j["float16_path"] = p.float16Path;
    if (p.lossScaling) {
        j["loss_scaling"] = true;
        j["loss_scale"] = p.lossScale;
        j["skipped_windows"] = p.skippedWindows;
        j["unscale_calls"] = p.unscaleCalls;
    }
    // Null says "not measured" rather than zero (the CPU counter kept off).
    j["peak_mem_bytes"] = p.peakMemBytes ? json(*p.peakMemBytes) : json(nullptr);
    // What the engine holds, from its tensors (the rest of the peak is one micro-batch's
    // activations and the temporaries).
    if (p.held) {
        j["weights_bytes"] = p.held->weights;
        j["grad_bytes"] = p.held->gradients;
        j["optimizer_state_bytes"] = p.held->optimizerState;
        j["window_samples_bytes"] = p.held->windowSamples;
    }
    return j;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The detail of a fault in point `index` (0-based), in `field` when it is about one.
CurveErrorDetail pointDetail(size_t index, CurveErrorCode code, const char *field)
{
    CurveErrorDetail d;
    d.code = code;
    d.point = static_cast<int64_t>(index) + 1;
    d.field = field ? field : "";
    return d;
}

// Point `index` (0-based) is at fault: the code with its field, and the English sentence
// "point <index+1> <what>".
[[noreturn]] void fail(size_t index, CurveErrorCode code, const char *field, const std::string &what,
                       int64_t limit = 0)
{
    CurveErrorDetail d = pointDetail(index, code, field);
    d.limit = limit;
    throw CurveFormatError(std::move(d), "point " + std::to_string(index + 1) + " " + what);
}

// An error about the whole file.
[[noreturn]] void failFile(CurveErrorCode code, const std::string &sentence, int64_t number = 0, int64_t limit = 0,
                           std::string found = {})
{
    CurveErrorDetail d;
    d.code = code;
    d.number = number;
    d.limit = limit;
    d.found = std::move(found);
    throw CurveFormatError(std::move(d), sentence);
}

const json &requireField(const json &point, const char *name, size_t index)
{
    const auto it = point.find(name);
    if (it == point.end())
        fail(index, CurveErrorCode::MissingField, name, std::string("has no field '") + name + "'");
    if (!it->is_number())
        fail(index, CurveErrorCode::NotANumber, name, std::string("field '") + name + "' is not a number");
    if (it->is_number_float() && !std::isfinite(it->get<double>()))
        fail(index, CurveErrorCode::NotFinite, name, std::string("field '") + name + "' is not finite");
    return *it;
}

int64_t requireCount(const json &point, const char *name, size_t index, int64_t minimum)
{
    const json &v = requireField(point, name, index);
    // Unsigned JSON numbers above INT64_MAX are refused rather than wrapped.
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) ||
        v.get<int64_t>() < minimum)
        fail(index, CurveErrorCode::NotAWholeNumber, name,
             std::string("field '") + name + "' must be a whole number >= " + std::to_string(minimum), minimum);
    return v.get<int64_t>();
}

double requireNonNegative(const json &point, const char *name, size_t index)
{
    const double v = requireField(point, name, index).get<double>();
    if (v < 0.0)
        fail(index, CurveErrorCode::Negative, name, std::string("field '") + name + "' is negative");
    return v;
}

// A measurement: zero, or between kMinNonZeroMeasure and `max`.
double checkMeasure(double v, const char *name, size_t index, double max)
{
    if (v < 0.0)
        fail(index, CurveErrorCode::Negative, name, std::string("field '") + name + "' is negative");
    if (v > max || (v != 0.0 && v < kMinNonZeroMeasure)) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", v);
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", max);
        fail(index, CurveErrorCode::OutOfRange, name,
             std::string("field '") + name + "' is " + text + ", outside what a measurement can be (0, or 1e-09 to " +
                 bound + ")");
    }
    return v;
}

double requireMeasure(const json &point, const char *name, size_t index, double max)
{
    return checkMeasure(requireField(point, name, index).get<double>(), name, index, max);
}

int64_t requireBatchCount(const json &point, const char *name, size_t index)
{
    const int64_t v = requireCount(point, name, index, 1);
    if (v > kMaxBatchCount)
        fail(index, CurveErrorCode::OutOfRange, name,
             std::string("field '") + name + "' is " + std::to_string(v) + ", beyond 2^40");
    return v;
}

// A loss: a finite number, or null where the point diverged (JSON has no NaN).
double lossValue(const json &v, bool diverged, size_t index, const char *name)
{
    if (v.is_null() && diverged)
        return kNaN;
    if (!v.is_number() || (v.is_number_float() && !std::isfinite(v.get<double>())))
        fail(index, CurveErrorCode::NotANumber, name, std::string("field '") + name + "' is not a number");
    return v.get<double>();
}

bool requireBool(const json &pj, const char *name, size_t i)
{
    const auto it = pj.find(name);
    if (it == pj.end())
        fail(i, CurveErrorCode::MissingField, name, std::string("has no field '") + name + "'");
    if (!it->is_boolean())
        fail(i, CurveErrorCode::NotTrueOrFalse, name, std::string("field '") + name + "' is not true or false");
    return it->get<bool>();
}

SweepPoint parsePoint(const json &pj, size_t i)
{
    if (!pj.is_object())
        fail(i, CurveErrorCode::PointNotAnObject, nullptr, "is not an object");
    SweepPoint p;
    if (const auto it = pj.find("diverged"); it != pj.end()) {
        if (!it->is_boolean())
            fail(i, CurveErrorCode::NotTrueOrFalse, "diverged", "field 'diverged' is not true or false");
        p.diverged = it->get<bool>();
    }
    p.effectiveBatch = requireBatchCount(pj, "effective_batch", i);
    p.accumSteps = requireBatchCount(pj, "accum_steps", i);
    p.microBatch = requireBatchCount(pj, "micro_batch", i);
    if (!pj.contains("avg_loss"))
        fail(i, CurveErrorCode::MissingField, "avg_loss", "has no field 'avg_loss'");
    p.avgLoss = lossValue(pj.at("avg_loss"), p.diverged, i, "avg_loss");
    p.samplesPerSec = requireMeasure(pj, "samples_per_sec", i, kMaxSamplesPerSec);
    p.medianStepMs = requireMeasure(pj, "median_step_ms", i, kMaxStepMs);
    p.syncCalls = requireCount(pj, "sync_calls", i, 0);
    p.steps = requireCount(pj, "steps", i, 0);
    if (pj.contains("world_size"))
        p.worldSize = requireCount(pj, "world_size", i, 1);
    int64_t product = 0;
    if (__builtin_mul_overflow(p.accumSteps, p.microBatch, &product) ||
        __builtin_mul_overflow(product, p.worldSize, &product) || p.effectiveBatch != product) {
        CurveErrorDetail d = pointDetail(i, CurveErrorCode::BatchIdentity, "effective_batch");
        d.number = p.effectiveBatch;
        throw CurveFormatError(std::move(d), "point " + std::to_string(i + 1) + ": effective_batch " +
                                                 std::to_string(p.effectiveBatch) +
                                                 " is not micro_batch x accum_steps x world_size");
    }
    if (p.diverged)
        p.divergedAtStep = requireCount(pj, "diverged_at_step", i, 0);
    // AccumLab's own fields, when present (the lesson's files do not carry them).
    if (pj.contains("allreduce_calls"))
        p.allreduceCalls = requireCount(pj, "allreduce_calls", i, 0);
    if (pj.contains("allreduce_bytes"))
        p.allreduceBytes = requireCount(pj, "allreduce_bytes", i, 0);
    if (pj.contains("allreduce_ms"))
        p.allreduceMs = requireNonNegative(pj, "allreduce_ms", i);
    if (pj.contains("micro_batches"))
        p.microBatches = requireCount(pj, "micro_batches", i, 0);
    if (pj.contains("optimizer_state_step"))
        p.optimizerStateStep = requireCount(pj, "optimizer_state_step", i, 0);
    if (pj.contains("warmup_steps"))
        p.warmupSteps = requireCount(pj, "warmup_steps", i, 0);
    if (pj.contains("peak_mem_bytes") && !pj.at("peak_mem_bytes").is_null())
        p.peakMemBytes = requireCount(pj, "peak_mem_bytes", i, 0);
    if (pj.contains("weights_bytes")) {
        HeldBytes h;
        h.weights = requireCount(pj, "weights_bytes", i, 0);
        h.gradients = requireCount(pj, "grad_bytes", i, 0);
        h.optimizerState = requireCount(pj, "optimizer_state_bytes", i, 0);
        h.windowSamples = requireCount(pj, "window_samples_bytes", i, 0);
        p.held = h;
    }
    if (pj.contains("final_loss"))
        p.finalLoss = lossValue(pj.at("final_loss"), p.diverged, i, "final_loss");
    if (pj.contains("avg_logged_loss"))
        p.avgLoggedLoss = lossValue(pj.at("avg_logged_loss"), p.diverged, i, "avg_logged_loss");
    if (pj.contains("wall_s"))
        p.wallS = requireNonNegative(pj, "wall_s", i);
    if (const auto it = pj.find("losses"); it != pj.end()) {
        if (!it->is_array())
            fail(i, CurveErrorCode::NotAList, "losses", "field 'losses' is not a list");
        p.losses.reserve(it->size());
        for (const json &l : *it)
            p.losses.push_back(lossValue(l, p.diverged, i, "losses"));
    }
    if (const auto it = pj.find("samples_per_sec_blocks"); it != pj.end()) {
        constexpr const char *kBlocks = "samples_per_sec_blocks";
        if (!it->is_array())
            fail(i, CurveErrorCode::NotAList, kBlocks, "field 'samples_per_sec_blocks' is not a list");
        for (const json &b : *it) {
            if (!b.is_number() || (b.is_number_float() && !std::isfinite(b.get<double>())))
                fail(i, CurveErrorCode::NotANumber, kBlocks, "field 'samples_per_sec_blocks' holds a non-number");
            p.blockSamplesPerSec.push_back(checkMeasure(b.get<double>(), kBlocks, i, kMaxSamplesPerSec));
        }
    }
    if (const auto it = pj.find("device"); it != pj.end() && it->is_string())
        p.device = it->get<std::string>();
    if (const auto it = pj.find("dtype"); it != pj.end() && it->is_string())
        p.dtype = it->get<std::string>();
    if (const auto it = pj.find("float16_path"); it != pj.end() && it->is_string())
        p.float16Path = it->get<std::string>();
    // Why a point diverged (core/divergence.h's short codes); a longer string is not one of them.
    if (const auto it = pj.find("diverged_reason"); p.diverged && it != pj.end() && it->is_string() &&
                                                    it->get_ref<const std::string &>().size() <= 32)
        p.divergedReason = it->get<std::string>();
    if (pj.contains("loss_scaling")) {
        p.lossScaling = requireBool(pj, "loss_scaling", i);
        if (p.lossScaling) {
            p.lossScale = requireMeasure(pj, "loss_scale", i, std::numeric_limits<float>::max());
            p.skippedWindows = requireCount(pj, "skipped_windows", i, 0);
            p.unscaleCalls = requireCount(pj, "unscale_calls", i, 0);
        }
    }
    if (const auto it = pj.find("threads"); it != pj.end() && it->is_number_integer()) {
        const int64_t t = it->get<int64_t>();
        p.threads = t >= 0 && t <= 1024 ? static_cast<int>(t) : 0;
    }
    return p;
}

} // namespace

namespace {

// The checks every file of ours gets before its points: size, JSON, nesting, an object, the
// schema, a non-empty 'points' list.
json parseTop(const std::string &text, const char *schema, const char *what)
{
    if (text.size() > kMaxCurveFileBytes)
        failFile(CurveErrorCode::FileTooLarge,
                 "the file is " + std::to_string(text.size() >> 20) + " MiB; an " + what + " file is at most " +
                     std::to_string(kMaxCurveFileBytes >> 20) + " MiB",
                 static_cast<int64_t>(text.size() >> 20), static_cast<int64_t>(kMaxCurveFileBytes >> 20));
    json j;
    try {
        j = parseJson(text, kMaxCurveJsonDepth); // the one JSON reader (core/io/json_reader.h)
    } catch (const JsonRefusal &r) {
        if (r.kind == JsonRefusal::TooDeep)
            failFile(CurveErrorCode::TooDeep,
                     "the file nests deeper than " + std::to_string(kMaxCurveJsonDepth) +
                         " levels; it is not an accum-curve file",
                     0, kMaxCurveJsonDepth);
        failFile(CurveErrorCode::NotJson, "not valid JSON: " + r.reason, static_cast<int64_t>(r.byte));
    }
    if (!j.is_object())
        failFile(CurveErrorCode::NotAnObject, "the file is not a JSON object");
    const auto found = j.find("schema");
    if (found == j.end() || !found->is_string() || *found != schema)
        failFile(CurveErrorCode::WrongSchema, std::string("the schema is not ") + schema, 0, 0,
                 found != j.end() && found->is_string() ? found->get<std::string>() : std::string());
    const auto points = j.find("points");
    if (points == j.end() || !points->is_array())
        failFile(CurveErrorCode::NoPoints, "the file has no 'points' list");
    if (points->empty())
        failFile(CurveErrorCode::EmptyPoints, "the 'points' list is empty");
    return j;
}


// A byte count that may be null (not measured on that device).
std::optional<int64_t> optionalCount(const json &pj, const char *name, size_t i)
{
    if (!pj.contains(name) || pj.at(name).is_null())
        return std::nullopt;
    return requireCount(pj, name, i, 0);
}

TradeoffPoint parseTradeoffPoint(const json &pj, size_t i, int64_t worldSize, int64_t effective,
                                 std::optional<int64_t> budget)
{
    if (!pj.is_object())
        fail(i, CurveErrorCode::PointNotAnObject, nullptr, "is not an object");
    TradeoffPoint p;
    p.microBatch = requireBatchCount(pj, "micro_batch", i);
    p.accumSteps = requireBatchCount(pj, "accum_steps", i);
    p.effectiveBatch = requireBatchCount(pj, "effective_batch", i);
    const __int128 product = static_cast<__int128>(p.microBatch) * p.accumSteps * worldSize; // 2^40 each: no overflow
    if (p.effectiveBatch != effective || product != effective) {
        CurveErrorDetail d = pointDetail(i, CurveErrorCode::BatchIdentity, "effective_batch");
        d.number = p.effectiveBatch;
        throw CurveFormatError(std::move(d), "point " + std::to_string(i + 1) + ": effective_batch " +
                                                 std::to_string(p.effectiveBatch) + " is not the file's " +
                                                 std::to_string(effective) + " = micro_batch x accum_steps x world_size");
    }
    p.outOfMemory = requireBool(pj, "out_of_memory", i);
    if (const auto it = pj.find("error"); it != pj.end() && it->is_string())
        p.error = it->get<std::string>();
    p.steps = requireCount(pj, "steps", i, 0);
    if (p.outOfMemory != (p.steps == 0))
        fail(i, CurveErrorCode::OutOfRange, "steps",
             p.outOfMemory ? "ran out of memory yet has timed steps" : "has no timed steps yet did not run out of memory");
    p.stepMsMedian = requireMeasure(pj, "step_ms_median", i, kMaxStepMs);
    p.samplesPerSec = requireMeasure(pj, "samples_per_sec", i, kMaxSamplesPerSec);
    if (!p.outOfMemory && (p.stepMsMedian == 0.0 || p.samplesPerSec == 0.0))
        fail(i, CurveErrorCode::OutOfRange, "samples_per_sec", "ran but has no time per step");
    p.peakMemBytes = optionalCount(pj, "peak_mem_bytes", i);
    if (budget && p.peakMemBytes && !p.outOfMemory && *p.peakMemBytes > *budget)
        fail(i, CurveErrorCode::OutOfRange, "peak_mem_bytes",
             "field 'peak_mem_bytes' is above the budget, yet the point did not run out of memory");
    p.memory.peakBytes = p.peakMemBytes.value_or(0);
    p.memory.held.weights = optionalCount(pj, "weights_bytes", i).value_or(0);
    p.memory.held.gradients = optionalCount(pj, "grad_bytes", i).value_or(0);
    p.memory.held.optimizerState = optionalCount(pj, "optimizer_state_bytes", i).value_or(0);
    p.memory.held.windowSamples = optionalCount(pj, "window_samples_bytes", i).value_or(0);
    // The transient split: both figures or neither (files before it have neither).
    const auto activations = optionalCount(pj, "activation_bytes", i);
    const auto step = optionalCount(pj, "step_temporary_bytes", i);
    if (activations && step)
        p.memory.transient = WindowMemory::Transient{*activations, *step};
    return p;
}

} // namespace

CurveFile parseCurveJson(const std::string &text)
{
    CurveFile file;
    file.raw = parseTop(text, kCurveSchema, "accum-curve");
    const json &points = file.raw.at("points");
    file.points.reserve(points.size());
    for (size_t i = 0; i < points.size(); ++i)
        file.points.push_back(parsePoint(points[i], i));
    return file;
}

TradeoffFile parseTradeoffJson(const std::string &text)
{
    TradeoffFile file;
    file.raw = parseTop(text, kTradeoffSchema, "accum-tradeoff");
    const json &j = file.raw;
    // The file-wide counts: whole numbers from `minimum` to `maximum`.
    const auto top = [&](const char *name, int64_t minimum, int64_t maximum) {
        const auto it = j.find(name);
        const bool whole = it != j.end() && it->is_number_integer() &&
                           !(it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(INT64_MAX));
        if (!whole || it->get<int64_t>() < minimum || it->get<int64_t>() > maximum) {
            CurveErrorDetail d;
            d.code = it == j.end() ? CurveErrorCode::MissingField : CurveErrorCode::NotAWholeNumber;
            d.field = name;
            d.limit = minimum;
            throw CurveFormatError(std::move(d), std::string("the file's field '") + name + "' must be a whole number from " +
                                                     std::to_string(minimum) + " to " + std::to_string(maximum));
        }
        return it->get<int64_t>();
    };
    file.effectiveBatch = top("effective_batch", 1, kMaxBatchCount);
    file.worldSize = top("world_size", 1, kMaxBatchCount);
    if (j.contains("budget_bytes") && !j.at("budget_bytes").is_null())
        file.budgetBytes = top("budget_bytes", 1, INT64_MAX);
    const json &points = j.at("points");
    file.points.reserve(points.size());
    for (size_t i = 0; i < points.size(); ++i)
        file.points.push_back(parseTradeoffPoint(points[i], i, file.worldSize, file.effectiveBatch, file.budgetBytes));
    return file;
}

} // namespace accumlab
