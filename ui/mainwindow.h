// AccumLab's window: the controls, the gradient buffers filling in teaching mode, the
// equivalence panel, the throughput and loss charts of a full-speed sweep, the memory view,
// the guided experiments and the quiz (pages beside the lab), exports, presets and the
// classroom mode. It owns the EngineController (and through it the
// worker thread); it does no tensor work itself. GUI thread only.
#pragma once

#include "ui/preset.h"
#include "ui/updates.h"

#include <QMainWindow>

#include <functional>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QPushButton;
class QSplitter;
class QScrollArea;
class QStackedWidget;
class QTableView;
class QTabWidget;
class QTimer;

namespace accumlab::ui {

class AccumulationPanel;
class ControlPanel;
class SweepTableModel;
class EngineController;
class EquivalencePanel;
class ExperimentPanel;
struct ExperimentSettings;
class GradientBufferView;
class LessonNavigator;
class LessonPanel;
class LossChart;
class MemoryView;
class QuizWidget;
class StallProbe;
class ThroughputChart;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // With persistSettings false (autorun, tests) nothing is written to QSettings.
    explicit MainWindow(bool persistSettings = true, QWidget *parent = nullptr);
    ~MainWindow() override;

    EngineController *controller() const { return m_controller; }
    ControlPanel *controlPanel() const { return m_controls; }
    AccumulationPanel *accumulationPanel() const { return m_accumulationPanel; }
    GradientBufferView *bufferView() const;
    EquivalencePanel *equivalencePanel() const { return m_equivalencePanel; }
    ThroughputChart *throughputChart() const { return m_throughputChart; }
    LossChart *lossChart() const { return m_lossChart; }
    MemoryView *memoryView() const { return m_memoryView; }
    StallProbe *stallProbe() const { return m_stallProbe; }
    LessonPanel *lessonPanel() const { return m_lessonPanel; }
    QTabWidget *tabs() const { return m_tabs; }
    // The pages right of the controls: the lab (buffers, equivalence, charts), the guided
    // experiments and the quiz.
    enum Page { LabPage, ExperimentsPage, QuizPage };
    QStackedWidget *pages() const { return m_pages; }
    Page currentPage() const;
    ExperimentPanel *experimentPanel() const { return m_experimentPanel; }
    QuizWidget *quizWidget() const { return m_quizWidget; }
    void showPage(Page page);
    // Opens the experiments page with experiment `id` picked (not run).
    void showExperiment(const QString &id);
    // Sets the controls to an experiment's settings (the experiment panel asks before a run).
    void applyExperimentSettings(const ExperimentSettings &settings);

    // A lesson link: switches to the page and tab that hold the target, scrolls it into view, gives
    // it the focus and outlines it for a moment. False for an unknown target.
    bool showLessonTarget(const QString &target);
    // The widget the last lesson link outlined.
    QWidget *lastLessonTarget() const { return m_lastLessonTarget; }
    // Every name a lesson link may use, with its widget (the panels register their own).
    LessonNavigator *lessonNavigator() const { return m_navigator; }
    QTableView *sweepTable() const { return m_sweepTable; }

    // Presentation: the zoom of the whole window (1 = the application's own font size),
    // remembered in the settings; full screen (F11).
    double zoom() const { return m_zoom; }
    void setZoom(double zoom);
    // After an experiment put its settings on the controls: the lab as it was before, offered
    // back (the status bar's "Restore the lab's settings").
    bool canRestoreLab() const { return m_labBeforeExperiment.has_value(); }
    void restoreLab();

    void applyPreset(const Preset &preset);
    Preset currentPreset() const;
    bool loadPresetFile(const QString &path, QString *error);
    bool savePresetFile(const QString &path, QString *error) const;

    // Applies pending control edits to the engine now instead of after the debounce.
    void applyConfigNow();
    void requestEquivalenceNow();
    // Starts a sweep with the controls' settings; false (and `error`) when they are invalid.
    bool runSweep(QString *error = nullptr);
    void stopAll();

