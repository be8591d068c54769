// `accumlab-cli oom-demo`: under a memory budget (--fails-after 32 or --budget BYTES) the full
// effective batch fails with LibTorch's out-of-memory error, accumulation fits it. One JSON
// object with --json, else sentences; exit 0 when the contrast showed, 1 when it did not.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/content/content.h"
#include "core/memory/cpu_memory.h"
#include "core/equivalence.h"
#include "core/io/export.h"
#include "core/lesson.h"
#include "core/memory/memory_lab.h"
#include "core/memory/memory_timeline.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <utility>

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
            std::cout << "budget: " << formatByteCount(r.budgetBytes) << " on " << r.device;
            if (r.failsAfterSamples > 0)
                std::cout << " (measured so that it fails after " << r.failsAfterSamples << " samples per micro-batch)";
            std::cout << "\nfull effective batch of " << r.effectiveBatch << " in one pass: needs "
                      << formatByteCount(r.fullBatch.peakBytes) << "; under the budget: "
                      << (r.fullBatchOutOfMemory ? "out of memory: " + r.fullBatchError : std::string("it fitted")) << "\n";
            std::cout << "by accumulation, " << r.accumSteps << " x " << r.microBatch << " samples: "
                      << (r.accumulationSucceeded ? "fits, peak " + formatByteCount(r.accumulation.peakBytes)
                                                  : "out of memory: " + r.accumulationError)
                      << "\n";
            // The peaks' parts, measured on the recorded windows.
            for (const auto &[name, m] : {std::pair{"full batch", &r.fullBatch}, std::pair{"accumulation", &r.accumulation}})
                if (m->transient)
                    std::cout << name << "'s peak " << formatByteCount(m->peakBytes) << ": weights "
                              << formatByteCount(m->held.weights) << ", gradients " << formatByteCount(m->held.gradients)
                              << ", optimizer state " << formatByteCount(m->held.optimizerState) << ", samples "
                              << formatByteCount(m->held.windowSamples) << ", activations "
                              << formatByteCount(m->transient->activations) << ", step temporaries "
                              << formatByteCount(m->transient->stepTemporaries)
                              << (m->transient->stepSetsPeak() ? " (the step sets the peak)" : "") << "\n";
            if (r.equivalence) {
                // The one verdict on this loop, then the run's own figure beside the lesson's yardstick.
                const EquivalenceResult &eq = *r.equivalence;
                const std::string cause = eq.cause(), why = eq.explanation(NumberStyle{});
                std::cout << "the accumulated step against the full batch's: " << toString(eq.verdict())
                          << (cause.empty() ? "" : " (" + cause + ")") << "; " << eq.criterion(NumberStyle{}) << "\n"
                          << "this run's parameters after the step: max abs diff " << formatNumber(r.maxParamDiff, ".3g")
                          << " (the lesson's bound " << formatNumber(r.paramTolerance, ".3g") << ")"
                          << (why.empty() ? "" : ". " + why) << "\n";
            }
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
