// The window's side of core's content (core/content/content.h): the reader's NumberStyle (language and
// digit setting) and core's texts rendered with it, so experiment and quiz texts follow the
// language switch like tr() does and the Latin-digits setting reaches their figures.
// GUI thread only.
#pragma once

#include "core/experiments/experiments.h"

#include <QString>

#include <exception>

namespace accumlab::ui {

// The window's language and digit setting, as core's formatter takes them.
NumberStyle contentStyle();

// A content text rendered for the window's reader (renderLocalized). Right-to-left text starts
// with a right-to-left mark (U+200F) so that it reads right to left even when its first word
// is code.
QString localized(const LocalizedText &text, const TextArgs &args = {});
// A core text already rendered for contentStyle() (claim statements, explanations), with the
// same mark.
QString localized(const std::string &rendered);

// A number through core's one formatter (formatNumber) in the window's style: "0.275" /
// "۰٫۲۷۵", "1.02×10⁻⁸" / "۱٫۰۲×۱۰⁻⁸". The one way the window writes a figure.
QString figure(double value, const char *spec);
// A count (micro-batches, points, files) in the window's digits: figure(value, "d").
QString count(qint64 value);

// An exception caught on the GUI thread, in the window's words: core's coded errors in its
// language and digits, any other message as it came.
QString errorSentence(const std::exception &e);

// Where a run runs, in the window's words: "processor (CPU)" for "cpu", "graphics card
// cuda:0" for a CUDA device (LibTorch's name kept, left to right). The status bar's and the
// memory lab's one wording.
QString deviceInWords(const QString &device);

// A number or formula that must read left to right inside right-to-left text, with a
// left-to-right mark on each side (used for the values table's numbers, e.g. 3.7e-09).
QString leftToRight(const QString &text);

} // namespace accumlab::ui