    const std::optional<SweepResult> &lastSweep() const { return m_lastSweep; }
    const std::optional<EquivalenceResult> &lastEquivalence() const { return m_lastEquivalence; }
    // The file dialogs' filters, in the UI language: a translated description and the pattern.
    enum class FileKind { Json, Markdown, Preset };
    static QString fileFilter(FileKind kind);
    bool exportCurveJson(const QString &path, QString *error) const;
    // Overlays an accum-curve.json (ours or the lesson's) on the throughput chart; a file the
    // reader refuses is reported in words (status bar, and a message box on screen). Returns
    // whether it was imported.
    bool importCurve(const QString &path);
    const QString &lastError() const { return m_lastError; }
    bool exportSkillMarkdown(const QString &path, QString *error) const;
    // Writes throughput, loss, buffers and memory PNGs into `folder`.
    // At `scale` times the charts' size on screen (2: sharp on a slide).
    bool exportChartPngs(const QString &folder, QStringList *written, QString *error, int scale = 2);
    bool saveScreenshot(const QString &path, QString *error);
    // A session: the lab's teaching run, wherever it stands (inside a window or at its end),
    // saved as a checkpoint folder (core/checkpoint.h), and resumed from one with the controls
    // set to its run. Both answer with sessionFinished(); resumeSession returns false (and says
    // why, in `error`) when the folder holds no checkpoint this build can read.
    void saveSession(const QString &folder);
    bool resumeSession(const QString &folder, QString *error);

