// Picks the string of a core LocalizedText (experiments, quiz) that matches the window's
// language, so core's Persian and English texts follow the language switch like tr() does.
// GUI thread only.
#pragma once

#include "core/experiments.h"

#include <QString>

namespace accumlab::ui {

// True when the window speaks Persian.
bool persianUi();

// The Persian text starts with a right-to-left mark (U+200F) so that it reads right to left
// even when its first word is code.
QString localized(const LocalizedText &text);

// A number or formula that must read left to right inside right-to-left text, with a
// left-to-right mark on each side (used for the values table's numbers, e.g. 3.7e-09).
QString leftToRight(const QString &text);

} // namespace accumlab::ui
