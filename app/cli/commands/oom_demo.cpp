// `accumlab-cli oom-demo`: under a memory budget (--fails-after 32 or --budget BYTES) the full
// effective batch fails with LibTorch's out-of-memory error, accumulation fits it. One JSON
// object with --json, else the demo's sentences (the Memory tab's, in English); exit 0 when the
// contrast showed, 1 when it did not.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/content/content.h"
#include "core/io/export.h"
#include "core/lesson.h"
#include "core/memory/memory_lab.h"
#include "core/memory/memory_sentences.h"
#include "core/memory/memory_timeline.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace accumlab::cli {
namespace {

class OomDemo : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand(
            "oom-demo", "under a memory budget the full effective batch fails with out-of-memory; accumulation fits it");
        m_flags.addOptions(*cmd);
        addRunOption(*cmd, m_flags.run, RunOption::MicroBatch, "samples per micro-batch with --budget (else --fails-after)");
        cmd->add_option("--timeline", m_timeline,
                        "write the measured memory timeline of both runs here (memory-timeline.v1; on CUDA where the "
                        "build records the caching allocator's history)")
            ->check(aFile());
        cmd->add_option("--snapshot", m_snapshot,
                        "write both runs as a PyTorch memory snapshot (pickle) for torch.cuda._memory_viz and "
                        "pytorch.org/memory_viz: device 0 the full batch, device 1 the accumulation (as --timeline)")
            ->check(aFile());
        return cmd;
    }

    int run(const Invocation &) override
    {
        MemoryLabConfig lab = m_flags.lab();
        if (!m_flags.budgetGiven && m_flags.noBudget)
            throw UsageError("the out-of-memory demo needs a budget");
        // The files' folders are checked before the demo runs, and the files written once it has.
        const auto folderOf = [](const std::string &file) {
            const std::filesystem::path folder = std::filesystem::path(file).parent_path();
            return folder.empty() ? std::filesystem::path(".") : folder;
        };
        for (const std::string *file : {&m_timeline, &m_snapshot})
            if (!file->empty())
                requireWritableDir(folderOf(*file));
        const OomDemoResult r = runOomDemo(lab);
        const auto wrote = [&](const std::string &file) { (m_flags.json ? std::cerr : std::cout) << "wrote " << file << "\n"; };
        if (!m_timeline.empty()) {
            writeFileAtomic(m_timeline, memoryTimelineJson(r).dump() + "\n");
            wrote(m_timeline);
        }
        if (!m_snapshot.empty()) {
            writeFileAtomic(m_snapshot, memorySnapshotPickle({&r.fullBatchTimeline, &r.accumulationTimeline}));
            wrote(m_snapshot);
        }
        if (m_flags.json) {
            std::cout << toJson(r).dump(2) << std::endl;
        } else {
            // The demo in words, the window's sentences in English (core/memory/memory_sentences.h).
            for (const std::string &line : oomDemoSentences(r, NumberStyle{}))
                std::cout << line << "\n";
        }
        if (!r.contrastShown()) {
            std::cerr << "the out-of-memory contrast did not show: the full batch "
                      << (r.fullBatchOutOfMemory ? "ran out of memory" : "fitted under the budget") << ", accumulation "
                      << (r.accumulationSucceeded ? (r.sameStep() ? "took the full batch's step" : "took another step")
                                                  : "failed")
                      << "\n";
            return kExitFails;
        }
        return 0;
    }

private:
    MemoryFlags m_flags;
    std::string m_timeline; // where memory-timeline.json goes; empty: nowhere
    std::string m_snapshot; // where the PyTorch memory snapshot goes; empty: nowhere
};

} // namespace

std::unique_ptr<Command> oomDemoCommand() { return std::make_unique<OomDemo>(); }

} // namespace accumlab::cli
