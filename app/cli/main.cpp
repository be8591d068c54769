// accumlab-cli: the lesson's script and more, headless. The commands are in commands/, one per
// file (commands.h lists them), behind the dispatcher in cli.cpp; this file sets up the process
// around them.
#include "app/cli/cli.h"

#include "core/io/export.h"
#include "core/lesson.h"
#include "core/omp_guard.h"

#include <iostream>

int main(int argc, char **argv)
{
    using namespace accumlab;
    if (const auto omp = rejectedOmpNumThreads()) {
        std::cerr << "accumlab-cli: error: OMP_NUM_THREADS='" << *omp << "' is not a thread count from 1 to "
                  << kMaxOmpThreads << " (or a comma-separated list of them); unset it or use --threads\n";
        return kExitBadInput;
    }
    installExportSignalCleanup(); // Ctrl-C or SIGTERM mid-export leaves no temporary file
    return cli::checkStdout(cli::run(argc, argv));
}
