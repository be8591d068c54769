// accum-curve.v1 writer and reader, and the atomic file write.
#include "core/export.h"

#include "core/device.h"
#include "core/version.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace accumlab {

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
            {"accumlab_version", kVersion}};
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

namespace {

std::string errorText(int err) { return std::strerror(err); }

// Writes all of `content` to `fd`; returns 0 or the errno of the failing call.
int writeAll(int fd, const std::string &content)
{
    const char *data = content.data();
    size_t left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    return ::fsync(fd) != 0 ? errno : 0;
}

} // namespace

StagedFile::StagedFile(std::filesystem::path path, const std::string &content) : m_path(std::move(path))
{
    namespace fs = std::filesystem;
    const fs::path dir = m_path.has_parent_path() ? m_path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec))
        throw ExportError("cannot create the folder " + dir.string() + ": " +
                          (ec ? ec.message() : std::string("not a folder")));
    // A unique name, so two writers of one destination (two windows, two threads) never share it.
    std::string pattern = m_path.string() + ".tmp-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0)
        throw ExportError("cannot write to " + dir.string() + ": " + errorText(errno));
    m_tmp = pattern;
    int err = ::fchmod(fd, 0644) != 0 ? errno : 0; // mkstemp's 0600 would hide the export from others
    if (!err)
        err = writeAll(fd, content);
    if (::close(fd) != 0 && !err)
        err = errno;
    if (err) {
        fs::remove(m_tmp, ec);
        throw ExportError("cannot write " + m_path.string() + ": " + errorText(err));
    }
}

StagedFile::~StagedFile()
{
    if (!m_committed) {
        std::error_code ec;
        std::filesystem::remove(m_tmp, ec);
    }
}

void StagedFile::commit()
{
    if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0)
        throw ExportError("cannot write " + m_path.string() + ": " + errorText(errno));
    m_committed = true;
    // Make the rename itself durable; a folder that cannot be opened or synced loses nothing
    // that was not already in the page cache, so failures here are not reported.
    const std::filesystem::path dir = m_path.has_parent_path() ? m_path.parent_path() : ".";
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void writeFileAtomic(const std::filesystem::path &path, const std::string &content)
{
    StagedFile(path, content).commit();
}

} // namespace accumlab
