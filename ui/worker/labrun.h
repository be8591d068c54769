// The lab's teaching run and its equivalence check, kept in step with the controls: control
// edits are debounced into one engine rebuild and one equivalence request, bursts of
// micro-batch updates are coalesced into one repaint per frame, and only the newest check's
// answer is shown. It owns no widgets; it drives the ones the window lays out. GUI thread only.
#pragma once

#include "ui/worker/updates.h"

#include <QObject>

#include <optional>

class QTimer;

namespace accumlab::ui {

class AccumulationPanel;
class CodePanel;
class ControlPanel;
class EngineController;
class EquivalencePanel;
class LossChart;
class MemoryView;

class LabRun : public QObject {
    Q_OBJECT
public:
    struct Parts {
        EngineController *controller;
        ControlPanel *controls;
        AccumulationPanel *accumulation;
        EquivalencePanel *equivalence;
        MemoryView *memory;
        LossChart *loss;
        CodePanel *code;
    };
    LabRun(const Parts &parts, QObject *parent);

    // Rebuilds the engine from the controls now (Reset, Play, a preset) instead of after the
    // debounce: the buffers and the lab's loss curve start again.
    void applyConfigNow();
    // Whether a control edit waits for the debounce (Step applies it first).
    bool editsPending() const;
    // Drops a pending edit: a session save or resume must not see the run rebuilt under it.
    void holdEdits();
    // Asks for the equivalence check of the controls' settings now / after the debounce.
    void requestEquivalenceNow();
    void requestEquivalenceSoon();
    // The controls show a run's settings (a resumed session's) without rebuilding it; the
    // check follows them.
    void showRunSettings(const AccumConfig &config);

    // The check the panel runs for the controls' settings (core's one mapping).
    EquivalenceConfig equivalenceConfig() const;
    const std::optional<EquivalenceResult> &lastEquivalence() const { return m_lastEquivalence; }
    // Whether a check asked for has not answered yet.
    bool equivalencePending() const { return m_answeredSerial < m_latestSerial; }
    // Whether a check waits for the debounce (requestEquivalenceSoon, a control edit).
    bool equivalenceScheduled() const;

signals:
    // The engine was rebuilt from the controls (the window keeps its settings then).
    void configApplied();
    // The newest check answered (lastEquivalence() holds it when it ran).
    void equivalenceUpdated();

private:
    void onConfigEdited();
    void onMicroBatch(const MicroBatchUpdate &update);
    void showMicroBatch();
    void onEquivalence(const EquivalenceUpdate &update);

    Parts m_parts;
    QTimer *m_configTimer;       // debounces control edits into the engine
    QTimer *m_equivalenceTimer;  // debounces the equivalence check
    QTimer *m_microTimer;        // coalesces bursts of micro-batch updates
    std::optional<MicroBatchUpdate> m_pendingMicro;
    std::optional<EquivalenceResult> m_lastEquivalence;
    quint64 m_latestSerial = 0;
    quint64 m_answeredSerial = 0;
};

} // namespace accumlab::ui
