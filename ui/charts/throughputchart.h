// Samples/sec against effective batch on a log2 axis, each point drawn from its first timing
// block on and settling as its blocks come in, a bar through the middle half of its blocks;
// the median time per optimizer step on a second axis (and in each point's
// tooltip); earlier runs kept as faded series; the best samples/sec the run measured marked
// and named for what it is (issue 62: a line called "plateau" sat on the last, still rising,
// point); the cost model's prediction (N s / (N t_micro + t_window), from the costs the run
// measured) drawn through the points, so that a curve that flattens early reads as this
// engine's small step cost rather than as noise; imported curves overlaid as dashed series. Not mirrored in right-to-left layouts.
// GUI thread only.
#pragma once

#include "ui/charts/lessonchart.h"
#include "core/sweep.h"

#include <QList>
#include <QPointF>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace accumlab::ui {

class ThroughputChart : public LessonChart {
    Q_OBJECT
public:
    explicit ThroughputChart(QWidget *parent = nullptr);

    void startRun();
    // Draws sweep point `index` (0-based, in grid order; the next one when it is beyond the
    // last): a point as its blocks so far measured it replaces itself as more blocks come in,
    // until the point is complete.
    void showPoint(int index, const SweepPoint &point);
    void addPoint(const SweepPoint &point) { showPoint(currentPointCount(), point); }
    int currentPointCount() const { return static_cast<int>(m_points.size()); }
    int fadedRunCount() const { return static_cast<int>(m_faded.size()); }
    // Overlays an imported accum-curve (ours or the lesson's) as a dashed series named after
    // `label` (the file name); it stays until the window closes. Returns the new series.
    QLineSeries *addImportedCurve(const QString &label, const std::vector<SweepPoint> &points);
    int importedCurveCount() const { return static_cast<int>(m_imported.size()); }


private:
    void retranslateUi() override;
    void refresh();
    void onHovered(const QPointF &point, bool state);

    struct Run {
        QLineSeries *line = nullptr;
        QScatterSeries *dots = nullptr;
        QLineSeries *median = nullptr;
        // One vertical bar a point: the middle half of its blocks (25th to 75th percentile),
        // the range the timing verdicts judge; one slow block does not stretch it.
        QList<QLineSeries *> spread;
    };
    void deleteSpread(Run &run);
    // Previous runs kept for comparison, newest last.
    static constexpr int kMaxFadedRuns = 3;

    QLogValueAxis *m_xAxis = nullptr;
    QValueAxis *m_yAxis = nullptr;
    QValueAxis *m_msAxis = nullptr;
    Run m_current;
    QLineSeries *m_plateau = nullptr;
    // The cost model's curve through this run's measured costs (SweepCostModel), from its
    // smallest to its largest accum_steps; empty without phase timing (a GPU sweep).
    QLineSeries *m_predicted = nullptr;
    QList<Run> m_faded;
    QList<std::pair<QLineSeries *, QString>> m_imported; // series and the file name it came from
    std::vector<SweepPoint> m_points;
    double m_xMin = 0, m_xMax = 0, m_yMax = 0, m_msMax = 0;
};

} // namespace accumlab::ui
