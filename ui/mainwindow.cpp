// The main window: assembly of the panels and parts, the table of actions, the menus and the
// toolbar, retranslation, the window-wide keys, pages, presets and settings. The frame and its
// fit (scroll areas, splitters, zoom, classroom mode's room) are WindowLayout's.
#include "ui/mainwindow.h"
#include "ui/panels/classinput.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/actiontable.h"
#include "ui/panels/codepanel.h"
#include "ui/panels/controlpanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/panels/experimentpanel.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/worker/labrun.h"
#include "ui/language.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/panels/lessonpanel.h"
#include "ui/localizedtext.h"
#include "ui/charts/losschart.h"
#include "ui/panels/memoryview.h"
#include "ui/panels/quizwidget.h"
#include "ui/session/sessionfiles.h"
#include "ui/statusreporter.h"
#include "ui/teachingcard.h"
#include "ui/worker/sweeprunner.h"
#include "ui/panels/sweeptablemodel.h"
#include "ui/charts/throughputchart.h"
#include "ui/layout/windowlayout.h"
#include "ui/layout/wrappingheader.h"

#include "core/experiments/experiments.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextEdit>
#include <QToolBar>

#include <utility>

namespace accumlab::ui {

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
    buildMenus();
    // The zoom is remembered; the Normal size entry is offered once zoomed.
    connect(m_layout, &WindowLayout::zoomChanged, this, [this](double zoom) {
        updateActions();
        m_settings.setZoom(zoom);
    });

