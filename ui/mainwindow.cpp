// The main window: assembly, teaching mode, the sweep, exports, presets, settings.
#include "ui/mainwindow.h"

#include "ui/adaptivesplitter.h"
#include "ui/accumulationpanel.h"
#include "ui/controlpanel.h"
#include "ui/enginecontroller.h"
#include "ui/equivalencepanel.h"
#include "ui/experimentpanel.h"
#include "ui/exports.h"
#include "ui/fontscale.h"
#include "ui/filereading.h"
#include "ui/gradientbufferview.h"
#include "ui/importerrors.h"
#include "ui/language.h"
#include "ui/sweeptablemodel.h"
#include "ui/lessonnavigator.h"
#include "ui/lessonpanel.h"
#include "ui/localizedtext.h"
#include "ui/losschart.h"
#include "ui/memoryview.h"
#include "ui/quizwidget.h"
#include "ui/stallprobe.h"
#include "ui/throughputchart.h"

#include "core/checkpoint.h"
#include "core/curve_io.h"
#include "core/experiments.h"
#include "core/lesson.h"

#include <algorithm>
#include <cmath>

#include <QLocale>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QScreen>
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

#include <cstdio>
#include <iterator>

namespace accumlab::ui {

namespace {

// A file path inside a sentence: isolated left to right, so that a Persian sentence keeps the
// path's slashes in order ("/tmp/out/accum-curve.json", not "tmp/out/accum-curve.json/").
QString filePath(const QString &path) { return LanguageManager::ltr(QDir::toNativeSeparators(path)); }

// A count for the status bar, in the window's digits.
QString count(qint64 v) { return figure(static_cast<double>(v), "d"); }

constexpr int kConfigDebounceMs = 150;
constexpr int kEquivalenceDebounceMs = 400;
constexpr int kMicroCoalesceMs = 15;      // GUI side: at most one buffer repaint per frame
constexpr int kScreenshotSettleMs = 150;  // let the charts lay out before grabbing
const QSize kDefaultSize(1280, 800);
const char *const kSettingsPreset = "session/preset";
const char *const kSettingsGeometry = "session/geometry";
const char *const kSettingsFolder = "exports/lastFolder";
const char *const kSettingsZoom = "view/zoom";
constexpr double kZoomStep = 1.15;           // one Ctrl+= or Ctrl+-
constexpr double kMinZoom = 0.6, kMaxZoom = 3.0;

constexpr int kLessonDockWidth = 340;
// Narrower windows open with the lesson closed (View or the toolbar's Lesson opens it), so the
// charts keep their room on a small projector.
constexpr int kLessonOpenMinWidth = 1400;
// The smallest chart that shows its tick labels, axis titles and legend whole.
constexpr int kChartMinWidth = 420;
// Room beside a dialog's title in its title bar (buttons, margins).
constexpr int kDialogTitleRoom = 120;
constexpr int kChartMinHeight = 250;
} // namespace

MainWindow::MainWindow(bool persistSettings, QWidget *parent) : QMainWindow(parent), m_persist(persistSettings)
{
    setObjectName(QStringLiteral("accumlabMainWindow"));
    // A message box on a screen nobody sees would wait for ever.
    m_errorsToTerminal = QGuiApplication::platformName() == QLatin1String("offscreen");
    m_controller = new EngineController(this);
    m_stallProbe = new StallProbe(this);
    m_configTimer = new QTimer(this);
    m_configTimer->setSingleShot(true);
    m_configTimer->setInterval(kConfigDebounceMs);
    m_equivalenceTimer = new QTimer(this);
    m_equivalenceTimer->setSingleShot(true);
    m_equivalenceTimer->setInterval(kEquivalenceDebounceMs);
    m_microTimer = new QTimer(this);
    m_microTimer->setSingleShot(true);
    m_microTimer->setInterval(kMicroCoalesceMs);

    buildUi();
    buildActions();

    connect(m_configTimer, &QTimer::timeout, this, &MainWindow::applyConfigNow);
    connect(m_equivalenceTimer, &QTimer::timeout, this, &MainWindow::requestEquivalenceNow);
    connect(m_microTimer, &QTimer::timeout, this, &MainWindow::showMicroBatch);
    connect(m_controls, &ControlPanel::configChanged, this, &MainWindow::onConfigEdited);
    connect(m_controls, &ControlPanel::paceChanged, m_controller, &EngineController::setPace);
    connect(m_controller, &EngineController::engineConfigured, this, &MainWindow::onEngineConfigured);
    connect(m_controller, &EngineController::microBatchDone, this, &MainWindow::onMicroBatch);
    // Play and Step draw the lab's own windows on the loss chart too, from the engine's StepResult.
    connect(m_controller, &EngineController::teachingStepDone, m_lossChart, &LossChart::appendTeachingStep);
    connect(m_controller, &EngineController::teachingError, this,
            [this](const EngineError &error) { showError(error.localized()); });
    connect(m_controller, &EngineController::playingChanged, this, &MainWindow::onPlayingChanged);
    connect(m_controller, &EngineController::sweepPointStarted, this, &MainWindow::onSweepPointStarted);
    connect(m_controller, &EngineController::sweepBlockStarted, this, &MainWindow::onSweepBlockStarted);
    connect(m_controller, &EngineController::stepBatch, m_lossChart, &LossChart::appendLosses);
    connect(m_controller, &EngineController::sweepPointDone, this, &MainWindow::onSweepPoint);
    connect(m_controller, &EngineController::sweepFinished, this, &MainWindow::onSweepFinished);
    connect(m_controller, &EngineController::equivalenceFinished, this, &MainWindow::onEquivalence);
    connect(m_controller, &EngineController::sessionFinished, this, &MainWindow::onSessionFinished);
    // The memory lab runs the teaching controls' model, dtype, device and optimizer at the
    // memory tab's own effective batch and budget.
    // A run can take a while (the wide model's trade-off sweep on a laptop): Stop cancels it.
    connect(m_memoryView, &MemoryView::memoryLabRequested, this, [this](const MemoryLabRequest &request) {
        m_controller->runMemoryLab(request);
        updateActions();
    });
    connect(m_controller, &EngineController::memoryLabFinished, m_memoryView, &MemoryView::showMemoryLabResult);
    connect(m_controller, &EngineController::memoryLabFinished, this, [this] { updateActions(); });

    fitTheScreen();
    retranslateUi();
    loadSettings();
    applyConfigNow();
    requestEquivalenceNow();
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
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(m_controls->minimumSizeHint().width() + 24);

    m_accumulationPanel = new AccumulationPanel;

    m_equivalencePanel = new EquivalencePanel;

    auto *top = new QSplitter(Qt::Horizontal);
    top->addWidget(m_accumulationPanel);
    top->addWidget(m_equivalencePanel);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->setChildrenCollapsible(false);

    m_throughputChart = new ThroughputChart;
    m_lossChart = new LossChart;
    // Side by side where both charts have room for their labels; stacked, scrolling, on a
    // projector's narrower window.
    auto *charts = new AdaptiveSplitter;
    charts->setObjectName(QStringLiteral("chartsSplitter"));
    charts->addWidget(m_throughputChart);
    charts->addWidget(m_lossChart);
    charts->setWideWidth(2 * kChartMinWidth, kChartMinHeight);
    auto *chartsScroll = new QScrollArea;
    chartsScroll->setObjectName(QStringLiteral("chartsScroll"));
    chartsScroll->setWidget(charts);
    chartsScroll->setWidgetResizable(true);
    chartsScroll->setFrameShape(QFrame::NoFrame);
    chartsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_memoryView = new MemoryView;
    m_sweepModel = new SweepTableModel(this);
    m_sweepTable = new QTableView;
    m_sweepTable->setTabKeyNavigation(false); // Tab leaves the table; arrows move inside it
    m_sweepTable->setObjectName(QStringLiteral("sweepTable"));
    m_sweepTable->setModel(m_sweepModel);
    m_sweepTable->verticalHeader()->setVisible(false);
    m_sweepTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_sweepTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tabs = new QTabWidget;
    m_tabs->addTab(chartsScroll, QString());
    m_tabs->addTab(m_memoryView, QString());
    m_tabs->addTab(m_sweepTable, QString());

    auto *right = new QSplitter(Qt::Vertical);
    m_labSplitter = right;
    right->addWidget(top);
    right->addWidget(m_tabs);
    // The buffers and the equivalence table get a little more height than the charts.
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setChildrenCollapsible(false);

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

    auto *main = new QSplitter(Qt::Horizontal);
    m_mainSplitter = main;
    main->addWidget(scroll);
    main->addWidget(m_pages);
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
    resizeDocks({m_lessonDock}, {kLessonDockWidth}, Qt::Horizontal);
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
    m_playAction = make("playAction", [this] {
        applyConfigNow();
        m_controller->play(m_controls->preset().pace);
    });
    m_pauseAction = make("pauseAction", [this] { m_controller->pause(); });
    m_stepAction = make("stepAction", [this] {
        if (m_configTimer->isActive())
            applyConfigNow();
        m_controller->stepMicroBatch();
    });
    m_resetAction = make("resetAction", [this] { applyConfigNow(); });
    m_sweepAction = make("sweepAction", [this] {
        QString error;
        if (!runSweep(&error))
            showError(error);
    });
    m_stopAction = make("stopAction", &MainWindow::stopAll);
    m_openPresetAction = make("openPresetAction", &MainWindow::openPresetDialog);
    m_savePresetAction = make("savePresetAction", &MainWindow::savePresetDialog);
    m_exportCurveAction = make("exportCurveAction", &MainWindow::exportCurveDialog);
    m_importCurveAction = make("importCurveAction", &MainWindow::importCurveDialog);
    m_exportSkillAction = make("exportSkillAction", &MainWindow::exportSkillDialog);
    m_exportChartsAction = make("exportChartsAction", &MainWindow::exportChartsDialog);
    m_saveSessionAction = make("saveSessionAction", &MainWindow::saveSessionDialog);
    m_resumeSessionAction = make("resumeSessionAction", &MainWindow::resumeSessionDialog);
    m_quitAction = make("quitAction", &QWidget::close);
    m_classroomAction = make("classroomAction", [this](bool on) {
        m_controls->setClassroomMode(on, m_controls->hiddenControls());
        updateActions();
        saveSettings();
    });
    m_classroomAction->setCheckable(true);
    m_hiddenControlsAction = make("hiddenControlsAction", &MainWindow::chooseHiddenControlsDialog);
    m_fullScreenAction = make("fullScreenAction", [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
    });
    m_fullScreenAction->setCheckable(true);
    m_fullScreenAction->setShortcut(Qt::Key_F11);
    m_zoomInAction = make("zoomInAction", [this] { setZoom(m_zoom * kZoomStep); });
    m_zoomOutAction = make("zoomOutAction", [this] { setZoom(m_zoom / kZoomStep); });
    m_zoomResetAction = make("zoomResetAction", [this] { setZoom(1.0); });
    // Ctrl+= is Ctrl++ without Shift on most keyboards; both zoom in.
    m_zoomInAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)});
    m_zoomOutAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus));
    m_zoomResetAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));

    m_playAction->setShortcut(Qt::Key_Space);
    m_stepAction->setShortcut(Qt::Key_Right);
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
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_importCurveAction);
    m_fileMenu->addAction(m_exportCurveAction);
    m_fileMenu->addAction(m_exportSkillAction);
    m_fileMenu->addAction(m_exportChartsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);
    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->addAction(m_classroomAction);
    m_viewMenu->addAction(m_hiddenControlsAction);
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_fullScreenAction);
    m_viewMenu->addAction(m_zoomInAction);
    m_viewMenu->addAction(m_zoomOutAction);
    m_viewMenu->addAction(m_zoomResetAction);
    m_viewMenu->addSeparator();
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
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
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
    if (m_status)
        statusBar()->showMessage(m_status());
    else
        statusBar()->clearMessage();
    setWindowTitle(tr("AccumLab: gradient accumulation on real tensors"));
    m_tabs->setTabText(0, tr("Throughput and loss"));
    m_tabs->widget(0)->setAccessibleName(m_tabs->tabText(0)); // the charts' scroll area
    m_tabs->setTabText(1, tr("Memory"));
    m_tabs->setTabText(2, tr("Sweep table"));
    m_sweepTable->setAccessibleName(tr("Sweep table"));
    m_controlsScroll->setAccessibleName(tr("Controls"));
    m_sweepModel->retranslate();
    m_playAction->setText(tr("Play"));
    m_playAction->setToolTip(tr("Run micro-batches at the chosen pace (Space)"));
    m_pauseAction->setText(tr("Pause"));
    m_stepAction->setText(tr("Step"));
    m_stepAction->setToolTip(tr("Run one micro-batch (Right arrow)"));
    m_resetAction->setText(tr("Reset"));
    m_resetAction->setToolTip(tr("A fresh model and data stream from the seed"));
    m_sweepAction->setText(tr("Run sweep"));
    m_sweepAction->setToolTip(tr("Full-speed throughput sweep over the grid of accumulation steps"));
    m_stopAction->setText(tr("Stop"));
    m_openPresetAction->setText(tr("&Open preset…"));
    m_savePresetAction->setText(tr("&Save preset…"));
    m_exportCurveAction->setText(tr("Export accum-curve.json…"));
    m_importCurveAction->setText(tr("Import accum-curve.json…"));
    m_importCurveAction->setToolTip(tr("Overlay a saved curve (AccumLab's or the lesson's) on the throughput chart"));
    m_exportSkillAction->setText(tr("Export skill markdown…"));
    m_exportChartsAction->setText(tr("Export charts as PNG…"));
    m_saveSessionAction->setText(tr("Save session…"));
    m_saveSessionAction->setToolTip(tr("Save the lab's run where it stands, even inside a window, as a checkpoint folder"));
    m_resumeSessionAction->setText(tr("Resume session…"));
    m_resumeSessionAction->setToolTip(tr("Continue a saved run exactly where it stopped, with its settings"));
    m_quitAction->setText(tr("&Quit"));
    m_classroomAction->setText(tr("&Classroom mode"));
    m_hiddenControlsAction->setText(tr("Controls hidden in classroom mode…"));
    m_fullScreenAction->setText(tr("&Full screen"));
    m_zoomInAction->setText(tr("Zoom &in"));
    m_zoomOutAction->setText(tr("Zoom &out"));
    m_zoomResetAction->setText(tr("&Normal size"));
    m_restoreLabButton->setText(tr("Restore the lab's settings"));
    m_restoreLabButton->setToolTip(tr("Put back the settings the lab had before the experiment changed them"));
    m_fileMenu->setTitle(tr("&File"));
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
    const QLocale numbers;
    for (QAction *a : m_experimentListMenu->actions())
        if (const ExperimentInfo *info = findExperiment(a->data().toString().toStdString()))
            a->setText(tr("%1. %2").arg(numbers.toString(info->number), localized(info->title)));
    m_toolBar->setWindowTitle(tr("Run"));
    updateActions();
}

