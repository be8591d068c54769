// Configuration value types for the accumulation engine, the equivalence check and the sweep.
// Plain C++ (no torch, no Qt) so these structs can be copied across threads and into the UI.
// Validation lives here too: every config that reaches the engine has passed validate().
#pragma once

#include "core/content/errors.h"
#include "core/loss_scaler.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace accumlab {

// Thrown for any invalid user-supplied setting: a code of the content's errors/*.json with
// its arguments (core/content/errors.h); what() is the English sentence, errorText() any reader's.
class ConfigError : public CodedError {
public:
    using CodedError::CodedError;
};

enum class OptimizerKind { Sgd, Momentum, AdamW };
enum class Scaling { Divide, None };          // None is the "no division" teaching bug
// The classic accumulation bugs of real trainers, planted in the engine's one window (beside
// Scaling::None and stepEveryMicro, the two teaching bugs with their own switches):
//   ZeroEveryMicro   zero_grad() before every micro-batch: only the last one's gradient stays
//   NeverZero        zero_grad() never called again: a window's buffers carry the previous ones
//   DivideByNPlusOne loss / (N + 1), an off-by-one divisor
//   SkipLastMicro    `for i in range(N - 1)`: the last micro-batch never runs
//   CountMicroTwice  the first micro-batch's backward runs twice
//   ClipEachMicro    clip_grad_norm_() after every micro-batch's backward (on a partial sum)
//                    instead of once on the window's sum (clips at kBugClipNorm unless
//                    OptimizerConfig::clipNorm is set; the correct loop then clips once there)
//   ScheduleEveryMicro scheduler.step() inside the micro-batch loop: the LR schedule advances N
//                    times per update (warms up over kBugLrWarmup updates unless lrWarmup is set)
enum class AccumBug {
    None,
    ZeroEveryMicro,
    NeverZero,
    DivideByNPlusOne,
    SkipLastMicro,
    CountMicroTwice,
    ClipEachMicro,
    ScheduleEveryMicro
};
// Float16 trains as PyTorch's automatic mixed precision does: float32 weights, gradient buffers
// and update; every layer's matmul and activations in float16 (real float16 where the device
// has it, else rounded through float16 storage: core/model.h), the loss in float32.
enum class DType { Float32, Float64, BFloat16, Float16 };
enum class DeviceRequest { Auto, Cpu, Cuda };
enum class LabelKind { Teacher, Random };
enum class ModelPreset { Lesson, Wide, Fixture };

std::string toString(OptimizerKind);
std::string toString(Scaling);
std::string toString(AccumBug);
// Every bug's name, for `--bug list`.
std::vector<std::string> accumBugNames();
std::string toString(DType);
std::string toString(DeviceRequest);
std::string toString(LabelKind);
std::string toString(ModelPreset);
OptimizerKind optimizerFromString(const std::string &);
Scaling scalingFromString(const std::string &);
AccumBug accumBugFromString(const std::string &);
DType dtypeFromString(const std::string &);
DeviceRequest deviceFromString(const std::string &);
LabelKind labelsFromString(const std::string &);
ModelPreset presetFromString(const std::string &);

// Machine epsilon of a dtype (2^-23 for float32, 2^-52 for float64, 2^-7 for bfloat16, 2^-10
// for float16).
double dtypeEpsilon(DType);
// A 16-bit dtype, judged against dtype-aware bounds rather than the lesson's fixed one.
bool lowPrecision(DType);

// Layer widths of an MLP: Linear-GELU-Linear-GELU-Linear.
struct ModelShape {
    int64_t inFeatures = 64;
    int64_t hidden = 128;
    int64_t classes = 16;
};
ModelShape shapeOf(ModelPreset);

// Hyper-parameters of an optimizer; defaults follow torch.optim.
struct OptimizerConfig {
    OptimizerKind kind = OptimizerKind::Sgd;
    double lr = 0.05;
    double momentum = 0.9;        // used by Momentum only
    double weightDecay = 0.0;     // SGD / momentum: L2 added to the gradient
    double adamWeightDecay = 0.01; // AdamW: decoupled decay (torch.optim.AdamW default)
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    // clip_grad_norm_'s max_norm over all parameters, applied once per window after the sync
    // and before the step; 0 = no clipping.
    double clipNorm = 0.0;
    // A linear warmup schedule (LambdaLR with min(1, (k + 1) / lrWarmup)): update k, counted
    // from 0 by the scheduler, uses lr x that factor; 0 = a constant rate.
    int64_t lrWarmup = 0;
};

