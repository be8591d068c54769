// `accumlab-cli tradeoff`: a fixed effective batch over micro-batches: time per step and the
// measured peak per point, the points beyond the budget failing; a table, the sweep in
// sentences, and accum-tradeoff.json in --out-dir.
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/memory/cpu_memory.h"
#include "core/io/export.h"
#include "core/lesson.h"
#include "core/memory/memory_lab.h"
#include "core/memory/memory_sentences.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

namespace accumlab::cli {
namespace {

class Tradeoff : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        CLI::App *cmd = app.add_subcommand(
            "tradeoff", "a fixed effective batch over micro-batches: time per step and measured peak memory; accum-tradeoff.json");
        m_flags.addOptions(*cmd);
        cmd->add_flag("--no-budget", m_flags.noBudget, "no budget wall: every point runs");
        cmd->add_option("--micro-grid", m_microGrid, "micro-batches, comma-separated (default: powers of two)");
        cmd->add_option("--num-steps", m_numSteps, "timed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str();
        cmd->add_option("--warmup-steps", m_warmupSteps, "untimed optimizer steps per point")->transform(decimal<int64_t>())->capture_default_str();
        cmd->add_option("--out-dir", m_outDir, "folder for accum-tradeoff.json")->check(aFolder())->capture_default_str();
        cmd->add_flag("--no-write", m_noWrite, "do not write accum-tradeoff.json");
        return cmd;
    }

    int run(const Invocation &) override
    {
        TradeoffConfig t;
        t.lab = m_flags.lab();
        if (!m_microGrid.empty())
            t.microGrid = parseGrid(m_microGrid);
        t.numSteps = m_numSteps;
        t.warmupSteps = m_warmupSteps;
        validate(t);
        const std::filesystem::path out = std::filesystem::path(m_outDir) / "accum-tradeoff.json";
        if (!m_noWrite)
            requireWritableDir(m_outDir);
        const TradeoffResult r = runTradeoff(t);
        // The points as a table (the peak's parts: what sets it, one micro-batch's activations or
        // the step's temporaries, measured apart), then the sweep in words, the Memory tab's
        // sentences in English (core/memory/memory_sentences.h).
        std::printf("%6s %6s %12s %12s %12s %12s %12s  %s\n", "micro", "accum", "ms/step", "samples/s", "peak", "activations",
                    "step temps", "");
        const auto bytes = [](std::optional<int64_t> b) { return b ? formatByteCount(*b) : std::string("n/a"); };
        for (const TradeoffPoint &p : r.points) {
            const auto &t = p.memory.transient;
            if (p.outOfMemory)
                std::printf("%6lld %6lld %12s %12s %12s %12s %12s  %s\n", static_cast<long long>(p.microBatch),
                            static_cast<long long>(p.accumSteps), "-", "-", "-", "-", "-", p.error.c_str());
            else
                std::printf("%6lld %6lld %12.2f %12.0f %12s %12s %12s  %s\n", static_cast<long long>(p.microBatch),
                            static_cast<long long>(p.accumSteps), p.stepMsMedian, p.samplesPerSec,
                            bytes(p.peakMemBytes).c_str(), bytes(t ? std::optional(t->activations) : std::nullopt).c_str(),
                            bytes(t ? std::optional(t->stepTemporaries) : std::nullopt).c_str(),
                            t && t->stepSetsPeak() ? "the step sets the peak" : "");
        }
        for (const std::string &line : tradeoffSentences(r, NumberStyle{}))
            std::printf("%s\n", line.c_str());
        if (!m_noWrite) {
            writeFileAtomic(out, tradeoffJson(r).dump(2) + "\n");
            std::cout << "wrote " << out.string() << "\n";
        }
        return 0;
    }

private:
    MemoryFlags m_flags;
    std::string m_microGrid; // empty = powers of two
    int64_t m_numSteps = TradeoffConfig{}.numSteps;
    int64_t m_warmupSteps = TradeoffConfig{}.warmupSteps;
    std::string m_outDir = LessonOptions{}.outDir.string();
    bool m_noWrite = false;
};

} // namespace

std::unique_ptr<Command> tradeoffCommand() { return std::make_unique<Tradeoff>(); }

} // namespace accumlab::cli