// ---- teaching mode ---------------------------------------------------------------------

void MainWindow::onConfigEdited()
{
    m_configTimer->start();
    m_equivalenceTimer->start();
    m_equivalencePanel->setPending(equivalenceConfig());
    m_memoryView->setConfig(m_controls->config());
}

void MainWindow::applyConfigNow()
{
    m_configTimer->stop();
    const AccumConfig config = m_controls->config();
    m_controller->setConfig(config);
    m_memoryView->setConfig(config);
    m_accumulationPanel->clear();
    m_lossChart->clearTeaching();
    m_pendingMicro.reset();
    saveSettings();
}

void MainWindow::onEngineConfigured(const EngineInfo &info)
{
    m_accumulationPanel->setEngine(info);
    m_device = info.device;
    showDevice();
}

void MainWindow::showDevice()
{
    if (m_device.isEmpty()) {
        m_statusLabel->clear();
        return;
    }
    // The processor in words; a CUDA device keeps LibTorch's name ("cuda:0"), left to right.
    const QString where = m_device.startsWith(QLatin1String("cuda"))
                              ? tr("graphics card %1").arg(LanguageManager::ltr(m_device))
                              : tr("processor (CPU)");
    m_statusLabel->setText(tr("Runs on: %1").arg(where));
}

void MainWindow::onMicroBatch(const MicroBatchUpdate &update)
{
    // Bursts (Step pressed quickly, a fast pace) collapse into one repaint per frame.
    m_pendingMicro = update;
    if (!m_microTimer->isActive())
        m_microTimer->start();
}

