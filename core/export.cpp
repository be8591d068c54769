// accum-curve.v1 writer and reader, and the atomic file write.
#include "core/export.h"

#include "core/device.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace accumlab {

const char *const kCurveSchema = "accum-curve.v1";

using nlohmann::json;

json toJson(const EquivalenceResult &r)
{
    json layers = json::array();
    for (const auto &l : r.layers)
        layers.push_back({{"name", l.name}, {"grad_diff", l.gradDiff}, {"param_diff", l.paramDiff},
                          {"max_abs_grad", l.maxAbsGrad}});
    json comparisons = json::array();
    for (const auto &c : r.comparisons)
        comparisons.push_back({{"split", toString(c.split)},
                               {"max_grad_diff", c.maxGradDiff},
                               {"max_param_diff", c.maxParamDiff},
                               {"vs_first_split_grad_diff", c.vsFirstGradDiff},
                               {"vs_first_split_param_diff", c.vsFirstParamDiff}});
    const auto &c = r.config;
    return {
        {"max_grad_diff", r.maxGradDiff},
        {"max_param_diff", r.maxParamDiff},
        {"params_init_match", r.paramsInitMatch},
        {"update_ratio", r.updateRatio},
        {"grad_ratio", r.gradRatio},
        {"tolerance", c.fixedTolerance},
        {"grad_bound_dtype", r.gradBoundDtype},
        {"param_bound_dtype", r.paramBoundDtype},
        {"dtype_bound_factor", c.dtypeBoundFactor},
        {"holds_fixed", r.holdsFixed},
        {"holds_dtype_aware", r.holdsDtypeAware},
        {"holds", r.holds},
        {"max_abs_grad", r.maxAbsGrad},
        {"full_optimizer_state_step", r.fullOptimizerStateStep},
        {"accum_optimizer_state_step", r.accumOptimizerStateStep},
        {"layers", layers},
        {"comparisons", comparisons},
        {"config",
         {{"in_features", c.shape.inFeatures},
          {"hidden", c.shape.hidden},
          {"classes", c.shape.classes},
          {"big_batch", c.bigBatch},
          {"accum_steps", c.accumSteps},
          {"micro_batch", c.bigBatch / (c.accumSteps * c.worldSize)},
          {"world_size", c.worldSize},
          {"optimizer", toString(c.optimizer.kind)},
          {"lr", c.optimizer.lr},
          {"scaling", toString(c.scaling)},
          {"step_every_micro", c.stepEveryMicro},
          {"dtype", toString(c.dtype)},
          {"labels", toString(c.labels)},
          {"seed", c.seed},
          {"device", r.device}}},
    };
}

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
        {"diverged", p.diverged},
        {"device", p.device},
        {"dtype", p.dtype},
        {"threads", p.threads},
    };
    if (p.diverged)
        j["diverged_at_step"] = p.divergedAtStep;
    // Measured on CUDA only; null says "not measured" rather than zero.
    j["peak_mem_bytes"] = p.peakMemBytes ? json(*p.peakMemBytes) : json(nullptr);
    return j;
}

json toJson(const SweepConfig &c)
{
    const auto shape = c.base.modelShape();
    return {{"model", toString(c.base.preset)},
            {"in_features", shape.inFeatures},
            {"hidden", shape.hidden},
            {"classes", shape.classes},
            {"micro_batch", c.base.microBatch},
            {"accum_grid", c.accumGrid},
            {"world_size", c.base.worldSize},
            {"num_steps", c.numSteps},
            {"warmup_steps", c.warmupSteps},
            {"optimizer", toString(c.base.optimizer.kind)},
            {"lr", c.base.optimizer.lr},
            {"scaling", toString(c.base.scaling)},
            {"step_every_micro", c.base.stepEveryMicro},
            {"no_sync", c.base.noSync},
            {"dtype", toString(c.base.dtype)},
            {"device", toString(c.base.device)},
            {"labels", toString(c.base.labels)},
            {"seed", c.base.seed}};
}

json environmentJson(const SweepConfig &)
{
    return {{"torch_version", torchVersion()},
            {"threads", currentThreads()},
            {"cuda_available", cudaAvailable()},
            {"accumlab_version", "0.1.0"}};
}

json curveJson(const SweepResult &sweep, const EquivalenceResult *equivalence)
{
    json points = json::array();
    for (const auto &p : sweep.points)
        points.push_back(toJson(p));
    json j = {{"schema", kCurveSchema},
              {"points", points},
              {"timed_region", kTimedRegion},
              {"config", toJson(sweep.config)},
              {"environment", environmentJson(sweep.config)}};
    if (equivalence)
        j["equivalence"] = toJson(*equivalence);
    return j;
}

