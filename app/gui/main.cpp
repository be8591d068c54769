// accumlab: the desktop app. Opens the window; `accumlab lesson.json` opens a preset.
// The lesson's flags (--accum-grid, --num-steps, --micro-batch, --seed, --lr, --threads,
// --no-write) preset the window's controls, and with no display they reach the terminal
// lesson that runs instead, with the window's sweep (useLabTiming: --num-steps is what the grid's
// largest accum_steps runs, as accumlab-cli --equal-work --repeats 10 reads it).
// Automation: accumlab --autorun [--accum-grid 1,2,4 --num-steps 10] --export-json FILE
//             --screenshot FILE.png --quit
//             accumlab --autorun --experiment no-division --screenshot FILE.png --quit
//             accumlab --page quiz --screenshot FILE.png --quit
//             accumlab --page memory --screenshot FILE.png --quit   (the lab with its Memory tab)
//             accumlab --memory-run demo,tradeoff --screenshot FILE.png --quit   (after those runs)
// With no display (and no QT_QPA_PLATFORM) it says so and runs the CLI's lesson instead;
// autorun and screenshot modes then use the offscreen platform. --help and --version need
// no display.
#include "app/gui/autorun.h"
#include "app/gui/commandline.h"

#include "ui/session/filereading.h"
#include "ui/language.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/panels/codepanel.h"
#include "ui/mainwindow.h"
#include "ui/session/sessionfiles.h"
#include "ui/panels/memoryview.h"

#include "core/io/export.h"
#include "core/lesson.h"
#include "core/omp_guard.h"
#include "core/version.h"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QTimer>
#include <QTableView>
#include <QSize>

#include <clocale>
#include <cstdio>
#include <iostream>

using namespace accumlab;

namespace {

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// The headless fallback: the CLI's lesson job with the flags that apply.
int runHeadlessLesson(const gui::Flags &f)
{
    // A preset is the window's: the terminal lesson cannot apply it (float16 on four ranks would
    // silently run as float32 on one), so it is refused rather than ignored.
    if (!f.presetFile.isEmpty()) {
        std::cerr << "accumlab: error: a preset (" << f.presetFile.toStdString()
                  << ") needs the window, and no display was found (DISPLAY and WAYLAND_DISPLAY are unset); "
                     "run the lesson with accumlab-cli's flags instead\n";
        return kExitBadInput;
    }
    LessonOptions options;
    try {
        options = gui::headlessLessonOptions(f); // a malformed grid or a value out of range
    } catch (const std::exception &ex) {
        std::cerr << "accumlab: error: " << ex.what() << "\n";
        return kExitBadInput;
    }
    std::cerr << "accumlab: no display found (DISPLAY and WAYLAND_DISPLAY are unset); "
                 "running the lesson in the terminal instead, as accumlab-cli does.\n";
    return runLessonJob(options, "accumlab", std::cout, std::cerr);
}

} // namespace

