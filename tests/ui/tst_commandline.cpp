// The desktop app's command line (app/gui/commandline.h): every lesson flag presets the
// window's controls as given (read back from a real ControlPanel), reaches the terminal
// lesson the same way, and a value the controls would clamp or snap is refused in words.
// --no-write and the scripted runs keep no setting, the language included.
#include "app/gui/commandline.h"

#include "ui/panels/controlpanel.h"
#include "ui/session/preset.h"

#include "core/lesson.h"
#include "core/sweep.h"

#include <QtTest>

using namespace accumlab;

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void presetsTheControls_data();
    void presetsTheControls();
    void refused_data();
    void refused();
    void refusedValuesWouldBeChangedByTheControls_data();
    void refusedValuesWouldBeChangedByTheControls();
    void headlessLessonTakesTheFlags();
    void helpOrVersion_data();
    void helpOrVersion();
    void keepsSettingsOnlyWhenAllowed_data();
    void keepsSettingsOnlyWhenAllowed();
};

namespace {

// Words split at spaces; '' is an empty argument (as a shell passes "").
QStringList argv(const QString &line)
{
    QStringList words = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (QString &w : words)
        if (w == QLatin1String("''"))
            w.clear();
    return QStringList{QStringLiteral("accumlab")} + words;
}

bool parse(const QString &line, gui::Flags &flags, QString *error)
{
    QCommandLineParser parser;
    return gui::parseFlags(parser, argv(line), flags, error);
}

// The preset a ControlPanel shows after the flags were applied over the defaults.
ui::Preset shownBy(const ui::Preset &preset)
{
    ui::ControlPanel panel;
    panel.setPreset(preset);
    return panel.preset();
}

} // namespace

void TestCommandLine::presetsTheControls_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("micro-batch") << "--micro-batch 8" << "microBatch" << "8";
    QTest::newRow("micro-batch max") << "--micro-batch 128" << "microBatch" << "128";
    QTest::newRow("seed") << "--seed 42" << "seed" << "42";
    QTest::newRow("seed max") << "--seed 1000000" << "seed" << "1000000";
    QTest::newRow("lr") << "--lr 0.1" << "lr" << "0.1";
    QTest::newRow("lr smallest") << "--lr 1e-4" << "lr" << "0.0001";
    QTest::newRow("accum-grid") << "--accum-grid 1,2,4" << "accumGrid" << "1,2,4";
    QTest::newRow("num-steps") << "--num-steps 7" << "numSteps" << "7";
    QTest::newRow("threads") << "--threads 1" << "threads" << "1";
    QTest::newRow("with --no-write") << "--no-write --num-steps 9" << "numSteps" << "9";
    QTest::newRow("leading zero is decimal") << "--micro-batch 010" << "microBatch" << "10";
}

void TestCommandLine::presetsTheControls()
{
    QFETCH(QString, line);
    QFETCH(QString, field);
    QFETCH(QString, expected);
    gui::Flags flags;
    QString error;
    QVERIFY2(parse(line, flags, &error), qPrintable(error));
    QVERIFY2(gui::fitsTheControls(flags, &error), qPrintable(error));
    QVERIFY(gui::presetsControls(flags));
    ui::Preset p;
    gui::presetFromFlags(flags, p);
    const ui::Preset shown = shownBy(p);
    const QHash<QString, QString> values = {
        {QStringLiteral("microBatch"), QString::number(shown.run.microBatch)},
        {QStringLiteral("seed"), QString::number(shown.run.seed)},
        {QStringLiteral("lr"), QString::number(shown.run.optimizer.lr, 'g', 10)},
        {QStringLiteral("accumGrid"), shown.accumGrid},
        {QStringLiteral("numSteps"), QString::number(shown.numSteps)},
        {QStringLiteral("threads"), QString::number(shown.threads)},
    };
    QCOMPARE(values.value(field), expected);
}