void writeFileAtomic(const std::filesystem::path &path, const std::string &content)
{
    namespace fs = std::filesystem;
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw std::runtime_error("cannot create the folder " + dir.string() + ": " +
                                 (ec ? ec.message() : std::string("not a folder")));
    fs::path tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error("cannot write to " + dir.string() + ": " + std::strerror(errno));
    const char *data = content.data();
    size_t left = content.size();
    int err = 0;
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            break;
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    if (!err && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && !err)
        err = errno;
    if (!err && std::rename(tmp.c_str(), path.c_str()) != 0)
        err = errno;
    if (err) {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(err));
    }
}

namespace {

const json &requireField(const json &point, const char *name, size_t index)
{
    if (!point.contains(name))
        throw std::runtime_error("point " + std::to_string(index) + " has no field '" + name + "'");
    const json &v = point.at(name);
    if (!v.is_number())
        throw std::runtime_error("point " + std::to_string(index) + " field '" + name + "' is not a number");
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
        throw std::runtime_error("point " + std::to_string(index) + " field '" + name + "' is not finite");
    return v;
}

int64_t requireCount(const json &point, const char *name, size_t index, int64_t minimum)
{
    const json &v = requireField(point, name, index);
    if (!v.is_number_integer() || v.get<int64_t>() < minimum)
        throw std::runtime_error("point " + std::to_string(index) + " field '" + name + "' must be a whole number >= " +
                                 std::to_string(minimum));
    return v.get<int64_t>();
}

double requireNonNegative(const json &point, const char *name, size_t index)
{
    const double v = requireField(point, name, index).get<double>();
    if (v < 0.0)
        throw std::runtime_error("point " + std::to_string(index) + " field '" + name + "' is negative");
    return v;
}

} // namespace

CurveFile parseCurveJson(const std::string &text)
{
    CurveFile file;
    try {
        file.raw = json::parse(text);
    } catch (const json::parse_error &e) {
        throw std::runtime_error(std::string("not valid JSON: ") + e.what());
    }
    const json &j = file.raw;
    if (!j.is_object())
        throw std::runtime_error("the file is not a JSON object");
    if (!j.contains("schema") || !j["schema"].is_string() || j["schema"] != kCurveSchema)
        throw std::runtime_error(std::string("the schema is not ") + kCurveSchema);
    if (!j.contains("points") || !j["points"].is_array())
        throw std::runtime_error("the file has no 'points' list");
    if (j["points"].empty())
        throw std::runtime_error("the 'points' list is empty");
    size_t i = 0;
    for (const json &pj : j["points"]) {
        if (!pj.is_object())
            throw std::runtime_error("point " + std::to_string(i) + " is not an object");
        SweepPoint p;
        p.effectiveBatch = requireCount(pj, "effective_batch", i, 1);
        p.accumSteps = requireCount(pj, "accum_steps", i, 1);
        p.microBatch = requireCount(pj, "micro_batch", i, 1);
        p.avgLoss = requireField(pj, "avg_loss", i).get<double>();
        p.samplesPerSec = requireNonNegative(pj, "samples_per_sec", i);
        p.medianStepMs = requireNonNegative(pj, "median_step_ms", i);
        p.syncCalls = requireCount(pj, "sync_calls", i, 0);
        p.steps = requireCount(pj, "steps", i, 0);
        if (pj.contains("world_size") && pj["world_size"].is_number_integer())
            p.worldSize = std::max<int64_t>(1, pj["world_size"].get<int64_t>());
        if (p.effectiveBatch != p.accumSteps * p.microBatch * p.worldSize)
            throw std::runtime_error("point " + std::to_string(i) + ": effective_batch " +
                                     std::to_string(p.effectiveBatch) + " is not micro_batch x accum_steps x world_size");
        // AccumLab's own fields, when present (the lesson's files do not carry them).
        if (pj.contains("allreduce_calls"))
            p.allreduceCalls = requireCount(pj, "allreduce_calls", i, 0);
        if (pj.contains("allreduce_bytes"))
            p.allreduceBytes = requireCount(pj, "allreduce_bytes", i, 0);
        if (pj.contains("peak_mem_bytes") && pj["peak_mem_bytes"].is_number_integer())
            p.peakMemBytes = pj["peak_mem_bytes"].get<int64_t>();
        if (pj.contains("allreduce_ms"))
            p.allreduceMs = requireNonNegative(pj, "allreduce_ms", i);
        if (pj.contains("micro_batches"))
            p.microBatches = requireCount(pj, "micro_batches", i, 0);
        if (pj.contains("final_loss") && pj["final_loss"].is_number())
            p.finalLoss = pj["final_loss"].get<double>();
        if (pj.contains("wall_s") && pj["wall_s"].is_number())
            p.wallS = pj["wall_s"].get<double>();
        if (pj.contains("losses") && pj["losses"].is_array())
            for (const json &l : pj["losses"])
                if (l.is_number())
                    p.losses.push_back(l.get<double>());
        if (pj.contains("device") && pj["device"].is_string())
            p.device = pj["device"].get<std::string>();
        if (pj.contains("dtype") && pj["dtype"].is_string())
            p.dtype = pj["dtype"].get<std::string>();
        file.points.push_back(p);
        ++i;
    }
    return file;
}

} // namespace accumlab
