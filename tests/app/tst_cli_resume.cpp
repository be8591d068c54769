// accumlab-cli train with --checkpoint and --resume, end to end: a run killed with SIGKILL at
// seeded random micro-batches (and while a checkpoint is being written) and resumed from its
// folder ends with the params_sha256 of the run that was never killed; one process and two
// ranks. A checkpoint of another run, world size or a damaged file is refused in words, exit 2.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_run.h"

using accumlab::test::CliRun;
using accumlab::test::runCli;

#include <cmath>

#include <fstream>
#include <random>

namespace {

// The run every row trains: 6 windows of 4 micro-batches of the fixture model.
constexpr int kWindows = 6;
constexpr int kAccum = 4;
constexpr int kTotalMicro = kWindows * kAccum;
// Kill points drawn from this seed, so that a failure names a point that can be rerun.
constexpr unsigned kKillSeed = 16;
constexpr int kRandomKills = 5;



// `optimizer` may end in "+float16": float16 with the loss scaler, whose scale grows every two
// clean windows, so its state changes between checkpoints.
QStringList trainArgs(const QString &optimizerAndDtype, int world)
{
    const QString optimizer = optimizerAndDtype.section(QLatin1Char('+'), 0, 0);
    QStringList a{"train", "--model", "fixture", "--micro-batch", "3", "--accum-steps", QString::number(kAccum),
                  "--num-steps", QString::number(kWindows), "--optimizer", optimizer, "--lr-warmup", "3",
                  "--lr", optimizer == "adamw" ? "0.01" : "0.1", "--device", "cpu", "--seed", "5"};
    if (optimizerAndDtype.endsWith(QLatin1String("+float16")))
        a << "--dtype" << "float16" << "--loss-scaling" << "--scaler-growth-interval" << "2";
    if (world > 1)
        a << "--world-size" << QString::number(world);
    return a;
}

QString uninterruptedSha(const QString &optimizer, int world)
{
    static QMap<QString, QString> cache;
    const QString key = optimizer + QString::number(world);
    if (!cache.contains(key)) {
        const CliRun r = runCli(trainArgs(optimizer, world));
        if (r.exitCode != 0)
            qFatal("the uninterrupted run failed: %s", qPrintable(r.err));
        cache[key] = r.json().value("params_sha256").toString();
    }
    return cache[key];
}

} // namespace

