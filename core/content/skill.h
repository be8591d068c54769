// outputs/skill-gradient-accumulation.md: a recipe a colleague can apply in a new repo, with
// this run's measured equivalence diff and sweep table. The words are content
// (resources/content/skill.<lang>.md, and skill.json for the run-dependent ones); this fills in
// the measured figures in the reader's language and digits (code blocks stay as they are). A
// right-to-left language's document is wrapped in <div dir="rtl">, its code blocks in
// <div dir="ltr">, for Markdown viewers that honour a direction.
#pragma once

#include "core/equivalence.h"
#include "core/sweep.h"

#include <string>

namespace accumlab {

struct NumberStyle; // core/content/content.h

// The recipe in English.
std::string skillMarkdown(const EquivalenceResult &equivalence, const SweepResult &sweep);
// The recipe in style.language (a code of languages.json), figures in its digits, or in Latin
// ones with style.latinDigits (the window's setting). Throws ContentError for a language the
// content has no recipe in.
std::string skillMarkdown(const EquivalenceResult &equivalence, const SweepResult &sweep, const NumberStyle &style);

} // namespace accumlab
