// The built `accumlab` binary as automation uses it: --autorun writes a parseable
// accum-curve.json and a non-empty PNG of the window and exits 0; with no display it says
// so and runs the CLI's lesson instead.
#include "common.h"

#include "core/io/export.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace accumlab;

class TestAutorun : public QObject {
    Q_OBJECT
private slots:
    void autorunWritesJsonAndScreenshot();
    void screenshotWithoutSweep();
    void firstStartFitsTheScreen_data();
    void firstStartFitsTheScreen();
    void noDisplayRunsTheLesson();
    void noDisplayExportFailureIsWriteFailed();
    void noDisplayRefusesBadFlags_data();
    void noDisplayRefusesBadFlags();
    void badFlagIsBadInput();
    void helpAndVersionNeedNoDisplay_data();
    void helpAndVersionNeedNoDisplay();
    void noWriteWithoutDisplayWritesNothing();
    void windowTakesTheLessonFlags();
    void pagesForScreenshots();
    void experimentPrintsNoStallItDidNotMeasure();
    void settingsFileThatIsNoFile_data();
    void settingsFileThatIsNoFile();
    void noWriteKeepsNoLanguage();
};

// An autorun experiment does not arm the stall probe: it prints no gui-max-stall-ms (it used to
// print 0.0, a figure nobody measured), while the sweep above prints one with its tick count.
void TestAutorun::experimentPrintsNoStallItDidNotMeasure()
{
    QTemporaryDir dir;
    QProcess proc;
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--autorun"), QStringLiteral("--experiment"),
                                                     QStringLiteral("split-tolerance"), QStringLiteral("--quit")});
    QVERIFY(proc.waitForFinished(120'000));
    const QByteArray out = proc.readAllStandardOutput();
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY2(!out.contains("gui-max-stall-ms"), out.constData());
}

// The window's own settings file replaced by a FIFO (whose read would wait for ever), a link
// to /dev/zero (an endless read) or a folder: the window starts, says why it does not read
// them, and keeps this session's settings elsewhere. A regular file is the control: no word.
void TestAutorun::settingsFileThatIsNoFile_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("a FIFO") << "fifo";
    QTest::newRow("a link to /dev/zero") << "zero";
    QTest::newRow("a folder") << "folder";
    QTest::newRow("a regular file (control)") << "file";
}
void TestAutorun::settingsFileThatIsNoFile()
{
    QFETCH(QString, kind);
    QTemporaryDir config;
    QVERIFY(QDir().mkpath(config.filePath(QStringLiteral("AccumLab"))));
    const QString settings = config.filePath(QStringLiteral("AccumLab/AccumLab.conf"));
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(settings.toLocal8Bit().constData(), 0600), 0);
    else if (kind == QLatin1String("zero"))
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), settings));
    else if (kind == QLatin1String("folder"))
        QVERIFY(QDir().mkpath(settings));
    else {
        QFile f(settings);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("[session]\n");
    }
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
    proc.setProcessEnvironment(env);
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--screenshot"), png, QStringLiteral("--quit")});
    const bool finished = proc.waitForFinished(60'000);
    if (!finished)
        proc.kill();
    QVERIFY2(finished, "the window hung on its settings file");
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitCode() == 0, err.constData());
    QVERIFY(!QImage(png).isNull());
    QCOMPARE(err.contains("settings file"), kind != QLatin1String("file"));
    if (kind != QLatin1String("file"))
        QVERIFY2(err.contains("is not read: it is not a regular file"), err.constData());
}

void TestAutorun::autorunWritesJsonAndScreenshot()
{
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("curve.json"));
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               // A sweep long enough for the GUI-stall probe (a 5 ms timer) to tick while it runs,
               // however busy the machine: three steps of two points could end before its first tick,
               // and a probe that never ticked rightly prints no figure.
               {QStringLiteral("--autorun"), QStringLiteral("--accum-grid"), QStringLiteral("1,2,4"),
                QStringLiteral("--num-steps"), QStringLiteral("30"), QStringLiteral("--export-json"), json,
                QStringLiteral("--screenshot"), png, QStringLiteral("--window-size"), QStringLiteral("1024x700"),
                QStringLiteral("--quit")});
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray out = proc.readAllStandardOutput();
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY2(out.contains("gui-max-stall-ms: "), out.constData());
    QVERIFY2(QRegularExpression(QStringLiteral("gui-max-stall-ms: [0-9.]+ \\(over [1-9][0-9]* ticks\\)"))
                 .match(QString::fromUtf8(out))
                 .hasMatch(),
             out.constData());

    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const CurveFile curve = parseCurveJson(f.readAll().toStdString());
    QCOMPARE(curve.points.size(), size_t(3));
    QCOMPARE(curve.points[1].accumSteps, 2);
    QCOMPARE(curve.points[2].accumSteps, 4);

    QVERIFY(QFileInfo(png).size() > 0);
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1024, 700));
}