    connect(m_lab, &LabRun::configApplied, this, &MainWindow::saveSettings);
    connect(m_lab, &LabRun::equivalenceUpdated, this, &MainWindow::updateActions);
    connect(m_sweep, &SweepRunner::started, this, &MainWindow::updateActions);
    // A sweep draws on the lab's charts and its table: the one in front (the charts unless the
    // table is) comes into view. Zoomed in on a projector the lab's tabs sit below the fold, and
    // a sweep started from the memory or code tab, or from another page, ran out of sight.
    connect(m_sweep, &SweepRunner::started, this, [this] {
        QWidget *tab = tabs()->currentWidget();
        bringIntoView(tab == m_sweepTable || tab == m_layout->chartsTab() ? tab : m_throughputChart);
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
    m_layout->fitTheScreen();
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
    m_accumulationPanel = new AccumulationPanel;
    m_equivalencePanel = new EquivalencePanel;
    m_throughputChart = new ThroughputChart;
    m_lossChart = new LossChart;
    m_memoryView = new MemoryView;
    m_sweepTable = new QTableView; // its model is the sweep runner's
    m_sweepTable->setTabKeyNavigation(false); // Tab leaves the table; arrows move inside it
    m_sweepTable->setObjectName(QStringLiteral("sweepTable"));
    m_sweepTable->verticalHeader()->setVisible(false);
    m_sweepTable->setHorizontalHeader(new WrappingHeader(Qt::Horizontal, m_sweepTable)); // titles wrap, never cut
    m_sweepTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_codePanel = new CodePanel;
    m_experimentPanel = new ExperimentPanel(m_controller);
    m_quizWidget = new QuizWidget;
    m_layout = new WindowLayout({this, m_controls, m_accumulationPanel, m_equivalencePanel, m_throughputChart,
                                 m_lossChart, /*moreTabs=*/{m_memoryView, m_sweepTable, m_codePanel},
                                 /*morePages=*/{m_experimentPanel, m_quizWidget}},
                                this);
    m_labTabs = {{m_layout->chartsTab(), QT_TR_NOOP("Throughput and loss")},
                 {m_memoryView, QT_TR_NOOP("Memory")},
                 {m_sweepTable, QT_TR_NOOP("Sweep table")},
                 {m_codePanel, QT_TR_NOOP("Code"), QT_TR_NOOP("The loop in PyTorch, lit as the engine runs it")}};
    connect(m_experimentPanel, &ExperimentPanel::requestSettings, this, &MainWindow::applyExperimentSettings);
    connect(m_quizWidget, &QuizWidget::openExperiment, this, &MainWindow::showExperiment);

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
    m_lessonDock = m_layout->dockLesson(m_lessonPanel);
    connect(m_lessonPanel, &LessonPanel::targetActivated, this, &MainWindow::showLessonTarget);
    m_navigator = new LessonNavigator(this);
    registerLessonTargets();
}

QTabWidget *MainWindow::tabs() const { return m_layout->tabs(); }
QStackedWidget *MainWindow::pages() const { return m_layout->pages(); }
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

QAction *MainWindow::action(Action id) const { return (*m_actions)[id]; }

void MainWindow::buildActions()
{
    // The File menu's entries open SessionFiles' dialogs.
    auto file = [this](void (SessionFiles::*dialog)()) { return [this, dialog](bool) { (m_files->*dialog)(); }; };
    const auto ctrl = [](Qt::Key key) { return QKeySequence(Qt::CTRL | key); };
    // Space plays and pauses (one of the two is enabled at a time), Right steps, Ctrl+R resets,
    // Ctrl+Enter sweeps, Esc stops: every lab action has a key and a place in the Run menu, and
    // a mnemonic of its own there. A tool tip names its action's first key itself, in the
    // window's language (ActionTable), so the texts below leave it out.
    // Ctrl+= is Ctrl++ without Shift on most keyboards; both zoom in.
    std::vector<ActionRow> rows{
        {PlayAction, "playAction", QT_TR_NOOP("&Play"), QT_TR_NOOP("Run micro-batches at the chosen pace"),
         {Qt::Key_Space}, false,
         [this](bool) {
             m_lab->applyConfigNow();
             m_controller->play(m_controls->preset().pace);
         }},
        {PauseAction, "pauseAction", QT_TR_NOOP("P&ause"), QT_TR_NOOP("Stop after the running micro-batch"),
         {Qt::Key_Space}, false, [this](bool) { m_controller->pause(); }},
        {StepAction, "stepAction", QT_TR_NOOP("S&tep"), QT_TR_NOOP("Run one micro-batch"),
         {Qt::Key_Right}, false,
         [this](bool) {
             if (m_lab->editsPending())
                 m_lab->applyConfigNow();
             m_controller->stepMicroBatch();
         }},
        {ResetAction, "resetAction", QT_TR_NOOP("&Reset"),
         QT_TR_NOOP("A fresh model and data stream from the seed"), {ctrl(Qt::Key_R)}, false,
         [this](bool) { m_lab->applyConfigNow(); }},
        {SweepAction, "sweepAction", QT_TR_NOOP("Run s&weep"),
         QT_TR_NOOP("Full-speed throughput sweep over the grid of accumulation steps"),
         {ctrl(Qt::Key_Return), ctrl(Qt::Key_Enter)}, false,
         [this](bool) {
             QString error;
             if (!m_sweep->run(&error))
                 m_status->showError(error);
         }},
        {StopAction, "stopAction", QT_TR_NOOP("&Stop"), QT_TR_NOOP("Stop the sweep, the play or the memory run"),
         {Qt::Key_Escape}, false, [this](bool) { stopAll(); }},
        {OpenPresetAction, "openPresetAction", QT_TR_NOOP("&Open preset…"), nullptr, {QKeySequence::Open}, false,
         file(&SessionFiles::openPresetDialog)},
        {SavePresetAction, "savePresetAction", QT_TR_NOOP("&Save preset…"), nullptr, {QKeySequence::Save}, false,
         file(&SessionFiles::savePresetDialog)},
        {ExportCurveAction, "exportCurveAction", QT_TR_NOOP("Export accum-curve.json…"), nullptr, {}, false,
         file(&SessionFiles::exportCurveDialog)},
        {ImportCurveAction, "importCurveAction", QT_TR_NOOP("Import accum-curve.json…"),
         QT_TR_NOOP("Overlay a saved curve (AccumLab's or the lesson's) on the throughput chart"), {}, false,
         file(&SessionFiles::importCurveDialog)},
        {ExportSkillAction, "exportSkillAction", QT_TR_NOOP("Export skill markdown…"), nullptr, {}, false,
         file(&SessionFiles::exportSkillDialog)},
        {ExportChartsAction, "exportChartsAction", QT_TR_NOOP("Export charts as PNG…"), nullptr, {}, false,
         file(&SessionFiles::exportChartsDialog)},
        {ExportTimelineAction, "exportTimelineAction", QT_TR_NOOP("Export memory timeline…"),
         QT_TR_NOOP("The out-of-memory demo's allocations as memory-timeline.json and as a "
                    "snapshot PyTorch's memory visualiser opens"),
         {}, false, file(&SessionFiles::exportTimelineDialog)},
        {SaveSessionAction, "saveSessionAction", QT_TR_NOOP("Save session…"),
         QT_TR_NOOP("Save the lab's run where it stands, even inside a window, as a checkpoint folder"), {}, false,
         file(&SessionFiles::saveSessionDialog)},
        {ExportModelAction, "exportModelAction", QT_TR_NOOP("Export trained model…"),
         QT_TR_NOOP("The lab's parameters as they stand, as a safetensors file that PyTorch's "
                    "load_state_dict takes (fc1.weight … fc3.bias)"),
         {}, false, file(&SessionFiles::exportModelDialog)},
        {ResumeSessionAction, "resumeSessionAction", QT_TR_NOOP("Resume session…"),
         QT_TR_NOOP("Continue a saved run exactly where it stopped, with its settings"), {}, false,
         file(&SessionFiles::resumeSessionDialog)},
        {QuitAction, "quitAction", QT_TR_NOOP("&Quit"), nullptr, {QKeySequence::Quit}, false,
         [this](bool) { close(); }},
        {ClassroomAction, "classroomAction", QT_TR_NOOP("&Classroom mode"), nullptr, {}, true,
         [this](bool on) {
             m_controls->setClassroomMode(on, m_controls->hiddenControls());
             updateActions();
             saveSettings();
         }},
        {HiddenControlsAction, "hiddenControlsAction", QT_TR_NOOP("Controls hidden in classroom mode…"), nullptr,
         {}, false,
         [this](bool) {
             if (m_controls->chooseHiddenControls(this))
                 saveSettings();
         }},
        {FullScreenAction, "fullScreenAction", QT_TR_NOOP("&Full screen"), nullptr, {Qt::Key_F11}, true,
         [this](bool on) {
             setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
         }},
        {ZoomInAction, "zoomInAction", QT_TR_NOOP("Zoom &in"), nullptr, {ctrl(Qt::Key_Equal), ctrl(Qt::Key_Plus)},
         false, [this](bool) { zoomBy(1); }},
        {ZoomOutAction, "zoomOutAction", QT_TR_NOOP("Zoom &out"), nullptr, {ctrl(Qt::Key_Minus)}, false,
         [this](bool) { zoomBy(-1); }},
        {ZoomResetAction, "zoomResetAction", QT_TR_NOOP("&Normal size"), nullptr, {ctrl(Qt::Key_0)}, false,
         [this](bool) { setZoom(1.0); }},
        {TabsFillLabAction, "tabsFillLabAction", QT_TR_NOOP("&Tabs take the lab's height"),
         QT_TR_NOOP("Folds the buffers and the check away so that the charts, the memory and the "
                    "code below them get the lab's whole height"),
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T)}, true,
         [this](bool on) { m_layout->setTabsFillTheLab(on); }},
        // The pages: a page bar would cost the lab its height, so the toolbar switches them.
        {LabPageAction, "labPageAction", QT_TR_NOOP("Lab"),
         QT_TR_NOOP("Buffers, equivalence check and charts"), {ctrl(Qt::Key_1)}, true,
         [this](bool) { showPage(LabPage); }},
        {ExperimentsPageAction, "experimentsPageAction", QT_TR_NOOP("Experiments"),
         QT_TR_NOOP("Guided experiments: the lesson's exercises and the pitfalls, measured"),
         {ctrl(Qt::Key_2)}, true, [this](bool) { showPage(ExperimentsPage); }},
        {QuizPageAction, "quizPageAction", QT_TR_NOOP("Quiz"),
         QT_TR_NOOP("Questions before, during and after the lesson"), {ctrl(Qt::Key_3)}, true,
         [this](bool) { showPage(QuizPage); }},
        {TeachingCardAction, "teachingCardAction", QT_TR_NOOP("&Teaching card"),
         QT_TR_NOOP("The keys, the projector's settings and the 45-minute plan on one screen"),
         {Qt::Key_F1}, false, [this](bool) { showTeachingCard(); }},
        {AboutAction, "aboutAction", QT_TR_NOOP("&About AccumLab"), nullptr, {}, false, [this](bool) { showAbout(); }},
    };
    m_actions = std::make_unique<ActionTable>(staticMetaObject.className(), std::move(rows), this);
    connect(m_layout, &WindowLayout::tabsFillTheLabChanged, action(TabsFillLabAction), &QAction::setChecked);
    // Space and Right are the lab's after a mouse choice; a control Tabbed to or typed in keeps them.
    guardLabKeys(this);

