// The main job, `accumlab-cli` with no command: the lesson's script (equivalence check,
// throughput sweep, both exports; core/lesson.h), on this process or over ranks. Its options
// are the program's own; they belong before no command (the dispatcher refuses them there).
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/content/content.h"
#include "core/memory/cpu_memory.h"
#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/io/export.h"
#include "core/lesson.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

// What the ranks of a main job compare: the sweep's own settings from core's one record of a
// sweep (sweepSettingsJson, so that a new one cannot be left out here), then the run's
// (accum_steps is the grid's, point by point); --threads is speed only.
std::string sweepRankSettings(const SweepConfig &sweep)
{
    AccumConfig base = sweep.base;
    base.accumSteps = 1;
    nlohmann::ordered_json job{{"command", "main job"}, {"--model", toString(base.preset)}};
    const nlohmann::ordered_json record = sweepSettingsJson(sweep);
    for (auto it = record.begin(); it != record.end(); ++it) {
        if (it.key() == "schema" || it.key() == "run" || it.key() == "threads")
            continue;
        job[optionOf(it.key())] = it.value();
    }
    return rankSettings(std::move(job), base);
}

class MainJob : public RankedCommand {
public:
    CLI::App *declare(CLI::App &app) override
    {
        using R = RunOption;
        std::vector<CLI::Option *> mainRun =
            addRunOptions(app, m_run, {R::MicroBatch, R::Seed, R::Lr, R::ClipNorm, R::LrWarmup, R::Optimizer, R::Scaling,
                                       R::StepEveryMicro, R::Bug, R::NoSync, R::Dtype, R::LossScaling, R::ScalerBug,
                                       R::ScalerGrowthInterval, R::Device, R::Model, R::Labels, R::Hidden});
        mainRun.push_back(app.add_option("--accum-grid", m_accumGrid, "accumulation steps to sweep, comma-separated")->capture_default_str());
        mainRun.push_back(app.add_option("--num-steps", m_numSteps, "timed optimizer steps per sweep point")->transform(decimal<int64_t>())->capture_default_str());
        mainRun.push_back(app.add_option("--warmup-steps", m_warmupSteps, "untimed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str());
        mainRun.push_back(app.add_option("--repeats", m_repeats, "timed blocks per point, interleaved across the grid (median and spread)")
                              ->transform(decimal<int64_t>())
                              ->capture_default_str());
        mainRun.push_back(app.add_flag("--equal-work", m_equalWork,
                                       "every point does the same work: --num-steps is what the grid's largest accum_steps "
                                       "runs, a smaller N runs as many micro-batches (the window's sweep)"));
        mainRun.push_back(app.add_option("--threads", m_threads, "LibTorch intra-op threads (0 = automatic: one thread for a micro-batch too small to split, else LibTorch's default)")->transform(decimal<int>())->capture_default_str());
        app.add_flag("--no-write", m_noWrite, "do not write the exports");
        app.add_option("--out-dir", m_outDir, "folder for accum-curve.json and the skill file")->capture_default_str();
        app.add_option("--lang", m_lang, "language of the skill recipe, a code of the content's languages (en | fa)")->capture_default_str();
        CLI::Option *settingsOpt =
            app.add_option("--settings", m_settings,
                           "the sweep's settings from a record (accumlab-sweep-settings.v1, as the window hands a sweep to "
                           "its ranks) instead of the options above; its run's world size is the job's")
                ->check(CLI::Validator(
                    [](std::string &file) { return file.empty() ? std::string("needs a file name") : std::string(); },
                    "FILE"));
        for (CLI::Option *o : mainRun)
            settingsOpt->excludes(o);
        app.add_option("--memory-counter", m_memoryCounter,
                       "on | off: count CPU tensor memory (peak_mem_bytes); off is the overhead benchmark's baseline")
            ->capture_default_str();
        addDistOptions(app);
        settingsOpt->excludes(m_worldOption); // the record's run names its world size
        return &app;
    }

    int run(const Invocation &invocation) override
    {
        if (!parseOnOff(m_memoryCounter, "--memory-counter"))
            keepCpuMemoryCounterOff();
        if (m_run.listsBugs())
            return printBugList();
        return RankedCommand::run(invocation);
    }

protected:
    void prepare() override
    {
        if (!m_settings.empty())
            m_worldSize = lessonOptions().sweep.base.worldSize;
    }

    void checkBeforeLaunch(int64_t world) override
    {
        LessonOptions o = lessonOptions();
        setWorld(o, world);
        if (m_masterPort != 0)
            requirePortFree("127.0.0.1", m_masterPort); // before the out-dir is created
        if (o.write)
            requireWritableDir(o.outDir);
    }

    RankJob rankJob(int64_t world) override
    {
        LessonOptions lesson = lessonOptions();
        setWorld(lesson, world);
        RankJob job;
        job.device = resolveDevice(lesson.sweep.base.device);
        job.settings = sweepRankSettings(lesson.sweep);
        job.run = [lesson](std::shared_ptr<GradSync> sync, std::ostream &out, std::ostream &err) mutable {
            lesson.sync = std::move(sync);
            return runLesson(lesson, out, err);
        };
        return job;
    }

    int runAlone() override { return runLessonJob(lessonOptions(), "accumlab-cli", std::cout, std::cerr); }

private:
    // The sweep: from the flags, or from a settings record (--settings FILE, as the window
    // hands a sweep to its ranks) with the run's world size.
    LessonOptions lessonOptions() const
    {
        LessonOptions o;
        if (!m_settings.empty()) {
            o.sweep = readSweepSettingsFile(m_settings); // bounded: size, kind, depth (core/io/export.h)
            resolveDevice(o.sweep.base.device);
        } else {
            o.sweep.base = m_run.toConfig(o.sweep.base.worldSize);
            o.sweep.accumGrid = parseGrid(m_accumGrid);
            o.sweep.numSteps = m_numSteps;
            o.sweep.warmupSteps = m_warmupSteps;
            o.sweep.repeats = m_repeats;
            o.sweep.equalWork = m_equalWork;
            o.sweep.threads = m_threads;
        }
        std::string languages;
        bool known = false;
        for (const LanguageInfo &l : contentLanguages()) {
            languages += (languages.empty() ? "" : " | ") + l.code;
            known = known || l.code == m_lang;
        }
        if (!known)
            throw UsageError("--lang takes " + languages + ", got '" + m_lang + "'");
        o.language = m_lang;
        o.write = !m_noWrite;
        if (m_outDir.empty())
            throw UsageError("--out-dir must name a folder");
        o.outDir = m_outDir;
        validate(o.sweep);
        return o;
    }

    // The flags start from core's defaults: LessonOptions, its SweepConfig and that sweep's run.
    RunFlags m_run{LessonOptions{}.sweep.base};
    std::string m_accumGrid = gridText(LessonOptions{}.sweep.accumGrid);
    int64_t m_numSteps = LessonOptions{}.sweep.numSteps;
    int64_t m_warmupSteps = LessonOptions{}.sweep.warmupSteps;
    int64_t m_repeats = LessonOptions{}.sweep.repeats;
    bool m_equalWork = LessonOptions{}.sweep.equalWork;
    int m_threads = LessonOptions{}.sweep.threads;
    bool m_noWrite = !LessonOptions{}.write;
    std::string m_outDir = LessonOptions{}.outDir.string();
    std::string m_lang = LessonOptions{}.language; // language of the skill recipe
    std::string m_settings; // --settings FILE: the sweep's settings from its record instead
    std::string m_memoryCounter = "on";
};

} // namespace

std::unique_ptr<Command> mainJobCommand() { return std::make_unique<MainJob>(); }

} // namespace accumlab::cli