void TestAutorun::screenshotWithoutSweep()
{
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--screenshot"), png, QStringLiteral("--quit")});
    QVERIFY(proc.waitForFinished(60'000));
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY(!QImage(png).isNull());
}

// The first start (no stored geometry, no --window-size) fits the screen it opens on, from a
// projector's 1024x768 up, in both languages and on every page: the picture of the whole
// window is no larger than the screen. The screen is the offscreen platform's, sized by its
// configuration file. Planted: the fixed 1280x800 start fails the two projector rows. Zoomed in
// from the start at the screen's size (--zoom and --window-size, applied before the window is
// first shown), the window fits all the same: it took its least width with the lesson's column
// counted as hidden and opened 42-66 pixels wider than a 1024-pixel screen.
void TestAutorun::firstStartFitsTheScreen_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("page");
    QTest::addColumn<int>("zoom"); // Ctrl+= steps
    for (const QSize screen : {QSize(1024, 768), QSize(1366, 768)})
        for (const char *language : {"en", "fa"})
            for (const char *page : {"lab", "experiments", "quiz"})
                QTest::addRow("%dx%d %s %s", screen.width(), screen.height(), language, page)
                    << screen << QString::fromLatin1(language) << QString::fromLatin1(page) << 0;
    for (const QSize screen : {QSize(1024, 768), QSize(1366, 768)})
        for (const char *language : {"en", "fa"})
            QTest::addRow("%dx%d %s lab zoom 3", screen.width(), screen.height(), language)
                << screen << QString::fromLatin1(language) << QStringLiteral("lab") << 3;
    // Where the default size has room, the window takes it.
    for (const char *language : {"en", "fa"})
        QTest::addRow("1920x1080 %s lab", language) << QSize(1920, 1080) << QString::fromLatin1(language) << QStringLiteral("lab") << 0;
}

void TestAutorun::firstStartFitsTheScreen()
{
    QFETCH(QSize, screen);
    QFETCH(QString, language);
    QFETCH(QString, page);
    QFETCH(int, zoom);
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"({"screens": [{"name": "projector", "x": 0, "y": 0, "width": %1, "height": %2,
                                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                    .arg(screen.width())
                    .arg(screen.height())
                    .toUtf8());
    }
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + config);
    proc.setProcessEnvironment(env);
    QStringList args{QStringLiteral("--lang"), language, QStringLiteral("--page"), page,
                     QStringLiteral("--screenshot"), png, QStringLiteral("--quit")};
    if (zoom > 0) // at the screen's size, as the projector's screenshots are taken
        args << QStringLiteral("--zoom") << QString::number(zoom) << QStringLiteral("--window-size")
             << QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), args);
    QVERIFY(proc.waitForFinished(60'000));
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY2(image.width() <= screen.width() && image.height() <= screen.height(),
             qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen")
                            .arg(image.width())
                            .arg(image.height())
                            .arg(screen.width())
                            .arg(screen.height())));
    if (screen.width() >= 1920) // room for the default size: it is not maximised
        QCOMPARE(image.size(), QSize(1280, 800));
}

namespace {
QProcessEnvironment withoutDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(v));
    return env;
}
} // namespace

void TestAutorun::noDisplayRunsTheLesson()
{
    QTemporaryDir dir;
    QProcess proc;
    proc.setProcessEnvironment(withoutDisplay());
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               {QStringLiteral("--accum-grid"), QStringLiteral("1,2"), QStringLiteral("--num-steps"), QStringLiteral("2")});
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitCode() == 0, err.constData());
    QVERIFY2(err.contains("no display"), err.constData());
    QVERIFY(proc.readAllStandardOutput().contains("equivalence holds"));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("outputs/accum-curve.json"))));
}

// The terminal fallback reports a failed export as the CLI does: exit 4, earlier exports kept.
void TestAutorun::noDisplayExportFailureIsWriteFailed()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("outputs/accum-curve.json"))); // a folder in the file's place
    QProcess proc;
    proc.setProcessEnvironment(withoutDisplay());
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               {QStringLiteral("--accum-grid"), QStringLiteral("1,2"), QStringLiteral("--num-steps"), QStringLiteral("2")});
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitCode() == 4, err.constData());
    QVERIFY2(err.contains("accumlab: error: "), err.constData());
}

