// libFuzzer target for the accum-curve.v1 reader (core/io/curve_io.cpp), built with clang's
// -fsanitize=fuzzer,address,undefined by scripts/fuzz.sh. Any invariant broken in
// curve_invariants.h, any crash and any sanitizer report is a finding.
#include "curve_invariants.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    const std::string violation = accumlab::fuzz::curveInvariantViolation(text);
    if (!violation.empty()) {
        std::fprintf(stderr, "curve invariant broken: %s\n", violation.c_str());
        std::abort();
    }
    return 0;
}
