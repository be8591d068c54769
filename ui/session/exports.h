// The window's exports: accum-curve.json and the skill markdown (core's writers) and PNGs,
// all written whole through core's StagedFile (a temporary beside the file, renamed over it),
// so a failure leaves no partial file behind and a symlink in the folder is replaced, not
// followed.
#pragma once

#include "core/content/content.h"
#include "core/equivalence.h"
#include "core/content/skill.h"
#include "core/sweep.h"

#include <QByteArray>
#include <QString>

#include <exception>

class QWidget;

namespace accumlab::ui {

// One file the window writes: where, and its bytes, made on the GUI thread (the lab's results
// and the widgets live there) so that the write itself can run on any thread.
struct FileToWrite {
    QString path;
    QByteArray bytes;
};

// Writes `bytes` to `path` through StagedFile. On failure
// returns false and sets `error` to a sentence naming the file and the reason.
bool writeFileSafely(const QString &path, const QByteArray &bytes, QString *error);
// writeFileSafely in its three parts, for a write that runs off the GUI thread:
// - the checks before it (something to write, the folder still there): empty, or the
//   sentence that refuses it (GUI thread);
QString refusalBeforeWrite(const FileToWrite &file);
// - the write itself, safe on any thread: null, or the exception it ended in;
std::exception_ptr writeStaged(const FileToWrite &file);
// - that ending as a sentence naming the file, in the window's language (GUI thread).
QString writeFailure(const QString &path, const std::exception_ptr &failure);

QByteArray curveJsonBytes(const SweepResult &sweep, const EquivalenceResult *equivalence);
// The skill recipe for one reader (the window passes its language and digit setting).
QByteArray skillMarkdownBytes(const EquivalenceResult &equivalence, const SweepResult &sweep,
                              const NumberStyle &style = {});
// The widget rendered as PNG at `scale` times its size in pixels (2 for a slide: a chart is
// drawn again at that resolution, not stretched); empty when the encoder fails.
QByteArray widgetPng(QWidget *widget, int scale = 1);

} // namespace accumlab::ui
