// `accumlab-cli equivalence`: the full batch against its accumulated micro-batches, one JSON
// object on stdout; exit 0 when it holds, 1 when not (the cause on stderr), 7 when a planted
// bug changed nothing here. Over ranks (--world-size N) the batch is split over them.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/device.h"
#include "core/equivalence.h"
#include "core/io/export.h"
#include "core/lesson.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class Equivalence : public RankedCommand {
public:
    CLI::App *declare(CLI::App &app) override
    {
        using R = RunOption;
        CLI::App *cmd = app.add_subcommand("equivalence", "full batch vs accumulated micro-batches; prints one JSON object");
        cmd->add_option("--big-batch", m_bigBatch, "samples in the full batch")->transform(decimal<int64_t>())->capture_default_str();
        addRunOption(*cmd, m_run, R::AccumSteps, "micro-batches the batch is split into");
        addRunOptions(*cmd, m_run, {R::Optimizer, R::Lr, R::ClipNorm, R::LrWarmup, R::Scaling, R::StepEveryMicro, R::Bug,
                                    R::Dtype, R::Device, R::Labels});
        cmd->add_option("--compare-split", m_compareSplit, "a second split ACCUMxMICRO, e.g. 2x8");
        addRunOption(*cmd, m_run, R::Seed);
        addDistOptions(*cmd);
        return cmd;
    }

    int run(const Invocation &invocation) override
    {
        if (m_run.listsBugs())
            return printBugList();
        return RankedCommand::run(invocation);
    }

protected:
    void checkBeforeLaunch(int64_t world) override { config(world); }

    RankJob rankJob(int64_t world) override
    {
        const EquivalenceConfig eq = config(world);
        RankJob job;
        job.device = resolveDevice(eq.run.device);
        job.settings = rankSettings({{"command", "equivalence"},
                                     {"--big-batch", eq.bigBatch()},
                                     {"--compare-split", eq.compareSplit ? toString(*eq.compareSplit) : "none"}},
                                    eq.run);
        job.run = [eq](std::shared_ptr<GradSync> sync, std::ostream &out, std::ostream &err) {
            const EquivalenceResult r = runEquivalence(eq, nullptr, std::move(sync));
            out << toJson(r).dump(2) << std::endl;
            return reportEquivalence(r, err); // rank 0 gives the verdict
        };
        return job;
    }

private:
    EquivalenceConfig config(int64_t worldSize) const
    {
        EquivalenceConfig c;
        c.run = m_run.toConfig(worldSize); // a compare split covers the batch with every rank's share
        if (!m_compareSplit.empty())
            c.compareSplit = parseSplit(m_compareSplit);
        setBigBatch(c, m_bigBatch); // the micro-batch: --big-batch over accum_steps x ranks
        validate(c);
        return c;
    }

    // The flags start from the lesson's fixture (EquivalenceConfig's defaults).
    RunFlags m_run{EquivalenceConfig{}.run};
    int64_t m_bigBatch = EquivalenceConfig{}.bigBatch();
    std::string m_compareSplit;
};

} // namespace

std::unique_ptr<Command> equivalenceCommand() { return std::make_unique<Equivalence>(); }

} // namespace accumlab::cli
