// `accumlab-cli verdict-grid`: the equivalence verdict over a seeded sample of settings and
// planted bugs (core/verdict_grid.h); its table, and exit 1 when a correct loop did not hold or
// a planted bug did not fail.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/lesson.h"
#include "core/verdict_grid.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class VerdictGrid : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand(
            "verdict-grid", "the equivalence verdict over a seeded sample of settings and planted bugs; prints its table");
        cmd->add_option("--runs", m_grid.runs, "checks to sample")->transform(decimal<int64_t>())->capture_default_str();
        cmd->add_option("--seed", m_grid.seed, "seed of the sample (another seed: a hold-out grid)")
            ->transform(decimal<uint64_t>())
            ->capture_default_str();
        return cmd;
    }

    int run(const Invocation &) override
    {
        if (m_grid.runs < 1)
            throw UsageError("--runs must be at least 1, got " + std::to_string(m_grid.runs));
        const VerdictGridResult r = runVerdictGrid(m_grid);
        std::cout << r.table();
        for (const std::string &miss : r.misses)
            std::cout << "miss: " << miss << "\n";
        std::cout << "verdict grid (seed " << m_grid.seed << ", " << m_grid.runs << " runs): " << r.falseFails
                  << " correct loops not holding, " << r.slipped << " planted bugs not failing\n";
        return r.falseFails == 0 && r.slipped == 0 ? 0 : kExitFails;
    }

private:
    VerdictGridConfig m_grid; // core's defaults
};

} // namespace

std::unique_ptr<Command> verdictGridCommand() { return std::make_unique<VerdictGrid>(); }

} // namespace accumlab::cli
