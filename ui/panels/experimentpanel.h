// The guided experiments (core/experiments/experiments.h) in the window: pick one from the
// catalog, read its summary, run it in the engine's worker thread with one click, and read
// the measured values, each claim with its verdict, the explanation and the measured curves.
// Running also hands the lab the experiment's run, for the controls to show
// (requestSettings). The verdicts are the engine's; nothing here computes or
// stores a figure. GUI thread only.
#pragma once

#include "ui/session/preset.h"
#include "ui/worker/updates.h"

#include "core/experiments/experiments.h"

#include <QMetaType>
#include <QString>
#include <QHash>
#include <QWidget>

#include <optional>

class QCheckBox;
class QChart;
class QChartView;
class QComboBox;
class QGroupBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QScrollArea;
class QTableWidget;

namespace accumlab::ui {

class EngineController;

// What an experiment hands the lab: the run it shows (core's experimentLabSettings, every
// setting of it), and for a sweep its grid and timed steps. Empty for an experiment the lab
// cannot show (one with a model of its own, e.g. variable-length).
struct ExperimentSettings {
    std::optional<AccumConfig> run;
    std::optional<QString> accumGrid; // the sweep's grid, "1,2,4,8,16"
    std::optional<int> numSteps;      // the sweep's timed steps per point

    bool isEmpty() const { return !run; }
    // The preset's run becomes this one; a sweep keeps the preset's accumulation steps (the
    // sweep sets them point by point from its grid).
    void applyTo(Preset &preset) const;
};

// The settings experiment `id` runs with under `options` (nothing for an unknown id).
ExperimentSettings experimentSettings(const QString &id, const ExperimentOptions &options);

class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentPanel(EngineController *controller, QWidget *parent = nullptr);
    // The mark after a timing-based claim and before the note that explains it: a dagger, which
    // the bundled Vazirmatn and DejaVu Sans both draw (the stopwatch U+23F1 used before is in
    // neither, and showed as an empty box).
    static QString timingMark() { return QStringLiteral("†"); }

    QString currentExperiment() const;
    void setCurrentExperiment(const QString &id);
    // Smaller runs (every claim still measured): for a slow machine in class, and for tests.
    bool quickRun() const;
    void setQuickRun(bool quick);
    bool isRunning() const { return m_serial != 0; }
    // The last finished result shown, if any.
    const std::optional<ExperimentResult> &result() const { return m_result; }

public slots:
    // Asks for the experiment's settings, then runs it in the worker thread.
    void runCurrent();
    void cancel();

signals:
    void requestSettings(const accumlab::ui::ExperimentSettings &settings);
    void experimentStarted(const QString &id);
    // ok: the run completed (its claims are shown); false when cancelled or failed.
    void experimentFinished(const QString &id, bool ok);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void fillCatalog();
    void showSummary();
    void showResult();
    void showCurves();
    void setRunning(bool running);
    void onFinished(const ExperimentUpdate &update);
    // The page shows the chosen experiment: its summary and its own last result, or none.
    void showChosen();
    QString curveText(const std::string &key) const;

    EngineController *m_controller = nullptr;
    quint64 m_serial = 0;                    // the run in flight, 0 when none
    std::optional<ExperimentResult> m_result; // the chosen experiment's, when it has run
    QHash<QString, ExperimentResult> m_results; // every experiment's last result, by id
    QString m_lastRunId;                     // the experiment of the last run (or the one in flight)
    enum class RunState { Idle, Done, Cancelled, Failed };
    RunState m_state = RunState::Idle;       // of the last run
    EngineError m_error;                     // why the engine failed, worded when shown

    QLabel *m_pickLabel = nullptr;
    QComboBox *m_picker = nullptr;
    QLabel *m_kindLabel = nullptr;
    QLabel *m_summaryLabel = nullptr;
    QPushButton *m_runButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QCheckBox *m_quickCheck = nullptr;
    QProgressBar *m_busy = nullptr;
    QLabel *m_statusLabel = nullptr;
    QGroupBox *m_claimsBox = nullptr;
    QTableWidget *m_claimsTable = nullptr;
    QScrollArea *m_resultsScroll = nullptr; // the results, scrolled where the page is short
    QLabel *m_timingNote = nullptr;
    QGroupBox *m_explanationBox = nullptr;
    QLabel *m_explanationLabel = nullptr;
    QGroupBox *m_valuesBox = nullptr;
    QTableWidget *m_valuesTable = nullptr;
    QGroupBox *m_curvesBox = nullptr;
    QComboBox *m_curvePicker = nullptr;
    QChart *m_chart = nullptr;
    QChartView *m_chartView = nullptr;
};

} // namespace accumlab::ui

Q_DECLARE_METATYPE(accumlab::ui::ExperimentSettings)
