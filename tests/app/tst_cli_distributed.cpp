// accumlab-cli over real data-parallel ranks (c10d Gloo on loopback), end to end:
// equivalence across ranks, sync counts against the collectives issued, and the faults a
// user meets (a killed or hung rank, a busy port, a wrong world size, a missing peer).
#include "core/export.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace accumlab;

namespace {

// Each fault test runs with this rendezvous/collective timeout (seconds) ...
constexpr int kDistTimeoutS = 3;
// ... and must end well inside this bound (start-up, the timeout, the launcher's stop grace).
constexpr qint64 kFaultBoundMs = 25000;

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
    qint64 ms = 0;
};

Run runCli(const QStringList &args, const QMap<QString, QString> &env = {}, const QString &workDir = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"})
        e.remove(name);
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    p.setProcessEnvironment(e);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    QElapsedTimer clock;
    clock.start();
    p.start(qEnvironmentVariable("ACCUMLAB_CLI"), args);
    if (!p.waitForFinished(120000))
        qFatal("accumlab-cli did not finish");
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError()), clock.elapsed()};
}

QStringList fastSweep(const QString &grid = "1,2,4", const QString &steps = "3")
{
    return {"--accum-grid", grid, "--num-steps", steps, "--warmup-steps", "1", "--threads", "1"};
}

// Bytes of the lesson MLP's flat gradient buffer in float32, counted from its layer widths
// (in 64, hidden 128, 16 classes: Linear-GELU-Linear-GELU-Linear).
qint64 lessonGradBytes()
{
    const qint64 in = 64, hidden = 128, classes = 16;
    const qint64 params = (in * hidden + hidden) + (hidden * hidden + hidden) + (hidden * classes + classes);
    return params * qint64(sizeof(float));
}

// A socket listening on 127.0.0.1 (port 0: any free one); closed with the object.
class Listener {
public:
    Listener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof sa;
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr *>(&sa), len) != 0 || ::listen(m_fd, 4) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0)
            qFatal("cannot listen on 127.0.0.1");
        m_port = ntohs(sa.sin_port);
    }
    ~Listener() { ::close(m_fd); }
    int port() const { return m_port; }

private:
    int m_fd = -1;
    int m_port = 0;
};

int freePort() { return Listener().port(); }

QString dirListing(const QString &path) { return QDir(path).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).join(','); }

} // namespace

