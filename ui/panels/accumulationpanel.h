// The accumulation panel of the lab page: the gradient buffers filling micro-batch by
// micro-batch (GradientBufferView), the accumulated / full-batch ratio, the window's progress
// and the engine's counters (micro-batches, optimizer steps, state step, sync calls, the
// micro-batch's loss). Every figure comes from the engine's MicroBatchUpdate; the panel only
// words it, again on a language or digit switch. Classroom mode enlarges it for the back row.
// GUI thread only.
#pragma once

#include "ui/layout/steadylabel.h"
#include "ui/worker/updates.h"

#include <QGroupBox>

#include <optional>

class QLabel;

namespace accumlab::ui {

class GradientBufferView;
class LessonNavigator;

class AccumulationPanel : public QGroupBox {
    Q_OBJECT
public:
    enum Counter { MicroBatches, OptimizerSteps, StateStep, SyncCalls, MicroLoss, CounterCount };

    explicit AccumulationPanel(QWidget *parent = nullptr);

    GradientBufferView *bufferView() const { return m_bufferView; }
    QWidget *countersWidget() const { return m_countersWidget; }
    QLabel *counterValue(Counter counter) const { return m_counterValues[counter]; }
    QLabel *ratioLabel() const { return m_ratioLabel; }
    QLabel *float16Counters() const { return m_float16Counters; }
    // The lesson's links into this panel: view/buffers, view/counters, view/syncCalls.
    void registerLessonTargets(LessonNavigator &navigator) const;

    // The engine the worker built: its parameter tensors, one bar each, and its configuration,
    // which fixes the bars' axis (a fresh engine: the bars empty).
    void setEngine(const EngineInfo &info);
    // A fresh window: empty bars, counters unknown, nothing measured.
    void clear();
    void showMicroBatch(const MicroBatchUpdate &update);
    // Larger buffers, ratio and counters, to read from the back row.
    void setClassroomMode(bool on);
    bool classroomMode() const { return m_classroom; }

    // How much classroom mode enlarges what it enlarges.
    static constexpr double kClassroomScale = 1.5;

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void showLast();
    // The two sentences under the bars, and the longest of each reserved on their labels.
    QString ratioSentence(double ratio, bool windowClosed, qint64 accumSteps) const;
    QString progressSentence(qint64 micro, qint64 accumSteps, qint64 window, bool stepped) const;
    void reserveSentences();

    GradientBufferView *m_bufferView = nullptr;
    QLabel *m_title = nullptr;
    SteadyLabel *m_ratioLabel = nullptr;    // keep their height as their sentences change
    SteadyLabel *m_progressLabel = nullptr;
    QWidget *m_countersWidget = nullptr;
    QLabel *m_counterCaptions[CounterCount] = {};
    QLabel *m_counterValues[CounterCount] = {};
    QLabel *m_float16Counters = nullptr; // float16 only: the path that ran and the loss scaler's counters
    std::optional<MicroBatchUpdate> m_last;
    qint64 m_worldSize = 1; // teaching mode's ranks; the bars and counters are rank 0's
    bool m_classroom = false;
};

} // namespace accumlab::ui
