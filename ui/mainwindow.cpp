// The main window: assembly of the panels and parts, menus and toolbar, retranslation,
// presentation (classroom mode, zoom, full screen, keys), pages, presets and settings.
#include "ui/mainwindow.h"
#include "ui/classinput.h"

#include "ui/adaptivesplitter.h"
#include "ui/accumulationpanel.h"
#include "ui/chartscale.h"
#include "ui/codepanel.h"
#include "ui/controlpanel.h"
#include "ui/enginecontroller.h"
#include "ui/equivalencepanel.h"
#include "ui/experimentpanel.h"
#include "ui/fontscale.h"
#include "ui/gradientbufferview.h"
#include "ui/labrun.h"
#include "ui/language.h"
#include "ui/lessonnavigator.h"
#include "ui/lessonpanel.h"
#include "ui/localizedtext.h"
#include "ui/losschart.h"
#include "ui/memoryview.h"
#include "ui/quizwidget.h"
#include "ui/session/sessionfiles.h"
#include "ui/statusreporter.h"
#include "ui/sweeprunner.h"
#include "ui/sweeptablemodel.h"
#include "ui/throughputchart.h"
#include "ui/wrappingheader.h"

#include "core/experiments.h"

#include <algorithm>
#include <cmath>

#include <QLocale>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QScreen>
#include <QWindow>
#include <QKeyEvent>
#include <QTabBar>
#include <QTextEdit>
#include <QLineEdit>
#include <QAbstractSpinBox>
#include <QAbstractItemView>
#include <QComboBox>
#include <QAbstractButton>
#include <QAbstractSlider>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <functional>
#include <iterator>
#include <utility>

