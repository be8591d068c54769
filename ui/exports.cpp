// The exports.
#include "ui/exports.h"

#include "core/export.h"
#include "core/skill.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QPixmap>
#include <QSaveFile>
#include <QWidget>

namespace accumlab::ui {

bool writeFileSafely(const QString &path, const QByteArray &bytes, QString *error)
{
    auto fail = [&](const QString &reason) {
        if (error)
            *error = QCoreApplication::translate("Exports", "Could not write %1: %2").arg(path, reason);
        return false;
    };
    if (bytes.isEmpty())
        return fail(QCoreApplication::translate("Exports", "there is nothing to write."));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(file.errorString());
    if (file.write(bytes) != bytes.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(reason);
    }
    if (!file.commit())
        return fail(file.errorString());
    return true;
}

QByteArray curveJsonBytes(const SweepResult &sweep, const EquivalenceResult *equivalence)
{
    return QByteArray::fromStdString(curveJson(sweep, equivalence).dump(2) + "\n");
}

QByteArray skillMarkdownBytes(const EquivalenceResult &equivalence, const SweepResult &sweep, Language language)
{
    return QByteArray::fromStdString(skillMarkdown(equivalence, sweep, language));
}

QByteArray widgetPng(QWidget *widget)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!widget->grab().save(&buffer, "PNG"))
        return {};
    return bytes;
}

} // namespace accumlab::ui
