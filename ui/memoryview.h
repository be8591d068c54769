// Why accumulate at all: the memory one training pass needs (activations kept for backward +
// gradient buffers) for the micro-batch and for the whole effective batch in one pass,
// against a memory budget the class sets with a slider ("your accelerator fails after 32
// samples"). The numbers are core's analytic estimate from the model shape and dtype, and
// are labelled as an estimate. setMeasuredPeakBytes() is the hook for a measured CUDA peak.
// Below, the out-of-memory demo on a real GPU (core/gpu.h): a button, enabled only when CUDA
// is available at run time (otherwise a line says why), that asks the window to run it on the
// worker; showOomDemoResult() then says what happened in words. GUI thread only.
#pragma once

#include "ui/updates.h"

#include "core/config.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QSlider;

namespace accumlab::ui {

class MemoryBars;

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget *parent = nullptr);

    void setConfig(const AccumConfig &config);
    // A measured peak for the micro-batch pass (CUDA); nullopt shows that none is measured.
    void setMeasuredPeakBytes(std::optional<qint64> bytes);

    qint64 budgetBytes() const;
    void setBudgetBytes(qint64 bytes);
    qint64 microBatchBytes() const;
    qint64 effectiveBatchBytes() const;
    bool microBatchFits() const { return microBatchBytes() <= budgetBytes(); }
    bool effectiveBatchFits() const { return effectiveBatchBytes() <= budgetBytes(); }

    // Whether this machine can run the out-of-memory demo (a CUDA device at run time).
    bool oomDemoAvailable() const { return m_oomUnavailable.isEmpty(); }

public slots:
    // The demo's answer: the cap, the full batch's CUDA out-of-memory and the accumulated
    // batch's peak, or the error; shown until the next run, retranslated with the window.
    void showOomDemoResult(const accumlab::ui::OomDemoUpdate &update);

signals:
    // The button was pressed; the window runs the demo on the worker (EngineController).
    void oomDemoRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void refresh();
    void refreshOomDemo();
    QString oomDemoText() const;

    AccumConfig m_config;
    QLabel *m_title = nullptr;
    QLabel *m_budgetCaption = nullptr;
    QSlider *m_budgetSlider = nullptr;
    QLabel *m_budgetLabel = nullptr;
    MemoryBars *m_bars = nullptr;
    QLabel *m_verdict = nullptr;
    QLabel *m_note = nullptr;
    QLabel *m_measured = nullptr;
    std::optional<qint64> m_measuredPeak;
    bool m_budgetChosen = false;
    QPushButton *m_oomButton = nullptr;
    QLabel *m_oomStatus = nullptr;   // why the demo cannot run here, or that it runs
    QLabel *m_oomResult = nullptr;   // the last demo's outcome
    QString m_oomUnavailable;        // empty when a CUDA device is available
    bool m_oomRunning = false;
    std::optional<OomDemoUpdate> m_oomUpdate;
};

} // namespace accumlab::ui