namespace accumlab::ui {

namespace {

const QSize kDefaultSize(1280, 800);
constexpr double kZoomStep = 1.15;           // one Ctrl+= or Ctrl+-
constexpr double kMinZoom = 0.6, kMaxZoom = 3.0;

// The lesson's column: 18 lines of its font (340 pixels at the normal size), a readable measure.
constexpr double kLessonDockLines = 18;
// Narrower windows open with the lesson closed (View or the toolbar's Lesson opens it), so the
// charts keep their room on a small projector.
constexpr int kLessonOpenMinWidth = 1400;
// The controls' column: the most of the screen (for its least width) and of the window (for
// its width) it takes.
constexpr double kMostForControls = 0.4;

// The width a scroll area takes beside its widget's: its vertical scroll bar and its frame.
int scrollRoom(const QAbstractScrollArea *area)
{
    return area->verticalScrollBar()->sizeHint().width() + 2 * area->frameWidth();
}

// The available area of the screen `w` stands on (the primary one before it has one).
QRect availableArea(const QWidget *w)
{
    const QScreen *screen = w->screen() ? w->screen() : QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect(QPoint(), kDefaultSize);
}

// The pages' scroll area asks the splitter beside the controls for the page's least width
// while the screen has room for it (the page then never scrolls sideways); past that room, a
// page zoomed in on a projector scrolls inside the window instead of pushing the window past
// its screen.
class PagesScroll : public QScrollArea {
public:
    explicit PagesScroll(std::function<int()> room) : m_room(std::move(room)) {}
    QSize minimumSizeHint() const override
    {
        if (!widget())
            return QScrollArea::minimumSizeHint();
        // A page taller than the view has the scroll bar beside it.
        const QSize page = widget()->minimumSizeHint();
        const int width = page.width() + (page.height() > height() - 2 * frameWidth() ? scrollRoom(this) : 0);
        return {std::max(0, std::min(width, m_room())), QScrollArea::minimumSizeHint().height()};
    }

private:
    std::function<int()> m_room;
};

// The charts' tab: one chart's least width, so the page asks for it and a chart is never cut at
// a side (the tab never scrolls sideways: zoomed thrice at 1024x768 the throughput chart's right
// axis, in Persian its left, was cut). Where the lab's page scrolls anyway (zoomed in on a
// projector: the buffers and the check alone are taller than the view), the tab holds its charts
// whole and the page alone scrolls, to whole charts, rather than the tab showing a strip of one
// inside the scrolling page (and its scroll bar taking width from a chart). Where the page fits,
// the tab keeps the room left to it (dragging the divider or View -> Tabs take the lab's height
// gives it more) and scrolls between its charts, its scroll bar beside them.
class ChartsScroll : public QScrollArea {
public:
    // `charts`: the tab's widget, `chart` one of them; `above`: the lab's pane above the tabs;
    // `viewHeight`: the height of the page's view.
    ChartsScroll(QWidget *charts, const QWidget *chart, QWidget *above, std::function<int()> viewHeight)
        : m_chart(chart), m_above(above), m_viewHeight(std::move(viewHeight))
    {
        setWidget(charts);
        setWidgetResizable(true);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // Their least sizes change with the zoom and the language, the charts' as they stack.
        above->installEventFilter(this);
        charts->installEventFilter(this);
    }
    QSize minimumSizeHint() const override
    {
        const QSize own = QScrollArea::minimumSizeHint();
        if (m_above->minimumSizeHint().height() <= m_viewHeight())
            return {std::max(own.width(), m_chart->minimumWidth() + scrollRoom(this)), own.height()};
        const QSize charts = widget()->minimumSizeHint().expandedTo(widget()->minimumSize());
        return {std::max(own.width(), m_chart->minimumWidth() + 2 * frameWidth()),
                std::max(own.height(), charts.height() + 2 * frameWidth())};
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if ((watched == m_above || watched == widget()) && event->type() == QEvent::LayoutRequest)
            updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }

private:
    const QWidget *m_chart;
    const QWidget *m_above;
    std::function<int()> m_viewHeight;
};
} // namespace

MainWindow::MainWindow(bool persistSettings, QWidget *parent) : QMainWindow(parent), m_settings(persistSettings)
{
    setObjectName(QStringLiteral("accumlabMainWindow"));
    m_controller = new EngineController(this);
    buildUi();
    m_status = new StatusReporter(this, statusBar());
    m_lab = new LabRun({m_controller, m_controls, m_accumulationPanel, m_equivalencePanel, m_memoryView, m_lossChart, m_codePanel}, this);
    m_sweep = new SweepRunner({m_controller, m_controls, m_throughputChart, m_lossChart, m_status}, this);
    m_sweepTable->setModel(m_sweep->model());
    SessionFiles::Parts files{this, &m_settings, m_status, m_controller, m_lab, m_sweep, m_throughputChart,
                              {{QStringLiteral("accumlab-throughput.png"), m_throughputChart},
                               {QStringLiteral("accumlab-loss.png"), m_lossChart},
                               {QStringLiteral("accumlab-gradient-buffers.png"), bufferView()},
                               {QStringLiteral("accumlab-memory.png"), m_memoryView}},
                              [this] { return currentPreset(); },
                              [this] { return m_memoryView->lastRecordedDemo(); }};
    m_files = new SessionFiles(std::move(files), this);
    buildActions();

    connect(m_lab, &LabRun::configApplied, this, &MainWindow::saveSettings);
    connect(m_lab, &LabRun::equivalenceUpdated, this, &MainWindow::updateActions);
    connect(m_sweep, &SweepRunner::started, this, &MainWindow::updateActions);
    // A sweep draws on the lab's charts and its table: the one in front (the charts unless the
    // table is) comes into view. Zoomed in on a projector the lab's tabs sit below the fold, and
    // a sweep started from the memory or code tab, or from another page, ran out of sight.
    connect(m_sweep, &SweepRunner::started, this, [this] {
        QWidget *tab = m_tabs->currentWidget();
        bringIntoView(tab == m_sweepTable || tab == m_chartsScroll ? tab : m_throughputChart);
    });
    connect(m_sweep, &SweepRunner::finished, this, &MainWindow::updateActions);
    connect(m_files, &SessionFiles::presetOpened, this, &MainWindow::applyPreset);
    connect(m_controls, &ControlPanel::paceChanged, m_controller, &EngineController::setPace);
    connect(m_controller, &EngineController::engineConfigured, this, &MainWindow::onEngineConfigured);
    // Play and Step draw the lab's own windows on the loss chart too, from the engine's StepResult.
    connect(m_controller, &EngineController::teachingStepDone, m_lossChart, &LossChart::appendTeachingStep);
    connect(m_controller, &EngineController::teachingError, this,
            [this](const EngineError &error) { m_status->showError(error.localized()); });
    connect(m_controller, &EngineController::playingChanged, this, &MainWindow::updateActions);
    // The memory lab runs the teaching controls' model, dtype, device and optimizer at the
    // memory tab's own effective batch and budget.
    // A run can take a while (the wide model's trade-off sweep on a laptop): Stop cancels it.
    connect(m_memoryView, &MemoryView::memoryLabRequested, this, [this](const MemoryLabRequest &request) {
        m_controller->runMemoryLab(request);
        updateActions();
    });
    connect(m_controller, &EngineController::memoryLabFinished, m_memoryView, &MemoryView::showMemoryLabResult);
    connect(m_controller, &EngineController::memoryLabFinished, this, [this] { updateActions(); });

    guardClassInput(this); // the wheel scrolls pages; a click leaves the lab's keys to the lab
    fitTheScreen();
    retranslateUi();
    loadSettings();
    m_lab->applyConfigNow();
    m_lab->requestEquivalenceNow();
    updateActions();
}

MainWindow::~MainWindow()
{
    // The controller (a child) cancels and joins the worker thread in its destructor.
    saveSettings();
}

void MainWindow::buildUi()
{
    m_controls = new ControlPanel;
    auto *scroll = new QScrollArea;
    m_controlsScroll = scroll;
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    fitControlsColumn();

    m_accumulationPanel = new AccumulationPanel;

    m_equivalencePanel = new EquivalencePanel;

    // Side by side while both panels have their least widths; zoomed in on a small screen, the
    // equivalence panel goes below the buffers.
    auto *top = new AdaptiveSplitter;
    top->setObjectName(QStringLiteral("labTopSplitter"));
    top->addWidget(m_accumulationPanel);
    top->addWidget(m_equivalencePanel);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->stackWhenPanesDoNotFit();

    m_throughputChart = new ThroughputChart;
    m_lossChart = new LossChart;
    // Side by side where both charts have room for their labels; stacked, scrolling, on a
    // projector's narrower window.
    auto *charts = new AdaptiveSplitter;
    charts->setObjectName(QStringLiteral("chartsSplitter"));
    charts->addWidget(m_throughputChart);
    charts->addWidget(m_lossChart);
    charts->setWideWidth(2 * kChartMinWidthLines, kChartMinHeightLines);
    auto *chartsScroll = new ChartsScroll(charts, m_throughputChart, top, [this] {
        return m_pagesScroll ? m_pagesScroll->viewport()->height() : QWIDGETSIZE_MAX;
    });
    m_chartsScroll = chartsScroll;
    chartsScroll->setObjectName(QStringLiteral("chartsScroll"));
    chartsScroll->setFrameShape(QFrame::NoFrame);
    m_memoryView = new MemoryView;
    m_sweepTable = new QTableView; // its model is the sweep runner's
    m_sweepTable->setTabKeyNavigation(false); // Tab leaves the table; arrows move inside it
    m_sweepTable->setObjectName(QStringLiteral("sweepTable"));
    m_sweepTable->verticalHeader()->setVisible(false);
    m_sweepTable->setHorizontalHeader(new WrappingHeader(Qt::Horizontal, m_sweepTable)); // titles wrap, never cut
    m_sweepTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tabs = new QTabWidget;
    m_tabs->addTab(chartsScroll, QString());
    m_tabs->addTab(m_memoryView, QString());
    m_tabs->addTab(m_sweepTable, QString());
    m_codePanel = new CodePanel;
    m_tabs->addTab(m_codePanel, QString());

    auto *right = new QSplitter(Qt::Vertical);
    m_labSplitter = right;
    right->addWidget(top);
    right->addWidget(m_tabs);
    // The buffers and the equivalence table get a little more height than the charts.
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setChildrenCollapsible(false);
    // The divider dragged down while the tabs fill the lab brings the buffers back.
    connect(right, &QSplitter::splitterMoved, this, [this] {
        if (m_tabsFillTheLab && m_labSplitter->sizes().value(0) > 0) {
            m_tabsFillTheLab = false;
            m_labSplitter->setCollapsible(0, false);
            m_tabsFillLabAction->setChecked(false);
        }
    });

    // The lab, the guided experiments and the quiz share the space right of the controls, so
    // an experiment's settings show on the controls while its page is open.
    m_experimentPanel = new ExperimentPanel(m_controller);
    m_quizWidget = new QuizWidget;
    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->insertWidget(LabPage, right);
    m_pages->insertWidget(ExperimentsPage, m_experimentPanel);
    m_pages->insertWidget(QuizPage, m_quizWidget);
    connect(m_experimentPanel, &ExperimentPanel::requestSettings, this, &MainWindow::applyExperimentSettings);
    connect(m_quizWidget, &QuizWidget::openExperiment, this, &MainWindow::showExperiment);

    // A page that needs more room than the window has (zoomed in on a projector) scrolls inside
    // the window instead of pushing the window past its screen. The lesson's column counts as
    // shown from before the window is (zoomed before its first show, the window took its least
    // width with the lesson's column beside a page as wide as the screen left without it, and
    // opened 56 pixels wider than a 1024-pixel screen); the first show closes it on a small screen.
    auto *pagesScroll = new PagesScroll([this] {
        const int docked = m_lessonDock && m_lessonDock->isVisibleTo(this) && !m_lessonDock->isFloating()
                               ? std::max(m_lessonDock->minimumSizeHint().width(), lines(m_lessonDock, kLessonDockLines))
                               : 0;
        // The window's frame (none before the window has one, nor maximised) and the handle.
        const int frame = frameGeometry().width() - width() + (m_mainSplitter ? m_mainSplitter->handleWidth() : 0);
        return availableArea(this).width() - m_controlsScroll->minimumWidth() - docked - frame;
    });
    m_pagesScroll = pagesScroll;
    pagesScroll->setObjectName(QStringLiteral("pagesScroll"));
    pagesScroll->setWidget(m_pages);
    pagesScroll->setWidgetResizable(true);
    pagesScroll->setFrameShape(QFrame::NoFrame);

    auto *main = new QSplitter(Qt::Horizontal);
    m_mainSplitter = main;
    main->addWidget(scroll);
    main->addWidget(pagesScroll);
    main->setStretchFactor(0, 0);
    main->setStretchFactor(1, 1);
    main->setChildrenCollapsible(false);
    setCentralWidget(main);

    m_statusLabel = new QLabel;
    m_statusLabel->setObjectName(QStringLiteral("deviceStatus"));
    statusBar()->addPermanentWidget(m_statusLabel);
    // Offered once an experiment has put its settings on the controls.
    m_restoreLabButton = new QPushButton;
    m_restoreLabButton->setObjectName(QStringLiteral("restoreLabButton"));
    m_restoreLabButton->hide();
    statusBar()->addPermanentWidget(m_restoreLabButton);
    connect(m_restoreLabButton, &QPushButton::clicked, this, &MainWindow::restoreLab);

    m_lessonPanel = new LessonPanel;
    m_lessonDock = new QDockWidget;
    m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
    m_lessonDock->setWidget(m_lessonPanel);
    m_lessonDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                              QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::RightDockWidgetArea, m_lessonDock);
    resizeDocks({m_lessonDock}, {lines(m_lessonDock, kLessonDockLines)}, Qt::Horizontal);
    // Opened, the lesson takes its readable column, and the page beside it gives up its least
    // width for it (it scrolls sideways on a small screen) instead of leaving it a sliver.
    connect(m_lessonDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        m_pagesScroll->updateGeometry();
        if (!visible || m_lessonDock->isFloating())
            return;
        // After the window has laid the dock out with the page's new least width.
        QTimer::singleShot(0, this, [this] {
            if (m_lessonDock->isVisible() && m_lessonDock->width() < lines(m_lessonDock, kLessonDockLines))
                resizeDocks({m_lessonDock}, {lines(m_lessonDock, kLessonDockLines)}, Qt::Horizontal);
        });
    });
    connect(m_lessonPanel, &LessonPanel::targetActivated, this, &MainWindow::showLessonTarget);
    m_navigator = new LessonNavigator(this);
    registerLessonTargets();
}

