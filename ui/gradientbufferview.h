// The gradient buffers: one bar per parameter tensor, filling micro-batch by micro-batch,
// measured in units of the full-batch gradient norm of the same window (the marker at 1x).
// With loss/N the bars land on the marker after the last micro-batch; without the division
// they overshoot to N times it; the axis grows so the overshoot stays visible. Every length
// is a ratio of two norms the engine measured. Painted left to right in every layout
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
    // ||accumulated|| / ||full batch|| over all tensors (global L2), and per tensor.
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
