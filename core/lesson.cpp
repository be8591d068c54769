// The lesson's main job.
#include "core/lesson.h"

#include "core/io/export.h"
#include "core/content/content.h"
#include "core/distributed/distributed.h"
#include "core/distributed/grad_sync.h"
#include "core/content/skill.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace accumlab {

const char *const kCurveFileName = "accum-curve.json";
const char *const kSkillFileName = "skill-gradient-accumulation.md";

std::string sweepTable(const SweepResult &sweep)
{
    std::ostringstream out;
    char line[256];
    // The lesson's seven columns, then the loss as the lesson's loop logs it (scaled x N), so
    // the no-division bug shows N x in the log, then the spread of the interleaved timing
    // blocks (the slowest and the fastest block's samples/sec).
    std::snprintf(line, sizeof line, "%10s  %5s  %5s  %10s  %10s  %6s  %8s  %8s  %10s  %10s\n", "eff_batch", "accum",
                  "micro", "sps", "median_ms", "syncs", "loss", "logged", "sps_min", "sps_max");
    out << line;
    for (const auto &p : sweep.points) {
        std::snprintf(line, sizeof line, "%10lld  %5lld  %5lld  %10.1f  %10.2f  %6lld  %8.4f  %8.4f  %10.1f  %10.1f%s\n",
                      static_cast<long long>(p.effectiveBatch), static_cast<long long>(p.accumSteps),
                      static_cast<long long>(p.microBatch), p.samplesPerSec, p.medianStepMs,
                      static_cast<long long>(p.syncCalls), p.avgLoss, p.avgLoggedLoss, p.blockMin(), p.blockMax(),
                      p.diverged ? "  diverged" : "");
        out << line;
        if (p.diverged)
            out << "           " << divergenceSentence(p) << "\n";
    }
    // float16's path and the loss scaler's counters, per point, where they ran.
    for (const auto &p : sweep.points) {
        if (p.float16Path.empty() && !p.lossScaling)
            continue;
        std::snprintf(line, sizeof line, "accum %lld: %s", static_cast<long long>(p.accumSteps),
                      p.float16Path.empty() ? p.dtype.c_str() : p.float16Path.c_str());
        out << line;
        if (p.lossScaling) {
            std::snprintf(line, sizeof line, ", loss scale %g, skipped windows %lld, unscale calls %lld", p.lossScale,
                          static_cast<long long>(p.skippedWindows), static_cast<long long>(p.unscaleCalls));
            out << line;
        } else {
            out << ", no loss scaler";
        }
        out << "\n";
    }
    if (sweep.config.base.labels == LabelKind::Random) {
        std::snprintf(line, sizeof line,
                      "labels are random: nothing can be learned, so the loss stays near ln %lld = %.4f, as in the "
                      "lesson (the default teacher labels make it fall)\n",
                      static_cast<long long>(sweep.config.base.modelShape().classes),
                      std::log(static_cast<double>(sweep.config.base.modelShape().classes)));
        out << line;
    }
    return out.str();
}

void requireWritableDir(const std::filesystem::path &dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw ConfigError("lesson/output-not-a-folder", TextArgs{{}, {{"path", dir.string()}}});
    fs::create_directories(dir, ec);
    if (ec)
        throw ConfigError("lesson/output-cannot-create",
                          TextArgs{{}, {{"path", dir.string()}, {"reason", ec.message()}}});
    // Permission bits do not bind root, and some file systems refuse writes anyway: try one.
    const fs::path probe = dir / (".accumlab-probe-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        const std::string reason = std::strerror(errno); // before anything else can set errno
        throw ConfigError("lesson/output-not-writable", TextArgs{{}, {{"path", dir.string()}, {"reason", reason}}});
    }
    ::close(fd);
    fs::remove(probe, ec);
}

ExportPaths writeExports(const std::filesystem::path &outDir, const SweepResult &sweep,
                         const EquivalenceResult &equivalence, const std::string &language, const CancelToken *cancel)
{
    ExportPaths paths{outDir / kCurveFileName, outDir / kSkillFileName};
    // Both files are staged before either is published, then published as a pair: a failure
    // or a cancel leaves both destinations as they were. One export id in both tells a reader
    // that the two belong to one run.
    const std::string id = randomId();
    nlohmann::json curveDoc = curveJson(sweep, &equivalence);
    curveDoc["export_id"] = id;
    StagedFile curve(paths.curve, curveDoc.dump(2) + "\n");
    if (cancel && cancel->cancelled())
        throw Cancelled{};
    StagedFile skill(paths.skill, skillMarkdown(equivalence, sweep, NumberStyle{language, false}) + "\n<!-- export_id: " + id + " -->\n");
    if (cancel && cancel->cancelled())
        throw Cancelled{};
    publishTogether({&curve, &skill});
    return paths;
}

