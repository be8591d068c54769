// Why accumulate at all: the memory one training pass needs (activations kept for backward +
// gradient buffers) for the micro-batch and for the whole effective batch in one pass,
// against a memory budget the class sets with a slider ("your accelerator fails after 32
// samples"). The numbers are core's analytic estimate from the model shape and dtype, and
// are labelled as an estimate. setMeasuredPeakBytes() is the hook for a measured CUDA peak.
// GUI thread only.
#pragma once

#include "core/config.h"

#include <QWidget>

#include <optional>

class QLabel;
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

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void refresh();

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
};

} // namespace accumlab::ui
