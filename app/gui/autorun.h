// The desktop app's scripted mode: what `accumlab --autorun` and `accumlab --screenshot` do
// once the window is up. It sequences the window's own actions (a teaching window, the
// equivalence check and the sweep; or a guided experiment; or the memory lab's runs), prints
// the results on stdout, writes the exports and the screenshot, and ends with an exit code:
// 0 when everything ran and was written, 1 when a run failed or a file could not be written,
// 2 for bad input (an unknown experiment, invalid sweep settings). The window knows nothing of
// it: the driver uses the window's public methods and signals. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

namespace accumlab::ui {
class MainWindow;
}

namespace accumlab::gui {

struct AutorunOptions {
    bool autorun = false;    // the teaching window, the equivalence check and the sweep; or:
    QString experiment;      // with autorun, this experiment on its page instead
    QString exportJson;      // with autorun, accum-curve.json written here; empty for none
    QString screenshot;      // PNG of the whole window at the end, empty for none
    QStringList memoryRuns;  // without autorun: demo, tradeoff, finder on the Memory tab first
};

class AutorunDriver : public QObject {
    Q_OBJECT
public:
    explicit AutorunDriver(ui::MainWindow *window, QObject *parent = nullptr);

    // Starts once the window has been laid out and painted (so the GUI-stall probe measures
    // the sweep, not the first paint); finished() follows.
    void start(const AutorunOptions &options);

signals:
    void finished(int exitCode);

private:
    void startRuns();
    void nextMemoryRun();
    void onSweepFinished(bool completed);
    void onEquivalenceUpdated();
    void onExperimentFinished(const QString &id, bool ok);
    // Prints the results, writes the exports, then the screenshot; emits finished().
    void finish();
    void fail(int exitCode, const QString &message);

    ui::MainWindow *m_window = nullptr;
    AutorunOptions m_options;
    bool m_running = false;
    bool m_sweepDone = false;
    int m_exit = 0;
};

} // namespace accumlab::gui
