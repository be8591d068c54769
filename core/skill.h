// outputs/skill-gradient-accumulation.md: a recipe a colleague can apply in a new repo,
// with this run's measured equivalence diff and sweep table appended. Written in English or
// in Persian (same structure; code, identifiers and figures stay as they are). Not a
// translation layer: the two recipes are written out in full.
#pragma once

#include "core/equivalence.h"
#include "core/sweep.h"

#include <string>

namespace accumlab {

enum class Language { English, Persian };

std::string skillMarkdown(const EquivalenceResult &equivalence, const SweepResult &sweep,
                          Language language = Language::English);

} // namespace accumlab
