// Internal: helpers shared by the experiment sources, and the pitfall experiments (6-11)
// implemented in pitfalls.cpp. Plain C++; the torch code stays in the .cpp files.
#pragma once

#include "core/experiments/experiments.h"
#include "core/sweep.h"

#include <string>

namespace accumlab::experiments {

void addValue(ExperimentResult &r, const std::string &name, double value);
// Appends a claim and returns its verdict. Its sentence is the content's /claims/<id>.
bool addClaim(ExperimentResult &r, const std::string &id, const std::string &criterion, bool holds,
              bool timing = false);
// A statement true by construction, shown with its figures and no verdict mark.
void addObservation(ExperimentResult &r, const std::string &id, const std::string &criterion);
// A timing claim judged against the measured spread: it holds when even the least favourable
// ends of the spreads agree, fails when even the most favourable ends disagree, and is
// inconclusive in between.
enum class TimingOutcome { Holds, Fails, Inconclusive };
void addTimingClaim(ExperimentResult &r, const std::string &id, const std::string &criterion,
                    TimingOutcome outcome);
void checkCancel(const CancelToken *cancel);

// printf-style formatting into a std::string (criteria and the CLI's value column; words for
// people come from the content).
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// The lesson's fixture as an engine run on the CPU: in 32, hidden 48, 8 classes, one window of
// The equivalence fixture (equivalenceFixture: 16 samples in 4 micro-batches of 4, SGD at lr
// 0.1) on the teacher's labels, with `seed`.
AccumConfig fixtureConfig(uint64_t seed);
// One window of `c` checked against the full batch: core's equivalenceConfigOf(c)
// (core/equivalence.h) with the equivalence check's default labels.
EquivalenceConfig equivalenceOf(const AccumConfig &c);

// Experiment 1's values and verdicts from a finished sweep (tests feed it planted timings).
ExperimentResult judgeSweepFlattening(const SweepResult &sweep);

// The lab settings of the pitfalls (experimentLabSettings); their runners build from them.
ExperimentLabSettings partialWindowSettings(const ExperimentOptions &);
ExperimentLabSettings batchNormSettings(const ExperimentOptions &);
ExperimentLabSettings clippingSettings(const ExperimentOptions &);
ExperimentLabSettings lrScheduleSettings(const ExperimentOptions &);
ExperimentLabSettings linearScalingSettings(const ExperimentOptions &);
ExperimentLabSettings resumeMidWindowSettings(const ExperimentOptions &);

// The loss-scaling experiment's runs (loss_scaling.cpp). The defaults are the
// experiment's; tests replace one run with a wrong one (float32 where float16 should round, the
// scaler off, a pitfall not planted, one planted where the loop should be correct) and watch
// the verdict that exists to catch it fail.
struct LossScalingRuns {
    DType unscaledDtype = DType::Float16;         // the float16 windows without the scaler
    bool scaledRunScaler = true;                  // the scaled window has its scaler
    Scaling scaledRunScaling = Scaling::Divide;   // and divides its loss by N
    ScalerBug skipRunBug = ScalerBug::None;       // the window with the planted overflow
    ScalerBug droppedRunBug = ScalerBug::SkipOverflowedMicro;
    ScalerBug doubleUnscaleRunBug = ScalerBug::UnscaleEveryMicro;
    ScalerBug updateRunBug = ScalerBug::UpdateEveryMicro;
    ScalerBug harmRunBug = ScalerBug::SkipOverflowedMicro; // the windows that show its harm
    ScalerBug logRunBug = ScalerBug::LogScaledLoss;
};
ExperimentLabSettings lossScalingSettings(const ExperimentOptions &);
ExperimentResult lossScalingWith(const ExperimentOptions &, const CancelToken *, const LossScalingRuns &);
ExperimentResult lossScaling(const ExperimentOptions &, const CancelToken *);

ExperimentResult variableLength(const ExperimentOptions &, const CancelToken *);
ExperimentResult partialWindow(const ExperimentOptions &, const CancelToken *);
ExperimentResult batchNorm(const ExperimentOptions &, const CancelToken *);
ExperimentResult clipping(const ExperimentOptions &, const CancelToken *);
ExperimentResult lrSchedule(const ExperimentOptions &, const CancelToken *);
ExperimentResult linearScaling(const ExperimentOptions &, const CancelToken *);
// Experiment 12 (resume.cpp): checkpoint and resume inside a window.
ExperimentResult resumeMidWindow(const ExperimentOptions &, const CancelToken *);

} // namespace accumlab::experiments
