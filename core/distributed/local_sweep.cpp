// The window's sweep on rank processes: accumlab-cli started as the launcher of its own ranks,
// handed the sweep as one record (--settings), and the points rank 0 wrote read back.
#include "core/distributed/distributed.h"

#include "core/distributed/launcher.h"
#include "core/io/export.h"
#include "core/io/regular_file.h"
#include "core/lesson.h"

namespace accumlab {

SweepResult runSweepOnLocalRanks(const std::filesystem::path &cli, const SweepConfig &config,
                                 const std::filesystem::path &workDir, double timeoutS, EngineObserver *observer,
                                 const CancelToken *cancel)
{
    // The ranks read the sweep's settings from its record (every field of the run, the loss
    // scaler and a planted bug included), not from an argument list rebuilt here. The work
    // folder is the one the caller named (made by the staged write if missing); what goes inside
    // it is never written through a link: the record's link is replaced by its rename, a logs
    // link is refused (launcher::supervise), and rank 0 writes the curve the same way.
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
    // The points through the one bounded reader, as the window's importer reads a curve.
    const std::filesystem::path curve = workDir / kCurveFileName;
    const FileBytes f = readRegularFile(curve, kMaxCurveFileBytes);
    if (f.refusal != ReadRefusal::None)
        throw DistributedError("distributed/cli-no-curve", TextArgs{{}, {{"path", curve.string()}}});
    SweepResult result;
    result.config = config;
    result.points = parseCurveJson(f.bytes).points;
    if (observer)
        for (const auto &p : result.points)
            observer->onSweepPoint(p);
    return result;
}

} // namespace accumlab
