// String forms, presets and validation of the configuration types. Refusals are ConfigErrors
// with codes of resources/content/errors/config.json, one sentence per field.
#include "core/config.h"

#include "core/io/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

namespace accumlab {

namespace {

// `code`: the sentence refusing an unknown name ("config/unknown-optimizer").
template <typename E, size_t N>
E fromTable(const std::string &text, const std::pair<const char *, E> (&table)[N], const char *code)
{
    for (const auto &[name, value] : table)
        if (text == name)
            return value;
    std::string allowed;
    for (const auto &[name, value] : table)
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    // Quoted by a short excerpt: a 5 MB name, a NUL byte or a newline never reaches the sentence.
    throw ConfigError(code, TextArgs{{}, {{"name", textExcerpt(text)}, {"allowed", allowed}}});
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
    {"float32", DType::Float32}, {"float64", DType::Float64}, {"bfloat16", DType::BFloat16}, {"float16", DType::Float16}};
const std::pair<const char *, DeviceRequest> kDevices[] = {
    {"auto", DeviceRequest::Auto}, {"cpu", DeviceRequest::Cpu}, {"cuda", DeviceRequest::Cuda}};
const std::pair<const char *, LabelKind> kLabels[] = {{"teacher", LabelKind::Teacher}, {"random", LabelKind::Random}};
const std::pair<const char *, ModelPreset> kPresets[] = {
    {"lesson", ModelPreset::Lesson}, {"wide", ModelPreset::Wide}, {"fixture", ModelPreset::Fixture}};

// `codes`: the field's sentences without their ending: "config/grid-entry" names
// config/grid-entry-out-of-range, -not-whole and -not-positive.
int64_t parsePositive(const std::string &token, const std::string &codes)
{
    const TextArgs args{{}, {{"token", token}}};
    int64_t value = 0;
    const char *begin = token.data();
    const char *end = begin + token.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc::result_out_of_range)
        throw ConfigError(codes + "-out-of-range", args);
    if (ec != std::errc() || ptr != end)
        throw ConfigError(codes + "-not-whole", args);
    if (value <= 0)
        throw ConfigError(codes + "-not-positive", args);
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

// `code`: the field's sentence ("config/range-micro-batch").
void requireRange(int64_t value, int64_t lo, int64_t hi, const char *code)
{
    if (value < lo || value > hi) {
        TextArgs args;
        putInteger(args, "lo", lo);
        putInteger(args, "hi", hi);
        putInteger(args, "value", value);
        throw ConfigError(code, args);
    }
}

void validateOptimizer(const OptimizerConfig &o)
{
    // Every real setting reaches the run's float32 tensors: a value past float's largest (the
    // clip norm 1e300) was refused by LibTorch in c10's words, naming no setting.
    constexpr double kMaxFloat = std::numeric_limits<float>::max();
    if (!std::isfinite(o.lr) || o.lr <= 0.0 || o.lr > 1e3)
        throw ConfigError("config/lr-out-of-range", {});
    // Written so that NaN fails every check.
    if (!(o.momentum >= 0.0 && o.momentum < 1.0))
        throw ConfigError("config/momentum-out-of-range", {});
    if (!(o.beta1 >= 0.0 && o.beta1 < 1.0 && o.beta2 >= 0.0 && o.beta2 < 1.0))
        throw ConfigError("config/adam-betas-out-of-range", {});
    if (!(o.eps > 0.0 && o.eps <= kMaxFloat))
        throw ConfigError("config/adam-eps-not-positive", {});
    if (!(o.weightDecay >= 0.0 && o.weightDecay <= kMaxFloat && o.adamWeightDecay >= 0.0 &&
          o.adamWeightDecay <= kMaxFloat))
        throw ConfigError("config/weight-decay-negative", {});
    if (!(o.clipNorm >= 0.0 && o.clipNorm <= kMaxFloat))
        throw ConfigError("config/clip-norm-invalid", {});
    if (o.lrWarmup < 0 || o.lrWarmup > 1000000)
        throw ConfigError("config/lr-warmup-out-of-range", {});
}

void validateShape(const ModelShape &s)
{
    requireRange(s.inFeatures, 1, 1 << 16, "config/range-input-features");
    requireRange(s.hidden, 1, 1 << 16, "config/range-hidden-width");
    requireRange(s.classes, 2, 1 << 16, "config/range-classes");
    // Each factor is at most 2^16, so these products fit in int64.
    const int64_t parameters =
        s.inFeatures * s.hidden + s.hidden + s.hidden * s.hidden + s.hidden + s.hidden * s.classes + s.classes;
    if (parameters > kMaxTensorElements)
        throw ConfigError("config/model-too-large",
                          TextArgs{{{"inputs", double(s.inFeatures)},
                                    {"hidden", double(s.hidden)},
                                    {"classes", double(s.classes)},
                                    {"parameters", double(parameters)},
                                    {"max", double(kMaxTensorElements)}},
                                   {}});
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
OptimizerKind optimizerFromString(const std::string &s) { return fromTable(s, kOptimizers, "config/unknown-optimizer"); }
Scaling scalingFromString(const std::string &s) { return fromTable(s, kScalings, "config/unknown-scaling"); }
AccumBug accumBugFromString(const std::string &s) { return fromTable(s, kBugs, "config/unknown-bug"); }
DType dtypeFromString(const std::string &s) { return fromTable(s, kDTypes, "config/unknown-dtype"); }
DeviceRequest deviceFromString(const std::string &s) { return fromTable(s, kDevices, "config/unknown-device"); }
LabelKind labelsFromString(const std::string &s) { return fromTable(s, kLabels, "config/unknown-label-kind"); }
ModelPreset presetFromString(const std::string &s) { return fromTable(s, kPresets, "config/unknown-model-preset"); }

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
    case DType::Float16: return std::ldexp(1.0, -10);
    }
    return 0.0;
}

bool lowPrecision(DType d) { return d == DType::BFloat16 || d == DType::Float16; }

ModelShape shapeOf(ModelPreset preset)
{
    switch (preset) {
    case ModelPreset::Lesson: return {64, 128, 16};   // the lesson's sweep MLP
    case ModelPreset::Wide: return {1024, 4096, 256}; // big enough to load a GPU
    case ModelPreset::Fixture: return {32, 48, 8};    // the lesson's equivalence fixture
    }
    return {};
}

int64_t widestMatmulMacs(const ModelShape &s, int64_t microBatch)
{
    return microBatch * std::max({s.inFeatures * s.hidden, s.hidden * s.hidden, s.hidden * s.classes});
}

int threadsFor(const SweepConfig &c, bool onCpu, bool environmentNamesThreads)
{
    if (c.threads > 0 || !onCpu || environmentNamesThreads)
        return c.threads;
    return widestMatmulMacs(c.base.modelShape(), c.base.microBatch) < kOneThreadBelowMacs ? 1 : 0;
}

void validate(const AccumConfig &c)
{
    requireRange(c.microBatch, 1, kMaxMicroBatch, "config/range-micro-batch");
    requireRange(c.accumSteps, 1, kMaxAccumSteps, "config/range-accum-steps");
    requireRange(c.worldSize, 1, kMaxWorldSize, "config/range-world-size");
    validateShape(c.modelShape());
    validateOptimizer(c.optimizer);
    validate(c.lossScaler);
    if (c.microBatch * widest(c.modelShape()) > kMaxActivationElements)
        throw ConfigError("config/activations-too-large",
                          TextArgs{{{"micro", double(c.microBatch)},
                                    {"width", double(widest(c.modelShape()))},
                                    {"max", double(kMaxActivationElements)}},
                                   {}});
}

Split parseSplit(const std::string &text)
{
    const auto x = text.find_first_of("xX");
    if (x == std::string::npos)
        throw ConfigError("config/split-form", TextArgs{{}, {{"split", text}}});
    return {parsePositive(trim(text.substr(0, x)), "config/split-accum-steps"),
            parsePositive(trim(text.substr(x + 1)), "config/split-micro-batch")};
}

std::string toString(const Split &s) { return std::to_string(s.accumSteps) + "x" + std::to_string(s.microBatch); }

AccumConfig teachingDefaults()
{
    AccumConfig c;
    c.accumSteps = 4;
    return c;
}

AccumConfig equivalenceFixture()
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 4;
    c.accumSteps = 4;
    c.optimizer = OptimizerConfig{OptimizerKind::Sgd, 0.1};
    c.device = DeviceRequest::Cpu;
    c.labels = LabelKind::Random; // the lesson's fixture draws random targets
    c.seed = 7;
    return c;
}

