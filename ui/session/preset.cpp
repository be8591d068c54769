// Preset <-> JSON. The run's keys and values are core's (toJson and accumConfigFromJson of
// core/io/export.h: "sgd", "float32", ...), as the CLI's and the ranks' settings are.
#include "ui/session/preset.h"

#include "ui/panels/controlpanel.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include "core/io/export.h"
#include "core/io/json_reader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace accumlab::ui {

const char *const kPresetSchema = "accumlab-preset.v1";

namespace {

// A value of core's run record as a preset file writes it.
QJsonValue toQt(const nlohmann::ordered_json &v)
{
    if (v.is_boolean())
        return v.get<bool>();
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(std::numeric_limits<qint64>::max()))
        return static_cast<qint64>(v.get<uint64_t>());
    if (v.is_number_integer() && !v.is_number_unsigned())
        return static_cast<qint64>(v.get<int64_t>());
    return v.get<double>(); // a double, or a seed past qint64 that no control shows
}

// A preset nests two levels (the file, its classroom); deeper is no preset, refused while parsing.
constexpr int kMaxPresetJsonDepth = 16;

// The seed of an older preset, written as a string of digits (64 bits survive no double): that
// number, or refused.
nlohmann::json seedValue(const nlohmann::json &v)
{
    if (!v.is_string())
        return v; // a number: checked by core's reader like any other
    const std::string &digits = v.get_ref<const std::string &>();
    bool ok = false;
    const qulonglong seed = QString::fromStdString(digits).toULongLong(&ok, 10);
    if (!ok || digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        throw ConfigError("preset/seed-not-integer", TextArgs{});
    return static_cast<uint64_t>(seed);
}

// Every number as the controls can show it: a value a control would clamp, wrap or snap is
// refused (the window then keeps its defaults), never loaded as another value.
void requireWithinTheControls(const Preset &p)
{
    const ControlLimits l = ControlPanel::limits();
    auto range = [](const char *key, double v, double lo, double hi) {
        if (!(v >= lo && v <= hi))
            throw ConfigError("preset/outside-controls", TextArgs{{{"value", v}, {"low", lo}, {"high", hi}}, {{"key", key}}});
    };
    const AccumConfig &c = p.run;
    range("micro_batch", double(c.microBatch), 1, l.maxMicroBatch);
    range("accum_steps", double(c.accumSteps), 1, l.maxAccumSteps);
    range("world_size", double(c.worldSize), 1, l.maxWorldSize);
    range("seed", double(c.seed), 0, l.maxSeed);
    range("num_steps", p.numSteps, l.minNumSteps, l.maxNumSteps);
    range("warmup_steps", p.warmupSteps, 0, l.maxNumSteps);
    range("pace", p.pace, 1, l.maxPace);
    range("threads", p.threads, 0, 1024);
    const bool onSlider = std::any_of(l.learningRates.begin(), l.learningRates.end(),
                                      [&](double stop) { return std::abs(stop - c.optimizer.lr) <= 1e-9 * stop; });
    if (!onSlider)
        throw ConfigError("preset/lr-between-stops", TextArgs{{{"lr", c.optimizer.lr}}, {}});
}

} // namespace

const std::vector<std::string> &presetRunKeys()
{
    static const std::vector<std::string> keys{
        "model",   "micro_batch", "accum_steps", "world_size",   "lr",         "optimizer", "scaling", "step_every_micro",
        "bug",     "no_sync",     "dtype",       "loss_scaling", "scaler_bug", "device",    "labels",  "seed"};
    return keys;
}

