// A run's settings record and its checked reader (core/io/settings_io.h).
#include "core/io/settings_io.h"

#include "core/io/json_reader.h"
#include "core/io/regular_file.h"

#include <cstring>
#include <limits>
#include <type_traits>

namespace accumlab {

using nlohmann::json;

nlohmann::ordered_json settingsRecord(const AccumConfig &c, const std::string &device)
{
    const OptimizerConfig &o = c.optimizer;
    const LossScalerConfig &l = c.lossScaler;
    const ModelShape shape = c.modelShape();
    return {{"model", toString(c.preset)},
            {"in_features", shape.inFeatures},
            {"hidden", shape.hidden},
            {"classes", shape.classes},
            {"micro_batch", c.microBatch},
            {"accum_steps", c.accumSteps},
            {"world_size", c.worldSize},
            {"optimizer", toString(o.kind)},
            {"lr", o.lr},
            {"momentum", o.momentum},
            {"weight_decay", o.weightDecay},
            {"adam_weight_decay", o.adamWeightDecay},
            {"beta1", o.beta1},
            {"beta2", o.beta2},
            {"eps", o.eps},
            {"clip_norm", o.clipNorm},
            {"lr_warmup", o.lrWarmup},
            {"scaling", toString(c.scaling)},
            {"step_every_micro", c.stepEveryMicro},
            {"bug", toString(c.bug)},
            {"no_sync", c.noSync},
            {"dtype", toString(c.dtype)},
            {"loss_scaling", l.enabled},
            {"scaler_init_scale", l.initScale},
            {"scaler_growth_factor", l.growthFactor},
            {"scaler_backoff_factor", l.backoffFactor},
            {"scaler_growth_interval", l.growthInterval},
            {"scaler_bug", toString(l.bug)},
            {"scaler_spike_window", l.spikeWindow},
            {"scaler_spike_micro", l.spikeMicro},
            {"device", device},
            {"labels", toString(c.labels)},
            {"seed", c.seed}};
}

template <class T>
T settingValue(const json &v, const std::string &key)
{
    T out{};
    const NumberFault fault = jsonNumberInto(v, out);
    if (fault == NumberFault::None)
        return out;
    TextArgs args{{}, {{"key", textExcerpt(key)}, {"value", jsonExcerpt(v)}}};
    if (fault == NumberFault::OutOfRange) {
        if constexpr (std::is_integral_v<T>) {
            args.strings["lo"] = std::to_string(std::numeric_limits<T>::lowest());
            args.strings["hi"] = std::to_string(std::numeric_limits<T>::max());
        } else {
            args.strings["lo"] = "-3.4e38";
            args.strings["hi"] = "3.4e38";
        }
        throw ConfigError("config/settings-out-of-range", std::move(args));
    }
    if constexpr (std::is_same_v<T, bool>)
        throw ConfigError("config/settings-not-true-false", std::move(args));
    else if constexpr (std::is_same_v<T, std::string>)
        throw ConfigError("config/settings-not-a-name", std::move(args));
    else if constexpr (std::is_integral_v<T>)
        throw ConfigError("config/settings-not-whole", std::move(args));
    else
        throw ConfigError("config/settings-not-a-number", std::move(args));
}
template bool settingValue<bool>(const json &, const std::string &);
template std::string settingValue<std::string>(const json &, const std::string &);
template double settingValue<double>(const json &, const std::string &);
template float settingValue<float>(const json &, const std::string &);
template int settingValue<int>(const json &, const std::string &);
template int64_t settingValue<int64_t>(const json &, const std::string &);
template uint64_t settingValue<uint64_t>(const json &, const std::string &);

namespace {

template <class T>
T settingAs(const json &record, const std::string &key)
{
    return settingValue<T>(record.at(key), key);
}

// An enum's name, read with its fromString (whose ConfigError names the value).
template <class F>
auto settingNamed(const json &record, const std::string &key, F fromString)
{
    return fromString(settingAs<std::string>(record, key));
}

} // namespace

AccumConfig accumConfigFromJson(const json &record, const AccumConfig &base)
{
    if (!record.is_object())
        throw ConfigError("config/settings-bad-value", TextArgs{{}, {{"key", "run"}, {"value", jsonExcerpt(record)}}});
    const nlohmann::ordered_json known = settingsRecord(base, toString(base.device)); // its keys
    for (auto it = record.begin(); it != record.end(); ++it)
        if (!known.contains(it.key()))
            throw ConfigError("config/settings-unknown-key", TextArgs{{}, {{"key", textExcerpt(it.key())}}});
    AccumConfig c = base;
    OptimizerConfig &o = c.optimizer;
    LossScalerConfig &l = c.lossScaler;
    const auto has = [&](const char *key) { return record.contains(key); };
    if (has("model"))
        c.preset = settingNamed(record, "model", presetFromString);
    ModelShape shape = c.modelShape();
    if (has("in_features"))
        shape.inFeatures = settingAs<int64_t>(record, "in_features");
    if (has("hidden"))
        shape.hidden = settingAs<int64_t>(record, "hidden");
    if (has("classes"))
        shape.classes = settingAs<int64_t>(record, "classes");
    const ModelShape preset = shapeOf(c.preset);
    if (shape.inFeatures == preset.inFeatures && shape.hidden == preset.hidden && shape.classes == preset.classes)
        c.shape.reset();
    else
        c.shape = shape;
    // A key that is there sets its field, read as the field's type.
    const auto read = [&]<class T>(const char *key, T &into) {
        if (has(key))
            into = settingAs<T>(record, key);
    };
    read("micro_batch", c.microBatch);
    read("accum_steps", c.accumSteps);
    read("world_size", c.worldSize);
    if (has("optimizer"))
        o.kind = settingNamed(record, "optimizer", optimizerFromString);
    read("lr", o.lr);
    read("momentum", o.momentum);
    read("weight_decay", o.weightDecay);
    read("adam_weight_decay", o.adamWeightDecay);
    read("beta1", o.beta1);
    read("beta2", o.beta2);
    read("eps", o.eps);
    read("clip_norm", o.clipNorm);
    read("lr_warmup", o.lrWarmup);
    if (has("scaling"))
        c.scaling = settingNamed(record, "scaling", scalingFromString);
    read("step_every_micro", c.stepEveryMicro);
    if (has("bug"))
        c.bug = settingNamed(record, "bug", accumBugFromString);
    read("no_sync", c.noSync);
    if (has("dtype"))
        c.dtype = settingNamed(record, "dtype", dtypeFromString);
    read("loss_scaling", l.enabled);
    read("scaler_init_scale", l.initScale);
    read("scaler_growth_factor", l.growthFactor);
    read("scaler_backoff_factor", l.backoffFactor);
    read("scaler_growth_interval", l.growthInterval);
    if (has("scaler_bug"))
        l.bug = settingNamed(record, "scaler_bug", scalerBugFromString);
    read("scaler_spike_window", l.spikeWindow);
    read("scaler_spike_micro", l.spikeMicro);
    if (has("device")) {
        std::string device = settingAs<std::string>(record, "device");
        if (device.rfind("cuda:", 0) == 0) // resolved on a machine with a GPU
            device = "cuda";
        c.device = deviceFromString(device);
    }
    if (has("labels"))
        c.labels = settingNamed(record, "labels", labelsFromString);
    if (has("seed"))
        c.seed = settingAs<uint64_t>(record, "seed");
    validate(c);
    return c;
}

const char *const kSweepSettingsSchema = "accumlab-sweep-settings.v1";

nlohmann::ordered_json sweepSettingsRecord(const SweepConfig &c, const std::string &device)
{
    validate(c);
    return {{"schema", kSweepSettingsSchema},
            {"run", settingsRecord(c.base, device)},
            {"accum_grid", c.accumGrid},
            {"num_steps", c.numSteps},
            {"warmup_steps", c.warmupSteps},
            {"repeats", c.repeats},
            {"threads", c.threads},
            {"equal_work", c.equalWork},
            {"phase_timing", c.phaseTiming}};
}

SweepConfig readSweepSettingsFile(const std::filesystem::path &file)
{
    const std::string name = file.string();
    const FileBytes f = readRegularFile(file, kMaxSettingsFileBytes);
    switch (f.refusal) {
    case ReadRefusal::None: break;
    case ReadRefusal::System:
        throw ConfigError("config/settings-file-unreadable", TextArgs{{}, {{"file", name}, {"reason", std::strerror(f.error)}}});
    case ReadRefusal::NotRegular:
        throw ConfigError("config/settings-file-not-regular", TextArgs{{}, {{"file", name}}});
    case ReadRefusal::TooLarge:
        throw ConfigError("config/settings-file-too-large",
                          TextArgs{{{"max", double(kMaxSettingsFileBytes)}}, {{"file", name}}});
    }
    return sweepSettingsFromText(f.bytes, name);
}

SweepConfig sweepSettingsFromText(const std::string &text, const std::string &name)
{
    json record;
    try {
        record = parseJson(text, kMaxSettingsJsonDepth); // the one JSON reader (core/io/json_reader.h)
    } catch (const JsonRefusal &r) {
        if (r.kind == JsonRefusal::TooDeep)
            throw ConfigError("config/settings-file-too-deep",
                              TextArgs{{{"depth", double(kMaxSettingsJsonDepth)}}, {{"file", name}}});
        throw ConfigError("config/settings-file-not-json", TextArgs{{}, {{"file", name}, {"reason", r.reason}}});
    }
    return sweepSettingsFromJson(record);
}

SweepConfig sweepSettingsFromJson(const json &settings)
{
    if (!settings.is_object() || !settings.contains("schema") || settings["schema"] != kSweepSettingsSchema)
        throw ConfigError("config/settings-not-sweep", TextArgs{{}, {{"schema", kSweepSettingsSchema}}});
    const nlohmann::ordered_json known = sweepSettingsRecord(SweepConfig{}, "auto"); // its keys
    for (auto it = settings.begin(); it != settings.end(); ++it)
        if (!known.contains(it.key()))
            throw ConfigError("config/settings-unknown-key", TextArgs{{}, {{"key", textExcerpt(it.key())}}});
    SweepConfig c;
    if (settings.contains("run"))
        c.base = accumConfigFromJson(settings["run"], c.base);
    if (settings.contains("accum_grid")) {
        const json &grid = settings["accum_grid"];
        if (!grid.is_array())
            throw ConfigError("config/settings-bad-value",
                              TextArgs{{}, {{"key", "accum_grid"}, {"value", jsonExcerpt(grid)}}});
        c.accumGrid.clear();
        for (size_t i = 0; i < grid.size(); ++i)
            c.accumGrid.push_back(settingValue<int64_t>(grid[i], "accum_grid"));
    }
    const auto read = [&]<class T>(const char *key, T &into) {
        if (settings.contains(key))
            into = settingAs<T>(settings, key);
    };
    read("num_steps", c.numSteps);
    read("warmup_steps", c.warmupSteps);
    read("repeats", c.repeats);
    read("threads", c.threads);
    read("equal_work", c.equalWork);
    read("phase_timing", c.phaseTiming);
    validate(c);
    return c;
}

} // namespace accumlab
