// Font sizes relative to what a widget has now: the zoom of the whole window (the application
// font and every font a widget or chart set for itself, scaled by one ratio) and the
// enlargements of classroom mode. Sizes are read before anything changes, so a child that
// inherits its size from a scaled parent is not scaled twice. GUI thread only.
#pragma once

#include <QList>

class QChart;
class QWidget;

namespace accumlab::ui {

// Multiplies the fonts of `widgets` and of every widget under them that set its own font by
// `ratio` (classroom mode's enlargements), charts among them included.
void scaleFonts(const QList<QWidget *> &widgets, double ratio);

// Multiplies the chart's title, legend and axis fonts by `ratio`: a chart's fonts are its own,
// not its view's.
void scaleChartFonts(QChart *chart, double ratio);

// The whole window by `ratio`: the application font, then every widget under `root` that set
// its own font, and every chart under it.
void scaleAllFonts(QWidget *root, double ratio);

// `n` lines of `w`'s font, in pixels (its line spacing). A minimum size measured in lines grows
// with the zoom as the text it makes room for does, where one in pixels would let the zoomed
// text outgrow it (Qt Charts then elides a tick label to "...", a painted label shrinks).
int lines(const QWidget *w, double n);

// Keeps `w`'s minimum size at `width` x `height` lines of its font (0: no minimum that way), now
// and after each change of its font: a chart, table or plot keeps room for its zoomed text.
void setMinimumLines(QWidget *w, double width, double height);

} // namespace accumlab::ui