// The learning rate of scheduler step k under the warmup of `o` (o.lr when there is none).
double scheduledLr(const OptimizerConfig &o, int64_t k, int64_t warmup);

// The max_norm the clip-each-micro bug clips to when no clipNorm is set: below the fixture's
// full-batch gradient norm at the start, so that clipping acts on the partial sums of the
// first window already (the bug) and on the window's sum (the correct loop).
constexpr double kBugClipNorm = 0.1;
// The warmup the schedule-every-micro bug runs when no lrWarmup is set: long enough that the
// first windows already show the schedule running N times ahead.
constexpr int64_t kBugLrWarmup = 8;
// The warmup a window's schedule follows (0 = none): lrWarmup, or kBugLrWarmup for the bug.
int64_t effectiveLrWarmup(const OptimizerConfig &, AccumBug);
// The max_norm a window is clipped to (0 = none): clipNorm, or kBugClipNorm for the bug.
double effectiveClipNorm(const OptimizerConfig &, AccumBug);

// Everything one training run of the engine needs.
struct AccumConfig {
    ModelPreset preset = ModelPreset::Lesson;
    std::optional<ModelShape> shape;   // overrides the preset's widths when set
    int64_t microBatch = 4;
    int64_t accumSteps = 1;
    int64_t worldSize = 1;
    OptimizerConfig optimizer;
    Scaling scaling = Scaling::Divide;
    bool stepEveryMicro = false;      // teaching bug: optimizer.step() inside the window
    AccumBug bug = AccumBug::None;    // a classic bug planted in the window
    bool noSync = true;               // non-final micro-batches skip the gradient sync
    DType dtype = DType::Float32;
    // The dynamic loss scaler (core/loss_scaler.h); off unless enabled.
    LossScalerConfig lossScaler;
    DeviceRequest device = DeviceRequest::Auto;
    LabelKind labels = LabelKind::Teacher;
    uint64_t seed = 0;

    int64_t effectiveBatch() const { return microBatch * accumSteps * worldSize; }
    ModelShape modelShape() const { return shape ? *shape : shapeOf(preset); }
};

// The engine's defaults with a window of four micro-batches, so that there is something to
// accumulate: the window's first run and `accumlab-cli train`'s defaults.
AccumConfig teachingDefaults();

// Upper bounds that keep a classroom's slider pokes from exhausting memory.
constexpr int64_t kMaxMicroBatch = 1 << 16;
constexpr int64_t kMaxAccumSteps = 4096;
constexpr int64_t kMaxWorldSize = 64;
// Optimizer steps one run may ask for (the main job's points and `train`'s windows): far more
// than a lesson needs, and small enough that steps x accum_steps cannot overflow.
constexpr int64_t kMaxNumSteps = 1000000;
// Largest tensor one setting may ask for (parameters, one micro-batch's activations, one drawn
// window of inputs): 2^28 elements, 1 GiB in float32, so a poke is refused in words instead
// of ending in an allocation failure or the out-of-memory killer.
constexpr int64_t kMaxTensorElements = int64_t(1) << 28;
// One micro-batch's activation at the widest layer: 2^26 elements (256 MiB in float32); the
// MLP keeps about six of them for backward.
constexpr int64_t kMaxActivationElements = int64_t(1) << 26;

// Throws ConfigError naming the first bad field.
void validate(const AccumConfig &);

// A split of a batch into `accumSteps` chunks of `microBatch` samples, written "4x4".
struct Split {
    int64_t accumSteps = 4;
    int64_t microBatch = 4;
};
Split parseSplit(const std::string &text);   // "ACCUMxMICRO", throws ConfigError
std::string toString(const Split &);

// The lesson's equivalence fixture as a run: in 32, hidden 48, 8 classes, a batch of 16 in 4
// micro-batches of 4 on one rank, SGD lr 0.1, random labels, seed 7, on the CPU.
AccumConfig equivalenceFixture();

// The lesson's own yardstick: the gradients of one full batch and of its micro-batches with
// loss/N agree to max abs diff < 1e-4 in float32.
constexpr double kLessonTolerance = 1e-4;

