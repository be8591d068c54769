// Why accumulate at all, measured. The class sets an effective batch and a memory budget:
// by default the lesson's "your accelerator fails after 32 samples", measured on this device
// (core/memory/memory_lab.h), or any number of bytes on the slider. Bars set the estimate (weights,
// gradient buffers, optimizer state, the window's samples and one pass's activations; core's
// analytic figure) beside what was measured for the micro-batch and for the whole effective
// batch in one pass. Three buttons run the memory lab on the worker, on the CPU as on a GPU:
// the out-of-memory demo (the full batch fails inside LibTorch, accumulation fits and matches
// its parameters), the trade-off sweep (time and peak memory per micro-batch, charted) and
// the micro-batch finder. Their answers are core's sentences, the CLI's, in the window's
// language; LibTorch's own messages stay left to right. GUI thread only.
#pragma once

#include "ui/worker/updates.h"

#include "core/config.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace accumlab::ui {

class LessonNavigator;
class MemoryBars;
class MemoryTimelineChart;
class TradeoffChart;

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget *parent = nullptr);

    // The model, dtype, device and optimizer the lab runs (micro-batch and steps are its own).
    void setConfig(const AccumConfig &config);

    qint64 budgetBytes() const;
    void setBudgetBytes(qint64 bytes); // the class chose bytes: the lab runs under them
    bool budgetChosen() const { return m_budgetChosen; }
    void setEffectiveBatch(int samples);
    void setFailsAfterSamples(int samples); // back to the measured "fails after" budget
    // The estimates the bars show (bytes).
    qint64 microBatchBytes() const;
    qint64 effectiveBatchBytes() const;
    bool microBatchFits() const { return microBatchBytes() <= budgetBytes(); }
    bool effectiveBatchFits() const { return effectiveBatchBytes() <= budgetBytes(); }
    // What a button sends: the lab of the current settings.
    MemoryLabRequest request(MemoryLabKind kind) const;
    TradeoffChart *tradeoffChart() const { return m_chart; }
    MemoryTimelineChart *timelineChart() const { return m_timeline; }
    // Teaching mode's open window, as the counting allocator measured it so far (Play, Step).
    void showLiveWindow(const MemoryTimeline &window);
    // The last out-of-memory demo that recorded its timelines (a CPU run), for the export;
    // null before one has.
    const OomDemoResult *lastRecordedDemo() const { return m_lastDemo ? &*m_lastDemo : nullptr; }
    // Starts a run as its button does (the scripted mode's --memory-run uses it).
    void start(MemoryLabKind kind);
    // "view/memory" (this view) and "view/memoryBudget" (the budget slider).
    void registerLessonTargets(LessonNavigator &navigator);

public slots:
    void showMemoryLabResult(const accumlab::ui::MemoryLabUpdate &update);

signals:
    // A button was pressed; the window runs it on the worker (EngineController).
    void memoryLabRequested(const accumlab::ui::MemoryLabRequest &request);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void refresh();
    void refreshButtons();
    void settingsChanged(); // a measured budget no longer applies
    QString resultText() const; // the last run in core's sentences (core/memory/memory_sentences.h)
    static bool sameLab(const MemoryLabConfig &a, const MemoryLabConfig &b);

    AccumConfig m_config;
    QLabel *m_title = nullptr;
    QLabel *m_effectiveCaption = nullptr;
    QSpinBox *m_effectiveSpin = nullptr;
    QLabel *m_failsCaption = nullptr;
    QSpinBox *m_failsSpin = nullptr;
    QLabel *m_budgetCaption = nullptr;
    QSlider *m_budgetSlider = nullptr;
    QLabel *m_budgetLabel = nullptr;
    MemoryBars *m_bars = nullptr;
    QLabel *m_verdict = nullptr;
    QLabel *m_note = nullptr;
    QPushButton *m_oomButton = nullptr;
    QPushButton *m_tradeoffButton = nullptr;
    QPushButton *m_finderButton = nullptr;
    QLabel *m_status = nullptr; // what runs now
    QLabel *m_result = nullptr; // the last run's outcome
    TradeoffChart *m_chart = nullptr;
    MemoryTimelineChart *m_timeline = nullptr;
    bool m_budgetChosen = false;
    std::optional<qint64> m_measuredBudget;      // "fails after" as measured for these settings
    std::optional<qint64> m_measuredMicroPeak;   // the demo's accumulation peak
    std::optional<qint64> m_measuredFullPeak;    // the demo's full batch, measured without the budget
    std::optional<MemoryLabKind> m_running;
    std::optional<MemoryLabUpdate> m_last;
    // The settings on screen when m_last came (its kind's request): once they change (a dtype,
    // the budget), its figures are another run's, and the view says so instead of showing them.
    std::optional<MemoryLabConfig> m_lastShownWith;
    std::optional<OomDemoResult> m_lastDemo;
};

} // namespace accumlab::ui