void setBigBatch(EquivalenceConfig &c, int64_t batch)
{
    requireRange(batch, 1, kMaxMicroBatch, "config/range-big-batch");
    requireRange(c.run.accumSteps, 1, kMaxAccumSteps, "config/range-accum-steps");
    requireRange(c.run.worldSize, 1, kMaxWorldSize, "config/range-world-size");
    if (batch % (c.run.accumSteps * c.run.worldSize) != 0)
        throw ConfigError("config/batch-does-not-divide",
                          TextArgs{{{"batch", double(batch)},
                                    {"accum", double(c.run.accumSteps)},
                                    {"world", double(c.run.worldSize)}},
                                   {}});
    c.run.microBatch = batch / (c.run.accumSteps * c.run.worldSize);
}

void validate(const EquivalenceConfig &c)
{
    validate(c.run);
    requireRange(c.bigBatch(), 1, kMaxMicroBatch, "config/range-big-batch"); // one pass holds it
    if (c.compareSplit) {
        const Split &s = *c.compareSplit;
        if (s.accumSteps * s.microBatch * c.run.worldSize != c.bigBatch()) {
            TextArgs args;
            putInteger(args, "accum", s.accumSteps);
            putInteger(args, "micro", s.microBatch);
            putInteger(args, "world", c.run.worldSize);
            putInteger(args, "batch", c.bigBatch());
            throw ConfigError("config/split-does-not-cover", args);
        }
    }
    if (!(c.fixedTolerance > 0.0))
        throw ConfigError("config/tolerances-not-positive", {});
}

