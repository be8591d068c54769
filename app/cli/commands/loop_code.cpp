// `accumlab-cli loop-code`: the loop in PyTorch for the run's settings, as the Lab's code panel
// shows it (core/content/loop_code.h), as Python or as JSON with the statements that light each line;
// --record also writes a run of those settings for tests/pytorch/check_loop_code.py.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/content/content.h"
#include "core/io/export.h"
#include "core/content/loop_code.h"
#include "core/training.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class LoopCode : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand(
            "loop-code", "the loop in PyTorch for these settings, as the Lab's code panel shows it (--record: a run of it for "
                         "tests/pytorch/check_loop_code.py)");
        m_flags.addOptions(*cmd);
        cmd->add_option("--lang", m_lang, "the comments' language, a code of the content's languages (en | fa)")->capture_default_str();
        cmd->add_option("--ranks", m_ranks, "data-parallel ranks the code is for (the Lab's Ranks setting)")
            ->transform(decimal<int64_t>())
            ->capture_default_str();
        cmd->add_flag("--data-parallel", m_dataParallel, "the form with model.no_sync(), whatever --ranks (the recipe's)");
        cmd->add_flag("--json", m_json, "one JSON object: the variant, each line with its note and the statements that light it, the source");
        cmd->add_option("--record", m_record,
                        "also run --num-steps windows on one rank (CPU) and write them to FILE as safetensors: parameters "
                        "before and after, the gradient buffers, the samples")
            ->check(aFile());
        return cmd;
    }

    int run(const Invocation &) override
    {
        if (m_flags.run.listsBugs())
            return printBugList();
        if (m_ranks < 1 || m_ranks > kMaxWorldSize)
            throw UsageError("--ranks must be between 1 and " + std::to_string(kMaxWorldSize) + ", got " + std::to_string(m_ranks));
        AccumConfig c = m_flags.config(m_ranks);
        const NumberStyle style{languageInfo(m_lang).code};
        const LoopListing listing = loopListing(c, style, m_dataParallel ? LoopForm::DataParallel : LoopForm::AsConfigured);
        if (!m_record.empty()) {
            if (m_ranks != 1)
                throw UsageError("--record runs one rank: leave --ranks at 1 (--data-parallel gives the no_sync form)");
            if (c.dtype != DType::Float32 && c.dtype != DType::Float64)
                throw UsageError("--record needs --dtype float32 or float64 (the code has no float16 casts)");
            if (!listing.shownAsRun())
                throw UsageError("--record records a run whose code the listing writes: " + listing.caveat);
            c.device = DeviceRequest::Cpu; // the samples are drawn on the CPU, as the record holds them
            StagedFile(m_record, recordLoopRun(c, m_flags.plan.numSteps)).commit();
        }
        if (!m_json) {
            if (!listing.shownAsRun())
                std::cout << "# " << listing.caveat << "\n";
            std::cout << loopSource(listing);
            return 0;
        }
        std::cout << toJson(listing).dump(2) << std::endl;
        return 0;
    }

private:
    TrainFlags m_flags;
    std::string m_lang = "en";
    int64_t m_ranks = 1;
    bool m_dataParallel = false;
    bool m_json = false;
    std::string m_record; // "" = print only
};

} // namespace

std::unique_ptr<Command> loopCodeCommand() { return std::make_unique<LoopCode>(); }

} // namespace accumlab::cli