void MainWindow::showMicroBatch()
{
    if (!m_pendingMicro)
        return;
    m_accumulationPanel->showMicroBatch(*m_pendingMicro);
    m_pendingMicro.reset();
}

void MainWindow::onPlayingChanged(bool) { updateActions(); }

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
    m_exportCurveAction->setEnabled(!sweeping && m_lastSweep.has_value());
    m_exportSkillAction->setEnabled(!sweeping && m_lastSweep.has_value() && m_lastEquivalence.has_value());
    m_openPresetAction->setEnabled(!sweeping);
    m_saveSessionAction->setEnabled(!sweeping);
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
    m_accumulationPanel->setClassroomMode(on);
    m_equivalencePanel->setClassroomMode(on);
    if (on)
        m_labSizesBeforeClassroom = m_labSplitter->sizes();
    else if (!m_labSizesBeforeClassroom.isEmpty())
        m_labSplitter->setSizes(m_labSizesBeforeClassroom);
    shareClassroomRoom();
}

void MainWindow::shareClassroomRoom()
{
    // The hidden controls' room goes to the pages: the column shrinks to what is left in it.
    m_controlsScroll->setMinimumWidth(m_controls->minimumSizeHint().width() + 24);
    const int controls = m_controlsScroll->minimumWidth();
    const QList<int> sizes = m_mainSplitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total > controls)
        m_mainSplitter->setSizes({controls, total - controls});
    if (!m_controls->classroomMode())
        return;
    // Two thirds of the lab's height for the enlarged buffers and verdict.
    constexpr double kClassroomTopShare = 0.66;
    const QList<int> lab = m_labSplitter->sizes();
    const int height = lab.value(0) + lab.value(1);
    if (height > 0)
        m_labSplitter->setSizes({int(height * kClassroomTopShare), height - int(height * kClassroomTopShare)});
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
    m_zoom = zoom;
    updateActions();
    if (m_persist)
        QSettings().setValue(QLatin1String(kSettingsZoom), m_zoom);
}

