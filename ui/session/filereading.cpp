// Bounded reads of regular files: open with O_NONBLOCK (a FIFO's open would otherwise wait
// for a writer), fstat the descriptor, read at most the bound plus one byte.
#include "ui/session/filereading.h"

#include <QCoreApplication>
#include <QLocale>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace accumlab::ui {

namespace {

QString notRegular()
{
    return QCoreApplication::translate("FileReading", "it is not a regular file (a FIFO, a device or a folder)");
}

QString tooLarge(qint64 maxBytes)
{
    return QCoreApplication::translate("FileReading", "it is larger than %1 MiB")
        .arg(QLocale().toString(qint64(maxBytes >> 20)));
}

QString systemReason(int err) { return QString::fromLocal8Bit(std::strerror(err)); }

} // namespace

std::optional<QByteArray> readRegularFile(const QString &path, qint64 maxBytes, QString *reason)
{
    auto fail = [&](const QString &why) {
        if (reason)
            *reason = why;
        return std::nullopt;
    };
    const QByteArray native = path.toLocal8Bit();
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(systemReason(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail(systemReason(errno));
    if (!S_ISREG(st.st_mode))
        return fail(notRegular());
    if (st.st_size > maxBytes)
        return fail(tooLarge(maxBytes));
    QByteArray bytes;
    bytes.resize(maxBytes + 1); // a file that grows while read is still cut at the bound
    qint64 got = 0;
    while (got <= maxBytes) {
        const ssize_t n = ::read(fd, bytes.data() + got, size_t(maxBytes + 1 - got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail(systemReason(errno));
        if (n == 0)
            break;
        got += n;
    }
    if (got > maxBytes)
        return fail(tooLarge(maxBytes));
    bytes.resize(got);
    return bytes;
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
