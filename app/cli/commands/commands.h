// accumlab-cli's commands, one file each in this folder, as the dispatcher (app/cli/cli.cpp)
// lists them. Each factory makes one command; its class stays in its file.
#pragma once

#include <memory>

namespace accumlab::cli {

class Command;

std::unique_ptr<Command> mainJobCommand();         // no command: the lesson's main job (main_job.cpp)
std::unique_ptr<Command> oomDemoCommand();         // oom-demo (oom_demo.cpp)
std::unique_ptr<Command> tradeoffCommand();        // tradeoff (tradeoff.cpp)
std::unique_ptr<Command> findMicroBatchCommand();  // find-micro-batch (find_micro_batch.cpp)
std::unique_ptr<Command> equivalenceCommand();     // equivalence (equivalence.cpp)
std::unique_ptr<Command> experimentCommand();      // experiment (experiment.cpp)
std::unique_ptr<Command> contentCheckCommand();    // content-check (content_check.cpp)
std::unique_ptr<Command> verdictGridCommand();     // verdict-grid (verdict_grid.cpp)
std::unique_ptr<Command> trainCommand();           // train (train.cpp)
std::unique_ptr<Command> loopCodeCommand();        // loop-code (loop_code.cpp)

} // namespace accumlab::cli