    auto *pageGroup = new QActionGroup(this);
    for (Action a : {LabPageAction, ExperimentsPageAction, QuizPageAction})
        pageGroup->addAction(action(a));
    action(LabPageAction)->setChecked(true);
    connect(pages(), &QStackedWidget::currentChanged, this, [this] {
        if (const Page page = currentPage(); page >= 0)
            pageAction(page)->setChecked(true);
    });

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
    syncLanguageActions();
}

void MainWindow::buildMenus()
{
    // The table's actions into a menu or the toolbar, in order; kSeparator between groups.
    constexpr int kSeparator = -1;
    const auto fill = [this](auto *into, std::initializer_list<int> ids) {
        for (int id : ids)
            if (id == kSeparator)
                into->addSeparator();
            else
                into->addAction(action(static_cast<Action>(id)));
    };
    const auto menu = [this](const char *title, const char *name = nullptr) {
        QMenu *m = menuBar()->addMenu(QString());
        if (name)
            m->setObjectName(QLatin1String(name));
        m_menuTitles.append({m, title});
        return m;
    };
    QAction *lesson = m_lessonDock->toggleViewAction();

    m_toolBar = addToolBar(QString());
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    QFont tf = m_toolBar->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.15);
    m_toolBar->setFont(tf);
    fill(m_toolBar,
         {PlayAction, PauseAction, StepAction, ResetAction, kSeparator, SweepAction, StopAction, kSeparator});
    m_toolBar->addAction(lesson);
    fill(m_toolBar, {kSeparator, LabPageAction, ExperimentsPageAction, QuizPageAction});

    fill(menu(QT_TR_NOOP("&File")),
         {OpenPresetAction, SavePresetAction, kSeparator, SaveSessionAction, ResumeSessionAction, ExportModelAction,
          kSeparator, ImportCurveAction, ExportCurveAction, ExportSkillAction, ExportChartsAction, ExportTimelineAction,
          kSeparator, QuitAction});
    fill(menu(QT_TR_NOOP("&Run"), "runMenu"),
         {PlayAction, PauseAction, StepAction, ResetAction, kSeparator, SweepAction, StopAction});
    QMenu *view = menu(QT_TR_NOOP("&View"));
    fill(view, {ClassroomAction, HiddenControlsAction, kSeparator, FullScreenAction, ZoomInAction, ZoomOutAction,
                ZoomResetAction, kSeparator, TabsFillLabAction});
    // The lab's tabs from the keyboard (Alt+V, then the menu), each opened where it lies: zoomed
    // in, the tab bar sits below the fold and Tab reaches it only past every control.
    QMenu *labTabs = view->addMenu(QString());
    labTabs->setObjectName(QStringLiteral("labTabsMenu"));
    m_menuTitles.append({labTabs, QT_TR_NOOP("Lab ta&b")});
    auto *tabGroup = new QActionGroup(this);
    for (LabTab &tab : m_labTabs) {
        QWidget *widget = tab.widget;
        tab.entry = labTabs->addAction(QString(), this, [widget] { bringIntoView(widget); });
        tab.entry->setObjectName(QStringLiteral("labTabAction%1").arg(tabGroup->actions().size()));
        tab.entry->setCheckable(true);
        tab.entry->setChecked(widget == tabs()->currentWidget());
        tabGroup->addAction(tab.entry);
    }
    connect(tabs(), &QTabWidget::currentChanged, this, [this] {
        for (const LabTab &tab : std::as_const(m_labTabs))
            if (tab.widget == tabs()->currentWidget())
                tab.entry->setChecked(true);
    });
    view->addAction(lesson);

    QMenu *experiments = menu(QT_TR_NOOP("E&xperiments"), "experimentsMenu");
    fill(experiments, {LabPageAction, ExperimentsPageAction, QuizPageAction, kSeparator});
    // One entry per experiment: opens it on its page, ready to run.
    m_experimentListMenu = experiments->addMenu(QString());
    m_menuTitles.append({m_experimentListMenu, QT_TR_NOOP("Open an experiment")});
    for (const auto &info : experimentCatalog()) {
        const QString id = QString::fromStdString(info.id);
        auto *a = m_experimentListMenu->addAction(QString());
        a->setObjectName(QStringLiteral("experimentAction_%1").arg(id));
        a->setData(id);
        connect(a, &QAction::triggered, this, [this, id] { showExperiment(id); });
    }

    QMenu *language = menu(QT_TR_NOOP("&Language"));
    language->addActions(m_languageActions);
    language->addSeparator();
    language->addAction(m_latinDigitsAction);

    fill(menu(QT_TR_NOOP("&Help")), {TeachingCardAction, kSeparator, AboutAction});
}

