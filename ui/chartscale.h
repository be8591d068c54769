// Whether a chart's value axis shows its scale. Before anything is measured an axis has no
// scale to show (whole-number labels on a placeholder range would read "0 0 1 1 1"), yet it
// keeps its labels' room: Qt Charts sizes a vertical axis by its labels and takes the width of
// "..." from its title, so an axis with hidden labels elided its own title to "...". The labels
// are therefore drawn in a transparent colour rather than hidden.
#pragma once

#include <QtCharts/QAbstractAxis>

namespace accumlab::ui {

inline bool scaleShown(const QAbstractAxis *axis) { return axis->labelsColor().alpha() > 0; }

inline void showScale(QAbstractAxis *axis, bool shown)
{
    static const char *const kColor = "accumlabScaleColor"; // the labels' colour while shown
    if (!axis->property(kColor).isValid())
        axis->setProperty(kColor, axis->labelsColor());
    axis->setLabelsColor(shown ? axis->property(kColor).value<QColor>() : QColor(Qt::transparent));
}

} // namespace accumlab::ui