// With no display, flags the window's parser takes but the terminal lesson refuses (a
// malformed grid, a value out of range) are bad input in one line, exit 2; they aborted
// ("terminate called ... ConfigError", exit 134). A preset, which only the window can apply,
// is refused instead of being silently ignored.
void TestAutorun::noDisplayRefusesBadFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("--accum-grid 1,,2") << QStringList{"--no-write", "--accum-grid", "1,,2"};
    QTest::newRow("--accum-grid 1,2,") << QStringList{"--no-write", "--accum-grid", "1,2,"};
    QTest::newRow("--accum-grid 1000000") << QStringList{"--no-write", "--accum-grid", "1000000"};
    QTest::newRow("--threads 1025") << QStringList{"--no-write", "--threads", "1025"};
    QTest::newRow("a preset") << QStringList{"--no-write", "preset.json"};
}
void TestAutorun::noDisplayRefusesBadFlags()
{
    QFETCH(QStringList, args);
    QTemporaryDir dir;
    {
        QFile preset(dir.filePath(QStringLiteral("preset.json")));
        QVERIFY(preset.open(QIODevice::WriteOnly));
        preset.write("{\"schema\": \"accumlab-preset.v1\", \"dtype\": \"float16\", \"world_size\": 4}\n");
    }
    QProcess proc;
    proc.setProcessEnvironment(withoutDisplay());
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), args);
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray err = proc.readAllStandardError();
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QVERIFY2(proc.exitCode() == 2, err.constData());
    QVERIFY2(err.startsWith("accumlab: error: ") && err.count('\n') == 1, err.constData());
    QCOMPARE(proc.readAllStandardOutput(), QByteArray());
}

void TestAutorun::badFlagIsBadInput()
{
    QProcess proc;
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--num-steps"), QStringLiteral("zero")});
    QVERIFY(proc.waitForFinished(30'000));
    QCOMPARE(proc.exitCode(), 2);
    // OMP_NUM_THREADS, read by libgomp before main (100000000 crashed it): refused too.
    QProcess omp;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("100000000"));
    omp.setProcessEnvironment(env);
    omp.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--version")});
    QVERIFY(omp.waitForFinished(30'000));
    QCOMPARE(omp.exitStatus(), QProcess::NormalExit);
    QCOMPARE(omp.exitCode(), 2);
    QVERIFY(omp.readAllStandardError().contains("OMP_NUM_THREADS='100000000' is not a thread count"));
}

// Usage and the version print at once, with no display, and never start the lesson.
void TestAutorun::helpAndVersionNeedNoDisplay_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("--help") << QStringLiteral("--help") << QByteArray("--no-write");
    QTest::newRow("-h") << QStringLiteral("-h") << QByteArray("--accum-grid");
    QTest::newRow("--version") << QStringLiteral("--version") << QByteArray("accumlab " ACCUMLAB_EXPECTED_VERSION);
}

void TestAutorun::helpAndVersionNeedNoDisplay()
{
    QFETCH(QString, flag);
    QFETCH(QByteArray, expected);
    QTemporaryDir dir;
    QProcess proc;
    proc.setProcessEnvironment(withoutDisplay());
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {flag});
    QVERIFY(proc.waitForFinished(10'000));
    const QByteArray out = proc.readAllStandardOutput();
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(proc.exitCode() == 0, err.constData());
    QVERIFY2(out.contains(expected), out.constData());
    QVERIFY2(!err.contains("no display") && !out.contains("eff_batch"), (out + err).constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("outputs"))));
}

// The lesson's flags reach the terminal lesson: --no-write runs it and writes nothing, and the
// other flags change what it runs (the table has the grid's two points).
void TestAutorun::noWriteWithoutDisplayWritesNothing()
{
    QTemporaryDir dir;
    QProcess proc;
    proc.setProcessEnvironment(withoutDisplay());
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               {QStringLiteral("--no-write"), QStringLiteral("--accum-grid"), QStringLiteral("1,3"),
                QStringLiteral("--num-steps"), QStringLiteral("2"), QStringLiteral("--micro-batch"), QStringLiteral("2"),
                QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--lr"), QStringLiteral("0.1")});
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray out = proc.readAllStandardOutput();
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY2(out.contains("equivalence holds"), out.constData());
    // eff_batch 6 = micro 2 x accum 3: the grid and the micro-batch were taken.
    QVERIFY2(QRegularExpression(QStringLiteral("\\n\\s+6\\s+3\\s+2\\s")).match(QString::fromUtf8(out)).hasMatch(),
             out.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("outputs"))));
}