// ---- equivalence -----------------------------------------------------------------------

EquivalenceConfig MainWindow::equivalenceConfig() const { return equivalenceConfigOf(m_controls->config()); }

void MainWindow::requestEquivalenceNow()
{
    m_equivalenceTimer->stop();
    const EquivalenceConfig e = equivalenceConfig();
    m_equivalencePanel->setPending(e);
    m_latestEquivalenceSerial = m_controller->requestEquivalence(e);
}

void MainWindow::onEquivalence(const EquivalenceUpdate &update)
{
    if (update.serial < m_latestEquivalenceSerial)
        return; // a newer request is on its way
    m_answeredEquivalenceSerial = update.serial;
    m_equivalencePanel->setResult(update);
    if (update.ok)
        m_lastEquivalence = update.result;
    else
        m_lastEquivalence.reset();
    updateActions();
    emit equivalenceUpdated();
}

// ---- sweep -----------------------------------------------------------------------------

bool MainWindow::runSweep(QString *error)
{
    const Preset p = m_controls->preset();
    SweepConfig s;
    s.base = p.config;
    s.numSteps = p.numSteps;
    s.warmupSteps = p.warmupSteps;
    s.threads = p.threads;
    try {
        s.accumGrid = parseGrid(p.accumGrid.toStdString());
        validate(s);
    } catch (const std::exception &ex) {
        if (error)
            *error = tr("The sweep settings are invalid: %1").arg(errorSentence(ex));
        return false;
    }
    m_controller->pause();
    m_throughputChart->startRun();
    m_lossChart->clear();
    m_sweepModel->clear();
    m_sweepPointCount = static_cast<int>(s.accumGrid.size());
    m_sweepBlocks = static_cast<int>(s.blocks());
    m_stallProbe->start();
    m_controller->runSweep(s);
    say([this] { return tr("Sweep running…"); });
    updateActions();
    return true;
}

