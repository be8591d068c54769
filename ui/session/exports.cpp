// The exports.
#include "ui/session/exports.h"

#include "core/io/export.h"
#include "core/content/skill.h"
#include "ui/localizedtext.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QPixmap>
#include <QWidget>

namespace accumlab::ui {

namespace {
QString couldNotWrite(const QString &path, const QString &reason)
{
    return QCoreApplication::translate("Exports", "Could not write %1: %2").arg(path, reason);
}
} // namespace

QString refusalBeforeWrite(const FileToWrite &file)
{
    if (file.bytes.isEmpty())
        return couldNotWrite(file.path, QCoreApplication::translate("Exports", "there is nothing to write."));
    // A folder that vanished under the dialog is not made again behind the user's back.
    const QFileInfo folder(QFileInfo(file.path).absolutePath());
    if (!folder.isDir())
        return couldNotWrite(file.path,
                             QCoreApplication::translate("Exports", "the folder %1 does not exist.").arg(folder.filePath()));
    return {};
}

std::exception_ptr writeStaged(const FileToWrite &file)
{
    // Core's staged write, as the CLI's: a symlink at `path` is replaced by the file, never
    // followed out of the chosen folder (QSaveFile would write through it to its target).
    try {
        StagedFile(std::filesystem::path(file.path.toStdString()),
                   std::string(file.bytes.constData(), static_cast<size_t>(file.bytes.size())))
            .commit();
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

QString writeFailure(const QString &path, const std::exception_ptr &failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const ExportError &e) {
        // Every coded refusal (a folder or a device where the file goes, a locked folder, a
        // full disk or a read-only folder) is the content's sentence in the window's language,
        // the OS's own words inside it; an uncoded one keeps the OS's words alone.
        if (!e.code().empty())
            return errorSentence(e);
        return couldNotWrite(path, QString::fromStdString(e.reason().empty() ? e.what() : e.reason()));
    } catch (const std::exception &e) {
        return couldNotWrite(path, QString::fromStdString(e.what()));
    }
}

bool writeFileSafely(const QString &path, const QByteArray &bytes, QString *error)
{
    const FileToWrite file{path, bytes};
    QString why = refusalBeforeWrite(file);
    if (why.isEmpty()) {
        const std::exception_ptr failure = writeStaged(file);
        if (!failure)
            return true;
        why = writeFailure(path, failure);
    }
    if (error)
        *error = why;
    return false;
}

QByteArray curveJsonBytes(const SweepResult &sweep, const EquivalenceResult *equivalence)
{
    return QByteArray::fromStdString(curveJson(sweep, equivalence).dump(2) + "\n");
}

QByteArray skillMarkdownBytes(const EquivalenceResult &equivalence, const SweepResult &sweep, const NumberStyle &style)
{
    return QByteArray::fromStdString(skillMarkdown(equivalence, sweep, style));
}

QByteArray widgetPng(QWidget *widget, int scale)
{
    QPixmap pixmap;
    if (scale <= 1) {
        pixmap = widget->grab();
    } else {
        // A pixmap of the larger size that says it holds `scale` pixels per point: the widget
        // paints itself in its own coordinates and the painter draws it at that resolution.
        pixmap = QPixmap(widget->size() * scale);
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(widget->palette().color(QPalette::Window));
        widget->render(&pixmap);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!pixmap.save(&buffer, "PNG"))
        return {};
    return bytes;
}

} // namespace accumlab::ui
