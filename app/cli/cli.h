// accumlab-cli's commands, callable in-process: main.cpp sets up the process (OMP_NUM_THREADS,
// the export signal clean-up) and calls run(); tests/app/gtest_cli_refusals calls it with bad
// input and reads the refusal without starting a program for each row. The dispatcher is
// cli.cpp, each command a file of commands/.
#pragma once

namespace accumlab::cli {

// Parses argv (argv[0] is the program), refuses bad input before any work (one line on
// std::cerr, exit 2, nothing written) or runs the command, writing to std::cout and std::cerr.
// Returns the exit code (core/lesson.h, core/distributed/distributed.h).
int run(int argc, char **argv);

// `code`, or 4 when what the program printed did not reach its standard output (a full disk,
// a closed pipe): a lost verdict is an error, said on std::cerr.
int checkStdout(int code);

} // namespace accumlab::cli