GradientBufferView *MainWindow::bufferView() const { return m_accumulationPanel->bufferView(); }

bool MainWindow::showLessonTarget(const QString &target)
{
    QWidget *shown = m_navigator->reveal(target);
    if (!shown)
        return false;
    m_lastLessonTarget = shown;
    return true;
}

void MainWindow::registerLessonTargets()
{
    m_controls->registerLessonTargets(*m_navigator);
    m_memoryView->registerLessonTargets(*m_navigator);
    m_accumulationPanel->registerLessonTargets(*m_navigator);
    m_navigator->add(QStringLiteral("view/equivalence"), m_equivalencePanel);
    m_navigator->add(QStringLiteral("view/throughput"), m_throughputChart);
    m_navigator->add(QStringLiteral("view/loss"), m_lossChart);
    m_navigator->add(QStringLiteral("view/sweepTable"), m_sweepTable);
}

void MainWindow::buildActions()
{
    auto make = [this](const char *name, auto slot) {
        auto *a = new QAction(this);
        a->setObjectName(QLatin1String(name));
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    // The File menu's entries open SessionFiles' dialogs.
    auto file = [this, make](const char *name, void (SessionFiles::*dialog)()) {
        return make(name, [this, dialog] { (m_files->*dialog)(); });
    };
    m_playAction = make("playAction", [this] {
        m_lab->applyConfigNow();
        m_controller->play(m_controls->preset().pace);
    });
    m_pauseAction = make("pauseAction", [this] { m_controller->pause(); });
    m_stepAction = make("stepAction", [this] {
        if (m_lab->editsPending())
            m_lab->applyConfigNow();
        m_controller->stepMicroBatch();
    });
    m_resetAction = make("resetAction", [this] { m_lab->applyConfigNow(); });
    m_sweepAction = make("sweepAction", [this] {
        QString error;
        if (!m_sweep->run(&error))
            m_status->showError(error);
    });
    m_stopAction = make("stopAction", &MainWindow::stopAll);
    m_openPresetAction = file("openPresetAction", &SessionFiles::openPresetDialog);
    m_savePresetAction = file("savePresetAction", &SessionFiles::savePresetDialog);
    m_exportCurveAction = file("exportCurveAction", &SessionFiles::exportCurveDialog);
    m_importCurveAction = file("importCurveAction", &SessionFiles::importCurveDialog);
    m_exportSkillAction = file("exportSkillAction", &SessionFiles::exportSkillDialog);
    m_exportChartsAction = file("exportChartsAction", &SessionFiles::exportChartsDialog);
    m_exportTimelineAction = file("exportTimelineAction", &SessionFiles::exportTimelineDialog);
    m_saveSessionAction = file("saveSessionAction", &SessionFiles::saveSessionDialog);
    m_exportModelAction = file("exportModelAction", &SessionFiles::exportModelDialog);
    m_resumeSessionAction = file("resumeSessionAction", &SessionFiles::resumeSessionDialog);
    m_quitAction = make("quitAction", &QWidget::close);
    m_classroomAction = make("classroomAction", [this](bool on) {
        m_controls->setClassroomMode(on, m_controls->hiddenControls());
        updateActions();
        saveSettings();
    });
    m_classroomAction->setCheckable(true);
    m_hiddenControlsAction = make("hiddenControlsAction", [this] {
        if (m_controls->chooseHiddenControls(this))
            saveSettings();
    });
    m_fullScreenAction = make("fullScreenAction", [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
    });
    m_fullScreenAction->setCheckable(true);
    m_fullScreenAction->setShortcut(Qt::Key_F11);
    m_zoomInAction = make("zoomInAction", [this] { zoomBy(1); });
    m_zoomOutAction = make("zoomOutAction", [this] { zoomBy(-1); });
    m_zoomResetAction = make("zoomResetAction", [this] { setZoom(1.0); });
    // Ctrl+= is Ctrl++ without Shift on most keyboards; both zoom in.
    m_zoomInAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)});
    m_zoomOutAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    m_zoomResetAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_tabsFillLabAction = make("tabsFillLabAction", &MainWindow::setTabsFillTheLab);
    m_tabsFillLabAction->setCheckable(true);
    m_tabsFillLabAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));

    // Space plays and pauses (one of the two is enabled at a time), Right steps, Ctrl+R resets,
    // Ctrl+Enter sweeps, Esc stops: every lab action has a key and a place in the Run menu.
    m_playAction->setShortcut(Qt::Key_Space);
    m_pauseAction->setShortcut(Qt::Key_Space);
    m_stepAction->setShortcut(Qt::Key_Right);
    m_resetAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_sweepAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    m_stopAction->setShortcut(Qt::Key_Escape);
    // Shortcut overrides reach the focused widget, not the window: watch them application-wide.
    qApp->installEventFilter(this);
    m_openPresetAction->setShortcut(QKeySequence::Open);
    m_savePresetAction->setShortcut(QKeySequence::Save);
    m_quitAction->setShortcut(QKeySequence::Quit);

    m_toolBar = addToolBar(QString());
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QFont tf = m_toolBar->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.15);
    m_toolBar->setFont(tf);
    for (QAction *a : {m_playAction, m_pauseAction, m_stepAction, m_resetAction})
        m_toolBar->addAction(a);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_sweepAction);
    m_toolBar->addAction(m_stopAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_lessonDock->toggleViewAction());

    m_fileMenu = menuBar()->addMenu(QString());
    m_fileMenu->addAction(m_openPresetAction);
    m_fileMenu->addAction(m_savePresetAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_saveSessionAction);
    m_fileMenu->addAction(m_resumeSessionAction);
    m_fileMenu->addAction(m_exportModelAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_importCurveAction);
    m_fileMenu->addAction(m_exportCurveAction);
    m_fileMenu->addAction(m_exportSkillAction);
    m_fileMenu->addAction(m_exportChartsAction);
    m_fileMenu->addAction(m_exportTimelineAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);
    m_runMenu = menuBar()->addMenu(QString());
    m_runMenu->setObjectName(QStringLiteral("runMenu"));
    for (QAction *a : {m_playAction, m_pauseAction, m_stepAction, m_resetAction})
        m_runMenu->addAction(a);
    m_runMenu->addSeparator();
    m_runMenu->addAction(m_sweepAction);
    m_runMenu->addAction(m_stopAction);
    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->addAction(m_classroomAction);
    m_viewMenu->addAction(m_hiddenControlsAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_fullScreenAction);
    m_viewMenu->addAction(m_zoomInAction);
    m_viewMenu->addAction(m_zoomOutAction);
    m_viewMenu->addAction(m_zoomResetAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_tabsFillLabAction);
    // The lab's tabs from the keyboard (Alt+V, then the menu), each opened where it lies: zoomed
    // in, the tab bar sits below the fold and Tab reaches it only past every control.
    m_labTabsMenu = m_viewMenu->addMenu(QString());
    m_labTabsMenu->setObjectName(QStringLiteral("labTabsMenu"));
    auto *tabGroup = new QActionGroup(this);
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *a = m_labTabsMenu->addAction(QString(), this, [this, i] { bringIntoView(m_tabs->widget(i)); });
        a->setObjectName(QStringLiteral("labTabAction%1").arg(i));
        a->setCheckable(true);
        a->setChecked(i == m_tabs->currentIndex());
        tabGroup->addAction(a);
    }
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int i) {
        if (QAction *a = m_labTabsMenu->actions().value(i))
            a->setChecked(true);
    });
    m_viewMenu->addAction(m_lessonDock->toggleViewAction());

    // The pages: a page bar would cost the lab its height, so the toolbar switches them.
    m_labAction = make("labPageAction", [this] { showPage(LabPage); });
    m_experimentsAction = make("experimentsPageAction", [this] { showPage(ExperimentsPage); });
    m_quizAction = make("quizPageAction", [this] { showPage(QuizPage); });
    auto *pageGroup = new QActionGroup(this);
    for (QAction *a : {m_labAction, m_experimentsAction, m_quizAction}) {
        a->setCheckable(true);
        pageGroup->addAction(a);
    }
    m_labAction->setChecked(true);
    connect(m_pages, &QStackedWidget::currentChanged, this, [this](int page) {
        QAction *actions[] = {m_labAction, m_experimentsAction, m_quizAction};
        if (page >= 0 && page < int(std::size(actions)))
            actions[page]->setChecked(true);
    });
    m_labAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    m_experimentsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    m_quizAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    m_toolBar->addSeparator();
    for (QAction *a : {m_labAction, m_experimentsAction, m_quizAction})
        m_toolBar->addAction(a);
    m_experimentsMenu = menuBar()->addMenu(QString());
    m_experimentsMenu->setObjectName(QStringLiteral("experimentsMenu"));
    m_experimentsMenu->addAction(m_labAction);
    m_experimentsMenu->addAction(m_experimentsAction);
    m_experimentsMenu->addAction(m_quizAction);
    m_experimentsMenu->addSeparator();
    // One entry per experiment: opens it on its page, ready to run.
    m_experimentListMenu = m_experimentsMenu->addMenu(QString());
    for (const auto &info : experimentCatalog()) {
        const QString id = QString::fromStdString(info.id);
        auto *a = m_experimentListMenu->addAction(QString());
        a->setObjectName(QStringLiteral("experimentAction_%1").arg(id));
        a->setData(id);
        connect(a, &QAction::triggered, this, [this, id] { showExperiment(id); });
    }

    // Each language is named in itself, so it can be found whichever language is showing.
    LanguageManager *languages = LanguageManager::instance();
    auto *group = new QActionGroup(this);
    for (const QString &code : LanguageManager::languages()) {
        // Isolated, so a name in another script reads in its own direction inside the menu.
        auto *a = new QAction(LanguageManager::natural(LanguageManager::nativeName(code)), group);
        a->setObjectName(QStringLiteral("languageAction_%1").arg(code));
        a->setData(code);
        a->setCheckable(true);
        connect(a, &QAction::triggered, languages, [languages, code] { languages->setLanguage(code); });
        m_languageActions << a;
    }
    m_latinDigitsAction = new QAction(this);
    m_latinDigitsAction->setObjectName(QStringLiteral("latinDigitsAction"));
    m_latinDigitsAction->setCheckable(true);
    connect(m_latinDigitsAction, &QAction::toggled, languages, &LanguageManager::setLatinDigits);
    connect(languages, &LanguageManager::languageChanged, this, &MainWindow::syncLanguageActions);
    connect(languages, &LanguageManager::latinDigitsChanged, this, &MainWindow::syncLanguageActions);
    m_languageMenu = menuBar()->addMenu(QString());
    m_languageMenu->addActions(m_languageActions);
    m_languageMenu->addSeparator();
    m_languageMenu->addAction(m_latinDigitsAction);
    syncLanguageActions();

    m_aboutAction = make("aboutAction", &MainWindow::showAbout);
    m_helpMenu = menuBar()->addMenu(QString());
    m_helpMenu->addAction(m_aboutAction);
}