void MainWindow::stopAll()
{
    m_controller->cancel();
    // The cancel also dropped a queued equivalence check; ask again.
    m_equivalenceTimer->start();
}

void MainWindow::onSweepPointStarted(int index, qint64 accumSteps)
{
    const AccumConfig c = m_controls->config();
    m_lossChart->startSeries(index, accumSteps * c.microBatch * c.worldSize);
}

void MainWindow::onSweepBlockStarted(int index, int block)
{
    say([this, index, block, blocks = m_sweepBlocks, points = m_sweepPointCount] {
        return tr("Sweep round %1 of %2, point %3 of %4").arg(count(block + 1), count(blocks), count(index + 1), count(points));
    });
}

void MainWindow::onSweepPoint(const SweepPointUpdate &u)
{
    const SweepPoint &p = u.point;
    m_throughputChart->addPoint(p);
    m_lossChart->finishSeries(u.pointIndex, p);
    m_sweepModel->addPoint(p);
}

void MainWindow::onSweepFinished(const SweepDoneUpdate &update)
{
    m_stallProbe->stop();
    if (!update.error.isEmpty()) {
        showError(tr("The sweep failed: %1").arg(update.error.localized()));
    } else if (update.cancelled) {
        say([this, done = update.result.points.size(), points = m_sweepPointCount] {
            return tr("Sweep stopped after %1 of %2 points.").arg(count(static_cast<qint64>(done)), count(points));
        });
    } else {
        m_lastSweep = update.result;
        say([this, plateau = update.result.plateauSamplesPerSec(), stall = m_stallProbe->maxStallMs()] {
            return tr("Sweep done: plateau %1 samples/sec; worst GUI stall %2 ms.").arg(figure(plateau, "d"), figure(stall, ".1f"));
        });
    }
    updateActions();
    emit sweepFinished(update.error.isEmpty() && !update.cancelled);
}

// ---- exports ---------------------------------------------------------------------------

bool MainWindow::exportCurveJson(const QString &path, QString *error) const
{
    if (!m_lastSweep) {
        if (error)
            *error = tr("No sweep has completed yet: run a sweep first.");
        return false;
    }
    const EquivalenceResult *eq = m_lastEquivalence ? &*m_lastEquivalence : nullptr;
    return writeFileSafely(path, curveJsonBytes(*m_lastSweep, eq), error);
}