QByteArray presetToJson(const Preset &p)
{
    QJsonObject o;
    o[QStringLiteral("schema")] = QString::fromLatin1(kPresetSchema);
    const nlohmann::ordered_json run = toJson(p.run);
    for (const std::string &key : presetRunKeys())
        o[QString::fromStdString(key)] = toQt(run.at(key));
    // The device asked for ("auto"), not the one this machine resolved it to: the file is for
    // another machine too.
    o[QStringLiteral("device")] = QString::fromStdString(toString(p.run.device));
    o[QStringLiteral("pace")] = p.pace;
    o[QStringLiteral("accum_grid")] = p.accumGrid;
    o[QStringLiteral("num_steps")] = p.numSteps;
    o[QStringLiteral("warmup_steps")] = p.warmupSteps;
    o[QStringLiteral("threads")] = p.threads;
    QJsonObject classroom;
    classroom[QStringLiteral("enabled")] = p.classroomMode;
    classroom[QStringLiteral("hidden")] = QJsonArray::fromStringList(p.hiddenControls);
    o[QStringLiteral("classroom")] = classroom;
    if (!p.language.isEmpty())
        o[QStringLiteral("language")] = p.language;
    if (p.memoryBudgetBytes)
        o[QStringLiteral("memory_budget_bytes")] = *p.memoryBudgetBytes;
    if (!p.page.isEmpty())
        o[QStringLiteral("page")] = p.page;
    if (!p.experiment.isEmpty())
        o[QStringLiteral("experiment")] = p.experiment;
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

std::optional<Preset> presetFromJson(const QByteArray &json, QString *error)
{
    // Core's one JSON reader (core/io/json_reader.h): the depth refused while parsing, every value
    // then checked into its type by core's settingValue, as a settings record's are. A value of
    // the wrong type ("micro_batch": "16", "dtype": ["float64"], true, null) was once replaced by
    // the default without a word.
    nlohmann::json o;
    try {
        o = parseJson(std::string_view(json.constData(), size_t(json.size())), kMaxPresetJsonDepth);
    } catch (const JsonRefusal &r) {
        if (error)
            *error = r.kind == JsonRefusal::TooDeep
                         ? QCoreApplication::translate("Preset", "The preset nests deeper than %1 levels; a preset nests 2.")
                               .arg(kMaxPresetJsonDepth)
                         : QCoreApplication::translate("Preset", "The preset is not a JSON object: %1")
                               .arg(QString::fromStdString(r.reason));
        return std::nullopt;
    }
    if (!o.is_object()) { // once "not a JSON object: no error occurred"
        if (error)
            *error = QCoreApplication::translate("Preset", "The preset is not a JSON object but %1.")
                         .arg(QString::fromStdString(jsonExcerpt(o)));
        return std::nullopt;
    }
    if (!o.contains("schema") || o["schema"] != kPresetSchema) {
        if (error)
            *error = QCoreApplication::translate("Preset", "The file is not an AccumLab preset (schema %1 expected).")
                         .arg(QString::fromLatin1(kPresetSchema));
        return std::nullopt;
    }
    const auto has = [&](const char *key) { return o.contains(key); };
    Preset p;
    QString language, page, experiment;
    try {
        // The run: the keys a preset holds, read as core reads a run's settings; a key left
        // out keeps its teaching default.
        nlohmann::json run = nlohmann::json::object();
        for (const std::string &key : presetRunKeys())
            if (o.contains(key))
                run[key] = key == "seed" ? seedValue(o[key]) : o[key];
        p.run = accumConfigFromJson(run, teachingDefaults());
        // Narrowed to int only once inside int's range (2^32 + 1 must not become 1).
        auto small = [&](const char *key, int fallback) {
            if (!has(key))
                return fallback;
            const int64_t v = settingValue<int64_t>(o[key], key);
            if (v < -1000000000 || v > 1000000000)
                throw ConfigError("preset/far-outside-controls",
                                  TextArgs{{{"value", static_cast<double>(v)}}, {{"key", key}}});
            return static_cast<int>(v);
        };
        p.pace = small("pace", p.pace);
        if (has("accum_grid"))
            p.accumGrid = QString::fromStdString(settingValue<std::string>(o["accum_grid"], "accum_grid"));
        p.numSteps = small("num_steps", p.numSteps);
        p.warmupSteps = small("warmup_steps", p.warmupSteps);
        p.threads = small("threads", p.threads);
        parseGrid(p.accumGrid.toStdString());
        requireWithinTheControls(p);
        if (has("classroom")) {
            const nlohmann::json &classroom = o["classroom"];
            if (!classroom.is_object())
                throw ConfigError("config/settings-bad-value",
                                  TextArgs{{}, {{"key", "classroom"}, {"value", jsonExcerpt(classroom)}}});
            if (classroom.contains("enabled"))
                p.classroomMode = settingValue<bool>(classroom["enabled"], "classroom.enabled");
            if (classroom.contains("hidden")) {
                const nlohmann::json &hidden = classroom["hidden"];
                if (!hidden.is_array())
                    throw ConfigError("config/settings-bad-value",
                                      TextArgs{{}, {{"key", "classroom.hidden"}, {"value", jsonExcerpt(hidden)}}});
                for (const nlohmann::json &v : hidden)
                    p.hiddenControls << QString::fromStdString(settingValue<std::string>(v, "classroom.hidden"));
            }
        }
        if (has("memory_budget_bytes")) {
            const int64_t budget = settingValue<int64_t>(o["memory_budget_bytes"], "memory_budget_bytes");
            if (budget <= 0)
                throw ConfigError("preset/far-outside-controls",
                                  TextArgs{{{"value", static_cast<double>(budget)}}, {{"key", "memory_budget_bytes"}}});
            p.memoryBudgetBytes = budget;
        }
        const auto name = [&](const char *key) {
            return has(key) ? QString::fromStdString(settingValue<std::string>(o[key], key)) : QString();
        };
        language = name("language");
        page = name("page");
        experiment = name("experiment");
    } catch (const std::exception &ex) {
        if (error)
            *error = QCoreApplication::translate("Preset", "The preset has an invalid setting: %1").arg(errorSentence(ex));
        return std::nullopt;
    }
    // Where the lesson opens: names the window knows, or the file is refused with the name.
    auto known = [&](const char *key, const QString &v, const QStringList &names, QString *into) {
        if (!v.isEmpty() && !names.contains(v)) {
            if (error)
                *error = QCoreApplication::translate("Preset", "The preset names an unknown %1: %2")
                             .arg(QLatin1String(key), QString::fromStdString(textExcerpt(v.toStdString())));
            return false;
        }
        *into = v;
        return true;
    };
    QStringList experiments;
    for (const auto &info : experimentCatalog())
        experiments << QString::fromStdString(info.id);
    if (!known("language", language, LanguageManager::languages(), &p.language) ||
        !known("page", page, presetPages(), &p.page) || !known("experiment", experiment, experiments, &p.experiment))
        return std::nullopt;
    return p;
}

QStringList presetPages()
{
    return {QStringLiteral("lab"), QStringLiteral("experiments"), QStringLiteral("quiz")};
}

} // namespace accumlab::ui