    // Errors go to stderr instead of a message box (the scripted mode; by default on the
    // offscreen platform, where a message box would wait for ever).
    void setErrorsToTerminal(bool on) { m_errorsToTerminal = on; }
    // Whether an equivalence check asked for has not answered yet.
    bool equivalencePending() const { return m_answeredEquivalenceSerial < m_latestEquivalenceSerial; }

signals:
    // `completed`: the sweep ran to its end (not cancelled, no error); lastSweep() holds it.
    void sweepFinished(bool completed);
    void equivalenceUpdated();
    void sessionFinished(bool ok);

protected:
    void changeEvent(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    // Space (Play) and Right (Step) are window-wide only while the focused control has no use
    // for them: a focused slider, button, list, field or text keeps its keys.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildUi();
    void registerLessonTargets(); // the window's own panels' targets, and the panels' registrations
    // Sizes the window for its first start on the screen it is on (see the definition).
    void fitTheScreen();
    void buildActions();
    void retranslateUi();
    void syncLanguageActions();
    void onConfigEdited();
    void onMicroBatch(const MicroBatchUpdate &update);
    void showMicroBatch();
    void onEngineConfigured(const EngineInfo &info);
    void showDevice();
    void onSweepPointStarted(int index, qint64 accumSteps);
    void onSweepBlockStarted(int index, int block);
    void onSweepPoint(const SweepPointUpdate &update);
    void onSweepFinished(const SweepDoneUpdate &update);
    void onEquivalence(const EquivalenceUpdate &update);
    void onSessionFinished(const SessionUpdate &update);
    void onPlayingChanged(bool playing);
    void updateActions();
    void saveSettings() const;
    void loadSettings();
    QString lastFolder() const;
    void rememberFolder(const QString &path) const;
public:
    // The equivalence check the panel runs for the controls' settings (core's one mapping).
    EquivalenceConfig equivalenceConfig() const;

private:
    // Classroom mode's enlargements and the hidden controls' room, once per switch.
    void applyClassroomLayout();
    // Classroom mode's share of the room: the controls' column down to what is left in it, the
    // buffers and the verdict more of the lab's height. Needs the window laid out.
    void shareClassroomRoom();
    void showError(const QString &message);
    // A status-bar message kept as how to say it, so a language or digit switch says it again.
    void say(std::function<QString()> message);

    // Dialog-driven actions.
    void openPresetDialog();
    void savePresetDialog();
    void exportCurveDialog();
    void importCurveDialog();
    void exportSkillDialog();
    void exportChartsDialog();
    void saveSessionDialog();
    void resumeSessionDialog();
    void chooseHiddenControlsDialog();
    void showAbout();

    bool m_persist = true;
    EngineController *m_controller = nullptr;
    ControlPanel *m_controls = nullptr;
    QScrollArea *m_controlsScroll = nullptr;
    QDockWidget *m_lessonDock = nullptr;
    LessonPanel *m_lessonPanel = nullptr;
    QWidget *m_lastLessonTarget = nullptr;
    LessonNavigator *m_navigator = nullptr;
    bool m_shownOnce = false;
    bool m_errorsToTerminal = false;
    AccumulationPanel *m_accumulationPanel = nullptr;
    EquivalencePanel *m_equivalencePanel = nullptr;
    QTabWidget *m_tabs = nullptr;
    QStackedWidget *m_pages = nullptr;  // switched from the toolbar and the Experiments menu
    ExperimentPanel *m_experimentPanel = nullptr;
    QuizWidget *m_quizWidget = nullptr;
    ThroughputChart *m_throughputChart = nullptr;
    LossChart *m_lossChart = nullptr;
    MemoryView *m_memoryView = nullptr;
    QTableView *m_sweepTable = nullptr;
    SweepTableModel *m_sweepModel = nullptr;
    std::function<QString()> m_status; // the status bar's message, said in the current language
    QLabel *m_statusLabel = nullptr;
    QString m_device; // LibTorch's name of the engine's device ("cpu", "cuda:0"); empty before the first run
    StallProbe *m_stallProbe = nullptr;
    QTimer *m_configTimer = nullptr;       // debounces control edits into the engine
    QTimer *m_equivalenceTimer = nullptr;  // debounces the equivalence check
    QTimer *m_microTimer = nullptr;        // coalesces bursts of micro-batch updates

    QAction *m_playAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_stepAction = nullptr;
    QAction *m_resetAction = nullptr;
    QAction *m_sweepAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_openPresetAction = nullptr;
    QAction *m_savePresetAction = nullptr;
    QAction *m_exportCurveAction = nullptr;
    QAction *m_importCurveAction = nullptr;
    QAction *m_exportSkillAction = nullptr;
    QAction *m_exportChartsAction = nullptr;
    QAction *m_saveSessionAction = nullptr;
    QAction *m_resumeSessionAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_classroomAction = nullptr;
    QAction *m_hiddenControlsAction = nullptr;
    QAction *m_fullScreenAction = nullptr;
    QAction *m_zoomInAction = nullptr;
    QAction *m_zoomOutAction = nullptr;
    QAction *m_zoomResetAction = nullptr;
    QPushButton *m_restoreLabButton = nullptr;
    QSplitter *m_mainSplitter = nullptr;
    QSplitter *m_labSplitter = nullptr; // the buffers and the check above the charts
    QList<int> m_labSizesBeforeClassroom;
    double m_zoom = 1.0;
    bool m_classroomShown = false;
    std::optional<Preset> m_labBeforeExperiment;
    QMenu *m_fileMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_experimentsMenu = nullptr;
    QMenu *m_experimentListMenu = nullptr;
    QAction *m_labAction = nullptr;
    QAction *m_experimentsAction = nullptr;
    QAction *m_quizAction = nullptr;
    QMenu *m_languageMenu = nullptr;
    QList<QAction *> m_languageActions; // one per language of languages.json, named in itself
    QAction *m_latinDigitsAction = nullptr;
    QMenu *m_helpMenu = nullptr;
    QAction *m_aboutAction = nullptr;
    QToolBar *m_toolBar = nullptr;

    std::optional<MicroBatchUpdate> m_pendingMicro;
    std::optional<SweepResult> m_lastSweep;
    std::optional<EquivalenceResult> m_lastEquivalence;
    quint64 m_latestEquivalenceSerial = 0;
    quint64 m_answeredEquivalenceSerial = 0;
    int m_sweepPointCount = 0;
    int m_sweepBlocks = 1; // timed rounds of the running sweep
    QString m_lastError;
};

} // namespace accumlab::ui
