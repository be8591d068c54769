// Internal: the launcher's supervision of child processes (core/distributed/launcher.cpp), for
// the other ways of starting ranks in this room (core/distributed/local_sweep.cpp).
#pragma once

#include "core/distributed/distributed.h"

#include <filesystem>
#include <string>
#include <vector>

namespace accumlab::launcher {

// Starts one child per entry of `envs` (`exe args...` with that environment; its output to
// logDir/logNames[i] when logDir is set), waits for them, stops the survivors when one fails.
// `unit` names a child in the failure's words ("rank", "accumlab-cli").
LaunchResult supervise(const std::filesystem::path &exe, const std::vector<std::string> &args,
                       std::vector<std::vector<std::string>> envStrings, const std::filesystem::path &logDir,
                       const std::vector<std::string> &logNames, const std::string &unit, const CancelToken *cancel);
// This process's environment without torchrun's variables: a child that is no rank.
std::vector<std::string> environmentWithoutRank();

} // namespace accumlab::launcher
