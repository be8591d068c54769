// The gradient buffers: one bar per parameter tensor, filling micro-batch by micro-batch,
// measured as the buffer's projection onto the full-batch gradient g of the same window,
// <buffer, g> / <g, g> (the marker at 1x). The projection is linear in the buffer, so each
// micro-batch adds its own share and the bars add up: with loss/N they land on the marker
// after the last micro-batch, without the division at N times it. The axis is fixed by the
// engine's configuration before the first bar (up to N with the no-division bug), so a 16x bar
// reads as 16 times the faint 1x ghost drawn beside it whenever a bug is planted; it grows only
// for a bar beyond it (buffers never zeroed keep growing). (A ratio of norms, the fallback when no projection came, is not
// additive: mid-window it could read 1.13x without a bug.) Every length is a figure the
// engine measured. Painted left to right in every layout
// direction (a plot is not mirrored). GUI thread only.
#pragma once

#include "ui/worker/updates.h"

#include <QWidget>

#include <optional>

namespace accumlab::ui {

class GradientBufferView : public QWidget {
    Q_OBJECT
public:
    explicit GradientBufferView(QWidget *parent = nullptr);

    void setParameterNames(const QStringList &names);
    // The engine's configuration: fixes the axis and whether the correct bar's ghost shows.
    void setConfig(const AccumConfig &config);
    void setUpdate(const MicroBatchUpdate &update);
    void clear();
    // The equivalence verdict per tensor (core's LayerDiff::differs, in the names' order) for
    // these settings, or nothing while it is unknown: a closed window's bars take its colours
    // (the verdict's, never a bound of the view's own), and stay neutral without one.
    void setVerdict(const std::optional<QVector<bool>> &differs);
    std::optional<QVector<bool>> verdict() const { return m_differs; }

    bool hasData() const { return m_hasData; }
    // The buffers' projection onto the full-batch gradient over all tensors, and per tensor
    // (||accumulated|| / ||full batch|| where the update carries no projection).
    double measuredRatio() const;
    QVector<double> tensorRatios() const;
    double axisMax() const { return m_axisMax; }
    // A bug is planted: each bar has the correct loop's 1x bar as a faint ghost beside it.
    bool showsGhost() const { return m_ghost; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QStringList m_names;
    MicroBatchUpdate m_update;
    bool m_hasData = false;
    double m_axisMax = 1.25;   // in units of the full-batch norm
    double m_fixedAxis = 1.25; // the axis the configuration fixes before any bar
    bool m_ghost = false;
    std::optional<QVector<bool>> m_differs; // setVerdict
};

} // namespace accumlab::ui
