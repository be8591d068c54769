// AccumLab's window: makes the controls, the lab (gradient buffers, equivalence panel, charts,
// memory view, sweep table), the guided experiments and the quiz, and the lesson, and hands
// them to its WindowLayout (the scroll areas, splitters and lesson column, the screen fit, the
// zoom and classroom mode's room); builds the menus and the toolbar from its table of actions
// (ActionTable); retranslates them; and keeps the window-wide keys, the pages, presets and the
// settings it closes with. The work behind it lives in its parts: LabRun (the teaching run and
// its check, debounced), SweepRunner (the sweep and its progress), SessionFiles (the File
// menu's files and dialogs), StatusReporter (the status bar and errors) and LessonNavigator
// (lesson links). It owns the EngineController (and through it the worker thread); it does no
// tensor work itself. GUI thread only.
#pragma once

#include "ui/session/preset.h"
#include "ui/session/settingsstore.h"
#include "ui/worker/updates.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QPushButton;
class QStackedWidget;
class QToolBar;
class QTableView;
class QTabWidget;

namespace accumlab::ui {

class AccumulationPanel;
class ActionTable;
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
class TeachingCard;
class SweepRunner;
class ThroughputChart;
class WindowLayout;

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
    QTabWidget *tabs() const;
    // The pages right of the controls: the lab (buffers, equivalence, charts), the guided
    // experiments and the quiz.
    enum Page { LabPage, ExperimentsPage, QuizPage };
    QStackedWidget *pages() const;
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
    double zoom() const;
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
    // Space (Play) and Right (Step) are window-wide only while the focused control has no use
    // for them: a focused slider, button, list, field or text keeps its keys.

private:
    // The window's actions, one row each of buildActions' table.
    enum Action {
        PlayAction, PauseAction, StepAction, ResetAction, SweepAction, StopAction,
        OpenPresetAction, SavePresetAction, SaveSessionAction, ResumeSessionAction, ExportModelAction,
        ImportCurveAction, ExportCurveAction, ExportSkillAction, ExportChartsAction, ExportTimelineAction,
        QuitAction, ClassroomAction, HiddenControlsAction, FullScreenAction, ZoomInAction, ZoomOutAction,
        ZoomResetAction, TabsFillLabAction, LabPageAction, ExperimentsPageAction, QuizPageAction, TeachingCardAction, AboutAction,
    };
    QAction *action(Action id) const;
    void buildUi();
    void registerLessonTargets(); // the window's own panels' targets, and the panels' registrations
    void buildActions();
    // The menus and the toolbar, from the table's actions and the window's lists (the lab's
    // tabs, the experiments, the languages).
    void buildMenus();
    void retranslateUi();
    void syncLanguageActions();
    void onEngineConfigured(const EngineInfo &info);
    void showDevice();
    void updateActions();
    void saveSettings();
    // Start-up: the saved session's preset (as applyPreset shows one, but before the engine is
    // first built), geometry and zoom.
    void loadSettings();
    // A preset on the widgets: the controls, the language, the memory budget, the experiment and
    // the page; the engine hears of it from applyPreset (or the constructor).
    void showPreset(const Preset &preset);
    // Help → Teaching card (F1): the card in the window's language, made on first use.
    void showTeachingCard();
    void showAbout();
    // The pages in the order of Page, and each one's toolbar entry.
    QList<QWidget *> pageWidgets() const;
    QAction *pageAction(Page page) const;

    SettingsStore m_settings;
    EngineController *m_controller = nullptr;
    ControlPanel *m_controls = nullptr;
    WindowLayout *m_layout = nullptr; // the scroll areas, splitters and the lesson's column; zoom
    QDockWidget *m_lessonDock = nullptr;
    LessonPanel *m_lessonPanel = nullptr;
    QWidget *m_lastLessonTarget = nullptr;
    TeachingCard *m_teachingCard = nullptr;
    LessonNavigator *m_navigator = nullptr;
    StatusReporter *m_status = nullptr;
    LabRun *m_lab = nullptr;
    SweepRunner *m_sweep = nullptr;
    SessionFiles *m_files = nullptr;
    AccumulationPanel *m_accumulationPanel = nullptr;
    CodePanel *m_codePanel = nullptr;
    EquivalencePanel *m_equivalencePanel = nullptr;
    ExperimentPanel *m_experimentPanel = nullptr;
    QuizWidget *m_quizWidget = nullptr;
    ThroughputChart *m_throughputChart = nullptr;
    LossChart *m_lossChart = nullptr;
    MemoryView *m_memoryView = nullptr;
    QTableView *m_sweepTable = nullptr;
    QLabel *m_statusLabel = nullptr;
    QPushButton *m_restoreLabButton = nullptr;
    QString m_device; // LibTorch's name of the engine's device ("cpu", "cuda:0"); empty before the first run
    std::optional<Preset> m_labBeforeExperiment;

    std::unique_ptr<ActionTable> m_actions;
    // The lab's tabs, each with its View → Lab tab entry; texts marked QT_TR_NOOP.
    struct LabTab {
        QWidget *widget = nullptr;
        const char *text = nullptr;
        const char *toolTip = nullptr;
        QAction *entry = nullptr;
    };
    QList<LabTab> m_labTabs;
    QList<QPair<QMenu *, const char *>> m_menuTitles; // each menu with its title, QT_TR_NOOP
    QMenu *m_experimentListMenu = nullptr;
    QList<QAction *> m_languageActions; // one per language of languages.json, named in itself
    QAction *m_latinDigitsAction = nullptr;
    QToolBar *m_toolBar = nullptr;
};

} // namespace accumlab::ui
