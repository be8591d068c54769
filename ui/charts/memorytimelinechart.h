// The memory timeline chart (core/memory/memory_timeline.h): the live bytes of one window as the
// counting allocator saw them, allocation by allocation, for the out-of-memory demo's two runs
// on one axis of "how far through the window": the full batch's one tall hill and the
// accumulation's one small hill per micro-batch on the resident floor (weights, gradient
// buffers, optimizer state, the window's samples), the budget as a dashed line and a mark where
// the full batch crosses it, the point where a real accelerator fails. While a window runs in
// teaching mode, its micro-batches' forward and backward are shaded behind its line. Every
// figure is the allocator's; nothing is estimated. Plots are not mirrored in Persian; titles
// and ticks follow the window's language. GUI thread only.
#pragma once

#include "ui/charts/lessonchart.h"
#include "core/memory/memory_lab.h"


#include <array>
#include <optional>

class QAreaSeries;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace accumlab::ui {

class MemoryTimelineChart : public LessonChart {
    Q_OBJECT
public:
    explicit MemoryTimelineChart(QWidget *parent = nullptr);

    // The demo's timelines; a result without them (a CUDA run) clears the chart.
    void setResult(const OomDemoResult &result);
    // Teaching mode's open window as it runs (Play and Step): its micro-batches' hills on the
    // resident floor, the x axis in micro-batches of the window (micro-batch k's events, its
    // sync and the step it ends the window with included, between k and k + 1; the window's
    // opening at 0), forward, backward and the step shaded. Replaces the demo's picture until
    // the demo runs again.
    void setLiveWindow(const MemoryTimeline &window);
    bool hasTimeline() const { return m_result.has_value() || m_live; }
    bool showsLiveWindow() const { return m_live; }
    const MemoryTimeline &liveWindow() const { return m_liveWindow; } // the one drawn, for tests
    // The drawn figures, for tests: each run's highest point (bytes) and where the full batch's
    // line crosses the budget (percent of its window), nullopt when it does not.
    qint64 drawnPeakBytes(int run) const;
    std::optional<double> crossingPercent() const;


private:
    void retranslateUi() override;

    QValueAxis *m_xAxis = nullptr;
    QValueAxis *m_yAxis = nullptr;
    QLineSeries *m_full = nullptr;
    QLineSeries *m_accumulation = nullptr;
    QLineSeries *m_floor = nullptr;
    QLineSeries *m_budget = nullptr;
    QScatterSeries *m_crossing = nullptr;
    QScatterSeries *m_peaks = nullptr; // each drawn run's peak, labelled with its figure
    // Where the live window ran forward, backward and its optimizer step, shaded.
    std::array<QAreaSeries *, 3> m_bands{};
    double m_unit = 1024.0; // bytes per unit on the value axis (KiB or MiB)
    std::optional<OomDemoResult> m_result;
    bool m_live = false;
    MemoryTimeline m_liveWindow;
    qint64 m_liveMicroBatches = 0; // the live window's accum_steps
};

} // namespace accumlab::ui