EquivalenceConfig lessonCheck(const SweepConfig &sweep)
{
    EquivalenceConfig e = equivalenceConfigOf(sweep.base);
    e.run.accumSteps = *std::max_element(sweep.accumGrid.begin(), sweep.accumGrid.end());
    validate(e);
    return e;
}

void setWorld(LessonOptions &options, int64_t world)
{
    options.sweep.base.worldSize = world;
    validate(options.sweep);
    validate(lessonCheck(options.sweep));
}

int runLesson(const LessonOptions &options, std::ostream &out, std::ostream &err, EngineObserver *observer,
              const CancelToken *cancel)
{
    validate(options.sweep);
    const EquivalenceConfig check = lessonCheck(options.sweep);
    const bool write = options.write && (!options.sync || options.sync->rank() == 0);
    if (write)
        requireWritableDir(options.outDir);

    if (observer)
        observer->onPhase(LessonPhase::Equivalence);
    out << "equivalence check (full batch vs accumulated)\n";
    const EquivalenceResult eq = runEquivalence(check, cancel, options.sync);
    out << toJson(eq).dump(2) << "\n";
    int code = 0;
    switch (eq.verdict()) {
    case Verdict::Holds:
        out << "equivalence holds. running sweep...\n";
        break;
    case Verdict::Fails:
        if (!plantsABug(check.run)) {
            err << "equivalence does not hold: " << eq.cause() << "\n";
            return kExitFails;
        }
        // The lesson's exercise: the planted bug, shown with its figures at step 1.
        err << "equivalence does not hold, as planted (" << plantedBugNames(check.run) << "): " << eq.cause()
            << "\nafter step 1: max |param diff| " << formatNumber(eq.maxParamDiff, ".3g") << ", update ratio "
            << formatNumber(eq.updateRatio, ".4f") << " (accumulated / full), max |grad diff| "
            << formatNumber(eq.maxGradDiff, ".3g") << "\n";
        out << "a planted bug was shown. running sweep with it...\n";
        code = kExitBugShown;
        break;
    case Verdict::NoEffect:
        err << eq.cause() << "\n";
        out << "the planted bug had no effect here. running sweep...\n";
        code = kExitBugNoEffect;
        break;
    }
    if (observer)
        observer->onPhase(LessonPhase::Sweep);
    const SweepResult sweep = runSweep(options.sweep, observer, cancel, options.sync);
    out << sweepTable(sweep);
    for (const auto &p : sweep.points)
        if (p.diverged)
            err << "warning: " << divergenceSentence(p) << "; the rest of the sweep carried on\n";
    if (write) {
        if (observer)
            observer->onPhase(LessonPhase::Export);
        const ExportPaths paths = writeExports(options.outDir, sweep, eq, options.language, cancel);
        out << "wrote " << paths.curve.string() << "\n";
        out << "wrote " << paths.skill.string() << "\n";
    }
    return code;
}

int reportEquivalence(const EquivalenceResult &r, std::ostream &err)
{
    switch (r.verdict()) {
    case Verdict::Holds:
        return 0;
    case Verdict::Fails:
        err << "equivalence does not hold: " << r.cause() << "\n";
        return kExitFails;
    case Verdict::NoEffect:
        err << r.cause() << "\n";
        return kExitBugNoEffect;
    }
    return kExitFails;
}

int runLessonJob(const LessonOptions &options, const std::string &program, std::ostream &out, std::ostream &err)
{
    try {
        return runLesson(options, out, err);
    } catch (const DistributedError &ex) {
        err << program << ": error: " << ex.what() << "\n";
        return kExitDistributed;
    } catch (const ExportError &ex) {
        err << program << ": error: " << ex.what() << "; earlier exports were left as they were\n";
        return kExitWriteFailed;
    } catch (const std::exception &ex) {
        err << program << ": error: " << ex.what() << "\n";
        return kExitBadInput;
    }
}

} // namespace accumlab