void MainWindow::showAbout()
{
    // The version is the application's, which main() sets from core's kVersion.
    QMessageBox::about(this, tr("About AccumLab"),
                       tr("<h3>AccumLab %1</h3><p>Gradient accumulation on real tensors: micro-batches, "
                          "loss/N, one optimizer step, and the proof that it matches the full batch.</p>"
                          "<p>Persian font: Vazirmatn (SIL Open Font License 1.1).</p>")
                           .arg(QApplication::applicationVersion().toHtmlEscaped()));
}

void MainWindow::syncLanguageActions()
{
    const LanguageManager *languages = LanguageManager::instance();
    const QSignalBlocker block(m_latinDigitsAction);
    for (QAction *a : std::as_const(m_languageActions))
        a->setChecked(a->data().toString() == languages->language());
    m_latinDigitsAction->setChecked(languages->latinDigits());
    m_latinDigitsAction->setEnabled(LanguageManager::hasOwnDigits(languages->language()));
}

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        // The controls' least width follows their words, once the new texts are laid out.
        QTimer::singleShot(0, this, &MainWindow::fitControlsColumn);
    }
    // A QSplitter places its panes for the reading direction only when it is resized: after a
    // switch between Persian and English the panes kept the old order (the two charts stood
    // swapped against a window started in the new language) until the window was resized.
    if (event->type() == QEvent::LayoutDirectionChange)
        for (QSplitter *splitter : findChildren<QSplitter *>())
            splitter->refresh();
    if (event->type() == QEvent::WindowStateChange && m_fullScreenAction)
        m_fullScreenAction->setChecked(isFullScreen());
    QMainWindow::changeEvent(event);
}

