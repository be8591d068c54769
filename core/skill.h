// outputs/skill-gradient-accumulation.md: a recipe a colleague can apply in a new repo,
// with this run's measured equivalence diff and sweep table appended.
#pragma once

#include "core/equivalence.h"
#include "core/sweep.h"

#include <string>

namespace accumlab {

std::string skillMarkdown(const EquivalenceResult &equivalence, const SweepResult &sweep);

} // namespace accumlab
