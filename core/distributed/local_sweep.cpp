// The window's sweep on rank processes: accumlab-cli started as the launcher of its own ranks,
// handed the sweep as one record (--settings), and the points rank 0 wrote read back.
#include "core/distributed/distributed.h"

#include "core/distributed/launcher.h"
#include "core/io/export.h"
#include "core/lesson.h"

#include <fstream>
#include <iterator>

namespace accumlab {

SweepResult runSweepOnLocalRanks(const std::filesystem::path &cli, const SweepConfig &config,
                                 const std::filesystem::path &workDir, double timeoutS, EngineObserver *observer,
                                 const CancelToken *cancel)
{
    // The ranks read the sweep's settings from its record (every field of the run, the loss
    // scaler and a planted bug included), not from an argument list rebuilt here.
    std::filesystem::create_directories(workDir);
    const std::filesystem::path settings = workDir / kSweepSettingsFileName;
    StagedFile(settings, sweepSettingsJson(config).dump(2) + "\n").commit();
    const std::vector<std::string> args{"--settings", settings.string(), "--out-dir", workDir.string(),
                                        "--dist-timeout", toDecimalString(timeoutS)};
    // accumlab-cli is the launcher here (it starts and supervises the ranks itself), so it runs
    // as one plain child without torchrun's variables; its output, the ranks' included, is logged.
    std::filesystem::remove(workDir / kCurveFileName);
    const LaunchResult r = launcher::supervise(cli, args, {launcher::environmentWithoutRank()}, workDir / "logs", {"accumlab-cli.log"},
                                     "accumlab-cli", cancel);
    // A planted bug shown (or without effect) still swept: its points are the lesson's.
    const bool swept = sweptExitCode(r.exitCode);
    if (!swept && !r.failureCode.empty())
        throw DistributedError(r.failureCode, r.failureArgs);
    if (!swept)
        throw DistributedError(r.failure);
    std::ifstream in(workDir / kCurveFileName);
    if (!in)
        throw DistributedError("distributed/cli-no-curve", TextArgs{{}, {{"path", (workDir / kCurveFileName).string()}}});
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SweepResult result;
    result.config = config;
    result.points = parseCurveJson(text).points;
    if (observer)
        for (const auto &p : result.points)
            observer->onSweepPoint(p);
    return result;
}

} // namespace accumlab