class TestCliDistributed : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).isExecutable(), "ACCUMLAB_CLI"); }

    void equivalenceAcrossRanks_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("microBatch");
        QTest::addColumn<QString>("stderrMentions");
        QTest::newRow("world 2 x accum 2 x micro 4")
            << QStringList{"--world-size", "2", "--big-batch", "16", "--accum-steps", "2"} << 0 << 4 << QString();
        QTest::newRow("world 4 x accum 2 x micro 2 float64")
            << QStringList{"--world-size", "4", "--accum-steps", "2", "--dtype", "float64"} << 0 << 2 << QString();
        QTest::newRow("world 2 adamw")
            << QStringList{"--world-size", "2", "--accum-steps", "2", "--optimizer", "adamw"} << 0 << 4 << QString();
        // Undivided loss over 2 micro-batches per rank: the all-reduced mean is 2x the full batch's.
        QTest::newRow("world 2 no division")
            << QStringList{"--world-size", "2", "--accum-steps", "2", "--scaling", "none"} << 1 << 4 << "2.00x";
    }
    void equivalenceAcrossRanks()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(int, microBatch);
        QFETCH(QString, stderrMentions);
        const Run r = runCli(QStringList{"equivalence", "--dist-timeout", "20"} + args);
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &error); // rank 0 alone prints: one object
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(r.out));
        const auto o = doc.object();
        const auto config = o.value("config").toObject();
        QCOMPARE(config.value("world_size").toInt(), args.at(args.indexOf("--world-size") + 1).toInt());
        QCOMPARE(config.value("micro_batch").toInt(), microBatch);
        QCOMPARE(config.value("big_batch").toInt(), 16);
        QCOMPARE(o.value("holds").toBool(), exitCode == 0);
        if (exitCode == 0) {
            QVERIFY(o.value("max_grad_diff").toDouble() < 1e-4);
            QVERIFY(o.value("max_param_diff").toDouble() < 1e-4);
        }
        if (!stderrMentions.isEmpty())
            QVERIFY2(r.err.contains(stderrMentions), qPrintable(r.err));
        else
            QCOMPARE(r.err, QString());
    }

    void syncCounts_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<bool>("noSync");
        QTest::newRow("world 2, no-sync on") << 2 << true;
        QTest::newRow("world 2, no-sync off") << 2 << false;
        QTest::newRow("world 3, no-sync off") << 3 << false;
        QTest::newRow("world 1 issues no collective") << 1 << false;
    }
    void syncCounts()
    {
        QFETCH(int, world);
        QFETCH(bool, noSync);
        QTemporaryDir dir;
        const Run r = runCli(fastSweep() + QStringList{"--world-size", QString::number(world), "--no-sync",
                                                       noSync ? "on" : "off", "--out-dir", dir.filePath("out")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.count("equivalence holds"), 1); // only rank 0 prints
        QCOMPARE(r.out.count("wrote "), 2);
        QFile curve(dir.filePath("out/accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const CurveFile file = parseCurveJson(curve.readAll().toStdString());
        QCOMPARE(file.points.size(), size_t(3));
        QCOMPARE(file.raw.at("equivalence").at("config").at("world_size").get<int>(), world);
        QVERIFY(file.raw.at("equivalence").at("holds").get<bool>());
        for (const SweepPoint &p : file.points) {
            QCOMPARE(p.worldSize, world);
            QCOMPARE(p.effectiveBatch, 4 * p.accumSteps * world);
            QCOMPARE(p.steps, 3);
            QCOMPARE(p.syncCalls, noSync ? p.steps : p.steps * p.accumSteps);
            if (world == 1) {
                QCOMPARE(p.allreduceCalls, 0);
                QCOMPARE(p.allreduceBytes, 0);
                QCOMPARE(p.allreduceMs, 0.0);
                continue;
            }
            QCOMPARE(p.allreduceCalls, p.syncCalls);
            QCOMPARE(p.allreduceBytes, p.allreduceCalls * lessonGradBytes());
            QVERIFY(p.allreduceMs > 0.0);
            QVERIFY(p.allreduceMs < p.wallS * 1000.0);
        }
    }

    void faultStopsTheRun_data()
    {
        QTest::addColumn<QString>("faultRank");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("rank 1 killed mid-run") << "1" << "kill" << "rank 1 was killed by signal 9";
        QTest::newRow("rank 0 (the store) killed") << "0" << "kill" << "rank 0 was killed by signal 9";
        QTest::newRow("rank 1 hangs") << "1" << "hang"
                                      << QString("no answer from a peer within %1 s").arg(kDistTimeoutS);
    }
    void faultStopsTheRun()
    {
        QFETCH(QString, faultRank);
        QFETCH(QString, mode);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        // An earlier run's export must survive a failed run unchanged.
        QDir().mkpath(dir.filePath("out"));
        const QByteArray earlier = R"({"schema": "accum-curve.v1", "points": []})";
        QFile old(dir.filePath("out/accum-curve.json"));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write(earlier);
        old.close();

        const Run r = runCli(fastSweep("1,2", "20") + QStringList{"--world-size", "2", "--dist-timeout",
                                                            QString::number(kDistTimeoutS), "--out-dir",
                                                            dir.filePath("out")},
                             {{"ACCUMLAB_FAULT_RANK", faultRank}, {"ACCUMLAB_FAULT_AFTER", "10"},
                              {"ACCUMLAB_FAULT_MODE", mode}});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QVERIFY2(r.ms < kFaultBoundMs, qPrintable(QString::number(r.ms)));
        for (const QString &line : r.err.split('\n', Qt::SkipEmptyParts))
            QVERIFY2(line.startsWith("accumlab-cli: error: "), qPrintable(line));
        QFile after(dir.filePath("out/accum-curve.json"));
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), earlier);
        QCOMPARE(dirListing(dir.filePath("out")), QString("accum-curve.json")); // no temp files left
    }

    void busyPort()
    {
        const Listener squatter;
        const QString port = QString::number(squatter.port());
        QTemporaryDir dir;
        // The launcher refuses before starting a rank.
        const Run launched = runCli(fastSweep() + QStringList{"--world-size", "2", "--master-port", port}, {}, dir.path());
        QCOMPARE(launched.exitCode, 2);
        QCOMPARE(launched.err.count('\n'), 1);
        QVERIFY2(launched.err.contains("master port " + port + " on 127.0.0.1 is busy"), qPrintable(launched.err));
        QCOMPARE(dirListing(dir.path()), QString());
        // Rank 0 started by hand on the busy port cannot serve the store.
        const Run byHand = runCli({"equivalence", "--dist-timeout", QString::number(kDistTimeoutS)},
                                  {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}});
        QCOMPARE(byHand.exitCode, 3);
        QVERIFY2(byHand.err.contains("the port is busy"), qPrintable(byHand.err));
        QCOMPARE(byHand.out, QString());
    }

    void wrongWorldSize_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env"); // NAME=VALUE
        QTest::addColumn<QString>("mentions");
        QTest::newRow("--world-size 0") << QStringList{"--world-size", "0"} << QStringList{} << "between 1 and 64";
        QTest::newRow("--world-size 65") << QStringList{"--world-size", "65"} << QStringList{} << "between 1 and 64";
        QTest::newRow("equivalence --world-size 65")
            << QStringList{"equivalence", "--world-size", "65"} << QStringList{} << "between 1 and 64";
        QTest::newRow("batch does not split over 3 ranks")
            << QStringList{"equivalence", "--world-size", "3"} << QStringList{} << "x 3 ranks";
        QTest::newRow("RANK >= WORLD_SIZE") << QStringList{} << QStringList{"RANK=2", "WORLD_SIZE=2"}
                                           << "rank 2 is outside the world of 2 ranks";
        QTest::newRow("negative RANK") << QStringList{} << QStringList{"RANK=-1", "WORLD_SIZE=2"} << "outside";
        QTest::newRow("WORLD_SIZE 0") << QStringList{} << QStringList{"RANK=0", "WORLD_SIZE=0"} << "between 1 and 64";
        QTest::newRow("WORLD_SIZE not a number") << QStringList{} << QStringList{"RANK=0", "WORLD_SIZE=two"}
                                                 << "WORLD_SIZE='two' is not a whole number";
        QTest::newRow("RANK without WORLD_SIZE") << QStringList{} << QStringList{"RANK=0"} << "WORLD_SIZE is not";
        QTest::newRow("--world-size disagrees with WORLD_SIZE")
            << QStringList{"--world-size", "3"} << QStringList{"RANK=0", "WORLD_SIZE=2"} << "disagrees";
        QTest::newRow("bad MASTER_PORT") << QStringList{} << QStringList{"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=99999"}
                                         << "master port";
    }
    void wrongWorldSize()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        QFETCH(QString, mentions);
        QMap<QString, QString> vars;
        for (const QString &kv : env)
            vars.insert(kv.section('=', 0, 0), kv.section('=', 1));
        QTemporaryDir dir;
        const Run r = runCli(args, vars, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.err.startsWith("accumlab-cli: error: "));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(dirListing(dir.path()), QString());
    }

    void missingPeer_data()
    {
        QTest::addColumn<QString>("rank");
        QTest::newRow("rank 0 waits for rank 1") << "0";
        QTest::newRow("rank 1 finds no rank 0") << "1";
    }
    void missingPeer()
    {
        QFETCH(QString, rank);
        QTemporaryDir dir;
        const Run r = runCli({"equivalence", "--dist-timeout", "2"},
                             {{"RANK", rank}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"},
                              {"MASTER_PORT", QString::number(freePort())}},
                             dir.path());
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.out, QString());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("rank " + rank + " of 2: the 2 ranks did not all meet"), qPrintable(r.err));
        QVERIFY2(r.ms < kFaultBoundMs, qPrintable(QString::number(r.ms)));
        QCOMPARE(dirListing(dir.path()), QString());
    }

    // A rank started by hand with torchrun's variables, beside one started by the CLI's own
    // launcher logic: two processes started separately meet and agree.
    void ranksStartedByHand()
    {
        const QString port = QString::number(freePort());
        QProcess rank1;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert("RANK", "1");
        e.insert("WORLD_SIZE", "2");
        e.insert("MASTER_ADDR", "127.0.0.1");
        e.insert("MASTER_PORT", port);
        rank1.setProcessEnvironment(e);
        rank1.start(qEnvironmentVariable("ACCUMLAB_CLI"), {"equivalence", "--accum-steps", "2", "--dist-timeout", "20"});
        QVERIFY(rank1.waitForStarted());
        const Run rank0 = runCli({"equivalence", "--accum-steps", "2", "--dist-timeout", "20"},
                                 {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}});
        QVERIFY(rank1.waitForFinished(60000));
        QVERIFY2(rank0.exitCode == 0, qPrintable(rank0.err));
        QCOMPARE(rank1.exitCode(), 0);
        QCOMPARE(rank1.readAllStandardOutput(), QByteArray()); // quiet
        const auto o = QJsonDocument::fromJson(rank0.out.toUtf8()).object();
        QVERIFY(o.value("holds").toBool());
        QCOMPARE(o.value("config").toObject().value("world_size").toInt(), 2);
    }
};

QTEST_GUILESS_MAIN(TestCliDistributed)
#include "tst_cli_distributed.moc"