void validate(const SweepConfig &c)
{
    validate(c.base);
    if (c.accumGrid.empty())
        throw ConfigError("config/sweep-grid-empty", {});
    for (int64_t a : c.accumGrid) {
        requireRange(a, 1, kMaxAccumSteps, "config/range-grid-accum-steps");
        if (a == 1 && c.base.bug == AccumBug::SkipLastMicro)
            throw ConfigError("config/skip-last-micro-at-one", {});
        // The engine draws a whole window of inputs (and the teacher's prototypes) at once.
        const int64_t effective = c.base.microBatch * a * c.base.worldSize;
        const ModelShape shape = c.base.modelShape();
        if (effective * std::max(shape.inFeatures, shape.classes) > kMaxTensorElements)
            throw ConfigError("config/effective-batch-too-large",
                              TextArgs{{{"effective", double(effective)},
                                        {"micro", double(c.base.microBatch)},
                                        {"accum", double(a)}},
                                       {}});
    }
    requireRange(c.numSteps, 1, kMaxNumSteps, "config/range-num-steps");
    for (int64_t a : c.accumGrid)
        requireRange(c.stepsAt(a), 1, kMaxNumSteps, "config/range-num-steps");
    requireRange(c.warmupSteps, 0, 1000000, "config/range-warmup-steps");
    requireRange(c.repeats, 1, 1000, "config/range-repeats");
    requireRange(c.threads, 0, 1024, "config/range-threads");
}

int64_t SweepConfig::stepsAt(int64_t accumSteps) const
{
    if (!equalWork || accumGrid.empty() || accumSteps <= 0)
        return numSteps;
    const int64_t largest = *std::max_element(accumGrid.begin(), accumGrid.end());
    return (numSteps * largest + accumSteps - 1) / accumSteps;
}

std::vector<int64_t> parseGrid(const std::string &text)
{
    std::vector<int64_t> grid;
    const TextArgs args{{}, {{"grid", text}}};
    if (const std::string trimmed = trim(text); !trimmed.empty() && trimmed.back() == ',')
        throw ConfigError("config/grid-trailing-comma", args);
    std::stringstream in(text);
    std::string token;
    while (std::getline(in, token, ',')) {
        token = trim(token);
        if (token.empty())
            throw ConfigError("config/grid-empty-entry", args);
        grid.push_back(parsePositive(token, "config/grid-entry"));
    }
    if (grid.empty())
        throw ConfigError("config/grid-empty", {});
    return grid;
}

std::string toDecimalString(double v)
{
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v); // locale-independent, round-trips
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

} // namespace accumlab
