// The planted pieces of core/bugs.h: each one a class that changes one answer of the hooks
// below it, under the name the config spells it with and beside the content entry that tells
// its story. hooksFor stacks a run's pieces on the correct loop, once per engine.
#include "core/bugs.h"

#include <stdexcept>
#include <utility>

namespace accumlab {

namespace {

// A piece on top of other hooks: every question it does not answer itself goes below.
class PieceOnTop : public WindowHooks {
public:
    explicit PieceOnTop(std::unique_ptr<const WindowHooks> below) : m_below(std::move(below)) {}

    bool zeroGradBefore(int64_t window, int64_t micro) const override { return m_below->zeroGradBefore(window, micro); }
    bool runsMicro(int64_t micro, int64_t accumSteps) const override { return m_below->runsMicro(micro, accumSteps); }
    double lossDivisor(int64_t accumSteps) const override { return m_below->lossDivisor(accumSteps); }
    double lossFactor(int64_t window, int64_t micro) const override { return m_below->lossFactor(window, micro); }
    int passes(int64_t micro) const override { return m_below->passes(micro); }
    bool dropsOverflowedMicro() const override { return m_below->dropsOverflowedMicro(); }
    ClipPlan clip(const OptimizerConfig &o) const override { return m_below->clip(o); }
    SchedulePlan schedule(const OptimizerConfig &o) const override { return m_below->schedule(o); }
    LoopPlace stepAt() const override { return m_below->stepAt(); }
    LoopPlace unscaleAt() const override { return m_below->unscaleAt(); }
    LoopPlace updateAt() const override { return m_below->updateAt(); }
    double loggedLossFactor(double scale) const override { return m_below->loggedLossFactor(scale); }

protected:
    std::unique_ptr<const WindowHooks> m_below;
};

// ---- The accumulation bugs (AccumBug; stories: bugs.json /bugs/<name>/story) ---------------

class ZeroEveryMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    bool zeroGradBefore(int64_t, int64_t) const override { return true; }
};

class NeverZero final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    bool zeroGradBefore(int64_t window, int64_t micro) const override
    {
        return window == 0 && m_below->zeroGradBefore(window, micro);
    }
};

class DivideByNPlusOne final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    double lossDivisor(int64_t accumSteps) const override { return static_cast<double>(accumSteps) + 1.0; }
};

class SkipLastMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    bool runsMicro(int64_t micro, int64_t accumSteps) const override { return micro != accumSteps - 1; }
};

class CountMicroTwice final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    int passes(int64_t micro) const override { return micro == 0 ? 2 : 1; }
};

class ClipEachMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    ClipPlan clip(const OptimizerConfig &o) const override
    {
        return {LoopPlace::EveryMicro, effectiveClipNorm(o, AccumBug::ClipEachMicro)};
    }
};

class ScheduleEveryMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    SchedulePlan schedule(const OptimizerConfig &o) const override
    {
        return {LoopPlace::EveryMicro, effectiveLrWarmup(o, AccumBug::ScheduleEveryMicro)};
    }
};

// ---- The two teaching bugs with switches of their own (stories: equivalence.json /causes) --

class NoDivision final : public PieceOnTop { // Scaling::None
public:
    using PieceOnTop::PieceOnTop;
    double lossDivisor(int64_t) const override { return 1.0; }
};

class StepEveryMicro final : public PieceOnTop { // AccumConfig::stepEveryMicro
public:
    using PieceOnTop::PieceOnTop;
    LoopPlace stepAt() const override { return LoopPlace::EveryMicro; }
};

// ---- The loss scaler's pitfalls (ScalerBug; stories: bugs.json /scaler-bugs/<name>/story) ---

class UnscaleEveryMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    LoopPlace unscaleAt() const override { return LoopPlace::EveryMicro; }
};

class UpdateEveryMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    LoopPlace updateAt() const override { return LoopPlace::EveryMicro; }
};

class SkipOverflowedMicro final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    bool dropsOverflowedMicro() const override { return true; }
};

class LogScaledLoss final : public PieceOnTop {
public:
    using PieceOnTop::PieceOnTop;
    double loggedLossFactor(double scale) const override { return scale; }
};

// ---- The planted overflow (LossScalerConfig::spikeWindow; story: the loss-scaling
// experiment's claim) ------------------------------------------------------------------------

