// String forms, presets and validation of the configuration types.
#include "core/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace accumlab {

namespace {

template <typename E, size_t N>
E fromTable(const std::string &text, const std::pair<const char *, E> (&table)[N], const char *what)
{
    for (const auto &[name, value] : table)
        if (text == name)
            return value;
    std::string allowed;
    for (const auto &[name, value] : table)
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    throw ConfigError("unknown " + std::string(what) + " '" + text + "' (expected one of: " + allowed + ")");
}

template <typename E, size_t N>
std::string toTable(E value, const std::pair<const char *, E> (&table)[N])
{
    for (const auto &[name, v] : table)
        if (v == value)
            return name;
    return "?";
}

const std::pair<const char *, OptimizerKind> kOptimizers[] = {
    {"sgd", OptimizerKind::Sgd}, {"momentum", OptimizerKind::Momentum}, {"adamw", OptimizerKind::AdamW}};
const std::pair<const char *, Scaling> kScalings[] = {{"divide", Scaling::Divide}, {"none", Scaling::None}};
const std::pair<const char *, AccumBug> kBugs[] = {{"none", AccumBug::None},
                                                   {"zero-every-micro", AccumBug::ZeroEveryMicro},
                                                   {"never-zero", AccumBug::NeverZero},
                                                   {"divide-by-n-plus-1", AccumBug::DivideByNPlusOne},
                                                   {"skip-last-micro", AccumBug::SkipLastMicro},
                                                   {"count-micro-twice", AccumBug::CountMicroTwice},
                                                   {"clip-each-micro", AccumBug::ClipEachMicro},
                                                   {"schedule-every-micro", AccumBug::ScheduleEveryMicro}};
const std::pair<const char *, DType> kDTypes[] = {
    {"float32", DType::Float32}, {"float64", DType::Float64}, {"bfloat16", DType::BFloat16}};
const std::pair<const char *, DeviceRequest> kDevices[] = {
    {"auto", DeviceRequest::Auto}, {"cpu", DeviceRequest::Cpu}, {"cuda", DeviceRequest::Cuda}};
const std::pair<const char *, LabelKind> kLabels[] = {{"teacher", LabelKind::Teacher}, {"random", LabelKind::Random}};
const std::pair<const char *, ModelPreset> kPresets[] = {
    {"lesson", ModelPreset::Lesson}, {"wide", ModelPreset::Wide}, {"fixture", ModelPreset::Fixture}};

int64_t parsePositive(const std::string &token, const char *what)
{
    int64_t value = 0;
    const char *begin = token.data();
    const char *end = begin + token.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range)
        throw ConfigError(std::string(what) + " '" + token + "' is out of range");
    if (ec != std::errc() || ptr != end)
        throw ConfigError(std::string(what) + " '" + token + "' is not a whole number");
    if (value <= 0)
        throw ConfigError(std::string(what) + " must be positive, got " + token);
    return value;
}

std::string trim(const std::string &s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos)
        return {};
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

void requireRange(int64_t value, int64_t lo, int64_t hi, const char *what)
{
    if (value < lo || value > hi)
        throw ConfigError(std::string(what) + " must be between " + std::to_string(lo) + " and " +
                          std::to_string(hi) + ", got " + std::to_string(value));
}

void validateOptimizer(const OptimizerConfig &o)
{
    if (!std::isfinite(o.lr) || o.lr <= 0.0 || o.lr > 1e3)
        throw ConfigError("learning rate must be a positive finite number no larger than 1000");
    // Written so that NaN fails every check.
    if (!(o.momentum >= 0.0 && o.momentum < 1.0))
        throw ConfigError("momentum must be in [0, 1)");
    if (!(o.beta1 >= 0.0 && o.beta1 < 1.0 && o.beta2 >= 0.0 && o.beta2 < 1.0))
        throw ConfigError("Adam betas must be in [0, 1)");
    if (!(o.eps > 0.0 && std::isfinite(o.eps)))
        throw ConfigError("Adam epsilon must be positive");
    if (!(o.weightDecay >= 0.0 && std::isfinite(o.weightDecay) && o.adamWeightDecay >= 0.0 &&
          std::isfinite(o.adamWeightDecay)))
        throw ConfigError("weight decay must not be negative");
    if (!(o.clipNorm >= 0.0 && std::isfinite(o.clipNorm)))
        throw ConfigError("the clip norm must be a finite number >= 0 (0 turns clipping off)");
    if (o.lrWarmup < 0 || o.lrWarmup > 1000000)
        throw ConfigError("the learning-rate warmup must be between 0 (none) and 1000000 updates");
}

