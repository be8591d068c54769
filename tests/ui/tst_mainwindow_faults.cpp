// The window under bad input and faults: its controls cannot produce an invalid setting and
// the one free-text field is refused in words; importing an accum-curve.json (ours or the lesson's)
// overlays it on the throughput chart, and a file the reader refuses leaves the chart as it
// was with the reason in words; a corrupt or outdated settings file, or a preset with numbers
// no control could produce, falls back to the defaults.
#include "ui/enginecontroller.h"
#include "ui/mainwindow.h"
#include "ui/preset.h"
#include "ui/throughputchart.h"

#include "core/export.h"

#include <QAction>
#include <QElapsedTimer>
#include <QComboBox>
#include <QLineEdit>
#include <QLineSeries>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QString corpusFile(const char *name)
{
    return qEnvironmentVariable("ACCUMLAB_SOURCE_DIR") + QStringLiteral("/tests/fuzz/corpus/") + QLatin1String(name);
}

QList<QLineSeries *> importedSeries(MainWindow &w)
{
    QList<QLineSeries *> found;
    for (QAbstractSeries *s : w.findChild<ThroughputChart *>(QStringLiteral("throughputChart"))->chart()->series())
        if (s->name().contains(QStringLiteral("imported")))
            found << static_cast<QLineSeries *>(s);
    return found;
}

QList<int> sliderValues(const MainWindow &w)
{
    QList<int> values;
    for (const char *name : {"microBatchSlider", "accumStepsSlider"})
        values << w.findChild<QSlider *>(QLatin1String(name))->value();
    return values;
}

} // namespace

class TestMainWindowFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("AccumLab"));
        QCoreApplication::setApplicationName(QStringLiteral("AccumLabFaultsTest"));
        // Our own export, written by core from a real (small) sweep.
        SweepConfig s;
        s.base.preset = ModelPreset::Fixture;
        s.base.device = DeviceRequest::Cpu;
        s.accumGrid = {1, 2, 4};
        s.numSteps = 2;
        s.warmupSteps = 0;
        QVERIFY(m_dir.isValid());
        writeFileAtomic(m_dir.filePath(QStringLiteral("ours.json")).toStdString(), curveJson(runSweep(s)).dump(2));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("a-folder.json"))));
    }

    void importGoodFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("ours") << m_dir.filePath(QStringLiteral("ours.json"));
        QTest::newRow("the lesson's eight fields") << corpusFile("good-lesson-8-fields.json");
        QTest::newRow("with a diverged point") << corpusFile("good-diverged-point.json");
    }
    void importGoodFile()
    {
        QFETCH(QString, path);
        MainWindow w(false);
        QVERIFY(importedSeries(w).isEmpty());
        QVERIFY2(w.importCurve(path), qPrintable(w.lastError()));
        const QList<QLineSeries *> series = importedSeries(w);
        QCOMPARE(series.size(), 1);
        QVERIFY(series[0]->name().contains(QFileInfo(path).fileName()));
        // The series holds the file's points, read independently here with core's reader.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        std::vector<SweepPoint> expected = parseCurveJson(f.readAll().toStdString()).points;
        std::sort(expected.begin(), expected.end(),
                  [](const SweepPoint &a, const SweepPoint &b) { return a.effectiveBatch < b.effectiveBatch; });
        const QList<QPointF> got = series[0]->points();
        QCOMPARE(got.size(), qsizetype(expected.size()));
        for (qsizetype i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].x(), double(expected[size_t(i)].effectiveBatch));
            QCOMPARE(got[i].y(), expected[size_t(i)].samplesPerSec);
        }
        QVERIFY(w.statusBar()->currentMessage().contains(QFileInfo(path).fileName()));
        // A second file overlays beside the first.
        QVERIFY(w.importCurve(corpusFile("good-two-ranks.json")));
        QCOMPARE(importedSeries(w).size(), 2);
    }

    void importBadFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("reason"); // part of the sentence the user reads
        QTest::newRow("identity broken") << corpusFile("bad-identity.json") << "micro_batch x accum_steps";
        QTest::newRow("truncated") << corpusFile("bad-truncated.json") << "not valid JSON";
        QTest::newRow("wrong schema") << corpusFile("bad-wrong-schema.json") << "schema";
        QTest::newRow("string speed") << corpusFile("bad-string-speed.json") << "samples_per_sec";
        QTest::newRow("missing file") << m_dir.filePath(QStringLiteral("nothing-here.json")) << "";
        QTest::newRow("a folder") << m_dir.filePath(QStringLiteral("a-folder.json")) << "";
    }
    void importBadFile()
    {
        QFETCH(QString, path);
        QFETCH(QString, reason);
        MainWindow w(false);
        QVERIFY(w.importCurve(m_dir.filePath(QStringLiteral("ours.json"))));
        QVERIFY(!w.importCurve(path));
        QCOMPARE(importedSeries(w).size(), 1); // no series added for the bad file
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Could not import ") + QFileInfo(path).fileName() + ": "),
                 qPrintable(message));
        QCOMPARE(w.lastError(), message);
        QVERIFY2(message.size() > QStringLiteral("Could not import : ").size() + QFileInfo(path).fileName().size(),
                 qPrintable(message)); // a reason follows
        QVERIFY2(message.contains(reason), qPrintable(message));
    }

    // The controls cannot produce an invalid configuration: every slider and spin box at its
    // minimum and at its maximum, for each model, still passes core's validate().
    void controlsStayValidAtTheirLimits()
    {
        MainWindow w(false);
        auto *model = w.findChild<QComboBox *>(QStringLiteral("modelCombo"));
        QVERIFY(model && model->count() > 0);
        const QList<QAbstractSlider *> sliders = w.findChildren<QAbstractSlider *>(QRegularExpression(QStringLiteral("Slider$")));
        const QList<QSpinBox *> spins = w.findChildren<QSpinBox *>(QRegularExpression(QStringLiteral("Spin$")));
        QVERIFY(sliders.size() >= 4 && spins.size() >= 2);
        for (int m = 0; m < model->count(); ++m) {
            model->setCurrentIndex(m);
            for (const bool atMax : {false, true}) {
                for (QAbstractSlider *slider : sliders)
                    slider->setValue(atMax ? slider->maximum() : slider->minimum());
                for (QSpinBox *spin : spins)
                    spin->setValue(atMax ? spin->maximum() : spin->minimum());
                const Preset p = w.currentPreset();
                try {
                    validate(p.config);
                } catch (const ConfigError &e) {
                    QFAIL(qPrintable(QStringLiteral("model %1, controls at %2: %3")
                                         .arg(model->currentText(), atMax ? QStringLiteral("max") : QStringLiteral("min"),
                                              QString::fromUtf8(e.what()))));
                }
            }
        }
    }

    // The one free-text control, the sweep grid: a malformed grid is refused with a message in
    // the window, no sweep starts, and the controls stay usable.
    void malformedGridIsRefusedInTheWindow_data()
    {
        QTest::addColumn<QString>("grid");
        QTest::newRow("empty entry") << QStringLiteral("1,,4");
        QTest::newRow("word") << QStringLiteral("1,two");
        QTest::newRow("zero") << QStringLiteral("0");
        QTest::newRow("huge") << QStringLiteral("1000000");
        QTest::newRow("blank") << QStringLiteral(" ");
    }
    void malformedGridIsRefusedInTheWindow()
    {
        QFETCH(QString, grid);
        MainWindow w(false);
        w.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(grid);
        QAction *sweep = w.findChild<QAction *>(QStringLiteral("sweepAction"));
        QVERIFY(sweep && sweep->isEnabled());
        sweep->trigger();
        QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("The sweep settings are invalid: ")),
                 qPrintable(w.statusBar()->currentMessage()));
        QCOMPARE(w.lastError(), w.statusBar()->currentMessage());
        QVERIFY(!w.controller()->isSweepRunning());
        QVERIFY(sweep->isEnabled());
        QVERIFY(w.findChild<QSlider *>(QStringLiteral("microBatchSlider"))->isEnabled());
        // Corrected, the same window runs the sweep.
        w.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2"));
        w.findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(2);
        QSignalSpy finished(&w, &MainWindow::sweepFinished);
        sweep->trigger();
        QVERIFY(finished.wait(60'000));
        QVERIFY(w.lastSweep().has_value());
        QCOMPARE(w.lastSweep()->points.size(), size_t(2));
    }

    // Closing the window in the middle of a long sweep: the window and its worker thread are
    // gone within a second, and a new window runs a sweep to the end.
    void closeMidRunThenRunAgain()
    {
        auto *w = new MainWindow(false);
        w->findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2,4,8,16"));
        w->findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(w->findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->maximum());
        w->show();
        QSignalSpy started(w->controller(), &EngineController::sweepPointStarted);
        QString error;
        QVERIFY2(w->runSweep(&error), qPrintable(error));
        QVERIFY(started.wait(30'000));
        QTest::qWait(100); // inside the first point's timed steps
        QElapsedTimer clock;
        clock.start();
        QVERIFY(w->close());
        delete w; // the controller cancels, quits and joins the worker thread
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));

        MainWindow again(false);
        again.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2"));
        again.findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(2);
        QSignalSpy finished(&again, &MainWindow::sweepFinished);
        QVERIFY(again.runSweep(&error));
        QVERIFY(finished.wait(60'000));
        QCOMPARE(again.lastSweep()->points.size(), size_t(2));
    }

    // A preset (a file from the command line, or the saved session) with numbers no control
    // could produce is refused in a sentence, never converted out of range.
    void presetRefusesImpossibleNumbers_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("micro 1e300") << QStringLiteral("\"micro_batch\": 1e300");
        QTest::newRow("micro -1e300") << QStringLiteral("\"micro_batch\": -1e300");
        QTest::newRow("accum 2.5") << QStringLiteral("\"accum_steps\": 2.5");
        QTest::newRow("seed -1") << QStringLiteral("\"seed\": -1");
        QTest::newRow("seed 1e300") << QStringLiteral("\"seed\": 1e300");
        QTest::newRow("pace 1e20") << QStringLiteral("\"pace\": 1e20");
    }
    void presetRefusesImpossibleNumbers()
    {
        QFETCH(QString, field);
        const QByteArray json = QStringLiteral("{\"schema\": \"accumlab-preset.v1\", %1}").arg(field).toUtf8();
        QString error;
        QVERIFY(!presetFromJson(json, &error).has_value());
        QVERIFY2(error.contains(QStringLiteral("invalid setting")), qPrintable(error));
        // The same preset as the saved session: the window starts at its defaults.
        const QList<int> defaults = sliderValues(MainWindow(false));
        QSettings().setValue(QStringLiteral("session/preset"), QString::fromUtf8(json));
        QSettings().sync();
        MainWindow w(true);
        QCOMPARE(sliderValues(w), defaults);
        QFile::remove(QSettings().fileName());
    }

    // Garbage where the settings file was, or a preset saved by an older AccumLab: the window
    // starts with the defaults (those of a window that reads no settings at all).
    void corruptSettingsFallBackToDefaults_data()
    {
        QTest::addColumn<QByteArray>("content");
        static const char garbage[] = "\x00\xff\xfe[[[=\n\x01garbage";
        QTest::newRow("binary garbage") << QByteArray(garbage, sizeof garbage - 1);
        QTest::newRow("truncated ini") << QByteArray("[session]\npreset=\"{\\\"schema\\\": \\\"accumlab-pre");
        QTest::newRow("outdated preset schema")
            << QByteArray("[session]\npreset=\"{\\\"schema\\\": \\\"accumlab-preset.v0\\\", \\\"micro_batch\\\": 32}\"\n");
        QTest::newRow("geometry garbage") << QByteArray("[session]\ngeometry=@ByteArray(not a geometry)\n");
    }
    void corruptSettingsFallBackToDefaults()
    {
        QFETCH(QByteArray, content);
        const QList<int> defaults = sliderValues(MainWindow(false));
        const QString path = QSettings().fileName();
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(content);
        }
        MainWindow w(true);
        QCOMPARE(sliderValues(w), defaults);
        QVERIFY(w.width() > 0 && w.height() > 0);
        QFile::remove(path);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestMainWindowFaults)
#include "tst_mainwindow_faults.moc"
