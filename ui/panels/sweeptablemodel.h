// The sweep table: one row per measured point of the throughput sweep, in the reader's
// digits. A model over the sweep's points (small value types from the worker), formatted when
// a view asks, so a language or digit switch rewrites every cell and header without
// re-running anything. GUI thread only.
#pragma once

#include "core/sweep.h"

#include <QAbstractTableModel>
#include <QVector>

namespace accumlab::ui {

class SweepTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        EffectiveBatch,
        AccumSteps,
        MicroBatch,
        Ranks,
        SamplesPerSec,
        MedianStepMs,
        Syncs,
        AllReduces,
        AllReduceMs,
        AvgLoss,
        ColumnCount
    };

    explicit SweepTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void clear();
    void addPoint(const SweepPoint &point);
    const QVector<SweepPoint> &points() const { return m_points; }
    // The language or the digits changed: every header and cell is written again.
    void retranslate();

private:
    QVector<SweepPoint> m_points;
};

} // namespace accumlab::ui