void MainWindow::retranslateUi()
{
    showDevice();
    m_status->retranslate();
    setWindowTitle(tr("AccumLab: gradient accumulation on real tensors"));
    m_tabs->setTabText(0, tr("Throughput and loss"));
    m_tabs->widget(0)->setAccessibleName(m_tabs->tabText(0)); // the charts' scroll area
    m_tabs->setTabText(1, tr("Memory"));
    m_tabs->setTabText(2, tr("Sweep table"));
    m_tabs->setTabText(3, tr("Code"));
    m_tabs->setTabToolTip(3, tr("The loop in PyTorch, lit as the engine runs it"));
    m_labTabsMenu->setTitle(tr("Lab ta&b"));
    for (int i = 0; i < m_tabs->count(); ++i)
        m_labTabsMenu->actions().value(i)->setText(m_tabs->tabText(i));
    m_sweepTable->setAccessibleName(tr("Sweep table"));
    m_controlsScroll->setAccessibleName(tr("Controls"));
    m_pagesScroll->setAccessibleName(tr("Lab, experiments and quiz"));
    m_sweep->model()->retranslate();
    m_playAction->setText(tr("Play"));
    m_playAction->setToolTip(tr("Run micro-batches at the chosen pace (Space)"));
    m_pauseAction->setText(tr("Pause"));
    m_pauseAction->setToolTip(tr("Stop after the running micro-batch (Space)"));
    m_stepAction->setText(tr("Step"));
    m_stepAction->setToolTip(tr("Run one micro-batch (Right arrow)"));
    m_resetAction->setText(tr("Reset"));
    m_resetAction->setToolTip(tr("A fresh model and data stream from the seed (Ctrl+R)"));
    m_sweepAction->setText(tr("Run sweep"));
    m_sweepAction->setToolTip(tr("Full-speed throughput sweep over the grid of accumulation steps (Ctrl+Enter)"));
    m_stopAction->setText(tr("Stop"));
    m_stopAction->setToolTip(tr("Stop the sweep, the play or the memory run (Esc)"));
    m_openPresetAction->setText(tr("&Open preset…"));
    m_savePresetAction->setText(tr("&Save preset…"));
    m_exportCurveAction->setText(tr("Export accum-curve.json…"));
    m_importCurveAction->setText(tr("Import accum-curve.json…"));
    m_importCurveAction->setToolTip(tr("Overlay a saved curve (AccumLab's or the lesson's) on the throughput chart"));
    m_exportSkillAction->setText(tr("Export skill markdown…"));
    m_exportChartsAction->setText(tr("Export charts as PNG…"));
    m_exportTimelineAction->setText(tr("Export memory timeline…"));
    m_exportTimelineAction->setToolTip(tr("The out-of-memory demo's allocations as memory-timeline.json and as a "
                                          "snapshot PyTorch's memory visualiser opens"));
    m_saveSessionAction->setText(tr("Save session…"));
    m_saveSessionAction->setToolTip(tr("Save the lab's run where it stands, even inside a window, as a checkpoint folder"));
    m_exportModelAction->setText(tr("Export trained model…"));
    m_exportModelAction->setToolTip(tr("The lab's parameters as they stand, as a safetensors file that PyTorch's "
                                       "load_state_dict takes (fc1.weight … fc3.bias)"));
    m_resumeSessionAction->setText(tr("Resume session…"));
    m_resumeSessionAction->setToolTip(tr("Continue a saved run exactly where it stopped, with its settings"));
    m_quitAction->setText(tr("&Quit"));
    m_classroomAction->setText(tr("&Classroom mode"));
    m_hiddenControlsAction->setText(tr("Controls hidden in classroom mode…"));
    m_fullScreenAction->setText(tr("&Full screen"));
    m_zoomInAction->setText(tr("Zoom &in"));
    m_zoomOutAction->setText(tr("Zoom &out"));
    m_zoomResetAction->setText(tr("&Normal size"));
    m_tabsFillLabAction->setText(tr("&Tabs take the lab's height"));
    m_tabsFillLabAction->setToolTip(tr("Folds the buffers and the check away so that the charts, the memory and the "
                                       "code below them get the lab's whole height"));
    m_restoreLabButton->setText(tr("Restore the lab's settings"));
    m_restoreLabButton->setToolTip(tr("Put back the settings the lab had before the experiment changed them"));
    m_fileMenu->setTitle(tr("&File"));
    m_runMenu->setTitle(tr("&Run"));
    m_viewMenu->setTitle(tr("&View"));
    m_languageMenu->setTitle(tr("&Language"));
    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About AccumLab"));
    // The sample is the digits themselves, left to right in every language.
    m_latinDigitsAction->setText(tr("Latin digits (%1)").arg(leftToRight(QStringLiteral("0123…"))));
    m_lessonDock->setWindowTitle(tr("Lesson"));
    m_experimentsMenu->setTitle(tr("E&xperiments"));
    m_labAction->setText(tr("Lab"));
    m_labAction->setToolTip(tr("Buffers, equivalence check and charts (Ctrl+1)"));
    m_experimentsAction->setText(tr("Experiments"));
    m_experimentsAction->setToolTip(tr("Guided experiments: the lesson's exercises and the pitfalls, measured (Ctrl+2)"));
    m_quizAction->setText(tr("Quiz"));
    m_quizAction->setToolTip(tr("Questions before, during and after the lesson (Ctrl+3)"));
    m_experimentListMenu->setTitle(tr("Open an experiment"));
    for (QAction *a : m_experimentListMenu->actions())
        if (const ExperimentInfo *info = findExperiment(a->data().toString().toStdString()))
            a->setText(tr("%1. %2").arg(count(info->number), localized(info->title)));
    m_toolBar->setWindowTitle(tr("Run"));
    updateActions();
}

