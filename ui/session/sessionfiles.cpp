// See sessionfiles.h.
#include "ui/session/sessionfiles.h"

#include "ui/worker/enginecontroller.h"
#include "ui/worker/labrun.h"
#include "ui/language.h"
#include "ui/localizedtext.h"
#include "ui/session/exports.h"
#include "ui/session/filedialogs.h"
#include "ui/session/filereading.h"
#include "ui/session/importerrors.h"
#include "ui/session/settingsstore.h"
#include "ui/statusreporter.h"
#include "ui/worker/sweeprunner.h"
#include "ui/charts/throughputchart.h"

#include "core/io/checkpoint.h"
#include "core/io/curve_io.h"
#include "core/lesson.h"

#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QWidget>

namespace accumlab::ui {

namespace {
// A file path inside a sentence: isolated left to right, so that a Persian sentence keeps the
// path's slashes in order ("/tmp/out/accum-curve.json", not "tmp/out/accum-curve.json/").
QString filePath(const QString &path) { return LanguageManager::ltr(QDir::toNativeSeparators(path)); }
} // namespace

SessionFiles::SessionFiles(Parts parts, QObject *parent) : QObject(parent), m_parts(std::move(parts))
{
    m_writer.setMaxThreadCount(1); // one file at a time, in the order asked
    connect(m_parts.controller, &EngineController::sessionFinished, this, &SessionFiles::onSessionFinished);
}

QString SessionFiles::fileFilter(FileKind kind)
{
    // Only the description is translated; the pattern is appended here. Qt reads a filter as
    // "description (patterns)" with nothing after the closing parenthesis, and a translation
    // that ended it with a direction mark (as Persian text around Latin tokens wants) made the
    // dialog list no file at all.
    switch (kind) {
    case FileKind::Json: return tr("JSON files") + QStringLiteral(" (*.json)");
    case FileKind::Markdown: return tr("Markdown files") + QStringLiteral(" (*.md)");
    case FileKind::Preset: return tr("AccumLab presets") + QStringLiteral(" (*.json)");
    case FileKind::Model: return tr("safetensors files") + QStringLiteral(" (*.safetensors)");
    }
    return {};
}

// ---- presets ---------------------------------------------------------------------------

bool SessionFiles::loadPresetFile(const QString &path, QString *error)
{
    QString reason;
    const auto bytes = readRegularFile(path, kMaxPresetFileBytes, &reason);
    if (!bytes) {
        if (error)
            *error = tr("Could not open %1: %2").arg(path, reason);
        return false;
    }
    QString parseError;
    const auto preset = presetFromJson(*bytes, &parseError);
    if (!preset) {
        if (error)
            *error = tr("%1: %2").arg(path, parseError);
        return false;
    }
    emit presetOpened(*preset);
    return true;
}

QByteArray SessionFiles::presetBytes(QString *) const { return presetToJson(m_parts.currentPreset()); }

bool SessionFiles::savePresetFile(const QString &path, QString *error) const
{
    return writeFileSafely(path, presetBytes(error), error);
}

void SessionFiles::openPresetDialog()
{
    const QString path = fileDialogs::openFile(m_parts.window, tr("Open preset"), m_parts.settings->lastFolder(),
                                                      fileFilter(FileKind::Preset));
    if (path.isEmpty())
        return;
    m_parts.settings->rememberFolderOf(path);
    QString error;
    if (!loadPresetFile(path, &error))
        m_parts.status->showError(error);
}

void SessionFiles::savePresetDialog()
{
    exportDialog(tr("Save preset"), tr("lesson.json"), FileKind::Preset, &SessionFiles::presetBytes);
}

// ---- curves, the skill file and pictures -------------------------------------------------

QByteArray SessionFiles::curveBytes(QString *error) const
{
    const auto &sweep = m_parts.sweep->lastSweep();
    if (!sweep) {
        if (error)
            *error = tr("No sweep has completed yet: run a sweep first.");
        return {};
    }
    // The sweep's own check, not the lab's latest: the file describes one run.
    const auto &equivalence = m_parts.sweep->lastSweepEquivalence();
    return curveJsonBytes(*sweep, equivalence ? &*equivalence : nullptr);
}

QByteArray SessionFiles::skillBytes(QString *error) const
{
    // The sweep and the check of its own settings: one run, whatever the controls (or an
    // experiment's settings) asked the lab's panel to check since.
    const auto &sweep = m_parts.sweep->lastSweep();
    const auto &equivalence = m_parts.sweep->lastSweepEquivalence();
    if (!sweep || !equivalence) {
        if (error)
            *error = tr("The skill file needs a completed sweep: run a sweep first.");
        return {};
    }
    // The recipe in the language the class is reading, in its digits; the JSON export's keys
    // stay English.
    return skillMarkdownBytes(*equivalence, *sweep, contentStyle());
}

bool SessionFiles::exportCurveJson(const QString &path, QString *error) const
{
    QString why;
    const QByteArray bytes = curveBytes(&why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    return writeFileSafely(path, bytes, error);
}

bool SessionFiles::exportSkillMarkdown(const QString &path, QString *error) const
{
    QString why;
    const QByteArray bytes = skillBytes(&why);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    return writeFileSafely(path, bytes, error);
}

bool SessionFiles::importCurve(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    QString reason;
    // A FIFO or /dev/zero is refused before a read could block or fill memory.
    if (const auto bytes = readRegularFile(path, static_cast<qint64>(kMaxCurveFileBytes), &reason)) {
        try {
            const CurveFile curve = parseCurveJson(bytes->toStdString());
            m_parts.throughput->addImportedCurve(name, curve.points);
            m_parts.status->say([name, points = curve.points.size()] {
                return tr("Imported %1: %2 points").arg(filePath(name), count(static_cast<qint64>(points)));
            });
            return true;
        } catch (const CurveFormatError &e) {
            // core's what() is English for the CLI; its code and arguments are said here in the
            // user's language, naming the point and field.
            reason = ImportErrors::reason(e.detail());
        }
    }
    m_parts.status->showError(tr("Could not import %1: %2").arg(name, reason));
    return false;
}

QList<FileToWrite> SessionFiles::chartPngs(const QString &folder, int scale) const
{
    QList<FileToWrite> files;
    for (const auto &[name, widget] : std::as_const(m_parts.pictures))
        files.append({QDir(folder).filePath(name), widgetPng(widget, scale)});
    return files;
}

bool SessionFiles::writeNow(const QList<FileToWrite> &files, QStringList *written, QString *error)
{
    for (const FileToWrite &file : files) {
        if (!writeFileSafely(file.path, file.bytes, error))
            return false;
        if (written)
            *written << file.path;
    }
    return true;
}

bool SessionFiles::exportChartPngs(const QString &folder, QStringList *written, QString *error, int scale)
{
    return writeNow(chartPngs(folder, scale), written, error);
}

void SessionFiles::writeInBackground(QList<FileToWrite> files, std::function<QString()> said)
{
    // The cheap checks here, where their sentences are made; the rest waits its turn.
    for (const FileToWrite &file : std::as_const(files))
        if (const QString why = refusalBeforeWrite(file); !why.isEmpty()) {
            m_parts.status->showError(why);
            emit filesWritten(false);
            return;
        }
    ++m_writing;
    m_writer.start([this, files = std::move(files), said = std::move(said)] {
        QString failedPath;
        std::exception_ptr failure;
        for (const FileToWrite &file : files)
            if ((failure = writeStaged(file))) {
                failedPath = file.path;
                break;
            }
        // Back on the GUI thread, where the sentences and the status bar are.
        m_toGui.post([this, failedPath, failure, said] {
            --m_writing;
            if (failure)
                m_parts.status->showError(writeFailure(failedPath, failure));
            else
                m_parts.status->say(said);
            emit filesWritten(!failure);
        });
    });
}

QList<FileToWrite> SessionFiles::timelineFiles(const QString &folder, QString *error) const
{
    const OomDemoResult *demo = m_parts.lastRecordedDemo ? m_parts.lastRecordedDemo() : nullptr;
    if (!demo) {
        if (error)
            *error = tr("No memory timeline yet: run the out-of-memory demo first.");
        return {};
    }
    const std::string json = memoryTimelineJson(*demo).dump() + "\n";
    const std::string pickle = memorySnapshotPickle({&demo->fullBatchTimeline, &demo->accumulationTimeline});
    return {{QDir(folder).filePath(QStringLiteral("memory-timeline.json")), QByteArray::fromStdString(json)},
            {QDir(folder).filePath(QStringLiteral("memory-snapshot.pickle")),
             QByteArray(pickle.data(), static_cast<qsizetype>(pickle.size()))}};
}

bool SessionFiles::exportMemoryTimeline(const QString &folder, QStringList *written, QString *error) const
{
    const QList<FileToWrite> files = timelineFiles(folder, error);
    return !files.isEmpty() && writeNow(files, written, error);
}

bool SessionFiles::saveScreenshot(const QString &path, QString *error) const
{
    return writeFileSafely(path, widgetPng(m_parts.window), error);
}

void SessionFiles::importCurveDialog()
{
    const QString path = fileDialogs::openFile(m_parts.window, tr("Import accum-curve.json"),
                                                      m_parts.settings->lastFolder(), fileFilter(FileKind::Json));
    if (path.isEmpty())
        return;
    m_parts.settings->rememberFolderOf(path);
    importCurve(path);
}

void SessionFiles::exportCurveDialog()
{
    exportDialog(tr("Export accum-curve.json"), QLatin1String(kCurveFileName), FileKind::Json, &SessionFiles::curveBytes);
}

void SessionFiles::exportSkillDialog()
{
    exportDialog(tr("Export skill markdown"), QLatin1String(kSkillFileName), FileKind::Markdown,
                 &SessionFiles::skillBytes);
}

void SessionFiles::exportDialog(const QString &title, const QString &fileName, FileKind kind,
                                QByteArray (SessionFiles::*bytes)(QString *) const)
{
    const QString path = chooseSavePath(title, fileName, kind);
    if (path.isEmpty())
        return;
    QString error;
    QByteArray made = (this->*bytes)(&error);
    if (!error.isEmpty()) {
        m_parts.status->showError(error);
        return;
    }
    writeInBackground({{path, std::move(made)}}, [path] { return tr("Wrote %1").arg(filePath(path)); });
}

void SessionFiles::exportChartsDialog()
{
    const QString folder = chooseFolder(tr("Folder for the chart PNGs"));
    if (folder.isEmpty())
        return;
    const QStringList scales{tr("%1× (as on screen)").arg(count(1)), tr("%1× (for slides)").arg(count(2)),
                             tr("%1×").arg(count(3))};
    bool chosen = false;
    const QString scale = QInputDialog::getItem(m_parts.window, tr("Export chart PNGs"), tr("Size of the pictures:"), scales,
                                                /*current=*/1, /*editable=*/false, &chosen);
    if (!chosen)
        return;
    QList<FileToWrite> files = chartPngs(folder, static_cast<int>(scales.indexOf(scale)) + 1);
    const qsizetype written = files.size();
    writeInBackground(std::move(files), [written, folder] {
        return tr("Wrote %1 PNG files to %2").arg(count(written), filePath(folder));
    });
}

void SessionFiles::exportTimelineDialog()
{
    const QString folder = chooseFolder(tr("Folder for the memory timeline"));
    if (folder.isEmpty())
        return;
    QString error;
    QList<FileToWrite> files = timelineFiles(folder, &error);
    if (files.isEmpty()) {
        m_parts.status->showError(error);
        return;
    }
    writeInBackground(std::move(files), [folder] {
        return tr("Wrote memory-timeline.json and memory-snapshot.pickle (for PyTorch's memory visualiser) to %1")
            .arg(filePath(folder));
    });
}

QString SessionFiles::chooseSavePath(const QString &title, const QString &fileName, FileKind kind)
{
    const QString path = fileDialogs::saveFile(m_parts.window, title, QDir(m_parts.settings->lastFolder()).filePath(fileName),
                                               fileFilter(kind));
    if (!path.isEmpty())
        m_parts.settings->rememberFolderOf(path);
    return path;
}

QString SessionFiles::chooseFolder(const QString &title)
{
    const QString folder = fileDialogs::existingFolder(m_parts.window, title, m_parts.settings->lastFolder());
    if (!folder.isEmpty())
        m_parts.settings->setLastFolder(folder);
    return folder;
}

// ---- sessions --------------------------------------------------------------------------

void SessionFiles::saveSession(const QString &folder)
{
    m_parts.lab->holdEdits(); // a pending edit would rebuild the run before it is saved
    m_parts.controller->saveSession(folder);
}

void SessionFiles::exportModel(const QString &file)
{
    m_parts.lab->holdEdits(); // a pending edit would rebuild the run before it is written
    m_parts.controller->exportModel(file);
}

bool SessionFiles::resumeSession(const QString &folder, QString *error)
{
    AccumConfig config;
    try {
        config = checkpointConfig(folder.toStdString());
    } catch (const std::exception &ex) {
        if (error)
            *error = EngineError::from(ex).localized();
        return false;
    }
    m_parts.lab->holdEdits(); // the resumed run replaces pending edits
    m_parts.controller->resumeSession(config, folder);
    return true;
}

void SessionFiles::onSessionFinished(const SessionUpdate &update)
{
    if (!update.ok) {
        m_parts.status->showError(update.error.localized());
        emit sessionFinished(false);
        return;
    }
    const bool resumed = update.action == SessionAction::Resume;
    if (resumed)
        m_parts.lab->showRunSettings(update.config);
    m_parts.status->say([u = update] {
        const QString where = u.microIndex > 0
                                  ? tr("%1 windows done and %2 micro-batches into the next")
                                        .arg(count(u.windowsDone), count(u.microIndex))
                                  : tr("%1 windows done").arg(count(u.windowsDone));
        switch (u.action) {
        case SessionAction::Resume: return tr("Resumed the session from %1: %2").arg(filePath(u.folder), where);
        case SessionAction::ExportModel:
            return tr("Wrote the trained model to %1 (%2)").arg(filePath(u.folder), where);
        case SessionAction::Save: break;
        }
        return tr("Saved the session to %1: %2").arg(filePath(u.folder), where);
    });
    emit sessionFinished(true);
}

void SessionFiles::saveSessionDialog()
{
    const QString folder = chooseFolder(tr("Folder to save the session in"));
    if (folder.isEmpty())
        return;
    saveSession(folder);
}

void SessionFiles::exportModelDialog()
{
    const QString path = chooseSavePath(tr("Export the trained model"), QStringLiteral("model.safetensors"), FileKind::Model);
    if (!path.isEmpty())
        exportModel(path);
}

void SessionFiles::resumeSessionDialog()
{
    const QString folder = chooseFolder(tr("Folder of the session to resume"));
    if (folder.isEmpty())
        return;
    QString error;
    if (!resumeSession(folder, &error))
        m_parts.status->showError(error);
}

} // namespace accumlab::ui