int main(int argc, char **argv)
{
    if (const auto omp = accumlab::rejectedOmpNumThreads()) {
        std::fprintf(stderr,
                     "accumlab: error: OMP_NUM_THREADS='%s' is not a thread count from 1 to %d (or a comma-separated "
                     "list of them); unset it\n",
                     omp->c_str(), accumlab::kMaxOmpThreads);
        return kExitBadInput;
    }
    accumlab::installExportSignalCleanup(); // SIGINT or SIGTERM mid-export leaves no temporary file
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    gui::Flags flags;
    QString error;
    if (gui::wantsHelpOrVersion(args)) {
        // Usage and version need no display: a core application is enough to print them.
        QCoreApplication core(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("accumlab"));
        QCoreApplication::setApplicationVersion(QString::fromLatin1(kVersion));
        QCommandLineParser parser;
        gui::parseFlags(parser, args, flags, &error);
        if (parser.isSet(QStringLiteral("version")))
            parser.showVersion();
        parser.showHelp(0);
    }
    {
        QCommandLineParser probe;
        if (!gui::parseFlags(probe, args, flags, &error)) {
            std::fprintf(stderr, "accumlab: error: %s\n", qPrintable(error));
            return kExitBadInput;
        }
    }
    const bool automated = gui::automated(flags);
    if (!hasDisplay()) {
        if (!automated)
            return runHeadlessLesson(flags);
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    if (!gui::fitsTheControls(flags, &error)) {
        std::fprintf(stderr, "accumlab: error: %s\n", qPrintable(error));
        return kExitBadInput;
    }

    QApplication app(argc, argv);
    // QApplication sets the C locale from the environment; core's number formatter
    // (core/content/content.h) uses printf, which would then write 0,05 under a comma-decimal LC_NUMERIC.
    // The window formats its own numbers through QLocale, so the C side stays "C".
    std::setlocale(LC_NUMERIC, "C");
    QApplication::setOrganizationName(QStringLiteral("AccumLab"));
    QApplication::setOrganizationDomain(QStringLiteral("accumlab.org"));
    QApplication::setApplicationName(QStringLiteral("AccumLab"));
    QApplication::setApplicationVersion(QString::fromLatin1(kVersion));
    QCommandLineParser parser;
    gui::parseFlags(parser, args, flags, &error);
    // A settings file that is a FIFO, a device or huge would hang or flood the GUI thread on
    // the first read (constructing a QSettings reads it): checked by path first, the session
    // then keeps its settings in a folder of its own, unsaved. The files are QSettings' own on
    // Unix: the application's, then the organisation's fallback.
    QTemporaryDir detour;
    const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    for (const QString &file : {config + QStringLiteral("/AccumLab/AccumLab.conf"), config + QStringLiteral("/AccumLab.conf")})
        if (const auto why = ui::unsafeToRead(file, ui::kMaxPresetFileBytes)) {
            std::fprintf(stderr,
                         "accumlab: warning: the settings file %s is not read: %s; this session's settings are not saved\n",
                         qPrintable(file), qPrintable(*why));
            QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, detour.path());
            QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, detour.path());
            break;
        }
    // Language: --lang, else the stored choice, else the system locale; the window's saved
    // session then opens in its own language unless --lang named one. An interactive --lang
    // is remembered; automated runs (autorun, screenshots) and --no-write leave the settings
    // alone.
    const bool persist = gui::persistsSettings(flags);
    ui::LanguageManager::instance()->initialize(flags.lang, persist);

    ui::MainWindow window(/*persistSettings=*/persist);
    if (!flags.presetFile.isEmpty() && !window.files()->loadPresetFile(flags.presetFile, &error)) {
        std::fprintf(stderr, "accumlab: %s\n", qPrintable(error));
        if (automated)
            return kExitBadInput;
        QMessageBox::warning(&window, QObject::tr("AccumLab"), error);
    }
    if (gui::presetsControls(flags)) {
        ui::Preset p = window.currentPreset();
        gui::presetFromFlags(flags, p);
        window.applyPreset(p);
    }
    if (flags.windowSize.isValid()) {
        // A size asked for wins over the first start's fit to the screen.
        window.setWindowState(window.windowState() & ~Qt::WindowMaximized);
        window.resize(flags.windowSize);
    }
    if (flags.zoomSteps) {
        window.setZoom(1.0);
        window.zoomBy(*flags.zoomSteps);
    }
    if (flags.page == QLatin1String("experiments"))
        window.showPage(ui::MainWindow::ExperimentsPage);
    else if (flags.page == QLatin1String("quiz"))
        window.showPage(ui::MainWindow::QuizPage);
    QWidget *tab = nullptr; // a tab of the lab, brought into view once the window is laid out
    if (flags.page == QLatin1String("memory"))
        tab = window.memoryView();
    else if (flags.page == QLatin1String("table"))
        tab = window.sweepTable();
    else if (flags.page == QLatin1String("code"))
        tab = window.codePanel();
    if (tab)
        window.tabs()->setCurrentWidget(tab);
    if (flags.classroom)
        if (auto *classroom = window.findChild<QAction *>(QStringLiteral("classroomAction")); classroom && !classroom->isChecked())
            classroom->trigger();
    window.show();
    if (tab)
        QTimer::singleShot(0, tab, [tab] { ui::bringIntoView(tab); });
    // After the first show, which closes the lesson on a window narrower than 1400 pixels.
    if (flags.lesson)
        if (auto *dock = window.findChild<QDockWidget *>(QStringLiteral("lessonDock")))
            QTimer::singleShot(0, dock, [dock] { dock->show(); });

    // The scripted mode: a sweep or an experiment (--autorun), or a screenshot after the
    // memory lab's runs; --quit ends the program with its exit code.
    gui::AutorunDriver driver(&window);
    if (automated) {
        QObject::connect(&driver, &gui::AutorunDriver::finished, &app, [&flags](int code) {
            if (flags.quit)
                QApplication::exit(code);
        });
        driver.start({flags.autorun, flags.experiment, flags.exportJson, flags.screenshot, flags.memoryRuns});
    }
    return app.exec();
}