// ---- the lab's state -------------------------------------------------------------------

void MainWindow::onEngineConfigured(const EngineInfo &info)
{
    m_accumulationPanel->setEngine(info);
    m_codePanel->setEngine(info);
    m_device = info.device;
    showDevice();
}

void MainWindow::showDevice()
{
    if (m_device.isEmpty()) {
        m_statusLabel->clear();
        return;
    }
    m_statusLabel->setText(tr("Runs on: %1").arg(deviceInWords(m_device)));
}

void MainWindow::updateActions()
{
    const bool sweeping = m_controller->isSweepRunning();
    const bool playing = m_controller->isPlaying();
    m_playAction->setEnabled(!sweeping && !playing);
    m_pauseAction->setEnabled(!sweeping && playing);
    m_stepAction->setEnabled(!sweeping);
    m_resetAction->setEnabled(!sweeping);
    m_sweepAction->setEnabled(!sweeping);
    m_stopAction->setEnabled(sweeping || playing || m_controller->isMemoryLabRunning());
    const bool swept = m_sweep->lastSweep().has_value();
    m_exportCurveAction->setEnabled(!sweeping && swept);
    m_exportSkillAction->setEnabled(!sweeping && swept && m_sweep->lastSweepEquivalence().has_value());
    m_exportTimelineAction->setEnabled(m_memoryView->lastRecordedDemo() != nullptr);
    m_openPresetAction->setEnabled(!sweeping);
    m_saveSessionAction->setEnabled(!sweeping);
    m_exportModelAction->setEnabled(!sweeping);
    m_resumeSessionAction->setEnabled(!sweeping);
    m_controls->setSweepRunning(sweeping);
    m_classroomAction->setChecked(m_controls->classroomMode());
    m_fullScreenAction->setChecked(isFullScreen());
    m_zoomResetAction->setEnabled(m_zoom != 1.0);
    applyClassroomLayout();
}

