// OMP_NUM_THREADS is read by libgomp (LibTorch's OpenMP runtime) while the program loads,
// before main: an absurd value (100000000, 99999999999) makes it allocate per-thread state
// until it crashes or aborts, whatever --threads says. An entry in the executable's
// .preinit_array, which runs before any shared library's initialiser, checks the value,
// replaces a bad one with 1 in place so libgomp loads safely, and keeps the original for main
// to refuse in a sentence. Both programs call rejectedOmpNumThreads() first thing in main
// (the call is also what links this file's entry into them).
#pragma once

#include <optional>
#include <string>

namespace accumlab {

// The largest OMP_NUM_THREADS accepted (per nesting level of a comma-separated list).
constexpr int kMaxOmpThreads = 4096;

// The value OMP_NUM_THREADS had at start when it was not a list of whole numbers from 1 to
// kMaxOmpThreads; nullopt when it was unset or valid.
std::optional<std::string> rejectedOmpNumThreads();

// Whether `text` is such a list ("4", "4,2"). For the tests.
bool validOmpNumThreads(const char *text);

} // namespace accumlab
