// The window's exports: accum-curve.json and the skill markdown (core's writers) and PNGs,
// all written whole through core's StagedFile (a temporary beside the file, renamed over it),
// so a failure leaves no partial file behind and a symlink in the folder is replaced, not
// followed.
#pragma once

#include "core/content.h"
#include "core/equivalence.h"
#include "core/skill.h"
#include "core/sweep.h"

#include <QByteArray>
#include <QString>

class QWidget;

namespace accumlab::ui {

// Writes `bytes` to `path` through StagedFile. On failure
// returns false and sets `error` to a sentence naming the file and the reason.
bool writeFileSafely(const QString &path, const QByteArray &bytes, QString *error);

QByteArray curveJsonBytes(const SweepResult &sweep, const EquivalenceResult *equivalence);
// The skill recipe for one reader (the window passes its language and digit setting).
QByteArray skillMarkdownBytes(const EquivalenceResult &equivalence, const SweepResult &sweep,
                              const NumberStyle &style = {});
// The widget rendered as PNG at `scale` times its size in pixels (2 for a slide: a chart is
// drawn again at that resolution, not stretched); empty when the encoder fails.
QByteArray widgetPng(QWidget *widget, int scale = 1);

} // namespace accumlab::ui
