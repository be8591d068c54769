// The built `accumlab` binary as automation uses it: --autorun writes a parseable
// accum-curve.json and a non-empty PNG of the window and exits 0; with no display it says
// so and runs the CLI's lesson instead.
#include "common.h"

#include "core/export.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace accumlab;

class TestAutorun : public QObject {
    Q_OBJECT
private slots:
    void autorunWritesJsonAndScreenshot();
    void screenshotWithoutSweep();
    void noDisplayRunsTheLesson();
    void badFlagIsBadInput();
    void pagesForScreenshots();
};

void TestAutorun::autorunWritesJsonAndScreenshot()
{
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("curve.json"));
    const QString png = dir.filePath(QStringLiteral("window.png"));
    QProcess proc;
    proc.setWorkingDirectory(dir.path());
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY),
               {QStringLiteral("--autorun"), QStringLiteral("--accum-grid"), QStringLiteral("1,2"),
                QStringLiteral("--num-steps"), QStringLiteral("3"), QStringLiteral("--export-json"), json,
                QStringLiteral("--screenshot"), png, QStringLiteral("--window-size"), QStringLiteral("1024x700"),
                QStringLiteral("--quit")});
    QVERIFY(proc.waitForFinished(60'000));
    const QByteArray out = proc.readAllStandardOutput();
    QVERIFY2(proc.exitCode() == 0, proc.readAllStandardError().constData());
    QVERIFY2(out.contains("gui-max-stall-ms: "), out.constData());

    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const CurveFile curve = parseCurveJson(f.readAll().toStdString());
    QCOMPARE(curve.points.size(), size_t(2));
    QCOMPARE(curve.points[1].accumSteps, 2);

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

void TestAutorun::noDisplayRunsTheLesson()
{
    QTemporaryDir dir;
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QLatin1String(v));
    proc.setProcessEnvironment(env);
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

void TestAutorun::badFlagIsBadInput()
{
    QProcess proc;
    proc.start(QStringLiteral(ACCUMLAB_GUI_BINARY), {QStringLiteral("--num-steps"), QStringLiteral("zero")});
    QVERIFY(proc.waitForFinished(30'000));
    QCOMPARE(proc.exitCode(), 2);
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
    QVERIFY(bad.readAllStandardError().contains("--page takes lab, memory, table, experiments or quiz"));
}

QTEST_GUILESS_MAIN(TestAutorun)
#include "tst_autorun.moc"