// A window accepts the same flags (--no-write included) without --autorun, and refuses a
// value its controls cannot show.
void TestAutorun::windowTakesTheLessonFlags()
{
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               {QStringLiteral("--no-write"), QStringLiteral("--micro-batch"), QStringLiteral("8"), QStringLiteral("--seed"),
                QStringLiteral("3"), QStringLiteral("--lr"), QStringLiteral("0.1"), QStringLiteral("--accum-grid"),
                QStringLiteral("1,2"), QStringLiteral("--num-steps"), QStringLiteral("5"), QStringLiteral("--screenshot"), png,
                QStringLiteral("--quit")});
    QVERIFY(proc.waitForFinished(60'000));
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY(!QImage(png).isNull());

    QProcess refused;
    refused.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
                  {QStringLiteral("--lr"), QStringLiteral("0.03"), QStringLiteral("--screenshot"), png, QStringLiteral("--quit")});
    QVERIFY(refused.waitForFinished(30'000));
    QCOMPARE(refused.exitCode(), 2);
    QVERIFY(refused.readAllStandardError().contains("not on the window's slider"));
}

// --page opens each page (and the lab's memory and table tabs) for a screenshot: each one differs
// from the lab's default view, and an unknown page is bad input.
void TestAutorun::pagesForScreenshots()
{
    QTemporaryDir dir;
    auto shoot = [&](const QString &page) {
        const QString png = dir.filePath(page + QStringLiteral(".png"));
        QProcess proc;
        proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--page"), page, QStringLiteral("--window-size"),
                                                          QStringLiteral("1024x700"), QStringLiteral("--screenshot"), png,
                                                          QStringLiteral("--quit")});
        if (!proc.waitForFinished(60'000) || proc.exitCode() != 0)
            qWarning() << page << proc.readAllStandardError();
        return QImage(png);
    };
    const QImage lab = shoot(QStringLiteral("lab"));
    QVERIFY(!lab.isNull());
    for (const char *page : {"memory", "table", "experiments", "quiz"}) {
        const QImage other = shoot(QLatin1String(page));
        QVERIFY2(!other.isNull(), page);
        QCOMPARE(other.size(), lab.size());
        QVERIFY2(other != lab, page);
    }
    QProcess bad;
    bad.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--page"), QStringLiteral("settings")});
    QVERIFY(bad.waitForFinished(30'000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("--page takes lab, memory, table, code, experiments or quiz"));
}

namespace {
// Every settings file under `config` that names a UI language.
QStringList filesKeepingALanguage(const QString &config)
{
    QStringList found;
    QDirIterator it(config, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains("language"))
            found << f.fileName();
    }
    return found;
}

// The window started as a teacher would (no --screenshot, so it stays open), killed after
// `waitMs`, or as soon as a settings file names a language when `untilKept`. Returns how long
// it ran.
qint64 startAndKill(const QString &config, const QStringList &args, int waitMs, bool untilKept)
{
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
    proc.setProcessEnvironment(env);
    QElapsedTimer clock;
    clock.start();
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), args);
    proc.waitForStarted();
    while (clock.elapsed() < waitMs && proc.state() == QProcess::Running &&
           !(untilKept && !filesKeepingALanguage(config).isEmpty()))
        QTest::qWait(50); // timed by design: another process, watched for a span; no flush reaches it
    const qint64 took = clock.elapsed();
    proc.kill();
    proc.waitForFinished();
    return took;
}
} // namespace

// --no-write keeps nothing for the next start, the --lang choice included (it once remembered
// the language while the window kept nothing else). The control: the same start without
// --no-write keeps the language; the --no-write start then runs twice as long and keeps none.
void TestAutorun::noWriteKeepsNoLanguage()
{
    QTemporaryDir kept;
    const qint64 tookMs = startAndKill(kept.path(), {QStringLiteral("--lang"), QStringLiteral("fa")}, 120'000, true);
    QVERIFY2(!filesKeepingALanguage(kept.path()).isEmpty(), "the control start kept no language");
    QTemporaryDir none;
    startAndKill(none.path(), {QStringLiteral("--no-write"), QStringLiteral("--lang"), QStringLiteral("fa")},
                 int(2 * tookMs + 1000), false);
    const QStringList files = filesKeepingALanguage(none.path());
    QVERIFY2(files.isEmpty(), qPrintable(files.join(QLatin1Char(' '))));
}

QTEST_GUILESS_MAIN(TestAutorun)
#include "tst_autorun.moc"