bool MainWindow::exportSkillMarkdown(const QString &path, QString *error) const
{
    if (!m_lastSweep || !m_lastEquivalence) {
        if (error)
            *error = tr("The skill file needs a completed sweep and an equivalence check.");
        return false;
    }
    // The recipe in the language the class is reading, in its digits; the JSON export's keys
    // stay English.
    return writeFileSafely(path, skillMarkdownBytes(*m_lastEquivalence, *m_lastSweep, contentStyle()), error);
}

bool MainWindow::exportChartPngs(const QString &folder, QStringList *written, QString *error, int scale)
{
    const QList<std::pair<QString, QWidget *>> items{{QStringLiteral("accumlab-throughput.png"), m_throughputChart},
                                                     {QStringLiteral("accumlab-loss.png"), m_lossChart},
                                                     {QStringLiteral("accumlab-gradient-buffers.png"), bufferView()},
                                                     {QStringLiteral("accumlab-memory.png"), m_memoryView}};
    for (const auto &[name, widget] : items) {
        const QString path = QDir(folder).filePath(name);
        if (!writeFileSafely(path, widgetPng(widget, scale), error))
            return false;
        if (written)
            *written << path;
    }
    return true;
}

bool MainWindow::saveScreenshot(const QString &path, QString *error) { return writeFileSafely(path, widgetPng(this), error); }

QString MainWindow::lastFolder() const
{
    const QString stored = QSettings().value(QLatin1String(kSettingsFolder)).toString();
    return stored.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) : stored;
}

void MainWindow::rememberFolder(const QString &path) const
{
    QSettings().setValue(QLatin1String(kSettingsFolder), QFileInfo(path).absolutePath());
}

bool MainWindow::importCurve(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    QString reason;
    // A FIFO or /dev/zero is refused before a read could block or fill memory.
    if (const auto bytes = readRegularFile(path, static_cast<qint64>(kMaxCurveFileBytes), &reason)) {
        try {
            const CurveFile curve = parseCurveJson(bytes->toStdString());
            m_throughputChart->addImportedCurve(name, curve.points);
            say([this, name, points = curve.points.size()] {
                return tr("Imported %1: %2 points").arg(filePath(name), count(static_cast<qint64>(points)));
            });
            return true;
        } catch (const CurveFormatError &e) {
            // core's what() is English for the CLI; its code and arguments are said here in the
            // user's language, naming the point and field.
            reason = ImportErrors::reason(e.detail(), locale());
        }
    }
    showError(tr("Could not import %1: %2").arg(name, reason));
    return false;
}

QString MainWindow::fileFilter(FileKind kind)
{
    // Only the description is translated; the pattern is appended here. Qt reads a filter as
    // "description (patterns)" with nothing after the closing parenthesis, and a translation
    // that ended it with a direction mark (as Persian text around Latin tokens wants) made the
    // dialog list no file at all.
    switch (kind) {
    case FileKind::Json: return tr("JSON files") + QStringLiteral(" (*.json)");
    case FileKind::Markdown: return tr("Markdown files") + QStringLiteral(" (*.md)");
    case FileKind::Preset: return tr("AccumLab presets") + QStringLiteral(" (*.json)");
    }
    return {};
}

void MainWindow::importCurveDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import accum-curve.json"), lastFolder(),
                                                      fileFilter(FileKind::Json));
    if (path.isEmpty())
        return;
    rememberFolder(path);
    importCurve(path);
}

void MainWindow::exportCurveDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export accum-curve.json"),
                                                      QDir(lastFolder()).filePath(QLatin1String(kCurveFileName)),
                                                      fileFilter(FileKind::Json));
    if (path.isEmpty())
        return;
    rememberFolder(path);
    QString error;
    if (!exportCurveJson(path, &error))
        showError(error);
    else
        say([this, path] { return tr("Wrote %1").arg(filePath(path)); });
}

void MainWindow::exportSkillDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export skill markdown"),
                                                      QDir(lastFolder()).filePath(QLatin1String(kSkillFileName)),
                                                      fileFilter(FileKind::Markdown));
    if (path.isEmpty())
        return;
    rememberFolder(path);
    QString error;
    if (!exportSkillMarkdown(path, &error))
        showError(error);
    else
        say([this, path] { return tr("Wrote %1").arg(filePath(path)); });
}