class PlantedSpike final : public PieceOnTop {
public:
    PlantedSpike(std::unique_ptr<const WindowHooks> below, int64_t window, int64_t micro)
        : PieceOnTop(std::move(below)), m_window(window), m_micro(micro)
    {
    }
    double lossFactor(int64_t window, int64_t micro) const override
    {
        return window == m_window && micro == m_micro ? kSpikeFactor : m_below->lossFactor(window, micro);
    }

private:
    int64_t m_window;
    int64_t m_micro;
};

template <class Piece>
std::unique_ptr<const WindowHooks> plant(std::unique_ptr<const WindowHooks> below)
{
    return std::make_unique<Piece>(std::move(below));
}

std::unique_ptr<const WindowHooks> plantSpikeAtStart(std::unique_ptr<const WindowHooks> below)
{
    return std::make_unique<PlantedSpike>(std::move(below), /*window=*/0, /*micro=*/0);
}

StoryRef bugsJsonStory(const char *name) { return {"bugs.json", std::string("/bugs/") + name + "/story"}; }
StoryRef scalerBugsJsonStory(const char *name) { return {"bugs.json", std::string("/scaler-bugs/") + name + "/story"}; }

} // namespace

const std::vector<PlantedPiece> &plantedPieces()
{
    static const std::vector<PlantedPiece> pieces = {
        {"zero-every-micro", bugsJsonStory("zero-every-micro"), plant<ZeroEveryMicro>},
        {"never-zero", bugsJsonStory("never-zero"), plant<NeverZero>},
        {"divide-by-n-plus-1", bugsJsonStory("divide-by-n-plus-1"), plant<DivideByNPlusOne>},
        {"skip-last-micro", bugsJsonStory("skip-last-micro"), plant<SkipLastMicro>},
        {"count-micro-twice", bugsJsonStory("count-micro-twice"), plant<CountMicroTwice>},
        {"clip-each-micro", bugsJsonStory("clip-each-micro"), plant<ClipEachMicro>},
        {"schedule-every-micro", bugsJsonStory("schedule-every-micro"), plant<ScheduleEveryMicro>},
        {"no-division", {"equivalence.json", "/causes/no-division"}, plant<NoDivision>},
        {"step-every-micro", {"equivalence.json", "/causes/step-every-micro"}, plant<StepEveryMicro>},
        {"unscale-every-micro", scalerBugsJsonStory("unscale-every-micro"), plant<UnscaleEveryMicro>},
        {"update-every-micro", scalerBugsJsonStory("update-every-micro"), plant<UpdateEveryMicro>},
        {"skip-overflowed-micro", scalerBugsJsonStory("skip-overflowed-micro"), plant<SkipOverflowedMicro>},
        {"log-scaled-loss", scalerBugsJsonStory("log-scaled-loss"), plant<LogScaledLoss>},
        {"planted-overflow", {"experiments/loss-scaling.json", "/claims/overflow-skips-window"}, plantSpikeAtStart},
    };
    return pieces;
}

const PlantedPiece &plantedPiece(const std::string &name)
{
    for (const auto &p : plantedPieces())
        if (p.name == name)
            return p;
    throw std::out_of_range("no planted piece named " + name);
}

std::unique_ptr<const WindowHooks> correctLoop() { return std::make_unique<WindowHooks>(); }

std::unique_ptr<const WindowHooks> hooksFor(const AccumConfig &config)
{
    auto hooks = correctLoop();
    if (config.scaling == Scaling::None)
        hooks = plant<NoDivision>(std::move(hooks));
    if (config.stepEveryMicro)
        hooks = plant<StepEveryMicro>(std::move(hooks));
    if (config.bug != AccumBug::None) // on top of no-division: divide-by-n-plus-1 decides the divisor
        hooks = plantedPiece(toString(config.bug)).plant(std::move(hooks));
    if (config.lossScaler.enabled && config.lossScaler.bug != ScalerBug::None)
        hooks = plantedPiece(toString(config.lossScaler.bug)).plant(std::move(hooks));
    if (config.lossScaler.spikeWindow >= 0)
        hooks = std::make_unique<PlantedSpike>(std::move(hooks), config.lossScaler.spikeWindow,
                                               config.lossScaler.spikeMicro);
    return hooks;
}

} // namespace accumlab
