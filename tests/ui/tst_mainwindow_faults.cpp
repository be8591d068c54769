// The window under bad input and faults: its controls cannot produce an invalid setting and
// the one free-text field is refused in words; importing an accum-curve.json (ours or the lesson's)
// overlays it on the throughput chart, and a file the reader refuses leaves the chart as it
// was with the reason in words; a corrupt or outdated settings file, or a preset with numbers
// no control could produce, falls back to the defaults.
#include "ui/worker/enginecontroller.h"
#include "ui/language.h"
#include "ui/mainwindow.h"
#include "ui/session/sessionfiles.h"
#include "ui/worker/sweeprunner.h"
#include "ui/statusreporter.h"
#include "ui/session/preset.h"
#include "ui/charts/throughputchart.h"

#include "core/io/export.h"

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

#include <csignal>
#include <fstream>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

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

// Switches the language as the Language menu does; LanguageChange events are delivered
// before this returns.
void switchLanguage(UiLanguage language)
{
    LanguageManager::instance()->setLanguage(language);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

// A one-point accum-curve file from the lesson's eight fields with `replace` spliced in
// (a field set to a raw JSON value) or `drop` removed.
QByteArray onePoint(const QString &drop, const QString &field = {}, const QString &raw = {})
{
    QStringList fields{QStringLiteral("\"effective_batch\":8"), QStringLiteral("\"accum_steps\":2"),
                       QStringLiteral("\"micro_batch\":4"), QStringLiteral("\"avg_loss\":2.5"),
                       QStringLiteral("\"samples_per_sec\":100"), QStringLiteral("\"median_step_ms\":1"),
                       QStringLiteral("\"sync_calls\":3"), QStringLiteral("\"steps\":3")};
    QStringList kept;
    for (const QString &f : fields) {
        const QString name = f.section(QLatin1Char('"'), 1, 1);
        if (name != drop && name != field)
            kept << f;
    }
    if (!field.isEmpty())
        kept << QStringLiteral("\"%1\":%2").arg(field, raw);
    return QStringLiteral("{\"schema\":\"accum-curve.v1\",\"points\":[{%1}]}").arg(kept.join(QLatin1Char(','))).toUtf8();
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
        QCOMPARE(::mkfifo(m_dir.filePath(QStringLiteral("a-fifo.json")).toLocal8Bit().constData(), 0600), 0);
    }

    // A test that failed in Persian leaves the next one in English.
    void cleanup()
    {
        if (LanguageManager::instance()->language() != QStringLiteral("en"))
            switchLanguage(QStringLiteral("en"));
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
        QVERIFY2(w.files()->importCurve(path), qPrintable(w.status()->lastError()));
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
        QVERIFY(w.files()->importCurve(corpusFile("good-two-ranks.json")));
        QCOMPARE(importedSeries(w).size(), 2);
    }

    void importBadFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("reason"); // part of the sentence the user reads
        QTest::newRow("identity broken") << corpusFile("bad-identity.json") << "micro_batch × accum_steps";
        QTest::newRow("truncated") << corpusFile("bad-truncated.json") << "not valid JSON";
        QTest::newRow("wrong schema") << corpusFile("bad-wrong-schema.json") << "schema";
        QTest::newRow("string speed") << corpusFile("bad-string-speed.json") << "samples_per_sec";
        QTest::newRow("missing file") << m_dir.filePath(QStringLiteral("nothing-here.json")) << "";
        QTest::newRow("a folder") << m_dir.filePath(QStringLiteral("a-folder.json")) << "not a regular file";
        // Neither may block the window or fill its memory.
        QTest::newRow("a FIFO nobody writes") << m_dir.filePath(QStringLiteral("a-fifo.json")) << "not a regular file";
        QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero") << "not a regular file";
    }
    void importBadFile()
    {
        QFETCH(QString, path);
        QFETCH(QString, reason);
        MainWindow w(false);
        QVERIFY(w.files()->importCurve(m_dir.filePath(QStringLiteral("ours.json"))));
        QVERIFY(!w.files()->importCurve(path));
        QCOMPARE(importedSeries(w).size(), 1); // no series added for the bad file
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Could not import ") + QFileInfo(path).fileName() + ": "),
                 qPrintable(message));
        QCOMPARE(w.status()->lastError(), message);
        QVERIFY2(message.size() > QStringLiteral("Could not import : ").size() + QFileInfo(path).fileName().size(),
                 qPrintable(message)); // a reason follows
        QVERIFY2(message.contains(reason), qPrintable(message));
    }

    // The reader's refusal reaches the user in the window's language: one row per reason
    // (core's CurveErrorCode) the import can meet, with the words each language must use and the
    // point and field named. A file over the size limit is refused before it is read (above).
    void importErrorsInTheUsersLanguage_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QStringList>("english");
        QTest::addColumn<QStringList>("persian");
        QTest::addColumn<QString>("field"); // named as the file spells it, in both languages
        QTest::addColumn<int>("point");     // 1-based; 0: not about one point
        const auto deep = QByteArray(R"({"schema":"accum-curve.v1","points":)") + QByteArray(200, '[') +
                          QByteArray(200, ']') + "}";
        QTest::newRow("not JSON") << QByteArray("{\"schema\":\"accum-curve.v1\",\"poi") // not raw: moc miscounts its brace
                                  << QStringList{"not valid JSON", "byte"} << QStringList{"JSON معتبری نیست", "بایت"}
                                  << QString() << 0;
        QTest::newRow("nested too deep") << deep << QStringList{"nests deeper than 64 levels"}
                                         << QStringList{"تودرتویی", "۶۴ سطح"} << QString() << 0;
        QTest::newRow("not an object") << QByteArray("[1,2]") << QStringList{"not an object", "not an accum-curve file"}
                                       << QStringList{"شیئی", "accum-curve نیست"} << QString() << 0;
        QTest::newRow("wrong schema") << QByteArray(R"({"schema":"accum-curve.v0","points":[]})")
                                      << QStringList{"schema is \"accum-curve.v0\", not \"accum-curve.v1\""}
                                      << QStringList{"schema فایل «accum-curve.v0» است، نه «accum-curve.v1»"} << QString() << 0;
        QTest::newRow("no schema") << QByteArray(R"({"points":[]})") << QStringList{"names no schema", "accum-curve.v1"}
                                   << QStringList{"schema ندارد", "accum-curve.v1"} << QString() << 0;
        QTest::newRow("no points") << QByteArray(R"({"schema":"accum-curve.v1"})") << QStringList{"no 'points' list"}
                                   << QStringList{"فهرست «points» ندارد"} << QString() << 0;
        QTest::newRow("empty points") << QByteArray(R"({"schema":"accum-curve.v1","points":[]})")
                                      << QStringList{"'points' list is empty"} << QStringList{"فهرست «points»", "خالی است"}
                                      << QString() << 0;
        QTest::newRow("second point not an object")
            << QByteArray(R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,)"
                          R"("avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1},7]})")
            << QStringList{"is not an object"} << QStringList{"شیئی با فیلد نیست"} << QString() << 2;
        QTest::newRow("missing field") << onePoint(QStringLiteral("median_step_ms")) << QStringList{"has no field"}
                                       << QStringList{"فیلد", "را ندارد"} << QStringLiteral("median_step_ms") << 1;
        QTest::newRow("non-numeric field") << onePoint({}, QStringLiteral("samples_per_sec"), QStringLiteral("\"fast\""))
                                           << QStringList{"is not a number"} << QStringList{"عدد نیست"}
                                           << QStringLiteral("samples_per_sec") << 1;
        QTest::newRow("fractional count") << onePoint({}, QStringLiteral("steps"), QStringLiteral("2.5"))
                                          << QStringList{"must be a whole number of at least 0"}
                                          << QStringList{"باید عددی صحیح و دست‌کم ۰ باشد"} << QStringLiteral("steps") << 1;
        QTest::newRow("negative value") << onePoint({}, QStringLiteral("median_step_ms"), QStringLiteral("-1"))
                                        << QStringList{"is negative"} << QStringList{"منفی است"}
                                        << QStringLiteral("median_step_ms") << 1;
        QTest::newRow("diverged not a bool") << onePoint({}, QStringLiteral("diverged"), QStringLiteral("1"))
                                             << QStringList{"neither true nor false"} << QStringList{"نه true است و نه false"}
                                             << QStringLiteral("diverged") << 1;
        QTest::newRow("losses not a list") << onePoint({}, QStringLiteral("losses"), QStringLiteral("3"))
                                           << QStringList{"is not a list"} << QStringList{"فهرست نیست"}
                                           << QStringLiteral("losses") << 1;
        QTest::newRow("identity broken") << onePoint({}, QStringLiteral("effective_batch"), QStringLiteral("9"))
                                         << QStringList{"is 9, which is not", "micro_batch × accum_steps × world_size"}
                                         << QStringList{"برابر ۹ است", "micro_batch × accum_steps × world_size"}
                                         << QStringLiteral("effective_batch") << 1;
        QTest::newRow("speed no machine measures") << onePoint({}, QStringLiteral("samples_per_sec"), QStringLiteral("1e308"))
                                                   << QStringList{"no measurement gives"}
                                                   << QStringList{"هیچ اندازه‌گیری"} << QStringLiteral("samples_per_sec")
                                                   << 1;
    }
    void importErrorsInTheUsersLanguage()
    {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, english);
        QFETCH(QStringList, persian);
        QFETCH(QString, field);
        QFETCH(int, point);
        const QString path = m_dir.filePath(QStringLiteral("refused.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QCOMPARE(f.write(content), content.size());
        }
        for (const UiLanguage language : {QStringLiteral("en"), QStringLiteral("fa")}) {
            switchLanguage(language);
            MainWindow w(false);
            QVERIFY(!w.files()->importCurve(path));
            QVERIFY(importedSeries(w).isEmpty());
            const QString message = w.status()->lastError();
            QCOMPARE(w.statusBar()->currentMessage(), message);
            const bool fa = language == QStringLiteral("fa");
            QVERIFY2(message.startsWith(fa ? QStringLiteral("وارد کردن refused.json ممکن نشد: ")
                                           : QStringLiteral("Could not import refused.json: ")),
                     qPrintable(message));
            for (const QString &words : fa ? persian : english)
                QVERIFY2(message.contains(words), qPrintable(words + QStringLiteral(" not in: ") + message));
            if (!field.isEmpty())
                QVERIFY2(message.contains(fa ? QStringLiteral("«%1»").arg(field) : QStringLiteral("'%1'").arg(field)) ||
                             field == QLatin1String("effective_batch"),
                         qPrintable(message));
            if (point > 0) {
                // The point's number in the window's digits: Persian digits in Persian.
                const QString n = LanguageManager::instance()->numberLocale().toString(point);
                QVERIFY2(message.contains(fa ? QStringLiteral("نقطه‌ی %1").arg(n) : QStringLiteral("point %1").arg(n)),
                         qPrintable(message));
            }
            // Persian text carries no English sentence from core.
            if (fa)
                QVERIFY2(!message.contains(QStringLiteral(" is ")) && !message.contains(QStringLiteral("point ")),
                         qPrintable(message));
        }
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
                    validate(p.run);
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
        QCOMPARE(w.status()->lastError(), w.statusBar()->currentMessage());
        QVERIFY(!w.controller()->isSweepRunning());
        QVERIFY(sweep->isEnabled());
        QVERIFY(w.findChild<QSlider *>(QStringLiteral("microBatchSlider"))->isEnabled());
        // Corrected, the same window runs the sweep.
        w.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2"));
        w.findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(2);
        QSignalSpy finished(w.sweep(), &SweepRunner::finished);
        sweep->trigger();
        QVERIFY(finished.wait(60'000));
        QVERIFY(w.sweep()->lastSweep().has_value());
        QCOMPARE(w.sweep()->lastSweep()->points.size(), size_t(2));
    }

    // Closing the window in the middle of a long sweep: the window and its worker thread are
    // gone within a second, and a new window runs a sweep to the end.
    void closeMidRunThenRunAgain()
    {
        auto *w = new MainWindow(false);
        w->findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2,4,8,16"));
        w->findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(w->findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->maximum());
        w->show();
        QSignalSpy stepping(w->controller(), &EngineController::stepBatch);
        QString error;
        QVERIFY2(w->sweep()->run(&error), qPrintable(error));
        QVERIFY(stepping.wait(30'000)); // the first point's steps are running
        QElapsedTimer clock;
        clock.start();
        QVERIFY(w->close());
        delete w; // the controller cancels, quits and joins the worker thread
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));

        MainWindow again(false);
        again.findChild<QLineEdit *>(QStringLiteral("accumGridEdit"))->setText(QStringLiteral("1,2"));
        again.findChild<QSpinBox *>(QStringLiteral("numStepsSpin"))->setValue(2);
        QSignalSpy finished(again.sweep(), &SweepRunner::finished);
        QVERIFY(again.sweep()->run(&error));
        QVERIFY(finished.wait(60'000));
        QCOMPARE(again.sweep()->lastSweep()->points.size(), size_t(2));
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
        // In range for the type, outside the control: once wrapped or clamped to another value.
        QTest::newRow("num_steps 2^32+1") << QStringLiteral("\"num_steps\": 4294967297");
        QTest::newRow("num_steps 0") << QStringLiteral("\"num_steps\": 0");
        QTest::newRow("seed 5000000") << QStringLiteral("\"seed\": 5000000");
        QTest::newRow("seed \"5000000\"") << QStringLiteral("\"seed\": \"5000000\"");
        QTest::newRow("micro 65536") << QStringLiteral("\"micro_batch\": 65536");
        QTest::newRow("accum 65") << QStringLiteral("\"accum_steps\": 65");
        QTest::newRow("world 5") << QStringLiteral("\"world_size\": 5");
        QTest::newRow("lr 1e-320") << QStringLiteral("\"lr\": 1e-320");
        QTest::newRow("lr 0.03, between the slider's stops") << QStringLiteral("\"lr\": 0.03");
        QTest::newRow("lr as text") << QStringLiteral("\"lr\": \"0.05\"");
        QTest::newRow("warmup -1") << QStringLiteral("\"warmup_steps\": -1");
        QTest::newRow("threads 100000") << QStringLiteral("\"threads\": 100000");
        QTest::newRow("pace 0") << QStringLiteral("\"pace\": 0");
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

    // The control row: the same preset with in-range numbers loads.
    void presetWithinTheControlsLoads()
    {
        const QByteArray json = R"({"schema": "accumlab-preset.v1", "num_steps": 10000, "seed": 1000000,
                                    "micro_batch": 128, "accum_steps": 64, "world_size": 4, "lr": 1e-4, "pace": 60})";
        QString error;
        const auto p = presetFromJson(json, &error);
        QVERIFY2(p.has_value(), qPrintable(error));
        QCOMPARE(p->numSteps, 10000);
        QCOMPARE(p->run.seed, uint64_t(1000000));
        QCOMPARE(p->run.optimizer.lr, 1e-4);
    }

    // A preset named on the command line (or in the Open dialog) that is no regular file: a
    // sentence at once, not a hang on a FIFO or a flood from /dev/zero.
    void presetFileThatIsNoFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("a FIFO nobody writes") << m_dir.filePath(QStringLiteral("a-fifo.json"));
        QTest::newRow("/dev/zero") << QStringLiteral("/dev/zero");
        QTest::newRow("a folder") << m_dir.filePath(QStringLiteral("a-folder.json"));
    }
    void presetFileThatIsNoFile()
    {
        QFETCH(QString, path);
        MainWindow w(false);
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY(!w.files()->loadPresetFile(path, &error));
        QVERIFY2(error.contains(QStringLiteral("not a regular file")), qPrintable(error));
        QVERIFY(clock.elapsed() < 5000);
    }

    // The window's file writes (a preset, a screenshot, the chart PNGs) replace a symlink in the
    // chosen folder with the file; the link's target outside the folder is left untouched.
    void writesReplaceSymlinks()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("precious.txt"));
        {
            QFile f(target);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("precious");
        }
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("out"))));
        const QStringList names{QStringLiteral("preset.json"), QStringLiteral("window.png"),
                                QStringLiteral("accumlab-throughput.png")};
        for (const QString &name : names)
            QVERIFY(QFile::link(target, dir.filePath(QStringLiteral("out/") + name)));
        MainWindow w(false);
        QString error;
        QVERIFY2(w.files()->savePresetFile(dir.filePath(QStringLiteral("out/preset.json")), &error), qPrintable(error));
        QVERIFY2(w.files()->saveScreenshot(dir.filePath(QStringLiteral("out/window.png")), &error), qPrintable(error));
        QVERIFY2(w.files()->exportChartPngs(dir.filePath(QStringLiteral("out")), nullptr, &error), qPrintable(error));
        QFile f(target);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("precious"));
        for (const QString &name : names) {
            const QFileInfo written(dir.filePath(QStringLiteral("out/") + name));
            QVERIFY2(!written.isSymLink() && written.isFile() && written.size() > 0, qPrintable(name));
        }
    }

    // A screenshot, a preset or a chart named where a FIFO or a folder is: refused in a sentence
    // of the window's language, the node left as it was. (`accumlab --screenshot /dev/null`
    // run as root replaced /dev/null with a PNG: a FIFO in a temporary folder stands for it.)
    void writesRefuseNodesThatAreNotFiles_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("words");
        QTest::newRow("en FIFO") << "en" << "fifo" << "named pipe";
        QTest::newRow("en folder") << "en" << "folder" << "a folder";
        QTest::newRow("fa FIFO") << "fa" << "fifo" << QStringLiteral("لوله‌ی نام‌دار");
        QTest::newRow("fa folder") << "fa" << "folder" << QStringLiteral("یک پوشه");
    }
    void writesRefuseNodesThatAreNotFiles()
    {
        QFETCH(QString, language);
        QFETCH(QString, node);
        QFETCH(QString, words);
        LanguageManager::instance()->setLanguage(language);
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("window.png"));
        if (node == "fifo")
            QCOMPARE(::mkfifo(target.toLocal8Bit().constData(), 0600), 0);
        else
            QVERIFY(QDir().mkpath(target));
        MainWindow w(false);
        QString error;
        QVERIFY(!w.files()->saveScreenshot(target, &error));
        QVERIFY2(error.contains(words) && error.contains(target), qPrintable(error));
        error.clear();
        QVERIFY(!w.files()->savePresetFile(target, &error));
        QVERIFY2(error.contains(words), qPrintable(error));
        const QFileInfo after(target);
        QCOMPARE(after.isDir(), node == "folder");
        QCOMPARE(after.isFile(), false);
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden | QDir::System),
                 QStringList{QStringLiteral("window.png")});
        LanguageManager::instance()->setLanguage(QStringLiteral("en"));
    }

    // A disk that fills while a screenshot is written (a file-size limit stands for it: the
    // write fails with EFBIG): the content's sentence in the window's language with the OS's
    // words inside it, nothing left beside the target, an earlier file kept.
    void fullDiskIsSaidInTheWindowsLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("words");
        QTest::newRow("en") << "en" << "cannot write ";
        QTest::newRow("fa") << "fa" << QStringLiteral("نمی‌توان");
    }
    void fullDiskIsSaidInTheWindowsLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, words);
        LanguageManager::instance()->setLanguage(language);
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("window.png"));
        {
            QFile earlier(target);
            QVERIFY(earlier.open(QIODevice::WriteOnly));
            earlier.write("earlier");
        }
        MainWindow w(false);
        QString error;
        bool saved = true;
        {
            const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
            rlimit old{};
            QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
            rlimit small = old;
            small.rlim_cur = 1024; // a window's PNG is far larger
            QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
            saved = w.files()->saveScreenshot(target, &error);
            QCOMPARE(::setrlimit(RLIMIT_FSIZE, &old), 0);
            std::signal(SIGXFSZ, oldHandler);
        }
        QVERIFY(!saved);
        QVERIFY2(error.contains(words) && error.contains(target) && error.contains(QStringLiteral("large")),
                 qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("Could not write")), qPrintable(error));
        QFile kept(target);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("earlier"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden | QDir::System),
                 QStringList{QStringLiteral("window.png")});
        LanguageManager::instance()->setLanguage(QStringLiteral("en"));
    }

    // The export dialogs write on the export thread: a folder another writer holds (here a
    // flock on it, as core's publish takes) keeps the file waiting, not the window. The call
    // returns at once with nothing written, the event loop runs, and once the lock goes the
    // file is written and the status bar says so; a write that fails is said in the window's
    // language, and the files after it are not written.
    void exportsWaitOffTheWindow()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("accum-curve.json"));
        MainWindow w(false);
        QSignalSpy done(w.files(), &SessionFiles::filesWritten);
        const int folder = ::open(QFile::encodeName(dir.path()).constData(), O_RDONLY | O_DIRECTORY);
        QVERIFY(folder >= 0);
        QCOMPARE(::flock(folder, LOCK_EX), 0);
        w.files()->writeInBackground({{path, QByteArray("{}\n")}}, [] { return QStringLiteral("written"); });
        QVERIFY(w.files()->writing());
        QTest::qWait(300); // timed by design: the write still waits on the lock after a span, the window turning
        QCOMPARE(done.count(), 0);
        QVERIFY(!QFileInfo::exists(path));
        ::close(folder); // the other writer is done
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 5000);
        QCOMPARE(done.at(0).at(0).toBool(), true);
        QVERIFY(!w.files()->writing());
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("written"));
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), QByteArray("{}\n"));

        // A FIFO where the second of three files goes: the first is written, the third is not.
        const QString fifo = dir.filePath(QStringLiteral("b.png"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        w.files()->writeInBackground({{dir.filePath(QStringLiteral("a.png")), QByteArray("a")},
                                      {fifo, QByteArray("b")},
                                      {dir.filePath(QStringLiteral("c.png")), QByteArray("c")}},
                                     [] { return QStringLiteral("written"); });
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 5000);
        QCOMPARE(done.at(1).at(0).toBool(), false);
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.contains(fifo) && message.contains(QStringLiteral("named pipe")), qPrintable(message));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("a.png"))).isFile());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("c.png"))));
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
