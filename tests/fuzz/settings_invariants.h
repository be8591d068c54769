// What must hold for any input to the settings record's reader (core/io/settings_io.cpp, what
// `accumlab-cli --settings FILE` and every rank of the window's sweep trust), for the libFuzzer
// target fuzz_settings_json.cpp:
//  - the reader returns or throws ConfigError, nothing else, and never crashes (N1 of issue 60:
//    a value nested 100,000 deep once overflowed the stack in the refusal's dump);
//  - a refusal is one sentence: short (a value quoted by an excerpt, never whole), on one line,
//    no NUL byte in it;
//  - an accepted record, written back with sweepSettingsRecord and read again, is the same record.
// Torch-free and Qt-free, like core/io/settings_io.cpp.
#pragma once

#include "core/io/settings_io.h"

#include <exception>
#include <string>

namespace accumlab::fuzz {

// The longest refusal a record may earn: the sentence with a file name and a 60-character excerpt.
constexpr size_t kMaxSentenceBytes = 1024;

// Empty when every invariant holds, else what broke.
inline std::string settingsInvariantViolation(const std::string &text)
{
    const std::string name = "fuzz-settings.json";
    SweepConfig c;
    try {
        c = sweepSettingsFromText(text, name);
    } catch (const ConfigError &e) {
        const std::string what = e.what();
        if (what.empty())
            return "a refusal without a sentence";
        if (what.size() > kMaxSentenceBytes)
            return "a refusal of " + std::to_string(what.size()) + " bytes: " + what.substr(0, 200);
        if (what.find('\n') != std::string::npos || what.find('\0') != std::string::npos)
            return "a refusal over several lines or with a NUL byte: " + what.substr(0, 200);
        return {};
    } catch (const std::exception &e) {
        return std::string("the reader threw something other than ConfigError: ") + e.what();
    }
    const std::string device = toString(c.base.device);
    std::string written;
    try {
        written = sweepSettingsRecord(c, device).dump();
    } catch (const std::exception &e) {
        return std::string("an accepted record cannot be written back: ") + e.what();
    }
    SweepConfig again;
    try {
        again = sweepSettingsFromText(written, name);
    } catch (const std::exception &e) {
        return std::string("the reader refused its own record written back: ") + e.what();
    }
    if (sweepSettingsRecord(again, device).dump() != written)
        return "the round trip changed the record: " + written.substr(0, 200);
    return {};
}

} // namespace accumlab::fuzz
