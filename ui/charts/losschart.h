// Loss per optimizer step during a sweep, one series per effective batch, each step placed at
// the samples seen once it is taken, so a class sees the larger effective batches train more
// smoothly, in fewer steps over the same samples; in teaching mode (Play and Step) one series of
// the lab's own windows, a point per optimizer step, until the next reset or sweep. Losses arrive in coalesced batches from the
// worker; the chart collects them and redraws on a single-shot timer with one replace() per
// series. Not mirrored in right-to-left layouts. GUI thread only.
#pragma once

#include "ui/charts/lessonchart.h"
#include "ui/worker/updates.h"

#include <QMap>
#include <QSet>

class QLineSeries;
class QTimer;
class QValueAxis;

namespace accumlab::ui {

class LossChart : public LessonChart {
    Q_OBJECT
public:
    // Redraws at most this often while losses stream in.
    static constexpr int kRedrawIntervalMs = 40;

    explicit LossChart(QWidget *parent = nullptr);

    // The series of teaching mode's windows, apart from the sweep's points.
    static constexpr int kTeachingSeries = -1;

    void clear();
    // Teaching mode closed a window: its loss and logged loss join the teaching series.
    void appendTeachingStep(const StepBatchUpdate &update);
    // A reset: the teaching series starts again.
    void clearTeaching();
    void startSeries(int pointIndex, qint64 effectiveBatch);
    void appendLosses(const StepBatchUpdate &update);
    // Replaces the streamed values with the point's own, complete list of losses.
    void finishSeries(int pointIndex, const SweepPoint &point);
    int seriesCount() const { return static_cast<int>(m_series.size()); }
    // The colour of the curve of sweep point `index`: ten categorical colours, then hues a
    // golden angle apart, so that a long sweep's curves stay told apart (Qt's theme repeats
    // after five).
    static QColor curveColor(int index);
    QColor seriesColor(int pointIndex) const;
    qsizetype pointCount(int pointIndex) const { return m_points.value(pointIndex).size(); }
    // Teaching mode's (samples seen, loss) points, a point per window the engine reported.
    QList<QPointF> teachingPoints() const { return m_points.value(kTeachingSeries); }
    // The dashed companion of a point's curve (samples seen, logged loss): the loss as the lesson's loop logs it
    // (scaled.item() x accum_steps), on the raw curve with division, N times it without.
    QList<QPointF> loggedPoints(int pointIndex) const { return m_logged.value(pointIndex); }


private:
    void retranslateUi() override;
    void nameLoggedSeries();
    QString seriesName(int pointIndex, qint64 effectiveBatch) const;
    void redraw();
    void scheduleRedraw();
    QLineSeries *seriesFor(int pointIndex, qint64 effectiveBatch);

    QValueAxis *m_xAxis = nullptr;
    QValueAxis *m_yAxis = nullptr;
    QTimer *m_redrawTimer = nullptr;
    QMap<int, QLineSeries *> m_series;
    QMap<int, qint64> m_effective;
    QMap<int, QList<QPointF>> m_points;
    QMap<int, QLineSeries *> m_loggedSeries;
    QMap<int, QList<QPointF>> m_logged;
    QSet<int> m_dirty;
};

} // namespace accumlab::ui