void MainWindow::applyClassroomLayout()
{
    const bool on = m_controls->classroomMode();
    if (on == m_classroomShown)
        return;
    m_classroomShown = on;
    setTabsFillTheLab(false); // classroom mode shares the lab's height itself
    m_accumulationPanel->setClassroomMode(on);
    m_equivalencePanel->setClassroomMode(on);
    if (on)
        m_labSizesBeforeClassroom = m_labSplitter->sizes();
    else if (!m_labSizesBeforeClassroom.isEmpty())
        m_labSplitter->setSizes(m_labSizesBeforeClassroom);
    shareClassroomRoom();
}

void MainWindow::setTabsFillTheLab(bool on)
{
    if (!m_tabsFillLabAction)
        return;
    m_tabsFillLabAction->setChecked(on);
    if (on == m_tabsFillTheLab)
        return;
    m_tabsFillTheLab = on;
    // Collapsed, not hidden: the panes keep their widths (a hidden pane changed the page's least
    // width, and came back taller than it left). Folded by the action only, never by a drag.
    m_labSplitter->setCollapsible(0, on);
    if (on) {
        m_labSizesBeforeTabsFill = m_labSplitter->sizes();
        const int height = m_labSizesBeforeTabsFill.value(0) + m_labSizesBeforeTabsFill.value(1);
        m_labSplitter->setSizes({0, height});
    } else {
        m_labSplitter->setSizes(m_labSizesBeforeTabsFill);
    }
}

void MainWindow::shareClassroomRoom()
{
    // The hidden controls' room goes to the pages: the column shrinks to what is left in it.
    fitControlsColumn();
    if (!m_controls->classroomMode())
        return;
    // Two thirds of the lab's height for the enlarged buffers and verdict.
    constexpr double kClassroomTopShare = 0.66;
    const QList<int> lab = m_labSplitter->sizes();
    const int height = lab.value(0) + lab.value(1);
    if (height > 0)
        m_labSplitter->setSizes({int(height * kClassroomTopShare), height - int(height * kClassroomTopShare)});
}

void MainWindow::fitControlsColumn()
{
    // As wide as the controls need with their names above them (and a vertical scroll bar), but
    // at most two fifths of the screen, so a zoomed column never pushes the window past it.
    const int most = int(availableArea(this).width() * kMostForControls);
    m_controlsScroll->setMinimumWidth(std::min(m_controls->minimumSizeHint().width() + scrollRoom(m_controlsScroll), most));
    shareControlsColumn();
}

void MainWindow::shareControlsColumn()
{
    const int controls = m_controlsScroll->minimumWidth();
    // The column takes the controls' preferred width, at least that and at most two fifths of
    // the window, and the pages the rest: on the first show, after a zoom, a language switch, a
    // move to another screen or a resize. A splitter grows a pane to its least width but never
    // shrinks it back, and it placed a new window's panes by a size its scroll area had measured
    // before the window was laid out: the column's width depended on the window's history (at
    // 1024x768 in Persian 355 pixels when opened, 411 after zooming in and out, with the Memory
    // tab's legend cut). A drag of the splitter holds until the next zoom, language, screen or
    // resize.
    if (!m_mainSplitter)
        return;
    const QList<int> sizes = m_mainSplitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    const int preferred = std::clamp(m_controls->sizeHint().width() + scrollRoom(m_controlsScroll), controls,
                                     std::max(controls, int(total * kMostForControls)));
    if (total > preferred)
        m_mainSplitter->setSizes({preferred, total - preferred});
}

void MainWindow::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (std::abs(zoom - 1.0) < 1e-3)
        zoom = 1.0; // steps in and back out land on the normal size exactly
    if (zoom == m_zoom)
        return;
    scaleAllFonts(this, zoom / m_zoom);
    // The widgets that follow the application font hear of it through posted events.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::ApplicationFontChange);
    // A page not on screen (another tab of the lab) kept its children where the old fonts put
    // them: a Memory tab zoomed on the Code tab and back drew its children 145 pixels wider
    // than itself, cut at the right. Every layout is invalidated; a hidden one is laid out
    // again as it is shown.
    for (QLayout *layout : findChildren<QLayout *>())
        layout->invalidate();
    fitControlsColumn();
    m_zoom = zoom;
    updateActions();
    m_settings.setZoom(m_zoom);
}

void MainWindow::zoomBy(int steps) { setZoom(m_zoom * std::pow(kZoomStep, steps)); }

void MainWindow::stopAll()
{
    m_controller->cancel();
    // The cancel also dropped a queued equivalence check; ask again.
    m_lab->requestEquivalenceSoon();
}


// ---- guided experiments and quiz ----------------------------------------------------------

void MainWindow::showPage(Page page)
{
    m_pages->setCurrentIndex(page);
    QAction *actions[] = {m_labAction, m_experimentsAction, m_quizAction};
    actions[page]->setChecked(true);
}

MainWindow::Page MainWindow::currentPage() const { return static_cast<Page>(m_pages->currentIndex()); }