void TestCommandLine::refused_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("reason");
    QTest::newRow("lr off the slider") << "--lr 0.03" << "not on the window's slider";
    QTest::newRow("lr negative") << "--lr -1" << "--lr takes a positive number";
    QTest::newRow("lr nan") << "--lr nan" << "--lr takes a positive number";
    QTest::newRow("lr inf") << "--lr inf" << "--lr takes a positive number";
    QTest::newRow("micro-batch beyond the slider") << "--micro-batch 200" << "beyond the window's control";
    QTest::newRow("micro-batch zero") << "--micro-batch 0" << "--micro-batch takes an integer >= 1";
    QTest::newRow("seed beyond the box") << "--seed 2000000" << "beyond the window's control";
    QTest::newRow("seed negative") << "--seed -3" << "--seed takes a whole number";
    QTest::newRow("seed hex") << "--seed 0x10" << "--seed takes a whole number";
    QTest::newRow("num-steps beyond the box") << "--num-steps 20000" << "beyond the window's control";
    QTest::newRow("no-write and export") << "--no-write --export-json a.json" << "contradict";
    QTest::newRow("unknown flag") << "--bogus" << "Unknown option";
    QTest::newRow("window too large") << "--window-size 100000x100000" << "from 320x240 to 8192x8192";
    QTest::newRow("window too small") << "--window-size 100x100" << "from 320x240 to 8192x8192";
    QTest::newRow("window hex") << "--window-size 0x400x300" << "from 320x240 to 8192x8192";
    QTest::newRow("zoom past 3x") << "--zoom 8" << "--zoom takes a whole number from -4 to 7";
    QTest::newRow("zoom below 0.6x") << "--zoom -5" << "--zoom takes a whole number from -4 to 7";
    QTest::newRow("zoom fraction") << "--zoom 1.5" << "--zoom takes a whole number from -4 to 7";
    // Outputs named by nothing, and --quit with nothing to end (issue 60, N13: these never
    // exited, or wrote nothing without a word).
    QTest::newRow("export-json empty") << "--autorun --export-json '' --quit" << "--export-json needs a file name";
    QTest::newRow("screenshot empty") << "--screenshot '' --quit" << "--screenshot needs a file name";
    QTest::newRow("quit alone") << "--quit" << "--quit exits when a scripted run is done";
    QTest::newRow("quit with a preset only") << "--num-steps 7 --quit" << "--quit exits when a scripted run is done";
}

void TestCommandLine::refused()
{
    QFETCH(QString, line);
    QFETCH(QString, reason);
    gui::Flags flags;
    QString error;
    const bool ok = parse(line, flags, &error) && gui::fitsTheControls(flags, &error);
    QVERIFY2(!ok, qPrintable(line));
    QVERIFY2(error.contains(reason), qPrintable(error));
}

// The refusal is not pedantry: each of these values, let through, would be shown as another one.
void TestCommandLine::refusedValuesWouldBeChangedByTheControls_data()
{
    QTest::addColumn<QString>("line");
    QTest::newRow("lr 0.03") << "--lr 0.03";
    QTest::newRow("micro-batch 200") << "--micro-batch 200";
    QTest::newRow("seed 2000000") << "--seed 2000000";
    QTest::newRow("num-steps 20000") << "--num-steps 20000";
}

void TestCommandLine::refusedValuesWouldBeChangedByTheControls()
{
    QFETCH(QString, line);
    gui::Flags flags;
    QString error;
    QVERIFY2(parse(line, flags, &error), qPrintable(error));
    QVERIFY(!gui::fitsTheControls(flags, &error));
    ui::Preset asked;
    gui::presetFromFlags(flags, asked);
    const ui::Preset shown = shownBy(asked);
    const bool changed = shown.run.optimizer.lr != asked.run.optimizer.lr ||
                         shown.run.microBatch != asked.run.microBatch || shown.run.seed != asked.run.seed ||
                         shown.numSteps != asked.numSteps;
    QVERIFY2(changed, qPrintable(line + QStringLiteral(" is shown as given: the refusal would be needless")));
}

