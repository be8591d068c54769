// `accumlab-cli train`: one training run of the engine (core/training.h), --num-steps windows;
// one JSON object with the counters and params_sha256. --checkpoint DIR
// [--checkpoint-every-micro K] saves checkpoints, --resume DIR continues from the latest one
// (--auto-resume: from --checkpoint's when it has one, else fresh: torchrun's restarts),
// --export-model FILE writes the trained parameters as safetensors. A run that diverged or never
// stepped: one line on stderr, exit 5. Over ranks (--world-size N) rank 0's verdict is the exit code.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/lesson.h"
#include "core/training.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class Train : public RankedCommand {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand("train", "one training run of the engine; prints one JSON object with params_sha256");
        m_flags.addOptions(*cmd);
        TrainingPlan &plan = m_flags.plan;
        cmd->add_option("--checkpoint", plan.checkpoint, "folder to save checkpoints in (the last one at the end)")->check(aFolder());
        cmd->add_option("--checkpoint-every-micro", plan.checkpointEvery, "also save one every K micro-batches (0 = only at the end)")
            ->transform(decimal<int64_t>())
            ->capture_default_str();
        cmd->add_option("--resume", plan.resume, "continue from the latest checkpoint in this folder")->check(aFolder());
        cmd->add_flag("--auto-resume", plan.autoResume,
                      "continue from --checkpoint's latest checkpoint when it has one, else start fresh (one command line for torchrun's restarts)");
        cmd->add_option("--export-model", plan.exportModel,
                        "write the trained parameters to FILE as safetensors (fc1.weight ... fc3.bias, for torch's load_state_dict)")
            ->check(aFile());
        addDistOptions(*cmd);
        return cmd;
    }

    int run(const Invocation &invocation) override
    {
        if (m_flags.run.listsBugs())
            return printBugList();
        return RankedCommand::run(invocation);
    }

protected:
    void checkBeforeLaunch(int64_t world) override { m_flags.config(world); }

    // A group torchrun restarted would start again from step 0 without a checkpoint to go on from.
    void checkRank(const DistributedOptions &rank) override
    {
        if (rank.restartCount > 0 && !m_flags.plan.autoResume)
            throw UsageError("torchrun restarted this group (TORCHELASTIC_RESTART_COUNT=" +
                             std::to_string(rank.restartCount) +
                             ") but train has no checkpoint to continue from: give it --checkpoint DIR --auto-resume");
    }

    RankJob rankJob(int64_t world) override
    {
        const AccumConfig c = m_flags.config(world);
        const TrainingPlan plan = m_flags.plan;
        // The plan's record as options, after the command's name; --export-model is rank 0's alone.
        nlohmann::ordered_json job{{"command", "train"}};
        const nlohmann::ordered_json record = toJson(plan);
        for (auto it = record.begin(); it != record.end(); ++it)
            if (it.key() != "export_model")
                job[optionOf(it.key())] = it.value();
        RankJob r;
        r.device = resolveDevice(c.device);
        r.settings = rankSettings(std::move(job), c);
        // Rank 0 prints the run's JSON; a run that diverged or never stepped says so in one line
        // on `err` and returns kExitDiverged.
        r.run = [c, plan](std::shared_ptr<GradSync> sync, std::ostream &out, std::ostream &err) {
            const TrainingOutcome outcome = runTraining(c, std::move(sync), plan);
            out << outcome.report.dump(2) << std::endl;
            if (!outcome.diverged)
                return 0;
            err << outcome.divergence << std::endl;
            return kExitDiverged;
        };
        return r;
    }

private:
    TrainFlags m_flags;
};

} // namespace

std::unique_ptr<Command> trainCommand() { return std::make_unique<Train>(); }

} // namespace accumlab::cli