void MainWindow::exportChartsDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Folder for the chart PNGs"), lastFolder());
    if (folder.isEmpty())
        return;
    QSettings().setValue(QLatin1String(kSettingsFolder), folder);
    const QStringList scales{tr("%1× (as on screen)").arg(count(1)), tr("%1× (for slides)").arg(count(2)),
                             tr("%1×").arg(count(3))};
    bool chosen = false;
    const QString scale = QInputDialog::getItem(this, tr("Export chart PNGs"), tr("Size of the pictures:"), scales,
                                                /*current=*/1, /*editable=*/false, &chosen);
    if (!chosen)
        return;
    QStringList written;
    QString error;
    if (!exportChartPngs(folder, &written, &error, static_cast<int>(scales.indexOf(scale)) + 1))
        showError(error);
    else
        say([this, files = written.size(), folder] { return tr("Wrote %1 PNG files to %2").arg(count(files), filePath(folder)); });
}

void MainWindow::saveSession(const QString &folder)
{
    m_configTimer->stop(); // a pending edit would rebuild the run before it is saved
    m_controller->saveSession(folder);
}

bool MainWindow::resumeSession(const QString &folder, QString *error)
{
    AccumConfig config;
    try {
        config = checkpointConfig(folder.toStdString());
    } catch (const std::exception &ex) {
        if (error)
            *error = EngineError::from(ex).localized();
        return false;
    }
    m_configTimer->stop(); // the resumed run replaces pending edits
    m_controller->resumeSession(config, folder);
    return true;
}

void MainWindow::onSessionFinished(const SessionUpdate &update)
{
    if (!update.ok) {
        showError(update.error.localized());
        emit sessionFinished(false);
        return;
    }
    if (update.action == SessionAction::Resume) {
        // The controls show the resumed run's settings without rebuilding it.
        Preset preset = m_controls->preset();
        preset.config = update.config;
        {
            const QSignalBlocker block(m_controls);
            m_controls->setPreset(preset);
        }
        requestEquivalenceNow();
    }
    const bool resumed = update.action == SessionAction::Resume;
    say([this, resumed, u = update] {
        const QString where = u.microIndex > 0
                                  ? tr("%1 windows done and %2 micro-batches into the next")
                                        .arg(count(u.windowsDone), count(u.microIndex))
                                  : tr("%1 windows done").arg(count(u.windowsDone));
        return (resumed ? tr("Resumed the session from %1: %2") : tr("Saved the session to %1: %2"))
            .arg(filePath(u.folder), where);
    });
    emit sessionFinished(true);
}

void MainWindow::saveSessionDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Folder to save the session in"), lastFolder());
    if (folder.isEmpty())
        return;
    QSettings().setValue(QLatin1String(kSettingsFolder), folder);
    saveSession(folder);
}

void MainWindow::resumeSessionDialog()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Folder of the session to resume"), lastFolder());
    if (folder.isEmpty())
        return;
    QSettings().setValue(QLatin1String(kSettingsFolder), folder);
    QString error;
    if (!resumeSession(folder, &error))
        showError(error);
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
    applyConfigNow();
    requestEquivalenceNow();
    updateActions();
    say([this] { return tr("The lab's settings are back as they were before the experiment."); });
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
    m_controls->setPreset(preset);
    if (!preset.language.isEmpty())
        LanguageManager::instance()->setLanguage(preset.language);
    if (preset.memoryBudgetBytes)
        m_memoryView->setBudgetBytes(*preset.memoryBudgetBytes);
    if (!preset.experiment.isEmpty())
        m_experimentPanel->setCurrentExperiment(preset.experiment);
    if (const int page = presetPages().indexOf(preset.page); page >= 0)
        showPage(static_cast<Page>(page));
    applyConfigNow();
    requestEquivalenceNow();
    updateActions();
}

bool MainWindow::loadPresetFile(const QString &path, QString *error)
{
    QString reason;
    const auto bytes = readRegularFile(path, kMaxPresetFileBytes, &reason);
    if (!bytes) {
        if (error)
            *error = tr("Could not open %1: %2").arg(path, reason);
        return false;
    }
    QString parseError;
    const auto preset = presetFromJson(*bytes, &parseError);
    if (!preset) {
        if (error)
            *error = tr("%1: %2").arg(path, parseError);
        return false;
    }
    applyPreset(*preset);
    return true;
}

bool MainWindow::savePresetFile(const QString &path, QString *error) const
{
    return writeFileSafely(path, presetToJson(currentPreset()), error);
}

void MainWindow::openPresetDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open preset"), lastFolder(), fileFilter(FileKind::Preset));
    if (path.isEmpty())
        return;
    rememberFolder(path);
    QString error;
    if (!loadPresetFile(path, &error))
        showError(error);
}