void MainWindow::showTeachingCard()
{
    if (!m_teachingCard)
        m_teachingCard = new TeachingCard(this);
    m_teachingCard->showCard();
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
        m_layout->languageChanged();
    }
    if (event->type() == QEvent::WindowStateChange && m_actions)
        action(FullScreenAction)->setChecked(isFullScreen());
    QMainWindow::changeEvent(event);
}

void MainWindow::retranslateUi()
{
    showDevice();
    m_status->retranslate();
    setWindowTitle(tr("AccumLab: gradient accumulation on real tensors"));
    for (const LabTab &tab : std::as_const(m_labTabs)) {
        const int index = tabs()->indexOf(tab.widget);
        tabs()->setTabText(index, tr(tab.text));
        if (tab.toolTip)
            tabs()->setTabToolTip(index, tr(tab.toolTip));
        tab.entry->setText(tr(tab.text));
    }
    m_layout->chartsTab()->setAccessibleName(tr("Throughput and loss")); // the charts' scroll area
    m_sweepTable->setAccessibleName(tr("Sweep table"));
    m_layout->controlsScroll()->setAccessibleName(tr("Controls"));
    m_layout->pagesScroll()->setAccessibleName(tr("Lab, experiments and quiz"));
    m_sweep->model()->retranslate();
    m_actions->retranslate();
    for (const auto &[menu, title] : std::as_const(m_menuTitles))
        menu->setTitle(tr(title));
    m_restoreLabButton->setText(tr("Restore the lab's settings"));
    m_restoreLabButton->setToolTip(tr("Put back the settings the lab had before the experiment changed them"));
    // The sample is the digits themselves, left to right in every language.
    m_latinDigitsAction->setText(tr("Latin digits (%1)").arg(leftToRight(QStringLiteral("0123…"))));
    m_lessonDock->setWindowTitle(tr("Lesson"));
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
    action(PlayAction)->setEnabled(!sweeping && !playing);
    action(PauseAction)->setEnabled(!sweeping && playing);
    for (Action a : {StepAction, ResetAction, SweepAction, OpenPresetAction, SaveSessionAction, ExportModelAction,
                     ResumeSessionAction})
        action(a)->setEnabled(!sweeping);
    action(StopAction)->setEnabled(sweeping || playing || m_controller->isMemoryLabRunning());
    const bool swept = m_sweep->lastSweep().has_value();
    action(ExportCurveAction)->setEnabled(!sweeping && swept);
    action(ExportSkillAction)->setEnabled(!sweeping && swept && m_sweep->lastSweepEquivalence().has_value());
    action(ExportTimelineAction)->setEnabled(m_memoryView->lastRecordedDemo() != nullptr);
    m_controls->setSweepRunning(sweeping);
    action(ClassroomAction)->setChecked(m_controls->classroomMode());
    action(FullScreenAction)->setChecked(isFullScreen());
    action(ZoomResetAction)->setEnabled(zoom() != 1.0);
    m_layout->setClassroomMode(m_controls->classroomMode());
}