void validateShape(const ModelShape &s)
{
    requireRange(s.inFeatures, 1, 1 << 16, "input features");
    requireRange(s.hidden, 1, 1 << 16, "hidden width");
    requireRange(s.classes, 2, 1 << 16, "number of classes");
    // Each factor is at most 2^16, so these products fit in int64.
    const int64_t parameters =
        s.inFeatures * s.hidden + s.hidden + s.hidden * s.hidden + s.hidden + s.hidden * s.classes + s.classes;
    if (parameters > kMaxTensorElements)
        throw ConfigError("a model of " + std::to_string(s.inFeatures) + " inputs, hidden width " +
                          std::to_string(s.hidden) + " and " + std::to_string(s.classes) + " classes has " +
                          std::to_string(parameters) + " parameters, more than " + std::to_string(kMaxTensorElements) +
                          "; choose a smaller width");
}

int64_t widest(const ModelShape &s) { return std::max({s.inFeatures, s.hidden, s.classes}); }

} // namespace

std::string toString(OptimizerKind v) { return toTable(v, kOptimizers); }
std::string toString(Scaling v) { return toTable(v, kScalings); }
std::string toString(AccumBug v) { return toTable(v, kBugs); }
std::vector<std::string> accumBugNames()
{
    std::vector<std::string> out;
    for (const auto &[name, bug] : kBugs)
        out.emplace_back(name);
    return out;
}
std::string toString(DType v) { return toTable(v, kDTypes); }
std::string toString(DeviceRequest v) { return toTable(v, kDevices); }
std::string toString(LabelKind v) { return toTable(v, kLabels); }
std::string toString(ModelPreset v) { return toTable(v, kPresets); }
OptimizerKind optimizerFromString(const std::string &s) { return fromTable(s, kOptimizers, "optimizer"); }
Scaling scalingFromString(const std::string &s) { return fromTable(s, kScalings, "scaling"); }
AccumBug accumBugFromString(const std::string &s) { return fromTable(s, kBugs, "bug"); }
DType dtypeFromString(const std::string &s) { return fromTable(s, kDTypes, "dtype"); }
DeviceRequest deviceFromString(const std::string &s) { return fromTable(s, kDevices, "device"); }
LabelKind labelsFromString(const std::string &s) { return fromTable(s, kLabels, "label kind"); }
ModelPreset presetFromString(const std::string &s) { return fromTable(s, kPresets, "model preset"); }

double effectiveClipNorm(const OptimizerConfig &o, AccumBug bug)
{
    if (o.clipNorm > 0.0)
        return o.clipNorm;
    return bug == AccumBug::ClipEachMicro ? kBugClipNorm : 0.0;
}

int64_t effectiveLrWarmup(const OptimizerConfig &o, AccumBug bug)
{
    if (o.lrWarmup > 0)
        return o.lrWarmup;
    return bug == AccumBug::ScheduleEveryMicro ? kBugLrWarmup : 0;
}

double scheduledLr(const OptimizerConfig &o, int64_t k, int64_t warmup)
{
    if (warmup <= 0)
        return o.lr;
    return o.lr * std::min(1.0, static_cast<double>(k + 1) / static_cast<double>(warmup));
}

double dtypeEpsilon(DType d)
{
    switch (d) {
    case DType::Float32: return std::ldexp(1.0, -23);
    case DType::Float64: return std::ldexp(1.0, -52);
    case DType::BFloat16: return std::ldexp(1.0, -7);
    }
    return 0.0;
}

ModelShape shapeOf(ModelPreset preset)
{
    switch (preset) {
    case ModelPreset::Lesson: return {64, 128, 16};   // the lesson's sweep MLP
    case ModelPreset::Wide: return {1024, 4096, 256}; // big enough to load a GPU
    case ModelPreset::Fixture: return {32, 48, 8};    // the lesson's equivalence fixture
    }
    return {};
}

