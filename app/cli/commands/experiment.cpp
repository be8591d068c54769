// `accumlab-cli experiment ID`: a guided experiment (core/experiments/experiments.h), its measured values and
// a verdict per claim (--json: one JSON object); exit 0 whenever it ran, since the teaching-bug
// experiments show a failing claim on purpose. `experiment list` lists the ids.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/experiments/experiments.h"
#include "core/io/export.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class Experiment : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand("experiment", "run a guided experiment (or 'list' them) and print its verdicts");
        cmd->add_option("id", m_id, "experiment id, or 'list'")->required();
        cmd->add_flag("--json", m_json, "print one JSON object");
        cmd->add_flag("--fast", m_options.fast, "smaller runs, as the test suite uses");
        cmd->add_option("--sweep-steps", m_options.sweepSteps, "sweep-flattening: timed steps at the largest accum_steps (smaller ones run more: equal work per point)")->transform(decimal<int64_t>())->capture_default_str();
        cmd->add_option("--seed", m_options.seed, "seed for every model and data stream")->transform(decimal<uint64_t>())
            ->capture_default_str();
        cmd->add_option("--threads", m_options.threads, "sweep-flattening: LibTorch intra-op threads (0 = automatic, as for the main job)")->transform(decimal<int>())
            ->capture_default_str();
        return cmd;
    }

    int run(const Invocation &) override
    {
        if (m_id == "list") {
            for (const auto &info : experimentCatalog())
                std::cout << info.id << std::string(info.id.size() < 18 ? 18 - info.id.size() : 1, ' ')
                          << info.title.in("en") << "\n";
            return 0;
        }
        const ExperimentResult r = runExperiment(m_id, m_options);
        if (m_json)
            std::cout << toJson(r).dump(2) << std::endl;
        else
            std::cout << toText(r);
        return 0;
    }

private:
    std::string m_id;
    bool m_json = false;
    ExperimentOptions m_options; // core's defaults
};

} // namespace

std::unique_ptr<Command> experimentCommand() { return std::make_unique<Experiment>(); }

} // namespace accumlab::cli
