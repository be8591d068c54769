// The dynamic loss scaler's bookkeeping (torch.cuda.amp.GradScaler's update rule: backoff on an
// Inf/NaN, growth after growth_interval clean steps) and the names of its pitfalls.
#include "core/loss_scaler.h"

#include <limits>

#include "core/config.h"

#include <cmath>

namespace accumlab {

namespace {

const std::pair<const char *, ScalerBug> kScalerBugs[] = {{"none", ScalerBug::None},
                                                         {"unscale-every-micro", ScalerBug::UnscaleEveryMicro},
                                                         {"update-every-micro", ScalerBug::UpdateEveryMicro},
                                                         {"skip-overflowed-micro", ScalerBug::SkipOverflowedMicro},
                                                         {"log-scaled-loss", ScalerBug::LogScaledLoss}};

} // namespace

std::string toString(ScalerBug v)
{
    for (const auto &[name, bug] : kScalerBugs)
        if (bug == v)
            return name;
    return "?";
}

ScalerBug scalerBugFromString(const std::string &s)
{
    for (const auto &[name, bug] : kScalerBugs)
        if (s == name)
            return bug;
    std::string allowed;
    for (const auto &[name, bug] : kScalerBugs)
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    throw ConfigError("config/unknown-scaler-bug", TextArgs{{}, {{"name", s}, {"allowed", allowed}}});
}

std::vector<std::string> scalerBugNames()
{
    std::vector<std::string> out;
    for (const auto &[name, bug] : kScalerBugs)
        out.emplace_back(name);
    return out;
}

LossScaler::LossScaler(const LossScalerConfig &config) : m_config(config)
{
    m_state.scale = config.initScale;
}

void LossScaler::noteUnscale()
{
    if (m_state.unscaledSinceUpdate)
        throw ScalerError("engine/unscale-twice", {});
    m_state.unscaledSinceUpdate = true;
    ++m_state.unscaleCalls;
}

void LossScaler::update(bool foundInf)
{
    // GradScaler.update() reads the Inf/NaN checks its unscale_() recorded since the last
    // update(); with none it raises, and so does this.
    if (!m_state.unscaledSinceUpdate)
        throw ScalerError("engine/update-without-inf-checks", {});
    m_state.unscaledSinceUpdate = false;
    if (foundInf) {
        m_state.scale *= m_config.backoffFactor;
        m_state.growthTracker = 0;
        ++m_state.backoffs;
        return;
    }
    if (++m_state.growthTracker >= m_config.growthInterval) {
        // GradScaler keeps the scale finite: growth that would overflow float32 is not taken.
        if (std::isfinite(m_state.scale * m_config.growthFactor) && m_state.scale * m_config.growthFactor < 3.0e38) {
            m_state.scale *= m_config.growthFactor;
            ++m_state.growths;
        }
        m_state.growthTracker = 0;
    }
}

void validate(const LossScalerConfig &c)
{
    // Written so that NaN fails every check.
    constexpr double kMaxFloat = std::numeric_limits<float>::max(); // the scale multiplies float32 losses
    const bool ok = c.initScale > 0.0 && c.initScale <= kMaxFloat && c.growthFactor > 1.0 &&
                    c.growthFactor <= kMaxFloat && c.backoffFactor > 0.0 && c.backoffFactor < 1.0 &&
                    c.growthInterval >= 1 && c.growthInterval <= 1000000000 && c.spikeWindow >= -1 && c.spikeMicro >= 0;
    if (!ok)
        throw ConfigError("config/loss-scaler-invalid", {});
}

} // namespace accumlab