// The full-batch vs accumulated comparison: the run whose window is checked (its micro-batches
// over accum_steps and ranks make the big batch that the reference takes in one pass), and
// what the comparison adds. One config: every setting of the run is the engine's own, so a
// new one reaches the check, its JSON and the ranks' agreement without a copy.
struct EquivalenceConfig {
    AccumConfig run = equivalenceFixture();
    std::optional<Split> compareSplit;        // a second split compared against the first
    // The lesson's own yardstick, max abs diff < 1e-4 in float32: shown with its own label
    // beside the verdict, which the float64 twin decides (core/equivalence.h).
    double fixedTolerance = kLessonTolerance;

    // The reference's batch: every rank's micro-batches, micro x accum x ranks.
    int64_t bigBatch() const { return run.effectiveBatch(); }
};
// Splits `batch` samples over run.accumSteps x run.worldSize micro-batches (run.microBatch);
// throws ConfigError when it is out of range or does not divide.
void setBigBatch(EquivalenceConfig &, int64_t batch);
void validate(const EquivalenceConfig &);

// A throughput sweep: fixed micro-batch, a grid of accumulation steps.
struct SweepConfig {
    AccumConfig base;                       // accumSteps is overridden per point
    std::vector<int64_t> accumGrid{1, 2, 4, 8, 16};
    int64_t numSteps = 25;                  // timed optimizer steps per point
    int64_t warmupSteps = 2;                // untimed optimizer steps per point
    // The timed steps of every point run in this many blocks, interleaved across the grid
    // (block 1 of every point, then block 2 of every point, ...), so that a slow spell of the
    // machine falls on all points alike; each block gives one samples/sec figure, whose median
    // and spread the point reports. Fewer timed steps than repeats give one block per step.
    int64_t repeats = 5;
    int64_t blocks() const { return repeats < numSteps ? repeats : numSteps; }
    int threads = 0;                        // 0 = automatic (threadsFor below)
    // Each block also measures the throughput model's two costs (SweepPoint::blockMicroMs,
    // blockWindowMs; AccumEngine::setPhaseTiming): on for sweep-flattening only, since on CUDA
    // it synchronizes around every micro-batch.
    bool phaseTiming = false;
    // Equal work at every point: numSteps is what the grid's largest accum_steps runs, and a
    // point with accum_steps N runs numSteps * largest / N steps (rounded up), so every point
    // times about the same micro-batches and the same wall time. With equal steps a point at
    // N = 1 timed blocks of a few milliseconds, whose spread the machine's noise set. On for
    // sweep-flattening, which judges every point against its model.
    bool equalWork = false;
    // The timed steps of the point with `accumSteps`.
    int64_t stepsAt(int64_t accumSteps) const;
};
void validate(const SweepConfig &);

// The multiply-adds of a micro-batch's widest matmul: microBatch x the largest of the model's
// three layers (in x hidden, hidden x hidden, hidden x classes).
int64_t widestMatmulMacs(const ModelShape &, int64_t microBatch);
// Below this many multiply-adds in its widest matmul a micro-batch on the CPU runs faster on one
// thread than on more: there is little to split, yet every thread is woken five to seven times
// a micro-batch (oneDNN's GELU forward and backward, LibTorch's log-softmax and its backward:
// parallel regions around a few hundred elements). docs/measurements.md "Threads by size" (two cores, both
// builds): below it two threads gave 0.81-0.97x one thread's samples/sec, at it 0.91-1.33x, at
// four times it 1.01-1.24x.
constexpr int64_t kOneThreadBelowMacs = int64_t{1} << 20;
// The intra-op threads a sweep runs on, for applyThreads: SweepConfig::threads when it names a
// count; for 0, one thread where a CPU micro-batch is under kOneThreadBelowMacs and the
// environment names no count (OMP_NUM_THREADS, MKL_NUM_THREADS: the user's request stands),
// else 0, LibTorch's own default.
int threadsFor(const SweepConfig &, bool onCpu, bool environmentNamesThreads);

// The shortest decimal that reads back as `v`, with a '.' whatever the C locale says (a GUI
// process runs under the user's LC_NUMERIC, where printf would write 0,05): for numbers that
// cross to another process or into a file.
std::string toDecimalString(double v);

// "1,2,4,8" -> {1,2,4,8}; throws ConfigError on empty, non-numeric or non-positive entries.
std::vector<int64_t> parseGrid(const std::string &text);

} // namespace accumlab
