// The File menu's work: preset files, sessions (checkpoint folders), the accum-curve.json
// import and export, the skill markdown and the chart PNGs. Each is a call that says what it
// did (a status-bar sentence or an error in words), which tests and the scripted mode use, and
// a dialog the menu opens around that call; the dialogs open in and remember the settings'
// last folder. What is exported comes from the sweep and the check the lab last completed.
// GUI thread only; a dialog's write runs on a thread of its own (writeInBackground), since
// core's publish may wait up to kFolderLockWait for a folder another writer holds, and answers
// through m_toGui (the threading contract: ui/worker/enginethreads.h).
#pragma once

#include "ui/session/exports.h"
#include "ui/session/preset.h"

#include "core/memory/memory_lab.h"
#include "ui/worker/handover.h"
#include "ui/worker/updates.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <functional>
#include <utility>

class QWidget;

namespace accumlab::ui {

class EngineController;
class LabRun;
class SettingsStore;
class StatusReporter;
class SweepRunner;
class ThroughputChart;

class SessionFiles : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QWidget *window; // parents the dialogs; its picture is the screenshot
        SettingsStore *settings;
        StatusReporter *status;
        EngineController *controller;
        LabRun *lab;
        SweepRunner *sweep;
        ThroughputChart *throughput; // imported curves are overlaid here
        // The chart PNGs: file name and widget, in the order they are written.
        QList<std::pair<QString, QWidget *>> pictures;
        // The preset a saved file holds: the controls and where the lesson stands.
        std::function<Preset()> currentPreset;
        // The memory lab's last demo with its timelines (null before one ran on the CPU).
        std::function<const OomDemoResult *()> lastRecordedDemo;
    };
    SessionFiles(Parts parts, QObject *parent);

    // The file dialogs' filters, in the UI language: a translated description and the pattern.
    enum class FileKind { Json, Markdown, Preset, Model };
    static QString fileFilter(FileKind kind);

    // A preset file read and handed on with presetOpened(); false (and why) when it cannot be.
    bool loadPresetFile(const QString &path, QString *error);
    bool savePresetFile(const QString &path, QString *error) const;
    bool exportCurveJson(const QString &path, QString *error) const;
    bool exportSkillMarkdown(const QString &path, QString *error) const;
    // Overlays an accum-curve.json (ours or the lesson's) on the throughput chart; a file the
    // reader refuses is reported in words. Returns whether it was imported.
    bool importCurve(const QString &path);
    // Writes the throughput, loss, buffer and memory PNGs into `folder` at `scale` times their
    // size on screen (2: sharp on a slide).
    bool exportChartPngs(const QString &folder, QStringList *written, QString *error, int scale = 2);
    bool saveScreenshot(const QString &path, QString *error) const;
    // The memory lab's last demo as memory-timeline.json (memory-timeline.v1) and
    // memory-snapshot.pickle (PyTorch's memory visualiser opens it) in `folder`.
    bool exportMemoryTimeline(const QString &folder, QStringList *written, QString *error) const;
    // A session: the lab's teaching run, wherever it stands (inside a window or at its end),
    // saved as a checkpoint folder (core/io/checkpoint.h), and resumed from one with the controls
    // set to its run. Both answer with sessionFinished(); resumeSession returns false (and says
    // why, in `error`) when the folder holds no checkpoint this build can read.
    void saveSession(const QString &folder);
    bool resumeSession(const QString &folder, QString *error);
    // The lab's trained parameters as a safetensors file (core/training.h's exportModel: names
    // and shapes as torch's state_dict() has them); answered with sessionFinished().
    void exportModel(const QString &file);
    // Writes `files` in order on the export thread, the window answering meanwhile, then says
    // on the status bar `said()` or the first failure (the files after it are not written)
    // and emits filesWritten(). The bytes were made before the call. Writes started one
    // after another run in that order; the window's end waits for the one in flight.
    void writeInBackground(QList<FileToWrite> files, std::function<QString()> said);
    bool writing() const { return m_writing > 0; }

    // The menu's dialogs around the calls above.
    void openPresetDialog();
    void savePresetDialog();
    void importCurveDialog();
    void exportCurveDialog();
    void exportSkillDialog();
    void exportChartsDialog();
    void exportTimelineDialog();
    void saveSessionDialog();
    void exportModelDialog();
    void resumeSessionDialog();

signals:
    void presetOpened(const Preset &preset);
    void sessionFinished(bool ok);
    void filesWritten(bool ok);

private:
    void onSessionFinished(const SessionUpdate &update);
    // A folder dialog opening in the last folder, which becomes the chosen one; empty when
    // cancelled.
    QString chooseFolder(const QString &title);
    // A save dialog opening on `fileName` in the last folder, whose folder becomes the last one;
    // empty when cancelled.
    QString chooseSavePath(const QString &title, const QString &fileName, FileKind kind);
    // The bytes each writer above writes; empty with `error` set when there is nothing to
    // export yet.
    QByteArray presetBytes(QString *error) const;
    QByteArray curveBytes(QString *error) const;
    QByteArray skillBytes(QString *error) const;
    QList<FileToWrite> chartPngs(const QString &folder, int scale) const;
    QList<FileToWrite> timelineFiles(const QString &folder, QString *error) const;
    // Writes `files` in order here and now (the scripted mode and tests), stopping at the first
    // that fails; `written` gets the paths written.
    static bool writeNow(const QList<FileToWrite> &files, QStringList *written, QString *error);
    // A save dialog (opening on `fileName` in the last folder) around one of the makers above,
    // the file then written in the background.
    void exportDialog(const QString &title, const QString &fileName, FileKind kind,
                      QByteArray (SessionFiles::*bytes)(QString *) const);

    Parts m_parts;
    int m_writing = 0;
    Handover m_toGui; // the background write's answer, back in the GUI thread
    // Declared last, so that it is destroyed first: its end waits for the write in flight.
    QThreadPool m_writer;
};

} // namespace accumlab::ui