void MainWindow::savePresetDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save preset"), QDir(lastFolder()).filePath(tr("lesson.json")),
                                                      fileFilter(FileKind::Preset));
    if (path.isEmpty())
        return;
    rememberFolder(path);
    QString error;
    if (!savePresetFile(path, &error))
        showError(error);
    else
        say([this, path] { return tr("Wrote %1").arg(filePath(path)); });
}

void MainWindow::chooseHiddenControlsDialog()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Controls hidden in classroom mode"));
    auto *layout = new QVBoxLayout(&dialog);
    // Never smaller than its contents (it was squeezed below its wrapped introduction and its
    // sixteen rows on a 768-pixel screen), and the choices in two columns to stay short.
    layout->setSizeConstraint(QLayout::SetMinimumSize);
    dialog.setMinimumWidth(dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) + kDialogTitleRoom);
    auto *intro = new QLabel(tr("Checked controls are hidden while classroom mode is on. Save a preset to keep the choice."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *grid = new QGridLayout;
    layout->addLayout(grid);
    QList<QCheckBox *> boxes;
    const QStringList hidden = m_controls->hiddenControls();
    const QStringList keys = ControlPanel::controlKeys();
    const int rows = static_cast<int>((keys.size() + 1) / 2);
    for (const QString &key : keys) {
        auto *box = new QCheckBox(m_controls->controlTitle(key));
        box->setProperty("key", key);
        box->setChecked(hidden.contains(key));
        grid->addWidget(box, static_cast<int>(boxes.size()) % rows, static_cast<int>(boxes.size()) / rows);
        boxes << box;
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QStringList chosen;
    for (QCheckBox *box : boxes)
        if (box->isChecked())
            chosen << box->property("key").toString();
    m_controls->setClassroomMode(m_controls->classroomMode(), chosen);
    saveSettings();
}

void MainWindow::saveSettings() const
{
    if (!m_persist)
        return;
    QSettings settings;
    settings.setValue(QLatin1String(kSettingsPreset), QString::fromUtf8(presetToJson(currentPreset())));
    settings.setValue(QLatin1String(kSettingsGeometry), saveGeometry());
}

void MainWindow::loadSettings()
{
    if (!m_persist)
        return;
    QSettings settings;
    const QByteArray json = settings.value(QLatin1String(kSettingsPreset)).toString().toUtf8();
    if (!json.isEmpty()) {
        if (auto preset = presetFromJson(json, nullptr)) {
            const QSignalBlocker block(m_controls);
            m_controls->setPreset(*preset);
        }
    }
    if (!restoreGeometry(settings.value(QLatin1String(kSettingsGeometry)).toByteArray()))
        fitTheScreen();
    setZoom(settings.value(QLatin1String(kSettingsZoom), 1.0).toDouble());
}

void MainWindow::fitTheScreen()
{
    // The first start: the default size where the screen has room for it and its frame; on a
    // smaller screen (a projector's 1024x768) the screen's available area, maximised, so
    // nothing starts off-screen.
    const QScreen *screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    const QRect available = screen ? screen->availableGeometry() : QRect(QPoint(), kDefaultSize);
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
        // A lesson that opens in classroom mode shares the room once the window has its size.
        QTimer::singleShot(0, this, [this] {
            if (m_controls->classroomMode())
                shareClassroomRoom();
        });
    }
    QMainWindow::showEvent(event);
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
        const bool ours = key->modifiers() == Qt::NoModifier && (key->key() == Qt::Key_Space || key->key() == Qt::Key_Right);
        auto *widget = qobject_cast<QWidget *>(watched);
        // Accepting the override hands the key to the widget instead of the shortcut.
        if (ours && widget && widget->window() == this &&
            (qobject_cast<QAbstractSlider *>(widget) || qobject_cast<QAbstractButton *>(widget) ||
             qobject_cast<QComboBox *>(widget) || qobject_cast<QAbstractItemView *>(widget) ||
             qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QLineEdit *>(widget) ||
             qobject_cast<QTextEdit *>(widget) || qobject_cast<QTabBar *>(widget))) {
            event->accept();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::say(std::function<QString()> message)
{
    m_status = std::move(message);
    statusBar()->showMessage(m_status());
}

void MainWindow::showError(const QString &message)
{
    m_lastError = message;
    // Already said in the window's language; a language switch clears it rather than
    // leave a sentence in the other language.
    m_status = nullptr;
    statusBar()->showMessage(message);
    if (m_errorsToTerminal) {
        std::fprintf(stderr, "accumlab: %s\n", qPrintable(message));
        return;
    }
    QMessageBox::warning(this, tr("AccumLab"), message);
}

} // namespace accumlab::ui
