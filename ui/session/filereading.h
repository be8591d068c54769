// Reading a small file the user named (a preset, an imported curve) or the window's own
// settings file, without letting it hang or exhaust the window: only a regular file is read
// (a FIFO, a device such as /dev/zero or a folder is refused before any read could block),
// and no more than a bound. Not for: exports (core's StagedFile writes those).
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace accumlab::ui {

// Presets and the settings file are a few kilobytes; this leaves room and refuses garbage.
constexpr qint64 kMaxPresetFileBytes = qint64(1) << 20;

// The whole file, or nullopt with `reason` set to a translated clause ("it is not a regular
// file (a FIFO, a device or a folder)", "it is larger than 1 MiB", the system's reason).
std::optional<QByteArray> readRegularFile(const QString &path, qint64 maxBytes, QString *reason);

// nullopt when `path` is absent or a regular file within `maxBytes`, else the reason it
// cannot be read safely (as above). Never opens the file.
std::optional<QString> unsafeToRead(const QString &path, qint64 maxBytes);

} // namespace accumlab::ui