void validate(const AccumConfig &c)
{
    requireRange(c.microBatch, 1, kMaxMicroBatch, "micro-batch");
    requireRange(c.accumSteps, 1, kMaxAccumSteps, "accum_steps");
    requireRange(c.worldSize, 1, kMaxWorldSize, "world size");
    validateShape(c.modelShape());
    validateOptimizer(c.optimizer);
    if (c.microBatch * widest(c.modelShape()) > kMaxActivationElements)
        throw ConfigError("micro-batch " + std::to_string(c.microBatch) + " at width " +
                          std::to_string(widest(c.modelShape())) + " needs activations of more than " +
                          std::to_string(kMaxActivationElements) + " elements; choose a smaller micro-batch");
}

Split parseSplit(const std::string &text)
{
    const auto x = text.find_first_of("xX");
    if (x == std::string::npos)
        throw ConfigError("split '" + text + "' must read ACCUMxMICRO, for example 4x4");
    return {parsePositive(trim(text.substr(0, x)), "split accum_steps"),
            parsePositive(trim(text.substr(x + 1)), "split micro-batch")};
}

std::string toString(const Split &s) { return std::to_string(s.accumSteps) + "x" + std::to_string(s.microBatch); }

void validate(const EquivalenceConfig &c)
{
    validateShape(c.shape);
    validateOptimizer(c.optimizer);
    requireRange(c.bigBatch, 1, kMaxMicroBatch, "big batch");
    requireRange(c.accumSteps, 1, kMaxAccumSteps, "accum_steps");
    requireRange(c.worldSize, 1, kMaxWorldSize, "world size");
    if (c.bigBatch % (c.accumSteps * c.worldSize) != 0)
        throw ConfigError("big batch " + std::to_string(c.bigBatch) + " does not divide into " +
                          std::to_string(c.accumSteps) + " micro-batches x " + std::to_string(c.worldSize) +
                          " ranks");
    if (c.compareSplit) {
        const Split &s = *c.compareSplit;
        if (s.accumSteps * s.microBatch * c.worldSize != c.bigBatch)
            throw ConfigError("split " + toString(s) + " x world " + std::to_string(c.worldSize) +
                              " does not cover the big batch of " + std::to_string(c.bigBatch));
    }
    if (!(c.fixedTolerance > 0.0) || !(c.dtypeBoundFactor > 0.0))
        throw ConfigError("tolerances must be positive");
}

void validate(const SweepConfig &c)
{
    validate(c.base);
    if (c.accumGrid.empty())
        throw ConfigError("the accumulation grid is empty");
    for (int64_t a : c.accumGrid) {
        requireRange(a, 1, kMaxAccumSteps, "accum_steps in the grid");
        if (a == 1 && c.base.bug == AccumBug::SkipLastMicro)
            throw ConfigError("skip-last-micro at accum_steps 1 runs no micro-batch at all (range(N - 1) is empty), "
                              "so that point would train and measure nothing; start the grid at 2");
        // The engine draws a whole window of inputs (and the teacher's prototypes) at once.
        const int64_t effective = c.base.microBatch * a * c.base.worldSize;
        const ModelShape shape = c.base.modelShape();
        if (effective * std::max(shape.inFeatures, shape.classes) > kMaxTensorElements)
            throw ConfigError("effective batch " + std::to_string(effective) + " (micro-batch " +
                              std::to_string(c.base.microBatch) + " x accum_steps " + std::to_string(a) +
                              ") is too large for one sweep point");
    }
    requireRange(c.numSteps, 1, 1000000, "num_steps");
    requireRange(c.warmupSteps, 0, 1000000, "warm-up steps");
    requireRange(c.repeats, 1, 1000, "repeats");
    requireRange(c.threads, 0, 1024, "threads");
}

std::vector<int64_t> parseGrid(const std::string &text)
{
    std::vector<int64_t> grid;
    if (!text.empty() && trim(text).back() == ',')
        throw ConfigError("accumulation grid '" + text + "' ends with a comma");
    std::stringstream in(text);
    std::string token;
    while (std::getline(in, token, ',')) {
        token = trim(token);
        if (token.empty())
            throw ConfigError("accumulation grid '" + text + "' has an empty entry");
        grid.push_back(parsePositive(token, "accumulation grid entry"));
    }
    if (grid.empty())
        throw ConfigError("accumulation grid is empty");
    return grid;
}

std::string toDecimalString(double v)
{
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v); // locale-independent, round-trips
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

} // namespace accumlab
