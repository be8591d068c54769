// Whether a chart's value axis shows its scale. Before anything is measured an axis has no
// scale to show (whole-number labels on a placeholder range would read "0 0 1 1 1"), yet it
// keeps its labels' room: Qt Charts sizes a vertical axis by its labels and takes the width of
// "..." from its title, so an axis with hidden labels elided its own title to "...". The labels
// are therefore drawn in a transparent colour rather than hidden, and a value axis's hidden
// labels carry two decimals ("0.00"): whole-number labels ("0", "1") are narrower than the "..."
// Qt Charts reserves, which elided the title all the same in some fonts' metrics.
#pragma once

#include "ui/layout/fontscale.h"

#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QValueAxis>

namespace accumlab::ui {

// The chart of `view`, set up as every plot of the window is: the view and the chart left to
// right in both languages (plots are not mirrored; titles and ticks follow the language),
// antialiased, the legend at `legend` with each entry drawn as its series is (a short solid,
// dashed or dotted line, a star: as squares a dashed budget and a solid curve of one colour
// looked alike), small margins. QChartView's constructor made a default
// chart; setChart() hands it back without deleting it (Qt's documented contract), so it is
// deleted here (LeakSanitizer found it).
// The smallest chart that shows its tick labels, axis titles and legend whole, in lines of its
// view's font (420 x 250 pixels at the normal size), so that it grows with the zoom.
constexpr double kChartMinWidthLines = 22.5;
constexpr double kChartMinHeightLines = 13.5;

inline QChart *installChart(QChartView *view, Qt::Alignment legend)
{
    view->setLayoutDirection(Qt::LeftToRight);
    setMinimumLines(view, kChartMinWidthLines, kChartMinHeightLines);
    view->setRenderHint(QPainter::Antialiasing);
    auto *chart = new QChart;
    chart->setLayoutDirection(Qt::LeftToRight);
    chart->legend()->setAlignment(legend);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    chart->setMargins(QMargins(2, 2, 2, 2));
    QChart *defaultChart = view->chart();
    view->setChart(chart);
    delete defaultChart;
    return chart;
}

inline bool scaleShown(const QAbstractAxis *axis) { return axis->labelsColor().alpha() > 0; }

// A value axis's label format while its scale is shown (showScale keeps it across a hide).
inline void setScaleFormat(QValueAxis *axis, const QString &format)
{
    axis->setProperty("accumlabScaleFormat", format);
    if (axis->labelsColor().alpha() > 0)
        axis->setLabelFormat(format);
}

inline void showScale(QAbstractAxis *axis, bool shown)
{
    static const char *const kColor = "accumlabScaleColor"; // the labels' colour while shown
    static const char *const kFormat = "accumlabScaleFormat"; // a value axis's format while shown
    if (!axis->property(kColor).isValid())
        axis->setProperty(kColor, axis->labelsColor());
    if (auto *values = qobject_cast<QValueAxis *>(axis)) {
        if (!axis->property(kFormat).isValid())
            axis->setProperty(kFormat, values->labelFormat());
        values->setLabelFormat(shown ? axis->property(kFormat).toString() : QStringLiteral("%.2f"));
    }
    axis->setLabelsColor(shown ? axis->property(kColor).value<QColor>() : QColor(Qt::transparent));
}

} // namespace accumlab::ui