class TestCliResume : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).isExecutable(), "ACCUMLAB_CLI"); }

    void killAndResume_data()
    {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<int>("every");     // --checkpoint-every-micro
        QTest::addColumn<int>("killAt");    // micro-batches done when the process is killed
        QTest::addColumn<QString>("point"); // ACCUMLAB_FAULT_KILL_POINT
        QTest::addColumn<int>("world");
        std::mt19937 gen(kKillSeed);
        const QStringList optimizers{"sgd", "momentum", "adamw"};
        for (int i = 0; i < kRandomKills; ++i) {
            const int every = 1 + int(gen() % 3);
            // After the first checkpoint, before the run's end: inside or at the end of a window.
            const int killAt = every + int(gen() % unsigned(kTotalMicro - every - 1));
            const QString optimizer = optimizers[i % optimizers.size()];
            QTest::addRow("%s every %d killed after micro %d", qPrintable(optimizer), every, killAt)
                << optimizer << every << killAt << "after-micro" << 1;
        }
        // Killed while the checkpoint at micro 10 is written (its file in place, not yet the
        // latest): the resume takes the one before, whole.
        QTest::newRow("adamw killed while writing at micro 10") << "adamw" << 5 << 10 << "mid-checkpoint" << 1;
        QTest::newRow("momentum killed while writing at micro 12") << "momentum" << 4 << 12 << "mid-checkpoint" << 1;
        // float16 with the loss scaler: its scale and counters are part of the checkpoint.
        QTest::newRow("adamw float16 scaled killed after micro 9") << "adamw+float16" << 2 << 9 << "after-micro" << 1;
        // Two ranks: each saves its own buffers, rank 0 the shared parts.
        QTest::newRow("two ranks momentum killed after micro 7") << "momentum" << 3 << 7 << "after-micro" << 2;
    }
    void killAndResume()
    {
        QFETCH(QString, optimizer);
        QFETCH(int, every);
        QFETCH(int, killAt);
        QFETCH(QString, point);
        QFETCH(int, world);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("ckpt");
        const QStringList args = trainArgs(optimizer, world) << "--checkpoint" << dir << "--checkpoint-every-micro"
                                                             << QString::number(every);
        const CliRun killed = runCli(args, {{"ACCUMLAB_FAULT_KILL_AT_MICRO", QString::number(killAt)},
                                         {"ACCUMLAB_FAULT_KILL_POINT", point}});
        // One process dies of the signal; a launcher of ranks reports the killed rank (exit 3).
        QVERIFY2(world == 1 ? killed.crashed : killed.exitCode == 3, qPrintable(killed.err));
        const CliRun resumed = runCli(QStringList(args) << "--resume" << dir);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        // The latest whole checkpoint: the one at the kill point unless it was being written.
        const int expectedFrom = point == "after-micro" ? killAt / every * every : killAt - every;
        const QJsonObject from = resumed.json().value("resumed_from").toObject();
        QCOMPARE(from.value("micro_batches").toInt(), expectedFrom);
        QCOMPARE(from.value("micro_index").toInt(), expectedFrom % kAccum);
        QCOMPARE(resumed.json().value("micro_batches").toInt(), kTotalMicro);
        QCOMPARE(resumed.json().value("params_sha256").toString(), uninterruptedSha(optimizer, world));
        if (optimizer.endsWith(QLatin1String("+float16"))) {
            // The scaler's counters carried on: every window unscaled once, the scale grown
            // every two clean windows from 65536.
            QVERIFY(resumed.json().value("float16_path").toString().startsWith(QLatin1String("float16")));
            QCOMPARE(resumed.json().value("unscale_calls").toInt(), kWindows);
            QCOMPARE(resumed.json().value("skipped_windows").toInt(), 0);
            QCOMPARE(resumed.json().value("loss_scale").toDouble(), 65536.0 * std::pow(2.0, kWindows / 2));
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("resumeArgs");
        QTest::addColumn<QString>("damage"); // "", "truncate" or "corrupt"
        QTest::addColumn<QString>("words");
        QTest::newRow("another world size") << (trainArgs("sgd", 2)) << "" << "taken with 1 ranks; this run has 2";
        QTest::newRow("another optimizer") << trainArgs("momentum", 1) << "" << "setting optimizer is sgd";
        QTest::newRow("another dtype") << (trainArgs("sgd", 1) << "--dtype" << "float64") << ""
                                       << "taken in float32; this run computes in float64";
        QTest::newRow("another width") << (trainArgs("sgd", 1) << "--hidden" << "20") << ""
                                       << "model of widths 32-48-8; this run's model is 32-20-8";
        QTest::newRow("truncated") << trainArgs("sgd", 1) << "truncate" << "is truncated";
        QTest::newRow("corrupt") << trainArgs("sgd", 1) << "corrupt" << "is corrupt";
    }
    void refusals()
    {
        QFETCH(QStringList, resumeArgs);
        QFETCH(QString, damage);
        QFETCH(QString, words);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("ckpt");
        const CliRun saved = runCli(trainArgs("sgd", 1) << "--checkpoint" << dir);
        QVERIFY2(saved.exitCode == 0, qPrintable(saved.err));
        if (!damage.isEmpty()) {
            const QString file = dir + "/gen-000000000024/rank-0.safetensors";
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QByteArray bytes = f.readAll();
            if (damage == "truncate")
                bytes.chop(100);
            else
                bytes[bytes.size() - 100] = char(bytes[bytes.size() - 100] ^ 0x40);
            f.resize(0);
            f.seek(0);
            f.write(bytes);
        }
        const CliRun r = runCli(resumeArgs << "--resume" << dir);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(words), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliResume)
#include "tst_cli_resume.moc"
