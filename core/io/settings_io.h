// A run's settings as one record, and its checked reader: what a checkpoint records, what the
// ranks of one job compare, and what the window hands the ranks it starts (accumlab-cli
// --settings FILE). Every value goes through the one checked conversion (core/io/json_reader.h),
// a record file through the one bounded reader (core/io/regular_file.h).
// Not here: resolving "auto" to a device (LibTorch's: core/io/export.h's toJson(AccumConfig) and
// sweepSettingsJson write the resolved one), the exports. Torch-free and Qt-free, so that the
// settings reader is fuzzed without LibTorch beside the curve reader (tests/fuzz/).
#pragma once

#include "core/config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace accumlab {

// Every setting of one run (AccumConfig), keyed as the CLI's option where there is one
// ("micro_batch" for --micro-batch; the CLI names a key "--micro-batch"), with `device` as the
// record's "device" (toJson(AccumConfig) passes the resolved one).
nlohmann::ordered_json settingsRecord(const AccumConfig &, const std::string &device);
// Its inverse: a run's settings from that record. A key left out keeps `base`'s value; a key
// settingsRecord does not write, a value of another type or an unknown name is refused
// (ConfigError config/settings-unknown-key, config/settings-bad-value). "device" takes "auto",
// "cpu", "cuda" or the resolved "cuda:N".
AccumConfig accumConfigFromJson(const nlohmann::json &record, const AccumConfig &base = {});
// One value of a settings record or a preset, read as T (bool, std::string, float, double, int,
// int64_t, uint64_t) through the one checked conversion (core/io/json_reader.h): a value of
// another type, a fraction for a whole number, or one outside T's range is refused with the
// key's name and a short excerpt of the value (ConfigError config/settings-not-a-number,
// -not-whole, -not-true-false, -not-a-name, -out-of-range).
template <class T>
T settingValue(const nlohmann::json &value, const std::string &key);
// A sweep's whole settings: {"schema": "accumlab-sweep-settings.v1", "run": settingsRecord(base),
// the grid, steps, repeats and threads}. sweepSettingsFromJson reads it back (ConfigError when it
// is not one, with the key at fault) and validates it.
extern const char *const kSweepSettingsSchema;
nlohmann::ordered_json sweepSettingsRecord(const SweepConfig &, const std::string &device);
SweepConfig sweepSettingsFromJson(const nlohmann::json &settings);
// The same from a record file (accumlab-cli --settings FILE): through the one bounded reader
// (a regular file of at most kMaxSettingsFileBytes), JSON nested at most kMaxSettingsJsonDepth
// deep, then sweepSettingsFromJson. Every refusal is one ConfigError that names the file
// (config/settings-file-*), and quotes a value by a short excerpt, never whole.
constexpr uint64_t kMaxSettingsFileBytes = uint64_t(1) << 20; // a sweep's record is about 2 KB
constexpr int kMaxSettingsJsonDepth = 64;                     // a record nests 3 deep
SweepConfig readSweepSettingsFile(const std::filesystem::path &file);
// The text of a record file, as readSweepSettingsFile parses it after reading it (the fuzz
// target's entry: every refusal names `name`).
SweepConfig sweepSettingsFromText(const std::string &text, const std::string &name);

} // namespace accumlab
