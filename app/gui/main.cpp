// accumlab: the desktop app. Opens the window; `accumlab lesson.json` opens a preset.
// Automation: accumlab --autorun [--accum-grid 1,2,4 --num-steps 10] --export-json FILE
//             --screenshot FILE.png --quit
//             accumlab --autorun --experiment no-division --screenshot FILE.png --quit
//             accumlab --page quiz --screenshot FILE.png --quit
//             accumlab --page memory --screenshot FILE.png --quit   (the lab with its Memory tab)
// With no display (and no QT_QPA_PLATFORM) it says so and runs the CLI's lesson instead;
// autorun and screenshot modes then use the offscreen platform.
#include "ui/language.h"
#include "ui/mainwindow.h"
#include "ui/memoryview.h"

#include "core/experiments.h"
#include "core/lesson.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QStringList>
#include <QTabWidget>
#include <QTableWidget>
#include <QSize>
#include <QTimer>

#include <cstdio>
#include <iostream>

using namespace accumlab;

namespace {

constexpr int kExitBadInput = 2;
// The autorun starts once the window has been laid out and painted, so the GUI-stall probe
// measures the sweep, not the window's first paint.
constexpr int kAutorunStartDelayMs = 300;

struct Flags {
    bool autorun = false;
    bool quit = false;
    QString accumGrid;
    int numSteps = 0;
    int microBatch = 0;
    int threads = -1;
    QString exportJson;
    QString screenshot;
    QString lang;
    QString experiment;
    QString page;
    QString presetFile;
    QSize windowSize;
};

// Parsed before any QApplication exists (to decide whether a display is needed).
bool parseFlags(QCommandLineParser &parser, const QStringList &args, Flags &f, QString *error)
{
    parser.setApplicationDescription(QStringLiteral("AccumLab: gradient accumulation on real tensors"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption autorun(QStringLiteral("autorun"), QStringLiteral("Run the sweep with the window attached."));
    const QCommandLineOption grid(QStringLiteral("accum-grid"), QStringLiteral("Accumulation steps to sweep, comma-separated."),
                                  QStringLiteral("list"));
    const QCommandLineOption steps(QStringLiteral("num-steps"), QStringLiteral("Timed optimizer steps per sweep point."),
                                   QStringLiteral("n"));
    const QCommandLineOption micro(QStringLiteral("micro-batch"), QStringLiteral("Samples per micro-batch."), QStringLiteral("n"));
    const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("LibTorch intra-op threads (0 = default)."),
                                     QStringLiteral("n"));
    const QCommandLineOption exportJson(QStringLiteral("export-json"), QStringLiteral("Write accum-curve.json here after the sweep."),
                                        QStringLiteral("file"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Write a PNG of the whole window here."),
                                        QStringLiteral("file.png"));
    const QCommandLineOption quit(QStringLiteral("quit"), QStringLiteral("Exit when the autorun is done."));
    const QCommandLineOption lang(QStringLiteral("lang"), QStringLiteral("User interface language: fa or en."), QStringLiteral("code"));
    const QCommandLineOption size(QStringLiteral("window-size"), QStringLiteral("Window size, e.g. 1024x700."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption experiment(QStringLiteral("experiment"),
                                        QStringLiteral("With --autorun: run this guided experiment on its page instead of the sweep."),
                                        QStringLiteral("id"));
    const QCommandLineOption page(QStringLiteral("page"), QStringLiteral("Open this page: lab, memory or table (the lab with that tab), experiments or quiz."),
                                  QStringLiteral("name"));
    parser.addOptions({autorun, grid, steps, micro, threads, exportJson, screenshot, quit, lang, size, experiment, page});
    parser.addPositionalArgument(QStringLiteral("preset"), QStringLiteral("A lesson preset (.json) to open."), QStringLiteral("[preset]"));
    if (!parser.parse(args)) {
        *error = parser.errorText();
        return false;
    }
    auto positiveInt = [&](const QCommandLineOption &o, int &out, int min) {
        if (!parser.isSet(o))
            return true;
        bool ok = false;
        out = parser.value(o).toInt(&ok);
        if (!ok || out < min) {
            *error = QStringLiteral("--%1 takes an integer >= %2").arg(o.names().first()).arg(min);
            return false;
        }
        return true;
    };
    f.autorun = parser.isSet(autorun);
    f.quit = parser.isSet(quit);
    f.accumGrid = parser.value(grid);
    f.exportJson = parser.value(exportJson);
    f.screenshot = parser.value(screenshot);
    f.lang = parser.value(lang);
    if (!f.lang.isEmpty() && f.lang != QLatin1String("fa") && f.lang != QLatin1String("en")) {
        *error = QStringLiteral("--lang takes fa or en");
        return false;
    }
    f.experiment = parser.value(experiment);
    if (!f.experiment.isEmpty() && !findExperiment(f.experiment.toStdString())) {
        *error = QStringLiteral("--experiment: unknown id '%1' (accumlab-cli experiment list)").arg(f.experiment);
        return false;
    }
    f.page = parser.value(page);
    static const QStringList kPages = {QStringLiteral("lab"), QStringLiteral("memory"), QStringLiteral("table"),
                                       QStringLiteral("experiments"), QStringLiteral("quiz")};
    if (!f.page.isEmpty() && !kPages.contains(f.page)) {
        *error = QStringLiteral("--page takes lab, memory, table, experiments or quiz");
        return false;
    }
    if (!positiveInt(steps, f.numSteps, 1) || !positiveInt(micro, f.microBatch, 1) || !positiveInt(threads, f.threads, 0))
        return false;
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        if (wh.size() != 2 || w < 320 || h < 240) {
            *error = QStringLiteral("--window-size takes WIDTHxHEIGHT, at least 320x240");
            return false;
        }
        f.windowSize = QSize(w, h);
    }
    if (parser.positionalArguments().size() > 1) {
        *error = QStringLiteral("at most one preset file");
        return false;
    }
    if (!parser.positionalArguments().isEmpty())
        f.presetFile = parser.positionalArguments().first();
    return true;
}

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// The headless fallback: the CLI's lesson job with the flags that apply.
int runHeadlessLesson(const Flags &f)
{
    std::cerr << "accumlab: no display found (DISPLAY and WAYLAND_DISPLAY are unset); "
                 "running the lesson in the terminal instead, as accumlab-cli does.\n";
    try {
        LessonOptions o;
        if (!f.accumGrid.isEmpty())
            o.sweep.accumGrid = parseGrid(f.accumGrid.toStdString());
        if (f.numSteps > 0)
            o.sweep.numSteps = f.numSteps;
        if (f.microBatch > 0)
            o.sweep.base.microBatch = f.microBatch;
        if (f.threads >= 0)
            o.sweep.threads = f.threads;
        return runLesson(o, std::cout, std::cerr);
    } catch (const std::exception &ex) {
        std::cerr << "accumlab: error: " << ex.what() << "\n";
        return kExitBadInput;
    }
}

} // namespace

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    Flags flags;
    QString error;
    {
        QCommandLineParser probe;
        if (!parseFlags(probe, args, flags, &error)) {
            std::fprintf(stderr, "accumlab: error: %s\n", qPrintable(error));
            return kExitBadInput;
        }
    }
    const bool automated = flags.autorun || !flags.screenshot.isEmpty();
    if (!hasDisplay()) {
        if (!automated)
            return runHeadlessLesson(flags);
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AccumLab"));
    QApplication::setOrganizationDomain(QStringLiteral("accumlab.org"));
    QApplication::setApplicationName(QStringLiteral("AccumLab"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QCommandLineParser parser;
    parseFlags(parser, args, flags, &error);
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    // Language: --lang, else the stored choice, else the system locale. An interactive --lang
    // is remembered; automated runs (autorun, screenshots) leave the settings alone.
    ui::LanguageManager::instance()->initialize(flags.lang, /*persist=*/!automated);

    ui::MainWindow window(/*persistSettings=*/!automated);
    if (!flags.presetFile.isEmpty() && !window.loadPresetFile(flags.presetFile, &error)) {
        std::fprintf(stderr, "accumlab: %s\n", qPrintable(error));
        if (automated)
            return kExitBadInput;
        QMessageBox::warning(&window, QObject::tr("AccumLab"), error);
    }
    if (automated) {
        ui::Preset p = window.currentPreset();
        if (!flags.accumGrid.isEmpty())
            p.accumGrid = flags.accumGrid;
        if (flags.numSteps > 0)
            p.numSteps = flags.numSteps;
        if (flags.microBatch > 0)
            p.config.microBatch = flags.microBatch;
        if (flags.threads >= 0)
            p.threads = flags.threads;
        window.applyPreset(p);
    }
    if (flags.windowSize.isValid())
        window.resize(flags.windowSize);
    if (flags.page == QLatin1String("experiments"))
        window.showPage(ui::MainWindow::ExperimentsPage);
    else if (flags.page == QLatin1String("quiz"))
        window.showPage(ui::MainWindow::QuizPage);
    else if (flags.page == QLatin1String("memory"))
        window.tabs()->setCurrentWidget(window.memoryView());
    else if (flags.page == QLatin1String("table"))
        window.tabs()->setCurrentWidget(window.findChild<QTableWidget *>(QStringLiteral("sweepTable")));
    window.show();

    if (flags.autorun) {
        QObject::connect(&window, &ui::MainWindow::autorunFinished, &app, [&](int code) {
            if (flags.quit)
                QApplication::exit(code);
        });
        ui::AutorunOptions options{flags.exportJson, flags.screenshot, flags.experiment};
        QTimer::singleShot(kAutorunStartDelayMs, &window, [&window, options] { window.startAutorun(options); });
    } else if (!flags.screenshot.isEmpty()) {
        // Screenshot without a sweep: the window as it opens, after the first layout.
        QTimer::singleShot(500, &window, [&] {
            const bool ok = window.saveScreenshot(flags.screenshot, &error);
            if (!ok)
                std::fprintf(stderr, "accumlab: %s\n", qPrintable(error));
            if (flags.quit)
                QApplication::exit(ok ? 0 : 1);
        });
    }
    return app.exec();
}
