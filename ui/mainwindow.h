// AccumLab's window: lays out the controls, the lab (gradient buffers, equivalence panel,
// charts, memory view, sweep table), the guided experiments and the quiz, and the lesson dock;
// builds the menus and the toolbar; retranslates them; and keeps the presentation (classroom
// mode, zoom, full screen, the window-wide keys) and the settings it closes with. The work
// behind it lives in its parts: LabRun (the teaching run and its check, debounced),
// SweepRunner (the sweep and its progress), SessionFiles (the File menu's files and dialogs),
// StatusReporter (the status bar and errors) and LessonNavigator (lesson links). It owns the
// EngineController (and through it the worker thread); it does no tensor work itself. GUI
// thread only.
#pragma once

#include "ui/session/preset.h"
#include "ui/session/settingsstore.h"
#include "ui/updates.h"

#include <QMainWindow>

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

namespace accumlab::ui {

class AccumulationPanel;
class CodePanel;
class ControlPanel;
class EngineController;
class EquivalencePanel;
class ExperimentPanel;
struct ExperimentSettings;
class GradientBufferView;
class LabRun;
class LessonNavigator;
class LessonPanel;
class LossChart;
class MemoryView;
class QuizWidget;
class SessionFiles;
class StatusReporter;
class SweepRunner;
class ThroughputChart;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // With persistSettings false (autorun, --no-write, tests) nothing is read from or written to
    // QSettings (see SettingsStore).
    explicit MainWindow(bool persistSettings = true, QWidget *parent = nullptr);
    ~MainWindow() override;

    EngineController *controller() const { return m_controller; }
    ControlPanel *controlPanel() const { return m_controls; }
    AccumulationPanel *accumulationPanel() const { return m_accumulationPanel; }
    CodePanel *codePanel() const { return m_codePanel; }
    GradientBufferView *bufferView() const;
    EquivalencePanel *equivalencePanel() const { return m_equivalencePanel; }
    ThroughputChart *throughputChart() const { return m_throughputChart; }
    LossChart *lossChart() const { return m_lossChart; }
    MemoryView *memoryView() const { return m_memoryView; }
    LessonPanel *lessonPanel() const { return m_lessonPanel; }
    // The window's parts: the teaching run and its check, the sweep, the File menu's work and
    // the status bar.
    LabRun *lab() const { return m_lab; }
    SweepRunner *sweep() const { return m_sweep; }
    SessionFiles *files() const { return m_files; }
    StatusReporter *status() const { return m_status; }
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
    // `steps` presses of Ctrl+= (Ctrl+- where negative), each 1.15 times the last.
    void zoomBy(int steps);
    // After an experiment put its settings on the controls: the lab as it was before, offered
    // back (the status bar's "Restore the lab's settings").
    bool canRestoreLab() const { return m_labBeforeExperiment.has_value(); }
    void restoreLab();

    // A preset on the window (the controls, the language, the memory budget, the experiment and
    // the page) and the engine rebuilt from it; the preset the window shows.
    void applyPreset(const Preset &preset);
    Preset currentPreset() const;
    // Stop: cancels Play, a sweep or a memory run (and asks again for the check it dropped).
    void stopAll();

protected:
    void changeEvent(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
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
    void onEngineConfigured(const EngineInfo &info);
    void showDevice();
    void updateActions();
    void saveSettings();
    // Start-up: the saved session's preset (as applyPreset shows one, but before the engine is
    // first built), geometry and zoom.
    void loadSettings();
    // Classroom mode's enlargements and the hidden controls' room, once per switch.
    void applyClassroomLayout();
    // Classroom mode's share of the room: the controls' column down to what is left in it, the
    // buffers and the verdict more of the lab's height. Needs the window laid out.
    void shareClassroomRoom();
    // View → Tabs take the lab's height: the buffers and the check fold away above the tabs (a
    // 768-pixel screen leaves the tabs about 200 pixels, less than one chart's least height,
    // and the buffers cannot give more); off, or the divider dragged down, brings them back.
    void setTabsFillTheLab(bool on);
    // The controls' column: its least width what the controls need, at most a share of the
    // screen (on the first show, after a zoom, a language switch or a new screen), then
    // shareControlsColumn.
    void fitControlsColumn();
    // The column's preferred width on the splitter and the pages the rest (also after a resize,
    // which leaves the least width as it was).
    void shareControlsColumn();
    // A preset on the widgets: the controls, the language, the memory budget, the experiment and
    // the page; the engine hears of it from applyPreset (or the constructor).
    void showPreset(const Preset &preset);
    void showAbout();

    SettingsStore m_settings;
    EngineController *m_controller = nullptr;
    ControlPanel *m_controls = nullptr;
    QScrollArea *m_controlsScroll = nullptr;
    QDockWidget *m_lessonDock = nullptr;
    LessonPanel *m_lessonPanel = nullptr;
    QWidget *m_lastLessonTarget = nullptr;
    LessonNavigator *m_navigator = nullptr;
    bool m_shownOnce = false;
    StatusReporter *m_status = nullptr;
    LabRun *m_lab = nullptr;
    SweepRunner *m_sweep = nullptr;
    SessionFiles *m_files = nullptr;
    AccumulationPanel *m_accumulationPanel = nullptr;
    CodePanel *m_codePanel = nullptr;
    EquivalencePanel *m_equivalencePanel = nullptr;
    QTabWidget *m_tabs = nullptr;
    QScrollArea *m_pagesScroll = nullptr; // around m_pages: a zoomed page scrolls in the window
    QScrollArea *m_chartsScroll = nullptr; // the lab's first tab: the throughput and loss charts
    QStackedWidget *m_pages = nullptr;  // switched from the toolbar and the Experiments menu
    ExperimentPanel *m_experimentPanel = nullptr;
    QuizWidget *m_quizWidget = nullptr;
    ThroughputChart *m_throughputChart = nullptr;
    LossChart *m_lossChart = nullptr;
    MemoryView *m_memoryView = nullptr;
    QTableView *m_sweepTable = nullptr;
    QLabel *m_statusLabel = nullptr;
    QString m_device; // LibTorch's name of the engine's device ("cpu", "cuda:0"); empty before the first run

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
    QAction *m_exportTimelineAction = nullptr;
    QAction *m_saveSessionAction = nullptr;
    QAction *m_exportModelAction = nullptr;
    QAction *m_resumeSessionAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_classroomAction = nullptr;
    QAction *m_hiddenControlsAction = nullptr;
    QAction *m_fullScreenAction = nullptr;
    QAction *m_zoomInAction = nullptr;
    QAction *m_zoomOutAction = nullptr;
    QAction *m_zoomResetAction = nullptr;
    QAction *m_tabsFillLabAction = nullptr;
    QPushButton *m_restoreLabButton = nullptr;
    QSplitter *m_mainSplitter = nullptr;
    QSplitter *m_labSplitter = nullptr; // the buffers and the check above the charts
    QList<int> m_labSizesBeforeClassroom;
    QList<int> m_labSizesBeforeTabsFill;
    bool m_tabsFillTheLab = false; // the buffers and the check folded away (setTabsFillTheLab)
    double m_zoom = 1.0;
    bool m_classroomShown = false;
    std::optional<Preset> m_labBeforeExperiment;
    QMenu *m_fileMenu = nullptr;
    QMenu *m_runMenu = nullptr; // the lab's actions, each with its key
    QMenu *m_viewMenu = nullptr;
    QMenu *m_labTabsMenu = nullptr; // in the View menu: one entry per tab of the lab
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
};

} // namespace accumlab::ui