void MainWindow::showExperiment(const QString &id)
{
    m_experimentPanel->setCurrentExperiment(id);
    showPage(ExperimentsPage);
}

void MainWindow::applyExperimentSettings(const ExperimentSettings &settings)
{
    Preset preset = m_controls->preset();
    // The lab as the class left it, before the first of a row of experiments changed it.
    if (!m_labBeforeExperiment)
        m_labBeforeExperiment = preset;
    settings.applyTo(preset);
    applyPreset(preset);
    m_restoreLabButton->setVisible(true);
}

void MainWindow::restoreLab()
{
    if (!m_labBeforeExperiment)
        return;
    const Preset lab = *m_labBeforeExperiment;
    m_labBeforeExperiment.reset();
    m_restoreLabButton->setVisible(false);
    m_controls->setPreset(lab);
    m_lab->applyConfigNow();
    m_lab->requestEquivalenceNow();
    updateActions();
    m_status->say([] { return tr("The lab's settings are back as they were before the experiment."); });
}

// ---- presets and settings --------------------------------------------------------------

Preset MainWindow::currentPreset() const
{
    Preset p = m_controls->preset();
    p.language = LanguageManager::instance()->language();
    if (m_memoryView->budgetChosen())
        p.memoryBudgetBytes = m_memoryView->budgetBytes();
    p.page = presetPages().value(currentPage());
    p.experiment = m_experimentPanel->currentExperiment();
    return p;
}

void MainWindow::applyPreset(const Preset &preset)
{
    showPreset(preset);
    m_lab->applyConfigNow();
    m_lab->requestEquivalenceNow();
    updateActions();
}

void MainWindow::showPreset(const Preset &preset)
{
    m_controls->setPreset(preset);
    if (!preset.language.isEmpty())
        LanguageManager::instance()->setLanguage(preset.language);
    if (preset.memoryBudgetBytes)
        m_memoryView->setBudgetBytes(*preset.memoryBudgetBytes);
    if (!preset.experiment.isEmpty())
        m_experimentPanel->setCurrentExperiment(preset.experiment);
    if (const int page = presetPages().indexOf(preset.page); page >= 0)
        showPage(static_cast<Page>(page));
}

void MainWindow::saveSettings()
{
    m_settings.setPreset(currentPreset());
    m_settings.setGeometry(saveGeometry());
}

void MainWindow::loadSettings()
{
    if (!m_settings.persists())
        return; // nothing was kept: the window stays as the constructor fitted it
    if (auto preset = m_settings.preset()) {
        // A language named on the command line (--lang) wins over the one the session closed in.
        if (LanguageManager::instance()->overridden())
            preset->language.clear();
        // The constructor builds the engine once, after this; edits would start the debounce.
        const QSignalBlocker block(m_controls);
        showPreset(*preset);
    }
    if (!restoreGeometry(m_settings.geometry()))
        fitTheScreen();
    setZoom(m_settings.zoom());
}

void MainWindow::fitTheScreen()
{
    // The first start: the default size where the screen has room for it and its frame; on a
    // smaller screen (a projector's 1024x768) the screen's available area, maximised, so
    // nothing starts off-screen.
    const QRect available = availableArea(this);
    const QSize frame(16, 48); // a title bar and borders, before the window has its own
    if (kDefaultSize.width() + frame.width() <= available.width() &&
        kDefaultSize.height() + frame.height() <= available.height()) {
        resize(kDefaultSize);
        return;
    }
    resize(available.size().shrunkBy(QMargins(0, 0, frame.width(), frame.height())).expandedTo(minimumSizeHint()));
    setWindowState(windowState() | Qt::WindowMaximized);
}

void MainWindow::showEvent(QShowEvent *event)
{
    if (!m_shownOnce) {
        m_shownOnce = true;
        if (width() < kLessonOpenMinWidth)
            m_lessonDock->hide();
        // Moved to another screen (a laptop's window onto the projector): the controls' share
        // of it is measured again.
        if (QWindow *window = windowHandle())
            connect(window, &QWindow::screenChanged, this, &MainWindow::fitControlsColumn);
        // Once the window has its size: the controls' column, and a lesson that opens in
        // classroom mode shares the room.
        QTimer::singleShot(0, this, [this] {
            if (m_controls->classroomMode())
                shareClassroomRoom();
            else
                fitControlsColumn();
        });
    }
    QMainWindow::showEvent(event);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    // The column's share follows the window's width (moved from a wide screen to a projector's
    // 1024 pixels, it kept the wide window's 429 pixels).
    if (m_shownOnce)
        shareControlsColumn();
    if (m_chartsScroll)
        m_chartsScroll->updateGeometry(); // its least height follows whether the page scrolls
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_controller->cancel();
    QMainWindow::closeEvent(event);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::ShortcutOverride) {
        const auto *key = static_cast<QKeyEvent *>(event);
        const bool space = key->key() == Qt::Key_Space, right = key->key() == Qt::Key_Right;
        auto *widget = qobject_cast<QWidget *>(watched);
        // Accepting the override hands the key to the focused control instead of the shortcut,
        // where the key does something there: Space presses a button, opens a combo box or
        // types; Right moves a slider, a cursor or a selection. A slider has no use for Space, so
        // Space plays even while one has focus. (A click gives buttons no focus at all:
        // ui/classinput.h.)
        const bool takesBoth = qobject_cast<QAbstractButton *>(widget) || qobject_cast<QComboBox *>(widget) ||
                               qobject_cast<QAbstractItemView *>(widget) || qobject_cast<QAbstractSpinBox *>(widget) ||
                               qobject_cast<QLineEdit *>(widget) || qobject_cast<QTextEdit *>(widget);
        const bool takesRight = takesBoth || qobject_cast<QAbstractSlider *>(widget) || qobject_cast<QTabBar *>(widget);
        if (key->modifiers() == Qt::NoModifier && widget && widget->window() == this &&
            ((space && takesBoth) || (right && takesRight))) {
            event->accept();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

} // namespace accumlab::ui