void TestCommandLine::headlessLessonTakesTheFlags()
{
    gui::Flags flags;
    QString error;
    QVERIFY2(parse(QStringLiteral("--no-write --accum-grid 1,3 --num-steps 4 --micro-batch 2 --seed 9 --lr 0.03 --threads 1"),
                   flags, &error),
             qPrintable(error));
    const LessonOptions o = gui::headlessLessonOptions(flags);
    QCOMPARE(o.write, false);
    QCOMPARE(o.sweep.accumGrid, (std::vector<int64_t>{1, 3}));
    QCOMPARE(o.sweep.numSteps, int64_t(4));
    QCOMPARE(o.sweep.base.microBatch, int64_t(2));
    QCOMPARE(o.sweep.base.seed, uint64_t(9));
    QCOMPARE(o.sweep.base.optimizer.lr, 0.03); // the terminal lesson takes any rate
    QCOMPARE(o.sweep.threads, 1);
    // The window's sweep: --num-steps is what the largest accum_steps runs, in as many blocks.
    QVERIFY(o.sweep.equalWork);
    QCOMPARE(o.sweep.repeats, kLabSweepBlocks);
    QCOMPARE(o.sweep.stepsAt(1), int64_t(12));

    gui::Flags writes;
    QVERIFY(parse(QString(), writes, &error));
    QCOMPARE(gui::headlessLessonOptions(writes).write, true);
    QCOMPARE(gui::headlessLessonOptions(writes).sweep.numSteps, int64_t(ui::Preset{}.numSteps));
    QVERIFY(!gui::presetsControls(writes));
}

void TestCommandLine::helpOrVersion_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("expected");
    QTest::newRow("--help") << "--help" << true;
    QTest::newRow("-h after flags") << "--lang fa -h" << true;
    QTest::newRow("--version") << "--version" << true;
    QTest::newRow("-v") << "-v" << true;
    QTest::newRow("--help-all") << "--help-all" << true;
    QTest::newRow("none") << "--no-write --seed 3" << false;
    QTest::newRow("a preset named like a flag") << "--helpful.json" << false;
}

void TestCommandLine::helpOrVersion()
{
    QFETCH(QString, line);
    QFETCH(bool, expected);
    QCOMPARE(gui::wantsHelpOrVersion(argv(line)), expected);
}

void TestCommandLine::keepsSettingsOnlyWhenAllowed_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("automated");
    QTest::addColumn<bool>("persists");
    QTest::newRow("a plain start") << "" << false << true;
    QTest::newRow("--lang fa") << "--lang fa" << false << true;
    QTest::newRow("--no-write --lang fa") << "--no-write --lang fa" << false << false;
    QTest::newRow("--no-write") << "--no-write" << false << false;
    QTest::newRow("--autorun") << "--autorun" << true << false;
    QTest::newRow("--screenshot") << "--screenshot a.png" << true << false;
    QTest::newRow("--autorun --lang fa") << "--autorun --lang fa" << true << false;
    // Scripted: its runs start by themselves and --quit ends the program after them.
    QTest::newRow("--memory-run demo") << "--memory-run demo" << true << false;
}

// main() hands persistsSettings() to the language and to the window alike: a --no-write run
// once remembered its --lang for the next start.
void TestCommandLine::keepsSettingsOnlyWhenAllowed()
{
    QFETCH(QString, line);
    QFETCH(bool, automated);
    QFETCH(bool, persists);
    gui::Flags flags;
    QString error;
    QVERIFY2(parse(line, flags, &error), qPrintable(error));
    QCOMPARE(gui::automated(flags), automated);
    QCOMPARE(gui::persistsSettings(flags), persists);
}

QTEST_MAIN(TestCommandLine)
#include "tst_commandline.moc"
