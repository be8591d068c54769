// libFuzzer target for the settings record's reader (core/io/settings_io.cpp: accumlab-cli
// --settings FILE, the record the window hands its ranks), built with clang's
// -fsanitize=fuzzer,address,undefined by scripts/fuzz.sh beside the curve reader's target. Any
// invariant broken in settings_invariants.h, any crash and any sanitizer report is a finding.
#include "settings_invariants.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    const std::string violation = accumlab::fuzz::settingsInvariantViolation(text);
    if (!violation.empty()) {
        std::fprintf(stderr, "settings invariant broken: %s\n", violation.c_str());
        std::abort();
    }
    return 0;
}
