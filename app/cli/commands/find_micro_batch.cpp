// `accumlab-cli find-micro-batch`: the largest micro-batch under the budget (every divisor of
// the effective batch measured) and the accum_steps it takes, in the Memory tab's sentences or
// one JSON object (--json); exit 1 when none fits.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/io/export.h"
#include "core/lesson.h"
#include "core/memory/memory_lab.h"
#include "core/memory/memory_sentences.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class FindMicroBatch : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand(
            "find-micro-batch", "the largest micro-batch that fits the budget (every divisor of the effective batch measured), and its accum_steps");
        m_flags.addOptions(*cmd);
        return cmd;
    }

    int run(const Invocation &) override
    {
        if (!m_flags.budgetGiven && m_flags.noBudget)
            throw UsageError("the finder needs a budget");
        const MicroBatchFinding r = findMicroBatch(m_flags.lab());
        if (m_flags.json) {
            std::cout << toJson(r).dump(2) << std::endl;
        } else {
            // The Memory tab's sentences in English (core/memory/memory_sentences.h).
            for (const std::string &line : finderSentences(r, NumberStyle{}))
                std::cout << line << "\n";
        }
        return r.microBatch > 0 ? 0 : kExitFails;
    }

private:
    MemoryFlags m_flags;
};

} // namespace

std::unique_ptr<Command> findMicroBatchCommand() { return std::make_unique<FindMicroBatch>(); }

} // namespace accumlab::cli
