// accumlab-cli end to end: the lesson's main job, the equivalence subcommand and its exit
// codes, and bad input (one line, exit 2, nothing written).
#include "core/export.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace accumlab;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runCli(const QStringList &args, const QString &workDir = {})
{
    QProcess p;
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(qEnvironmentVariable("ACCUMLAB_CLI"), args);
    if (!p.waitForFinished(240000))
        qFatal("accumlab-cli did not finish");
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QStringList fastSweep() { return {"--accum-grid", "1,2", "--num-steps", "3", "--warmup-steps", "0", "--threads", "1"}; }

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).isExecutable(), "ACCUMLAB_CLI"); }

    void mainJobWritesBothExports()
    {
        QTemporaryDir dir;
        const Run r = runCli(fastSweep() + QStringList{"--out-dir", dir.filePath("out")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("equivalence holds"));
        QVERIFY(r.out.contains(QRegularExpression(R"(eff_batch\s+accum\s+micro\s+sps\s+median_ms\s+syncs\s+loss)")));
        QVERIFY(r.out.contains("wrote " + dir.filePath("out/accum-curve.json")));
        QVERIFY(r.out.contains("wrote " + dir.filePath("out/skill-gradient-accumulation.md")));
        QFile curve(dir.filePath("out/accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(curve.readAll().toStdString());
        QCOMPARE(file.points.size(), size_t(2));
        QCOMPARE(file.points[1].effectiveBatch, 8);
        QVERIFY(QFileInfo(dir.filePath("out/skill-gradient-accumulation.md")).size() > 1000);
        // The printed equivalence JSON is the one written.
        const int start = r.out.indexOf('{');
        const int end = r.out.indexOf("\n}\n") + 2;
        const auto printed = QJsonDocument::fromJson(r.out.mid(start, end - start).toUtf8()).object();
        QCOMPARE(printed.value("max_grad_diff").toDouble(), file.raw.at("equivalence").at("max_grad_diff").get<double>());
    }

    void noWriteWritesNothing()
    {
        QTemporaryDir dir;
        const Run r = runCli(fastSweep() + QStringList{"--no-write"}, dir.path());
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    void equivalence_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("default") << QStringList{} << 0 << QString();
        QTest::newRow("2x8 compare") << QStringList{"--compare-split", "2x8"} << 0 << QString();
        QTest::newRow("float64 adamw") << QStringList{"--dtype", "float64", "--optimizer", "adamw"} << 0 << QString();
        QTest::newRow("no division sgd") << QStringList{"--scaling", "none"} << 1 << "4.00x";
        QTest::newRow("no division 8") << QStringList{"--scaling", "none", "--accum-steps", "8"} << 1 << "8.00x";
        QTest::newRow("step every micro") << QStringList{"--step-every-micro", "--optimizer", "adamw"} << 1
                                          << "every micro-batch";
        QTest::newRow("bf16 dtype-aware") << QStringList{"--dtype", "bfloat16"} << 0 << QString();
    }
    void equivalence()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrMentions);
        const Run r = runCli(QStringList{"equivalence"} + args);
        QCOMPARE(r.exitCode, exitCode);
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(r.out)); // exactly one JSON object
        QVERIFY(doc.isObject());
        const auto o = doc.object();
        for (const char *key : {"max_grad_diff", "max_param_diff", "params_init_match", "update_ratio", "layers"})
            QVERIFY2(o.contains(key), key);
        QCOMPARE(o.value("holds").toBool(), exitCode == 0);
        if (!stderrMentions.isEmpty())
            QVERIFY2(r.err.contains(stderrMentions), qPrintable(r.err));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown flag") << QStringList{"--frobnicate"};
        QTest::newRow("zero micro") << QStringList{"--micro-batch", "0"};
        QTest::newRow("negative micro") << QStringList{"--micro-batch", "-4"};
        QTest::newRow("huge micro") << QStringList{"--micro-batch", "1000000000"};
        QTest::newRow("non-numeric micro") << QStringList{"--micro-batch", "four"};
        QTest::newRow("bad grid") << QStringList{"--accum-grid", "1,x,4"};
        QTest::newRow("empty grid entry") << QStringList{"--accum-grid", "1,,4"};
        QTest::newRow("zero steps") << QStringList{"--num-steps", "0"};
        QTest::newRow("huge accum") << QStringList{"--accum-grid", "1000000"};
        QTest::newRow("unknown dtype") << QStringList{"--dtype", "float16"};
        QTest::newRow("unknown optimizer") << QStringList{"--optimizer", "lion"};
        QTest::newRow("unknown device") << QStringList{"--device", "tpu"};
        QTest::newRow("bad no-sync") << QStringList{"--no-sync", "maybe"};
        QTest::newRow("bad lang") << QStringList{"--lang", "de"};
        QTest::newRow("zero hidden") << QStringList{"--hidden", "-3"};
        QTest::newRow("oom demo accum 2") << QStringList{"oom-demo", "--accum-steps", "2"};
        QTest::newRow("out-dir is a file") << QStringList{"--out-dir", "blocker"};
        QTest::newRow("unwritable out-dir") << QStringList{"--out-dir", "/proc/accumlab"};
        QTest::newRow("split does not divide") << QStringList{"equivalence", "--accum-steps", "3"};
        QTest::newRow("compare split does not cover") << QStringList{"equivalence", "--compare-split", "3x5"};
        QTest::newRow("bad split") << QStringList{"equivalence", "--compare-split", "4by4"};
        QTest::newRow("zero big batch") << QStringList{"equivalence", "--big-batch", "0"};
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        QFile blocker(dir.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.write("x");
        blocker.close();
        const Run r = runCli(args, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString()); // no work ran
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.err.startsWith("accumlab-cli: error: "));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"blocker"});
    }

    void cudaWhereThereIsNone_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("sweep on cuda") << QStringList{"--device", "cuda", "--no-write"};
        QTest::newRow("equivalence on cuda") << QStringList{"equivalence", "--device", "cuda"};
        QTest::newRow("oom demo") << QStringList{"oom-demo"};
    }
    void cudaWhereThereIsNone()
    {
        QFETCH(QStringList, args);
        if (QFileInfo::exists("/dev/nvidia0"))
            QSKIP("this machine has a GPU");
        const Run r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("CUDA"), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);
    }

    // --hidden overrides the preset's width; --lang fa writes the Persian recipe; peak memory
    // is null (not measured) on the CPU.
    void modelWidthAndRecipeLanguage()
    {
        QTemporaryDir dir;
        const Run r = runCli(fastSweep() + QStringList{"--hidden", "32", "--lang", "fa", "--out-dir", dir.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(curve.readAll().toStdString());
        QCOMPARE(file.raw.at("config").at("hidden").get<int>(), 32);
        QVERIFY(file.raw.at("points")[0].at("peak_mem_bytes").is_null());
        QFile skill(dir.filePath("skill-gradient-accumulation.md"));
        QVERIFY(skill.open(QIODevice::ReadOnly));
        const QString md = QString::fromUtf8(skill.readAll());
        QVERIFY(md.contains(QStringLiteral("انباشت گرادیان")));
        QVERIFY(md.contains(QStringLiteral("accum_steps = effective_batch // (micro_batch * world_size)")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
