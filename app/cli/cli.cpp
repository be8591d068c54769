// accumlab-cli's dispatcher: declares every command (one per file in app/cli/commands/, listed
// in commands.h), parses the arguments and runs the one named, its errors mapped to exit codes
// by the one mapping the ranks use too (commands/common.h). main.cpp sets up the process around
// it; tests call run() in-process. What each command does, its options and exit codes: the head
// of its file. In short: no command runs the lesson's main job (equivalence check, throughput
// sweep, both exports); bad input is one line on stderr, exit 2, nothing written; a rank that
// fails to meet its peers or loses one mid-run, exit 3; exports that cannot be written at the
// end, exit 4 (the earlier ones are left as they were).
#include "app/cli/cli.h"

#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/lesson.h"
#include "core/version.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

int accumlab::cli::run(int argc, char **argv)
{
    CLI::App app{"AccumLab: gradient accumulation on real tensors"};
    app.set_version_flag("--version", std::string("accumlab-cli ") + kVersion);
    // The main job first (its options are the program's), then the subcommands as --help lists them.
    std::vector<std::pair<std::unique_ptr<Command>, CLI::App *>> commands;
    for (auto make : {mainJobCommand, oomDemoCommand, tradeoffCommand, findMicroBatchCommand, equivalenceCommand,
                      experimentCommand, contentCheckCommand, verdictGridCommand, trainCommand, loopCodeCommand}) {
        std::unique_ptr<Command> command = make();
        CLI::App *declared = command->declare(app);
        commands.emplace_back(std::move(command), declared);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &ex) {
        return app.exit(ex);
    } catch (const CLI::CallForVersion &ex) {
        return app.exit(ex);
    } catch (const CLI::ParseError &ex) {
        std::cerr << "accumlab-cli: error: " << ex.what() << "\n";
        return kExitBadInput;
    }
    try {
        // The command named (of several, the last one declared; CLI11 lets a subcommand follow another).
        Command *chosen = commands.front().first.get();
        const CLI::App *sub = nullptr;
        for (const auto &[command, declared] : commands)
            if (declared != &app && declared->parsed()) {
                chosen = command.get();
                sub = declared;
            }
        // The main job's options belong before no subcommand: `--lr 0.5 equivalence` would
        // otherwise set the sweep's rate and run the check with its own, silently.
        if (sub)
            for (const CLI::Option *o : app.get_options())
                if (o->count() > 0)
                    throw UsageError(o->get_name() + " is an option of the main job, not of '" + sub->get_name() +
                                     "'; give '" + sub->get_name() + "' its own options after its name");
        return chosen->run({argc, argv});
    } catch (const std::exception &) {
        return exitCodeOfCurrentError(std::cerr);
    }
}

// What the program printed must have reached its standard output: a verdict written into a
// full disk or a closed pipe is lost, so a run that could not print ends with exit 4 and says
// so on stderr instead of exiting 0.
int accumlab::cli::checkStdout(int code)
{
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::cerr << "accumlab-cli: error: could not write to standard output (" << std::strerror(errno)
                  << "); the results printed there are lost\n";
        return code == 0 || (isVerdictExitCode(code) && code != kExitDiverged) ? kExitWriteFailed : code;
    }
    return code;
}