double MainWindow::zoom() const { return m_layout->zoom(); }
void MainWindow::setZoom(double zoom) { m_layout->setZoom(zoom); }
void MainWindow::zoomBy(int steps) { m_layout->zoomBy(steps); }

void MainWindow::stopAll()
{
    m_controller->cancel();
    // The cancel also dropped a queued equivalence check; ask again.
    m_lab->requestEquivalenceSoon();
}


// ---- guided experiments and quiz ----------------------------------------------------------

QList<QWidget *> MainWindow::pageWidgets() const { return {m_layout->lab(), m_experimentPanel, m_quizWidget}; }

QAction *MainWindow::pageAction(Page page) const
{
    const Action actions[] = {LabPageAction, ExperimentsPageAction, QuizPageAction};
    return action(actions[page]);
}

void MainWindow::showPage(Page page)
{
    pages()->setCurrentWidget(pageWidgets().at(page));
    pageAction(page)->setChecked(true);
}

MainWindow::Page MainWindow::currentPage() const
{
    return static_cast<Page>(pageWidgets().indexOf(pages()->currentWidget()));
}

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
        m_layout->fitTheScreen();
    setZoom(m_settings.zoom());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_controller->cancel();
    QMainWindow::closeEvent(event);
}

} // namespace accumlab::ui
