// The gradient buffers: one bar per parameter tensor, filling micro-batch by micro-batch,
// measured as the buffer's projection onto the full-batch gradient g of the same window,
// <buffer, g> / <g, g> (the marker at 1x). The projection is linear in the buffer, so each
// micro-batch adds its own share and the bars add up: with loss/N they land on the marker
// after the last micro-batch, without the division at N times it; the axis grows so the
// overshoot stays visible. (A ratio of norms, the fallback when no projection came, is not
// additive: mid-window it could read 1.13x without a bug.) Every length is a figure the
// engine measured. Painted left to right in every layout
// direction (a plot is not mirrored). GUI thread only.
#pragma once

#include "ui/updates.h"

#include <QWidget>

namespace accumlab::ui {

class GradientBufferView : public QWidget {
    Q_OBJECT
public:
    explicit GradientBufferView(QWidget *parent = nullptr);

    void setParameterNames(const QStringList &names);
    void setUpdate(const MicroBatchUpdate &update);
    void clear();

    bool hasData() const { return m_hasData; }
    // The buffers' projection onto the full-batch gradient over all tensors, and per tensor
    // (||accumulated|| / ||full batch|| where the update carries no projection).
    double measuredRatio() const;
    QVector<double> tensorRatios() const;
    double axisMax() const { return m_axisMax; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QStringList m_names;
    MicroBatchUpdate m_update;
    bool m_hasData = false;
    double m_axisMax = 1.25; // in units of the full-batch norm
};

} // namespace accumlab::ui
