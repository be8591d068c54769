// The sweep table's model: cells through core's one number formatter in the window's style.
#include "ui/panels/sweeptablemodel.h"

#include "ui/localizedtext.h"

namespace accumlab::ui {

SweepTableModel::SweepTableModel(QObject *parent) : QAbstractTableModel(parent) {}

int SweepTableModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : static_cast<int>(m_points.size()); }

int SweepTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SweepTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_points.size())
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const SweepPoint &p = m_points[index.row()];
    switch (index.column()) {
    case EffectiveBatch:
        return figure(static_cast<double>(p.effectiveBatch), "d");
    case AccumSteps:
        return figure(static_cast<double>(p.accumSteps), "d");
    case MicroBatch:
        return figure(static_cast<double>(p.microBatch), "d");
    case Ranks:
        return figure(static_cast<double>(p.worldSize), "d");
    case SamplesPerSec:
        return figure(p.samplesPerSec, ".1f");
    case MedianStepMs:
        return figure(p.medianStepMs, ".3f");
    case Syncs:
        return figure(static_cast<double>(p.syncCalls), "d");
    case AllReduces:
        return figure(static_cast<double>(p.allreduceCalls), "d");
    case AllReduceMs:
        return figure(p.allreduceMs, ".2f");
    case AvgLoss:
        return p.diverged ? tr("diverged") : figure(p.avgLoss, ".4f");
    default:
        return {};
    }
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case EffectiveBatch:
        return tr("effective batch");
    case AccumSteps:
        return tr("accum");
    case MicroBatch:
        return tr("micro");
    case Ranks:
        return tr("ranks");
    case SamplesPerSec:
        return tr("samples/sec");
    case MedianStepMs:
        return tr("median step ms");
    case Syncs:
        return tr("syncs");
    case AllReduces:
        return tr("all-reduces");
    case AllReduceMs:
        return tr("all-reduce ms");
    case AvgLoss:
        return tr("avg loss");
    default:
        return {};
    }
}

void SweepTableModel::clear()
{
    beginResetModel();
    m_points.clear();
    endResetModel();
}

void SweepTableModel::addPoint(const SweepPoint &point)
{
    const int row = static_cast<int>(m_points.size());
    beginInsertRows({}, row, row);
    m_points.push_back(point);
    endInsertRows();
}

void SweepTableModel::retranslate()
{
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_points.isEmpty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_points.size()) - 1, ColumnCount - 1));
}

} // namespace accumlab::ui
