// The desktop app's command line: parsing, the check that a flag fits the window's controls,
// the controls preset from the flags, and the terminal lesson's options when no display is
// found. Kept out of main() so that tests/ui/tst_commandline can read every flag's effect.
#pragma once

#include "ui/session/preset.h"

#include "core/lesson.h"

#include <QCommandLineParser>
#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace accumlab::gui {

// What the command line asks of the desktop app.
struct Flags {
    bool autorun = false;
    bool quit = false;
    QString accumGrid;
    int numSteps = 0;
    int microBatch = 0;
    int threads = -1;
    std::optional<uint64_t> seed;
    std::optional<double> lr;
    bool noWrite = false;
    QString exportJson;
    QString screenshot;
    QString lang;
    QString experiment;
    QString page;
    QStringList memoryRuns; // --memory-run: demo, tradeoff, finder, in order, on the Memory tab
    QString presetFile;
    QSize windowSize;
    std::optional<int> zoomSteps; // --zoom: presses of Ctrl+= (negative: Ctrl+-)
    bool classroom = false;       // --classroom: classroom mode on
    bool lesson = false;          // --lesson: the lesson's column open, whatever the width
};

// Parsed before any QApplication exists (to decide whether a display is needed). False, with
// one English sentence in `error`, for a bad flag or value.
bool parseFlags(QCommandLineParser &parser, const QStringList &args, Flags &f, QString *error);

// Whether the flags ask for usage or the version, which need no display.
bool wantsHelpOrVersion(const QStringList &args);

// The window's controls cannot show every value the terminal lesson takes (sliders clamp,
// the learning-rate slider has fixed stops): a flag they would change is refused.
bool fitsTheControls(const Flags &f, QString *error);

// Whether the run is scripted (--autorun or --screenshot): no dialog, the result on stdout.
bool automated(const Flags &f);
// Whether this session may keep what it chose (the language, the window's preset, geometry
// and zoom) for the next start: not with --no-write, not in a scripted run.
bool persistsSettings(const Flags &f);

// Whether any flag presets a control, and the preset with those flags applied over `p`.
bool presetsControls(const Flags &f);
void presetFromFlags(const Flags &f, ui::Preset &p);

// The CLI's lesson with the flags that apply (the headless fallback). Throws ConfigError.
LessonOptions headlessLessonOptions(const Flags &f);

} // namespace accumlab::gui
