// The desktop app's command line (commandline.h).
#include "app/gui/commandline.h"

#include "ui/panels/controlpanel.h"
#include "ui/language.h"
#include "ui/session/preset.h"

#include "core/config.h"
#include "core/experiments/experiments.h"
#include "core/sweep.h"

#include <algorithm>
#include <cmath>

namespace accumlab::gui {

bool parseFlags(QCommandLineParser &parser, const QStringList &args, Flags &f, QString *error)
{
    parser.setApplicationDescription(QStringLiteral("AccumLab: gradient accumulation on real tensors"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption autorun(QStringLiteral("autorun"), QStringLiteral("Run the sweep with the window attached."));
    const QCommandLineOption grid(QStringLiteral("accum-grid"), QStringLiteral("Accumulation steps to sweep, comma-separated."),
                                  QStringLiteral("list"));
    const QCommandLineOption steps(QStringLiteral("num-steps"), QStringLiteral("Timed optimizer steps of the grid's largest accum_steps (every point does the same work)."),
                                   QStringLiteral("n"));
    const QCommandLineOption micro(QStringLiteral("micro-batch"), QStringLiteral("Samples per micro-batch."), QStringLiteral("n"));
    const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("LibTorch intra-op threads (0 = automatic: one thread for a micro-batch too small to split, else LibTorch's default)."),
                                     QStringLiteral("n"));
    const QCommandLineOption exportJson(QStringLiteral("export-json"), QStringLiteral("Write accum-curve.json here after the sweep."),
                                        QStringLiteral("file"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Write a PNG of the whole window here."),
                                        QStringLiteral("file.png"));
    const QCommandLineOption quit(QStringLiteral("quit"), QStringLiteral("Exit when the autorun is done."));
    const QCommandLineOption lang(QStringLiteral("lang"), QStringLiteral("User interface language: %1.").arg(ui::LanguageManager::languages().join(QStringLiteral(", "))), QStringLiteral("code"));
    const QCommandLineOption size(QStringLiteral("window-size"), QStringLiteral("Window size, e.g. 1024x700."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption experiment(QStringLiteral("experiment"),
                                        QStringLiteral("With --autorun: run this guided experiment on its page instead of the sweep."),
                                        QStringLiteral("id"));
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed for model and data."), QStringLiteral("n"));
    const QCommandLineOption lr(QStringLiteral("lr"), QStringLiteral("Learning rate (the window offers the 1-2-5 series from 0.0001 to 1)."),
                                QStringLiteral("x"));
    const QCommandLineOption noWrite(QStringLiteral("no-write"),
                                     QStringLiteral("Write nothing: no exports from the terminal lesson or an autorun, no saved settings."));
    const QCommandLineOption page(QStringLiteral("page"), QStringLiteral("Open this page: lab, memory, table or code (the lab with that tab), experiments or quiz."),
                                  QStringLiteral("name"));
    const QCommandLineOption memoryRun(QStringLiteral("memory-run"),
                                       QStringLiteral("With --screenshot: on the Memory tab, run these in order before the "
                                                      "picture: demo, tradeoff, finder (comma-separated)."),
                                       QStringLiteral("list"));
    const QCommandLineOption zoom(QStringLiteral("zoom"),
                                  QStringLiteral("Start zoomed in by this many presses of Ctrl+= (-4 to 7; negative: Ctrl+-)."),
                                  QStringLiteral("n"));
    const QCommandLineOption classroom(QStringLiteral("classroom"), QStringLiteral("Start in classroom mode."));
    const QCommandLineOption lesson(QStringLiteral("lesson"),
                                    QStringLiteral("Open the lesson's column (a window narrower than 1400 pixels opens without it)."));
    parser.addOptions({autorun, grid, steps, micro, threads, seed, lr, noWrite, exportJson, screenshot, quit, lang, size,
                       experiment, page, memoryRun, zoom, classroom, lesson});
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
    // An output named by nothing: once `--export-json ""` wrote nothing without a word, and
    // `--screenshot "" --quit` left a window that never closed.
    for (const QCommandLineOption *o : {&exportJson, &screenshot})
        if (parser.isSet(*o) && parser.value(*o).isEmpty()) {
            *error = QStringLiteral("--%1 needs a file name, got ''").arg(o->names().first());
            return false;
        }
    f.lang = parser.value(lang);
    bool knownLanguage = false;
    ui::LanguageManager::fromCode(f.lang, &knownLanguage);
    if (!f.lang.isEmpty() && !knownLanguage) {
        *error = QStringLiteral("--lang takes one of: %1").arg(ui::LanguageManager::languages().join(QStringLiteral(", ")));
        return false;
    }
    f.experiment = parser.value(experiment);
    if (!f.experiment.isEmpty() && !findExperiment(f.experiment.toStdString())) {
        *error = QStringLiteral("--experiment: unknown id '%1' (accumlab-cli experiment list)").arg(f.experiment);
        return false;
    }
    f.page = parser.value(page);
    static const QStringList kPages = {QStringLiteral("lab"),         QStringLiteral("memory"), QStringLiteral("table"),
                                       QStringLiteral("code"),        QStringLiteral("experiments"),
                                       QStringLiteral("quiz")};
    if (!f.page.isEmpty() && !kPages.contains(f.page)) {
        *error = QStringLiteral("--page takes lab, memory, table, code, experiments or quiz");
        return false;
    }
    if (parser.isSet(memoryRun)) {
        f.memoryRuns = parser.value(memoryRun).split(QLatin1Char(','), Qt::SkipEmptyParts);
        static const QStringList kRuns = {QStringLiteral("demo"), QStringLiteral("tradeoff"), QStringLiteral("finder")};
        for (const QString &r : f.memoryRuns)
            if (!kRuns.contains(r)) {
                *error = QStringLiteral("--memory-run takes demo, tradeoff and finder, comma-separated");
                return false;
            }
    }
    if (!positiveInt(steps, f.numSteps, 1) || !positiveInt(micro, f.microBatch, 1) || !positiveInt(threads, f.threads, 0))
        return false;
    if (parser.isSet(seed)) {
        bool ok = false;
        const qulonglong v = parser.value(seed).toULongLong(&ok, 10);
        if (!ok) {
            *error = QStringLiteral("--seed takes a whole number >= 0");
            return false;
        }
        f.seed = v;
    }
    if (parser.isSet(lr)) {
        bool ok = false;
        const double v = parser.value(lr).toDouble(&ok);
        if (!ok || !std::isfinite(v) || v <= 0.0) {
            *error = QStringLiteral("--lr takes a positive number");
            return false;
        }
        f.lr = v;
    }
    f.noWrite = parser.isSet(noWrite);
    if (f.noWrite && !f.exportJson.isEmpty()) {
        *error = QStringLiteral("--no-write and --export-json contradict each other");
        return false;
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
        // At most 8192 a side: the screenshot of a larger window would not fit a QImage's limits.
        constexpr int kMaxSide = 8192;
        if (wh.size() != 2 || w < 320 || h < 240 || w > kMaxSide || h > kMaxSide) {
            *error = QStringLiteral("--window-size takes WIDTHxHEIGHT, from 320x240 to 8192x8192");
            return false;
        }
        f.windowSize = QSize(w, h);
    }
    if (parser.isSet(zoom)) {
        bool ok = false;
        const int n = parser.value(zoom).toInt(&ok);
        // The window's zoom runs from 0.6 to 3 times the normal size: 1.15^-4 to 1.15^7.
        if (!ok || n < -4 || n > 7) {
            *error = QStringLiteral("--zoom takes a whole number from -4 to 7");
            return false;
        }
        f.zoomSteps = n;
    }
    f.classroom = parser.isSet(classroom);
    f.lesson = parser.isSet(lesson);
    // --quit ends a scripted run; alone it once left a window that waited for ever.
    if (f.quit && !automated(f)) {
        *error = QStringLiteral("--quit exits when a scripted run is done: give it --autorun, --screenshot or --memory-run");
        return false;
    }
    if (parser.positionalArguments().size() > 1) {
        *error = QStringLiteral("at most one preset file");
        return false;
    }
    if (!parser.positionalArguments().isEmpty())
        f.presetFile = parser.positionalArguments().first();
    return true;
}

bool wantsHelpOrVersion(const QStringList &args)
{
    static const QStringList kFlags = {QStringLiteral("--help"), QStringLiteral("-h"), QStringLiteral("--help-all"),
                                       QStringLiteral("-?"), QStringLiteral("--version"), QStringLiteral("-v")};
    return std::any_of(args.begin() + std::min<qsizetype>(1, args.size()), args.end(),
                       [](const QString &a) { return kFlags.contains(a); });
}

bool fitsTheControls(const Flags &f, QString *error)
{
    const ui::ControlLimits l = ui::ControlPanel::limits();
    auto above = [&](const char *flag, qint64 value, qint64 max) {
        if (value <= max)
            return false;
        *error = QStringLiteral("%1 %2 is beyond the window's control (at most %3); accumlab-cli takes it")
                     .arg(QLatin1String(flag))
                     .arg(value)
                     .arg(max);
        return true;
    };
    if (above("--micro-batch", f.microBatch, l.maxMicroBatch) || above("--num-steps", f.numSteps, l.maxNumSteps) ||
        (f.seed && above("--seed", qint64(std::min<uint64_t>(*f.seed, uint64_t(INT64_MAX))), l.maxSeed)))
        return false;
    if (f.lr) {
        const bool offered = std::any_of(l.learningRates.begin(), l.learningRates.end(),
                                         [&](double stop) { return std::abs(stop - *f.lr) <= 1e-9 * stop; });
        if (!offered) {
            QStringList stops;
            for (double stop : l.learningRates)
                stops << QString::number(stop, 'g', 6);
            *error = QStringLiteral("--lr %1 is not on the window's slider (%2); accumlab-cli takes any rate")
                         .arg(QString::number(*f.lr, 'g', 10), stops.join(QStringLiteral(", ")));
            return false;
        }
    }
    return true;
}

void presetFromFlags(const Flags &f, ui::Preset &p)
{
    if (!f.accumGrid.isEmpty())
        p.accumGrid = f.accumGrid;
    if (f.numSteps > 0)
        p.numSteps = f.numSteps;
    if (f.microBatch > 0)
        p.run.microBatch = f.microBatch;
    if (f.threads >= 0)
        p.threads = f.threads;
    if (f.seed)
        p.run.seed = *f.seed;
    if (f.lr)
        p.run.optimizer.lr = *f.lr;
}

// --memory-run alone is scripted too: its runs start by themselves and --quit ends it after them
// (it used to open an idle window that never quit).
bool automated(const Flags &f) { return f.autorun || !f.screenshot.isEmpty() || !f.memoryRuns.isEmpty(); }

bool persistsSettings(const Flags &f) { return !automated(f) && !f.noWrite; }

bool presetsControls(const Flags &f)
{
    return !f.accumGrid.isEmpty() || f.numSteps > 0 || f.microBatch > 0 || f.threads >= 0 || f.seed || f.lr;
}

LessonOptions headlessLessonOptions(const Flags &f)
{
    LessonOptions o;
    if (!f.accumGrid.isEmpty())
        o.sweep.accumGrid = parseGrid(f.accumGrid.toStdString());
    // The window's sweep, its defaults included: --num-steps means what it means there.
    o.sweep.numSteps = f.numSteps > 0 ? f.numSteps : ui::Preset{}.numSteps;
    if (f.microBatch > 0)
        o.sweep.base.microBatch = f.microBatch;
    if (f.threads >= 0)
        o.sweep.threads = f.threads;
    if (f.seed)
        o.sweep.base.seed = *f.seed;
    if (f.lr)
        o.sweep.base.optimizer.lr = *f.lr;
    o.write = !f.noWrite;
    useLabTiming(o.sweep);
    validate(o.sweep);
    return o;
}

} // namespace accumlab::gui
