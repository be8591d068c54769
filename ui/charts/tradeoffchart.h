// The trade-off sweep's chart (core/memory/memory_lab.h, accum-tradeoff.v1): at a fixed effective
// batch, the time per optimizer step (left axis) and the measured peak memory (right axis)
// against the micro-batch on a log2 axis, the budget drawn as a dashed wall on the memory
// axis, and the points that ran out of memory as red crosses on that wall. Plots are not
// mirrored in Persian; titles and ticks follow the window's language. GUI thread only.
#pragma once

#include "ui/charts/lessonchart.h"
#include "core/memory/memory_lab.h"


class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace accumlab::ui {

class TradeoffChart : public LessonChart {
    Q_OBJECT
public:
    explicit TradeoffChart(QWidget *parent = nullptr);

    void setResult(const TradeoffResult &result);
    int fittedPointCount() const;
    int stepSetPeakCount() const; // peaks ringed as set by the optimizer step's temporaries
    int outOfMemoryPointCount() const;


private:
    void retranslateUi() override;

    QLogValueAxis *m_xAxis = nullptr;
    QValueAxis *m_msAxis = nullptr;
    QValueAxis *m_memAxis = nullptr;
    QLineSeries *m_ms = nullptr;
    QLineSeries *m_mem = nullptr;
    QLineSeries *m_budget = nullptr;
    QScatterSeries *m_oom = nullptr;
    QLineSeries *m_held = nullptr;        // what the engine holds: the floor under each peak
    QScatterSeries *m_stepPeak = nullptr; // peaks the optimizer step's temporaries set
    double m_memUnit = 1024.0; // bytes per unit on the memory axis (KiB or MiB)
    std::optional<TradeoffResult> m_result;
};

} // namespace accumlab::ui
