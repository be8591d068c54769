// Preset <-> JSON. Enum values use core's names ("sgd", "float32", ...), as the CLI does.
#include "ui/session/preset.h"

#include "ui/controlpanel.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

namespace accumlab::ui {

const char *const kPresetSchema = "accumlab-preset.v1";

namespace {

// 2^53: every whole number up to here is exactly a double (and fits qint64 and uint64_t).
constexpr double kMaxExactDouble = 9007199254740992.0;

QString str(const std::string &s) { return QString::fromStdString(s); }

// Every number as the controls can show it: a value a control would clamp, wrap or snap is
// refused (the window then keeps its defaults), never loaded as another value.
void requireWithinTheControls(const Preset &p)
{
    const ControlLimits l = ControlPanel::limits();
    auto range = [](const char *key, double v, double lo, double hi) {
        if (!(v >= lo && v <= hi))
            throw ConfigError("preset/outside-controls", TextArgs{{{"value", v}, {"low", lo}, {"high", hi}}, {{"key", key}}});
    };
    const AccumConfig &c = p.config;
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

QByteArray presetToJson(const Preset &p)
{
    const AccumConfig &c = p.config;
    QJsonObject o;
    o[QStringLiteral("schema")] = QString::fromLatin1(kPresetSchema);
    o[QStringLiteral("model")] = str(toString(c.preset));
    o[QStringLiteral("micro_batch")] = static_cast<qint64>(c.microBatch);
    o[QStringLiteral("accum_steps")] = static_cast<qint64>(c.accumSteps);
    o[QStringLiteral("world_size")] = static_cast<qint64>(c.worldSize);
    o[QStringLiteral("lr")] = c.optimizer.lr;
    o[QStringLiteral("optimizer")] = str(toString(c.optimizer.kind));
    o[QStringLiteral("scaling")] = str(toString(c.scaling));
    o[QStringLiteral("step_every_micro")] = c.stepEveryMicro;
    o[QStringLiteral("bug")] = str(toString(c.bug));
    o[QStringLiteral("no_sync")] = c.noSync;
    o[QStringLiteral("dtype")] = str(toString(c.dtype));
    o[QStringLiteral("loss_scaling")] = c.lossScaler.enabled;
    o[QStringLiteral("scaler_bug")] = str(toString(c.lossScaler.bug));
    o[QStringLiteral("device")] = str(toString(c.device));
    o[QStringLiteral("labels")] = str(toString(c.labels));
    o[QStringLiteral("seed")] = QString::number(c.seed); // 64-bit: a string survives JSON doubles
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
    AccumConfig &c = p.config;
    try {
        auto text = [&](const char *key, const std::string &fallback) {
            const QJsonValue v = o.value(QLatin1String(key));
            return v.isString() ? v.toString().toStdString() : fallback;
        };
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
        c.preset = presetFromString(text("model", toString(c.preset)));
        c.microBatch = integer("micro_batch", c.microBatch);
        c.accumSteps = integer("accum_steps", c.accumSteps);
        c.worldSize = integer("world_size", c.worldSize);
        if (const QJsonValue lr = o.value(QStringLiteral("lr")); !lr.isUndefined()) {
            if (!lr.isDouble())
                throw ConfigError("preset/lr-not-number", TextArgs{});
            c.optimizer.lr = lr.toDouble();
        }
        c.optimizer.kind = optimizerFromString(text("optimizer", toString(c.optimizer.kind)));
        c.scaling = scalingFromString(text("scaling", toString(c.scaling)));
        c.stepEveryMicro = o.value(QStringLiteral("step_every_micro")).toBool(c.stepEveryMicro);
        c.bug = accumBugFromString(text("bug", toString(c.bug)));
        c.noSync = o.value(QStringLiteral("no_sync")).toBool(c.noSync);
        c.dtype = dtypeFromString(text("dtype", toString(c.dtype)));
        c.lossScaler.enabled = o.value(QStringLiteral("loss_scaling")).toBool(c.lossScaler.enabled);
        c.lossScaler.bug = scalerBugFromString(text("scaler_bug", toString(c.lossScaler.bug)));
        c.device = deviceFromString(text("device", toString(c.device)));
        c.labels = labelsFromString(text("labels", toString(c.labels)));
        bool seedOk = true;
        const QJsonValue seed = o.value(QStringLiteral("seed"));
        if (seed.isString())
            c.seed = seed.toString().toULongLong(&seedOk);
        else if (seed.isDouble())
            c.seed = static_cast<uint64_t>(wholeNumber("seed", seed.toDouble(), 0.0));
        if (!seedOk)
            throw ConfigError("preset/seed-not-integer", TextArgs{});
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
        validate(c);
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
