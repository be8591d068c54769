// Preset <-> JSON. The run's keys and values are core's (toJson and accumConfigFromJson of
// core/io/export.h: "sgd", "float32", ...), as the CLI's and the ranks' settings are.
#include "ui/session/preset.h"

#include "ui/panels/controlpanel.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include "core/io/export.h"

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

// 2^53: every whole number up to here is exactly a double (and fits qint64 and uint64_t).
constexpr double kMaxExactDouble = 9007199254740992.0;

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

// A preset file's value as core's run record reads it. JSON numbers are doubles here: a whole
// one that a double holds exactly is an integer (the preset format never told 8 from 8.0), any
// other stays a double, which an integer key then refuses. The seed was written as a string
// (64 bits survive no double): a string of digits is that number.
nlohmann::json toCore(const std::string &key, const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Bool: return v.toBool();
    case QJsonValue::String:
        if (key == "seed") {
            bool ok = false;
            const qulonglong seed = v.toString().toULongLong(&ok);
            if (!ok)
                throw ConfigError("preset/seed-not-integer", TextArgs{});
            return static_cast<uint64_t>(seed);
        }
        return v.toString().toStdString();
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (d == std::floor(d) && d >= 0.0 && d <= kMaxExactDouble)
            return static_cast<uint64_t>(d);
        if (d == std::floor(d) && d < 0.0 && d >= -kMaxExactDouble)
            return static_cast<int64_t>(d);
        return d;
    }
    default: return nullptr; // refused by the key's reader, with the key's name
    }
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
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (doc.isNull() || !doc.isObject()) {
        if (error)
            *error = QCoreApplication::translate("Preset", "The preset is not a JSON object: %1")
                         .arg(parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    if (o.value(QStringLiteral("schema")).toString() != QLatin1String(kPresetSchema)) {
        if (error)
            *error = QCoreApplication::translate("Preset", "The file is not an AccumLab preset (schema %1 expected).")
                         .arg(QString::fromLatin1(kPresetSchema));
        return std::nullopt;
    }
    Preset p;
    try {
        // JSON numbers are doubles: anything but a whole number a double holds exactly is
        // refused, since converting one outside qint64 would be undefined behaviour.
        auto wholeNumber = [](const char *key, double d, double lowest) {
            if (!(d >= lowest && d <= kMaxExactDouble) || d != std::floor(d))
                throw ConfigError("preset/not-whole-number", TextArgs{{}, {{"key", key}}});
            return d;
        };
        auto integer = [&](const char *key, qint64 fallback) {
            const QJsonValue v = o.value(QLatin1String(key));
            return v.isDouble() ? static_cast<qint64>(wholeNumber(key, v.toDouble(), -kMaxExactDouble)) : fallback;
        };
        // The run: the keys a preset holds, read as core reads a run's settings; a key left
        // out keeps its teaching default.
        nlohmann::json run = nlohmann::json::object();
        for (const std::string &key : presetRunKeys())
            if (const QJsonValue v = o.value(QString::fromStdString(key)); !v.isUndefined())
                run[key] = toCore(key, v);
        p.run = accumConfigFromJson(run, teachingDefaults());
        // Narrowed to int only once inside int's range (2^32 + 1 must not become 1).
        auto small = [&](const char *key, int fallback) {
            const qint64 v = integer(key, fallback);
            if (v < -1000000000 || v > 1000000000)
                throw ConfigError("preset/far-outside-controls",
                                  TextArgs{{{"value", static_cast<double>(v)}}, {{"key", key}}});
            return static_cast<int>(v);
        };
        p.pace = small("pace", p.pace);
        p.accumGrid = o.value(QStringLiteral("accum_grid")).toString(p.accumGrid);
        p.numSteps = small("num_steps", p.numSteps);
        p.warmupSteps = small("warmup_steps", p.warmupSteps);
        p.threads = small("threads", p.threads);
        parseGrid(p.accumGrid.toStdString());
        requireWithinTheControls(p);
        const QJsonObject classroom = o.value(QStringLiteral("classroom")).toObject();
        p.classroomMode = classroom.value(QStringLiteral("enabled")).toBool(false);
        for (const QJsonValue &v : classroom.value(QStringLiteral("hidden")).toArray())
            p.hiddenControls << v.toString();
        const qint64 budget = integer("memory_budget_bytes", 0);
        if (o.contains(QStringLiteral("memory_budget_bytes"))) {
            if (budget <= 0)
                throw ConfigError("preset/far-outside-controls",
                                  TextArgs{{{"value", static_cast<double>(budget)}}, {{"key", "memory_budget_bytes"}}});
            p.memoryBudgetBytes = budget;
        }
    } catch (const std::exception &ex) {
        if (error)
            *error = QCoreApplication::translate("Preset", "The preset has an invalid setting: %1").arg(errorSentence(ex));
        return std::nullopt;
    }
    // Where the lesson opens: names the window knows, or the file is refused with the name.
    auto known = [&](const char *key, const QStringList &names, QString *into) {
        const QString v = o.value(QLatin1String(key)).toString();
        if (!v.isEmpty() && !names.contains(v)) {
            if (error)
                *error = QCoreApplication::translate("Preset", "The preset names an unknown %1: %2")
                             .arg(QLatin1String(key), v);
            return false;
        }
        *into = v;
        return true;
    };
    QStringList experiments;
    for (const auto &info : experimentCatalog())
        experiments << QString::fromStdString(info.id);
    if (!known("language", LanguageManager::languages(), &p.language) || !known("page", presetPages(), &p.page) ||
        !known("experiment", experiments, &p.experiment))
        return std::nullopt;
    return p;
}

QStringList presetPages()
{
    return {QStringLiteral("lab"), QStringLiteral("experiments"), QStringLiteral("quiz")};
}

} // namespace accumlab::ui
