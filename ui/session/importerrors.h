// The accum-curve reader's refusals (core/io/curve_io.h) in the user's language: core words them
// in English for the CLI and gives the reason as a code with its arguments; this maps each
// code to a translated sentence. Not the place for the import itself (MainWindow::importCurve).
#pragma once

#include "core/io/curve_io.h"

#include <QCoreApplication>
#include <QLocale>
#include <QString>

namespace accumlab::ui {

class ImportErrors {
    Q_DECLARE_TR_FUNCTIONS(ImportErrors)
public:
    // One sentence, numbers in the window's digits (count()); field names stay as the file spells them.
    static QString reason(const CurveErrorDetail &detail);
};

} // namespace accumlab::ui
