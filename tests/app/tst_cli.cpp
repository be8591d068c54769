// accumlab-cli end to end: the lesson's main job, the equivalence subcommand and its exit
// codes, and bad input (one line, exit 2, nothing written); --help's defaults are core's.
#include "core/config.h"
#include "core/distributed.h"
#include "core/experiments.h"
#include "core/export.h"
#include "core/lesson.h"
#include "core/memory_lab.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QtTest>

#include "cli_run.h"

#include <nlohmann/json.hpp>

using accumlab::test::CliRun;
using accumlab::test::runCli;

#include <sys/stat.h>

#include <csignal>
#include <sys/resource.h>

using namespace accumlab;

namespace {



QStringList fastSweep() { return {"--accum-grid", "1,2", "--num-steps", "3", "--warmup-steps", "0", "--threads", "1"}; }

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    // OMP_NUM_THREADS is read by libgomp before main: 100000000 crashed it (SIGSEGV) and
    // 99999999999 aborted it, even with --threads 1. Now refused in a sentence, exit 2; valid
    // values (a count, a nesting list) run.
    void ompNumThreads_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("100000000 (crashed libgomp)") << "100000000" << 2;
        QTest::newRow("99999999999 (aborted libgomp)") << "99999999999" << 2;
        QTest::newRow("4097") << "4097" << 2;
        QTest::newRow("0") << "0" << 2;
        QTest::newRow("-5") << "-5" << 2;
        QTest::newRow("abc") << "abc" << 2;
        QTest::newRow("2,") << "2," << 2;
        QTest::newRow("1e9") << "1e9" << 2;
        QTest::newRow("2") << "2" << 0;
        QTest::newRow("4096") << "4096" << 0;
        QTest::newRow("4,2 (nested)") << "4,2" << 0;
    }
    void ompNumThreads()
    {
        QFETCH(QString, value);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        const CliRun r = runCli({"--no-write", "--accum-grid", "1", "--num-steps", "1", "--threads", "1"},
                                {{"OMP_NUM_THREADS", value}}, dir.path());
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        if (exitCode == 2) {
            QCOMPARE(r.err, "accumlab-cli: error: OMP_NUM_THREADS='" + value +
                                "' is not a thread count from 1 to 4096 (or a comma-separated list of them); unset it "
                                "or use --threads\n");
            QCOMPARE(r.out, QString());
        }
    }

    void initTestCase() { QVERIFY2(QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).isExecutable(), "ACCUMLAB_CLI"); }

    void mainJobWritesBothExports()
    {
        QTemporaryDir dir;
        const CliRun r = runCli(fastSweep() + QStringList{"--out-dir", dir.filePath("out")});
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
        const CliRun r = runCli(fastSweep() + QStringList{"--no-write"}, {}, dir.path());
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    // float16 with the loss scaler: the path that ran and the scaler's counters, per point, in
    // the table and in accum-curve.json.
    void float16LossScalingCounters()
    {
        QTemporaryDir dir;
        const CliRun r = runCli(fastSweep() + QStringList{"--dtype", "float16", "--loss-scaling", "--out-dir", dir.filePath("out")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // 3 timed windows per point, warm-up 0: one unscale each, nothing skipped, the default scale.
        QVERIFY2(r.out.contains(QRegularExpression(
                     QStringLiteral("accum 2: float16(-emulated)?, loss scale 65536, skipped windows 0, unscale calls 3"))),
                 qPrintable(r.out));
        QFile f(dir.filePath("out/accum-curve.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(f.readAll().toStdString());
        for (const SweepPoint &p : file.points) {
            QVERIFY(p.lossScaling);
            QCOMPARE(p.lossScale, 65536.0);
            QCOMPARE(p.unscaleCalls, p.steps);
            QCOMPARE(p.skippedWindows, int64_t(0));
            QVERIFY(p.float16Path == "float16" || p.float16Path == "float16-emulated");
        }
    }

    void equivalence_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("default") << QStringList{} << 0 << QString();
        QTest::newRow("2x8 compare") << QStringList{"--compare-split", "2x8"} << 0 << QString();
        QTest::newRow("float64 adamw") << QStringList{"--dtype", "float64", "--optimizer", "adamw"} << 0 << QString();
        QTest::newRow("no division sgd") << QStringList{"--scaling", "none"} << 1 << "4.00×";
        QTest::newRow("no division 8") << QStringList{"--scaling", "none", "--accum-steps", "8"} << 1 << "8.00×";
        QTest::newRow("step every micro") << QStringList{"--step-every-micro", "--optimizer", "adamw"} << 1
                                          << "every micro-batch";
        QTest::newRow("bf16 dtype-aware") << QStringList{"--dtype", "bfloat16"} << 0 << QString();
        QTest::newRow("float16 dtype-aware") << QStringList{"--dtype", "float16"} << 0 << QString();
    }
    void equivalence()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrMentions);
        const CliRun r = runCli(QStringList{"equivalence"} + args);
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

    // The program's refusal path, end to end: exit 2, one line, nothing on stdout, nothing
    // written. Every refusal's own row is in tst_cli_refusals, in-process.
    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown flag (the parser)") << QStringList{"--frobnicate"};
        QTest::newRow("zero micro (core's config)") << QStringList{"--micro-batch", "0"};
        QTest::newRow("out-dir is a file (the exports)") << QStringList{"--out-dir", "blocker"};
        QTest::newRow("oom demo, budget under the weights (a subcommand)") << QStringList{"oom-demo", "--budget", "1000"};
        QTest::newRow("dist-timeout 1e300 (the launcher)") << QStringList{"--world-size", "2", "--dist-timeout", "1e300"};
    }
    // A verdict printed into a full disk is lost: the run says so and exits 4, not 0 (the main
    // job, the equivalence check, and --version alike).
    void lostStdoutIsAnError_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("equivalence") << QStringList{"equivalence"};
        QTest::newRow("main job") << QStringList{"--no-write", "--accum-grid", "1", "--num-steps", "1"};
        QTest::newRow("experiment list") << QStringList{"experiment", "list"};
    }
    void lostStdoutIsAnError()
    {
        QFETCH(QStringList, args);
        QProcess p;
        p.setStandardOutputFile(QStringLiteral("/dev/full"));
        p.start(qEnvironmentVariable("ACCUMLAB_CLI"), args);
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 4);
        QVERIFY2(err.contains("could not write to standard output"), qPrintable(err));
    }

    // A leading zero does not make a number octal: 010 is ten, in options as in the grid.
    // The bug zoo from the command line: `--bug list` names every bug core knows (so the list
    // cannot drift from the engine), an unknown name is bad input, and each planted bug makes
    // `equivalence` exit 1 with its measured cause while `--bug none` holds.
    void bugZoo_data()
    {
        QTest::addColumn<QString>("bug");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("none") << "none" << 0 << QString();
        QTest::newRow("zero-every-micro") << "zero-every-micro" << 1 << "zero_grad() ran before every micro-batch";
        QTest::newRow("never-zero") << "never-zero" << 1 << "zero_grad() was never called after the first window";
        QTest::newRow("divide-by-n-plus-1") << "divide-by-n-plus-1" << 1 << "divided by 5 instead of accum_steps (4)";
        QTest::newRow("skip-last-micro") << "skip-last-micro" << 1 << "(3 of 4 ran)";
        QTest::newRow("count-micro-twice") << "count-micro-twice" << 1 << "backward ran twice";
        QTest::newRow("clip-each-micro") << "clip-each-micro" << 1 << "clip_grad_norm_() ran after every micro-batch";
        QTest::newRow("schedule-every-micro") << "schedule-every-micro" << 1 << "the warmup of 8 updates advanced 4 times";
        QTest::newRow("unknown") << "sometimes" << 2 << "bug";
    }
    void bugZoo()
    {
        QFETCH(QString, bug);
        QFETCH(int, exitCode);
        QFETCH(QString, mentions);
        const CliRun r = runCli({"equivalence", "--bug", bug});
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        if (exitCode == 1)
            QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value("config").toObject().value("bug").toString(),
                     bug);
    }
    void bugList()
    {
        for (const QStringList &args : {QStringList{"--bug", "list"}, QStringList{"equivalence", "--bug", "list"}}) {
            const CliRun r = runCli(args);
            QCOMPARE(r.exitCode, 0);
            for (const std::string &name : accumBugNames())
                QVERIFY2(r.out.contains("  " + QString::fromStdString(name) + " "), name.c_str());
        }
    }

    void leadingZerosAreDecimal()
    {
        QTemporaryDir dir;
        const CliRun r = runCli({"--no-write", "--micro-batch", "010", "--accum-grid", "01,003", "--num-steps", "02"}, {}, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // eff_batch accum micro: 10 = 10 x 1 and 30 = 10 x 3.
        QVERIFY2(QRegularExpression(QStringLiteral("\\n\\s+10\\s+1\\s+10\\s")).match(r.out).hasMatch(), qPrintable(r.out));
        QVERIFY2(QRegularExpression(QStringLiteral("\\n\\s+30\\s+3\\s+10\\s")).match(r.out).hasMatch(), qPrintable(r.out));
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        QVERIFY(accumlab::test::makeBlocker(dir.path()));
        const CliRun r = runCli(args, {}, dir.path());
        const QString problem = accumlab::test::refusalProblem(r.exitCode, r.out, r.err, dir.path());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // The lesson's story on this CPU: under the "fails after 32 samples" budget the full batch
    // of 512 fails inside LibTorch and 16 x 32 fits with the full batch's parameters. The
    // planted row gives a budget the whole batch fits: the demo must say the contrast did not show.
    void oomDemo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("fails after 32") << QStringList{} << 0;
        QTest::newRow("planted: a roomy budget") << QStringList{"--budget", "64000000"} << 1;
    }
    void oomDemo()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        const QString timeline = dir.filePath("memory-timeline.json");
        const QString snapshot = dir.filePath("memory-snapshot.pickle");
        const CliRun r =
            runCli(QStringList{"oom-demo", "--json", "--device", "cpu", "--timeline", timeline, "--snapshot", snapshot} + args);
        QCOMPARE(r.exitCode, exitCode);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        // --timeline: the two runs' measured timelines, whose peaks are the demo's; stdout
        // stays one JSON object.
        QFile file(timeline);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(t.value("schema").toString(), QStringLiteral("memory-timeline.v1"));
        const QJsonArray runs = t.value("runs").toArray();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].toObject().value("peak_bytes").toDouble(), o.value("full_batch").toObject().value("peak_bytes").toDouble());
        QCOMPARE(runs[1].toObject().value("peak_bytes").toDouble(), o.value("accumulation").toObject().value("peak_bytes").toDouble());
        QCOMPARE(t.value("full_batch_crosses_budget_at_event").isNull(), exitCode != 0);
        // --snapshot: a pickle (protocol 2) that PyTorch's memory visualiser reads; the torch 2.x
        // stage opens it with torch.cuda._memory_viz (tests/pytorch/check_memory_snapshot.py).
        QFile pickled(snapshot);
        QVERIFY(pickled.open(QIODevice::ReadOnly));
        const QByteArray bytes = pickled.readAll();
        QVERIFY(bytes.startsWith(QByteArray("\x80\x02", 2)) && bytes.endsWith('.'));
        QVERIFY(bytes.contains("device_traces") && bytes.contains("free_completed") && bytes.contains("forward, micro-batch 0"));
        QCOMPARE(o.value("full_batch_out_of_memory").toBool(), exitCode == 0);
        QVERIFY(o.value("accumulation_succeeded").toBool());
        // The one verdict on the loop, not the lesson's 1e-4: the step is the full batch's.
        QCOMPARE(o.value("equivalence").toObject().value("verdict").toString(), QStringLiteral("holds"));
        QVERIFY(o.value("same_step").toBool());
        QVERIFY(o.value("accumulation").toObject().value("peak_bytes").toDouble() <= o.value("budget_bytes").toDouble());
        if (exitCode == 0) {
            QCOMPARE(o.value("fails_after_samples").toInt(), 32);
            QVERIFY(o.value("full_batch_error").toString().startsWith("CPU out of memory. Tried to allocate"));
            QVERIFY(o.value("full_batch").toObject().value("peak_bytes").toDouble() > o.value("budget_bytes").toDouble());
        } else {
            QVERIFY2(r.err.contains("the out-of-memory contrast did not show"), qPrintable(r.err));
        }
    }

    // The trade-off sweep writes accum-tradeoff.json, which the validating reader takes back:
    // micro-batches 1 to 32 fit the lesson's budget, 64 to 512 ran out of memory.
    void tradeoffWritesAReadableFile()
    {
        QTemporaryDir dir;
        const CliRun r = runCli({"tradeoff", "--device", "cpu", "--num-steps", "2", "--out-dir", dir.filePath("out")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("CPU out of memory"), qPrintable(r.out));
        QFile f(dir.filePath("out/accum-tradeoff.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const TradeoffFile t = parseTradeoffJson(f.readAll().toStdString());
        QCOMPARE(t.effectiveBatch, int64_t(512));
        QCOMPARE(t.points.size(), size_t(10));
        for (const TradeoffPoint &p : t.points)
            QCOMPARE(p.outOfMemory, p.microBatch > 32);
    }

    void finderSaysItInWords()
    {
        const CliRun r = runCli({"find-micro-batch", "--device", "cpu"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("micro-batch 64: out of memory"), qPrintable(r.out));
        QVERIFY2(r.out.contains("32 samples fit; effective 512 = 32 x 16 x 1"), qPrintable(r.out));
    }

    void cudaWhereThereIsNone_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("sweep on cuda") << QStringList{"--device", "cuda", "--no-write"};
        QTest::newRow("equivalence on cuda") << QStringList{"equivalence", "--device", "cuda"};
        QTest::newRow("oom demo") << QStringList{"oom-demo", "--device", "cuda"};
    }
    void cudaWhereThereIsNone()
    {
        QFETCH(QStringList, args);
        if (QFileInfo::exists("/dev/nvidia0"))
            QSKIP("this machine has a GPU");
        const CliRun r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("CUDA"), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);
    }

    // The working folder deleted under a relative --out-dir: the folder cannot be created.
    void vanishedOutDir()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("gone"));
        QProcess p;
        p.setWorkingDirectory(dir.filePath("gone"));
        p.start("/bin/sh", {"-c", "rmdir \"$PWD\" && exec \"$ACCUMLAB_CLI\" --out-dir out --accum-grid 1 --num-steps 1"});
        QVERIFY(p.waitForFinished(240000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        // The oneMKL inside a PyTorch 2.x wheel's LibTorch cannot load itself without a working
        // folder and ends the process before main(); no AccumLab code runs to check anything.
        if (err.startsWith(QLatin1String("Intel oneMKL FATAL ERROR")))
            QSKIP("this LibTorch's oneMKL cannot start in a removed working folder (it exits before main)");
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        QCOMPARE(err.count('\n'), 1);
        QVERIFY2(err.startsWith("accumlab-cli: error: ") && err.contains("out"), qPrintable(err));
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    // A disk that fills up while the run works: the exports fail at the end in one line, exit 4,
    // and an earlier run's exports stay whole. The child's file-size limit stands in for the
    // full disk (write() fails with EFBIG rather than ENOSPC; the code path is the same).
    void fullDiskKeepsEarlierExports()
    {
        QTemporaryDir dir;
        const QStringList args = fastSweep() + QStringList{"--out-dir", dir.path()};
        QCOMPARE(runCli(args).exitCode, 0);
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const QByteArray earlier = curve.readAll();
        curve.close();

        QProcess p;
        p.setChildProcessModifier([] {
            ::signal(SIGXFSZ, SIG_IGN);
            rlimit limit{};
            ::getrlimit(RLIMIT_FSIZE, &limit);
            limit.rlim_cur = 1024;
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        p.start(qEnvironmentVariable("ACCUMLAB_CLI"), args);
        QVERIFY(p.waitForFinished(240000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 4);
        QCOMPARE(err.count('\n'), 1);
        QVERIFY2(err.startsWith("accumlab-cli: error: cannot write ") && err.contains("earlier exports"), qPrintable(err));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        QCOMPARE(curve.readAll(), earlier);
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 (QStringList{"accum-curve.json", "skill-gradient-accumulation.md"}));
    }

    // No division and a high learning rate: the accum-16 point diverges, is reported in a
    // sentence on stderr and in the table, marked in the JSON; the accum-1 point after it runs.
    // The planted bug is shown first (exit kExitBugShown), and the sweep still runs with it.
    void divergenceIsReportedAndTheSweepCarriesOn()
    {
        QTemporaryDir dir;
        const CliRun run = runCli({"--scaling", "none", "--lr", "0.7", "--accum-grid", "16,1", "--num-steps", "20",
                                   "--warmup-steps", "1", "--threads", "1", "--out-dir", dir.path()});
        QVERIFY2(run.exitCode == kExitBugShown, qPrintable(run.err));
        QVERIFY2(run.err.startsWith("equivalence does not hold, as planted (--scaling none)"), qPrintable(run.err));
        CliRun r = run;
        r.err = run.err.mid(run.err.indexOf("warning: ")); // the sweep's own lines
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(curve.readAll().toStdString());
        QCOMPARE(file.points.size(), size_t(2));
        QVERIFY(file.points[0].diverged);
        QVERIFY(file.raw.at("points")[0].at("diverged").get<bool>());
        const int64_t k = file.raw.at("points")[0].at("diverged_at_step").get<int64_t>();
        const QString sentence = QStringLiteral("diverged at step %1 of effective batch 64").arg(k);
        QVERIFY2(r.err.startsWith("warning: " + sentence + " (") && r.err.endsWith("the rest of the sweep carried on\n"),
                 qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.contains(sentence));
        QVERIFY(!file.points[1].diverged);
        QCOMPARE(file.points[1].steps, 20);
        QVERIFY(!file.raw.at("points")[1].contains("diverged_at_step"));
    }

    // The main job judges the settings it was given: a planted bug is shown with its figures at
    // step 1 and why, the sweep still runs with it, the exit code says which, and both exports
    // carry that run's own settings and verdict; the correct loop says it holds.
    void mainJobJudgesItsOwnSettings_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QString>("stderrStarts");
        QTest::newRow("correct loop") << QStringList{"--accum-grid", "1,4"} << 0 << "holds" << QString();
        QTest::newRow("no division") << QStringList{"--scaling", "none", "--accum-grid", "1,4"} << kExitBugShown
                                     << "fails" << "equivalence does not hold, as planted (--scaling none): the accumulated "
                                                   "gradient is 4.00× the full-batch one";
        QTest::newRow("never-zero, adamw") << QStringList{"--bug", "never-zero", "--optimizer", "adamw", "--accum-grid", "2"}
                                           << kExitBugShown << "fails"
                                           << "equivalence does not hold, as planted (--bug never-zero)";
        QTest::newRow("no division at accum 1") << QStringList{"--scaling", "none", "--accum-grid", "1"} << kExitBugNoEffect
                                                << "no-effect" << "the planted bug (--scaling none) had no effect here";
    }
    void mainJobJudgesItsOwnSettings()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, verdict);
        QFETCH(QString, stderrStarts);
        QTemporaryDir dir;
        const CliRun r = runCli(args + QStringList{"--num-steps", "5", "--warmup-steps", "0", "--threads", "1",
                                                   "--out-dir", dir.path()});
        QVERIFY2(r.exitCode == exitCode, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        if (stderrStarts.isEmpty())
            QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        else
            QVERIFY2(r.err.startsWith(stderrStarts), qPrintable(r.err));
        QCOMPARE(r.out.contains("equivalence holds"), verdict == QLatin1String("holds"));
        if (exitCode == kExitBugShown) // the lesson's second exercise: its figures at step 1
            QVERIFY2(r.err.contains("after step 1: max |param diff| ") && r.err.contains("update ratio"), qPrintable(r.err));
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY2(curve.open(QIODevice::ReadOnly), "the sweep ran and wrote its exports");
        const nlohmann::json doc = nlohmann::json::parse(curve.readAll().toStdString());
        const auto &eq = doc.at("equivalence");
        QCOMPARE(QString::fromStdString(eq.at("verdict").get<std::string>()), verdict);
        QCOMPARE(eq.at("holds").get<bool>(), verdict != QLatin1String("fails"));
        // The check is the run's: its settings are the sweep's, at the grid's largest accum_steps.
        QCOMPARE(eq.at("config").at("scaling"), doc.at("config").at("scaling"));
        QCOMPARE(eq.at("config").at("bug"), doc.at("config").at("bug"));
        QCOMPARE(eq.at("config").at("optimizer"), doc.at("config").at("optimizer"));
        QCOMPARE(eq.at("config").at("micro_batch"), doc.at("config").at("micro_batch"));
        QFile skill(dir.filePath("skill-gradient-accumulation.md"));
        QVERIFY(skill.open(QIODevice::ReadOnly));
        const QString md = QString::fromUtf8(skill.readAll());
        const QString words = verdict == QLatin1String("holds")  ? QStringLiteral("| verdict | equivalent (holds) |")
                              : verdict == QLatin1String("fails") ? QStringLiteral("| verdict | not equivalent (fails): ")
                                                                  : QStringLiteral("| verdict | the planted bug had no effect here: ");
        QVERIFY2(md.contains(words), qPrintable(md));
        QVERIFY(md.contains(args.contains("none") ? QStringLiteral("loss scaling none") : QStringLiteral("loss scaling divide")));
    }

    // `train` that diverged is no success: float16 at lr 1000 steps once, then every window's
    // loss is NaN and the scaler skips it (the scale halving towards 0). The JSON says where
    // and why, stderr says it in one line, the exit code is 5; rank 0's verdict decides with
    // two ranks. The same run at the default rate, and the defaults, exit 0 with every window
    // stepped and nothing on stderr.
    void trainReportsDivergence_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("reason"); // empty: "diverged" is null
        QTest::addColumn<int>("atMost"); // the window it diverges at, at the latest
        const QStringList fp16{"train", "--dtype", "float16", "--loss-scaling", "--accum-steps", "1",
                               "--micro-batch", "1", "--num-steps", "50"};
        // The first window's step at lr 1000 leaves the parameters huge: one rank's next loss is
        // not finite; two ranks' next window overflows the scaler first, the one after is NaN.
        QTest::newRow("float16, lr 1000") << fp16 + QStringList{"--lr", "1000"} << 5 << "loss-not-finite" << 3;
        QTest::newRow("float16, lr 1000, two ranks")
            << fp16 + QStringList{"--lr", "1000", "--world-size", "2"} << 5 << "loss-not-finite" << 3;
        QTest::newRow("float16, default rate") << fp16 << 0 << QString() << -1;
        QTest::newRow("defaults") << QStringList{"train", "--num-steps", "50"} << 0 << QString() << -1;
    }
    void trainReportsDivergence()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, reason);
        QFETCH(int, atMost);
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        const QJsonObject json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json.value("windows").toInt(), 50);
        QVERIFY(json.contains("stepped_windows"));
        const int stepped = json.value("stepped_windows").toInt();
        // Only the scaler skips a step: what it skipped did not step, all the rest did.
        QCOMPARE(stepped, 50 - json.value("skipped_windows").toInt());
        QVERIFY(json.contains("diverged"));
        if (reason.isEmpty()) {
            QVERIFY(json.value("diverged").isNull());
            QVERIFY(stepped > 25); // the scaler may skip a window or two while its scale settles
            QCOMPARE(r.err, QString());
            return;
        }
        const QJsonObject diverged = json.value("diverged").toObject();
        QCOMPARE(diverged.value("reason").toString(), reason);
        const int atStep = diverged.value("at_step").toInt();
        QVERIFY2(atStep >= 2 && atStep <= atMost, qPrintable(QString::number(atStep)));
        QVERIFY(json.value("loss").isNull()); // NaN: JSON has none
        QVERIFY(stepped >= 1 && stepped < atStep);
        QCOMPARE(r.err, QStringLiteral("diverged at step %1 of 50 (%2); %3 of 50 windows stepped\n")
                            .arg(atStep)
                            .arg(reason)
                            .arg(stepped));
    }

    // `train` refuses what would waste or lose a run before it trains: an empty folder name
    // (a run that saved nothing or silently started afresh), steps whose micro-batch count
    // overflows (4611686018427387904 ran 0 micro-batches and exited 0), and a checkpoint folder
    // that cannot take a file (found only after the training, exit 2 and "the previous
    // checkpoint is left whole" when there was none). A checkpoint that cannot be written is an
    // export that failed: exit 4.
    void trainRefusesBeforeItTrains_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("setup"); // "file": a file where the folder goes; "fifo": latest.json a FIFO
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("words");
        QTest::newRow("--resume ''") << QStringList{"train", "--resume", ""} << "" << 2 << "--resume";
        QTest::newRow("--checkpoint ''") << QStringList{"train", "--checkpoint", ""} << "" << 2 << "--checkpoint";
        QTest::newRow("--num-steps 2^62") << QStringList{"train", "--num-steps", "4611686018427387904"} << "" << 2
                                          << "--num-steps must be between 1 and 1000000";
        QTest::newRow("--num-steps 10^12") << QStringList{"train", "--num-steps", "1000000000000"} << "" << 2
                                           << "--num-steps must be between 1 and 1000000";
        QTest::newRow("checkpoint folder is a file")
            << QStringList{"train", "--num-steps", "100000", "--checkpoint", "ck"} << "file" << 4
            << "there was no earlier checkpoint";
        QTest::newRow("latest.json is a FIFO") << QStringList{"train", "--num-steps", "100000", "--checkpoint", "ck"}
                                               << "fifo" << 4 << "cannot write the checkpoint in";
    }
    void trainRefusesBeforeItTrains()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, setup);
        QFETCH(int, exitCode);
        QFETCH(QString, words);
        QTemporaryDir dir;
        if (setup == "file") {
            QFile f(dir.filePath("ck"));
            QVERIFY(f.open(QIODevice::WriteOnly));
        } else if (setup == "fifo") {
            QVERIFY(QDir(dir.path()).mkdir("ck"));
            QCOMPARE(::mkfifo(dir.filePath("ck/latest.json").toLocal8Bit().constData(), 0600), 0);
        }
        QElapsedTimer clock;
        clock.start();
        const CliRun r = runCli(args, {}, dir.path());
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        QCOMPARE(r.out, QString());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(words), qPrintable(r.err));
        QVERIFY2(clock.elapsed() < 60000, "refused only after training"); // 100000 windows take minutes
        if (setup == "fifo")
            QVERIFY(QFileInfo(dir.filePath("ck/latest.json")).exists() && !QFileInfo(dir.filePath("ck/latest.json")).isFile());
    }

    // --hidden overrides the preset's width; --lang fa writes the Persian recipe; peak memory
    // is measured on the CPU by the counting allocator, and null with the counter kept off.
    void modelWidthAndRecipeLanguage()
    {
        QTemporaryDir dir;
        const CliRun r = runCli(fastSweep() + QStringList{"--hidden", "32", "--lang", "fa", "--out-dir", dir.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(curve.readAll().toStdString());
        QCOMPARE(file.raw.at("config").at("hidden").get<int>(), 32);
        // Weights and gradients of the 64-32-32-16 model alone are 4 x 3.7k parameters x 2.
        QVERIFY(file.raw.at("points")[0].at("peak_mem_bytes").get<int64_t>() > 2 * 4 * 3600);
        QTemporaryDir off;
        const CliRun r2 = runCli(fastSweep() + QStringList{"--memory-counter", "off", "--hidden", "32", "--out-dir", off.path()});
        QVERIFY2(r2.exitCode == 0, qPrintable(r2.err));
        QFile offCurve(off.filePath("accum-curve.json"));
        QVERIFY(offCurve.open(QIODevice::ReadOnly));
        QVERIFY(parseCurveJson(offCurve.readAll().toStdString()).raw.at("points")[0].at("peak_mem_bytes").is_null());
        QFile skill(dir.filePath("skill-gradient-accumulation.md"));
        QVERIFY(skill.open(QIODevice::ReadOnly));
        const QString md = QString::fromUtf8(skill.readAll());
        QVERIFY(md.contains(QStringLiteral("انباشت گرادیان")));
        QVERIFY(md.contains(QStringLiteral("accum_steps = effective_batch // (micro_batch * world_size)")));
    }
    // Every default --help shows is core's own (the config structs' defaults), not a number
    // restated in the CLI: read from the help text and compared with core here.
    void helpDefaultsAreCores_data()
    {
        QTest::addColumn<QString>("command"); // the subcommand, empty for the main job
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("expected");
        const auto n = [](double v) { return QString::number(v, 'g', 17); };
        const auto s = [](const std::string &v) { return QString::fromStdString(v); };
        const LessonOptions lesson;
        const AccumConfig &b = lesson.sweep.base;
        QString grid;
        for (const int64_t v : lesson.sweep.accumGrid)
            grid += (grid.isEmpty() ? "" : ",") + QString::number(v);
        const QList<std::pair<const char *, QString>> main{
            {"--micro-batch", n(b.microBatch)}, {"--accum-grid", grid}, {"--num-steps", n(lesson.sweep.numSteps)},
            {"--warmup-steps", n(lesson.sweep.warmupSteps)}, {"--repeats", n(lesson.sweep.repeats)}, {"--seed", n(b.seed)},
            {"--lr", n(b.optimizer.lr)}, {"--clip-norm", n(b.optimizer.clipNorm)}, {"--lr-warmup", n(b.optimizer.lrWarmup)},
            {"--out-dir", s(lesson.outDir.string())}, {"--optimizer", s(toString(b.optimizer.kind))},
            {"--scaling", s(toString(b.scaling))}, {"--bug", s(toString(b.bug))}, {"--no-sync", b.noSync ? "on" : "off"},
            {"--dtype", s(toString(b.dtype))}, {"--device", s(toString(b.device))}, {"--threads", n(lesson.sweep.threads)},
            {"--model", s(toString(b.preset))}, {"--labels", s(toString(b.labels))}, {"--lang", s(lesson.language)},
            {"--world-size", n(b.worldSize)}, {"--dist-timeout", n(kDefaultDistTimeoutS)}};
        for (const auto &[option, value] : main)
            QTest::addRow("%s", option) << QString() << option << value;
        const EquivalenceConfig e;
        const QList<std::pair<const char *, QString>> equivalence{
            {"--big-batch", n(e.bigBatch())}, {"--accum-steps", n(e.run.accumSteps)}, {"--optimizer", s(toString(e.run.optimizer.kind))},
            {"--lr", n(e.run.optimizer.lr)}, {"--clip-norm", n(e.run.optimizer.clipNorm)}, {"--lr-warmup", n(e.run.optimizer.lrWarmup)},
            {"--scaling", s(toString(e.run.scaling))}, {"--bug", s(toString(e.run.bug))}, {"--dtype", s(toString(e.run.dtype))},
            {"--device", s(toString(e.run.device))}, {"--labels", s(toString(e.run.labels))}, {"--seed", n(e.run.seed)}};
        for (const auto &[option, value] : equivalence)
            QTest::addRow("equivalence %s", option) << "equivalence" << option << value;
        const TradeoffConfig t;
        const QList<std::pair<const char *, QString>> tradeoff{
            {"--model", s(toString(t.lab.base.preset))}, {"--device", s(toString(t.lab.base.device))},
            {"--dtype", s(toString(t.lab.base.dtype))}, {"--optimizer", s(toString(t.lab.base.optimizer.kind))},
            {"--lr", n(t.lab.base.optimizer.lr)}, {"--seed", n(t.lab.base.seed)}, {"--effective-batch", n(t.lab.effectiveBatch)},
            {"--world-size", n(t.lab.base.worldSize)}, {"--fails-after", n(kLessonFailsAfterSamples)},
            {"--num-steps", n(t.numSteps)}, {"--warmup-steps", n(t.warmupSteps)}};
        for (const auto &[option, value] : tradeoff)
            QTest::addRow("tradeoff %s", option) << "tradeoff" << option << value;
        const ExperimentOptions x;
        const QList<std::pair<const char *, QString>> experiment{
            {"--sweep-steps", n(x.sweepSteps)}, {"--seed", n(x.seed)}, {"--threads", n(x.threads)}};
        for (const auto &[option, value] : experiment)
            QTest::addRow("experiment %s", option) << "experiment" << option << value;
    }
    void helpDefaultsAreCores()
    {
        QFETCH(QString, command);
        QFETCH(QString, option);
        QFETCH(QString, expected);
        // One run per command's help (each start loads LibTorch).
        static QHash<QString, CliRun> helps;
        if (!helps.contains(command))
            helps.insert(command, runCli(command.isEmpty() ? QStringList{"--help"} : QStringList{command, "--help"}));
        const CliRun &r = helps[command];
        QCOMPARE(r.exitCode, 0);
        // CLI11 writes "  --option TYPE=default  description".
        const QRegularExpression line("^\\s+" + QRegularExpression::escape(option) + "\\s+[^=\\s]+=(\\S+)",
                                      QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = line.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(option + " shows no default in:\n" + r.out));
        const QString shown = m.captured(1);
        bool numeric = false, shownNumeric = false;
        const double want = expected.toDouble(&numeric), got = shown.toDouble(&shownNumeric);
        if (numeric && shownNumeric)
            QVERIFY2(got == want, qPrintable(option + " shows " + shown + ", core's default is " + expected));
        else
            QCOMPARE(shown, expected);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
