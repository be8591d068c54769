// The full-speed sweep as the window runs it: checks the controls' grid, starts the sweep on
// the worker, shows its progress (the status bar's round and point, the throughput and loss
// charts, the sweep table's rows) and keeps the last completed result for the exports. The GUI
// stall probe runs while it sweeps. GUI thread only.
#pragma once

#include "ui/worker/updates.h"

#include <QObject>

#include <optional>

namespace accumlab::ui {

class ControlPanel;
class EngineController;
class LossChart;
class StallProbe;
class StatusReporter;
class SweepTableModel;
class ThroughputChart;

class SweepRunner : public QObject {
    Q_OBJECT
public:
    struct Parts {
        EngineController *controller;
        ControlPanel *controls;
        ThroughputChart *throughput;
        LossChart *loss;
        StatusReporter *status;
    };
    SweepRunner(const Parts &parts, QObject *parent);

    // Starts a sweep with the controls' settings (Play pauses first); false, with the reason
    // in `error`, when they are invalid.
    bool run(QString *error = nullptr);
    // The rows of the running or last sweep, for the sweep table.
    SweepTableModel *model() const { return m_model; }
    StallProbe *stallProbe() const { return m_stallProbe; }
    // The last sweep that ran to its end; a cancelled or failed one leaves it as it was.
    const std::optional<SweepResult> &lastSweep() const { return m_lastSweep; }
    // The equivalence check of lastSweep()'s own settings, run just before it: what the
    // exports pair it with (one run, one set of settings, whatever the controls say since).
    const std::optional<EquivalenceResult> &lastSweepEquivalence() const { return m_lastSweepEquivalence; }

signals:
    // A sweep went to the worker (the window's actions follow).
    void started();
    // `completed`: the sweep ran to its end (not cancelled, no error); lastSweep() holds it.
    void finished(bool completed);

private:
    void onPointStarted(int index, qint64 accumSteps);
    void onBlockStarted(int index, int block);
    void onPointProgress(const SweepPointUpdate &update); // a point's blocks so far
    void onPoint(const SweepPointUpdate &update);
    void onFinished(const SweepDoneUpdate &update);

    Parts m_parts;
    SweepTableModel *m_model;
    StallProbe *m_stallProbe;
    std::optional<SweepResult> m_lastSweep;
    std::optional<EquivalenceResult> m_lastSweepEquivalence;
    int m_pointCount = 0;
    int m_blocks = 1; // timed rounds of the running sweep
};

} // namespace accumlab::ui
