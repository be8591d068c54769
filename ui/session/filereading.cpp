// Bounded reads of regular files through core's one reader (core/io/regular_file.h), with the
// refusals in the window's language.
#include "ui/session/filereading.h"
#include "ui/localizedtext.h"

#include "core/io/regular_file.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <cstring>
#include <sys/stat.h>

namespace accumlab::ui {

namespace {

QString notRegular()
{
    return QCoreApplication::translate("FileReading", "it is not a regular file (a FIFO, a device or a folder)");
}

QString tooLarge(qint64 maxBytes)
{
    return QCoreApplication::translate("FileReading", "it is larger than %1 MiB")
        .arg(count(maxBytes >> 20));
}

QString systemReason(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

} // namespace

std::optional<QByteArray> readRegularFile(const QString &path, qint64 maxBytes, QString *reason)
{
    // Core's one reader; the refusal worded here, in the window's language.
    const FileBytes f = accumlab::readRegularFile(std::filesystem::path(path.toLocal8Bit().toStdString()),
                                                  uint64_t(std::max<qint64>(maxBytes, 0)));
    std::optional<QString> why;
    switch (f.refusal) {
    case ReadRefusal::None: return QByteArray::fromStdString(f.bytes);
    case ReadRefusal::System: why = systemReason(f.error); break;
    case ReadRefusal::NotRegular: why = notRegular(); break;
    case ReadRefusal::TooLarge: why = tooLarge(maxBytes); break;
    }
    if (reason)
        *reason = *why;
    return std::nullopt;
}

std::optional<QString> unsafeToRead(const QString &path, qint64 maxBytes)
{
    struct stat st {};
    if (::stat(path.toLocal8Bit().constData(), &st) != 0)
        return std::nullopt; // absent (or unreachable): nothing will be read from it
    if (!S_ISREG(st.st_mode))
        return notRegular();
    if (st.st_size > maxBytes)
        return tooLarge(maxBytes);
    return std::nullopt;
}

} // namespace accumlab::ui
