// A lesson preset: the run's settings (core's AccumConfig, as far as the controls show them),
// the pace, the sweep's grid and steps, the classroom mode, and where the lesson opens
// (language, memory budget, page and experiment), as a small JSON file a teacher prepares
// before class ("accumlab lesson.json" opens one). Also the form the window's settings persist
// in (QSettings stores the same JSON). The run is written with core's toJson and read with
// accumConfigFromJson (core/io/export.h), one key list (presetRunKeys) deciding which of its keys
// a file holds.
#pragma once

#include "core/config.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace accumlab::ui {

// The keys of a run (core's toJson(AccumConfig), "micro_batch", ...) that a preset file holds:
// the settings the controls show, and "labels", which preset files have always carried. A
// preset read from a file keeps teachingDefaults() for every other key, so a file says the
// same run on any machine (tst_preset names each key of a run as kept or not shown).
const std::vector<std::string> &presetRunKeys();

struct Preset {
    AccumConfig run = teachingDefaults(); // presetRunKeys() of it in a file
    int pace = 4;                       // micro-batches per second in teaching mode
    QString accumGrid = QStringLiteral("1,2,4,8,16");
    // Timed optimizer steps of the sweep grid's largest accum_steps (useLabTiming: every point
    // runs as many micro-batches): 16 x 600 micro-batches of the lesson model, about a second a
    // point on a laptop, points appearing one by one and settling over ten rounds.
    int numSteps = 600;
    int warmupSteps = 2;
    int threads = 0;                    // LibTorch intra-op threads for sweeps, 0 = automatic (threadsFor, core/config.h)
    bool classroomMode = false;
    QStringList hiddenControls;         // ControlPanel keys hidden in classroom mode
    // Where the lesson opens; each one empty (absent from the file, as in presets saved before
    // they were kept) leaves the window as it is.
    QString language;                        // a code of languages.json: "fa", "en"
    std::optional<qint64> memoryBudgetBytes; // the memory tab's budget, when the class chose one
    QString page;                            // "lab", "experiments" or "quiz"
    QString experiment;                      // the experiment picked on its page: "no-division"
};

// The pages a preset can open, in MainWindow::Page's order.
QStringList presetPages();

extern const char *const kPresetSchema; // "accumlab-preset.v1"

QByteArray presetToJson(const Preset &preset);
// Returns nothing and fills `error` with a sentence when the text is not a valid preset.
std::optional<Preset> presetFromJson(const QByteArray &json, QString *error);

} // namespace accumlab::ui
