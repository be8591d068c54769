// core/distributed: torchrun's environment, ports, the local launcher's supervision, and
// runSweepOnLocalRanks (the desktop app's entry point for a world-size > 1 sweep).
#include "core/distributed.h"
#include "core/export.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace accumlab;

namespace {

const char *const kTorchrunVars[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"};

// Sets torchrun's variables from "NAME=VALUE" entries for one test, unsetting the others.
class ScopedEnv {
public:
    explicit ScopedEnv(const QStringList &vars)
    {
        for (const char *v : kTorchrunVars)
            qunsetenv(v);
        for (const QString &kv : vars)
            qputenv(kv.section('=', 0, 0).toUtf8().constData(), kv.section('=', 1).toUtf8());
    }
    ~ScopedEnv()
    {
        for (const char *v : kTorchrunVars)
            qunsetenv(v);
    }
};

std::filesystem::path sh() { return "/bin/sh"; }

} // namespace

class TestDistributed : public QObject {
    Q_OBJECT
private slots:
    void envAbsentMeansOneProcess()
    {
        ScopedEnv env({});
        QVERIFY(!distributedOptionsFromEnv().has_value());
    }

    void envParsed()
    {
        ScopedEnv env({"RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "MASTER_ADDR=10.0.0.7", "MASTER_PORT=29511"});
        const auto o = distributedOptionsFromEnv(/*timeoutS=*/7.5);
        QVERIFY(o.has_value());
        QCOMPARE(o->rank, 3);
        QCOMPARE(o->worldSize, 4);
        QCOMPARE(o->localRank, 1);
        QCOMPARE(QString::fromStdString(o->masterAddr), QString("10.0.0.7"));
        QCOMPARE(o->masterPort, 29511);
        QCOMPARE(o->timeoutS, 7.5);
    }

    void envDefaults()
    {
        ScopedEnv env({"RANK=1", "WORLD_SIZE=2"});
        const auto o = distributedOptionsFromEnv();
        QCOMPARE(o->localRank, 1);
        QCOMPARE(QString::fromStdString(o->masterAddr), QString("127.0.0.1"));
        QCOMPARE(o->masterPort, kDefaultMasterPort);
        QCOMPARE(o->timeoutS, kDefaultDistTimeoutS);
    }

    void envRejected_data()
    {
        QTest::addColumn<QStringList>("vars");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("rank == world") << QStringList{"RANK=2", "WORLD_SIZE=2"} << "outside the world of 2";
        QTest::newRow("world 65") << QStringList{"RANK=0", "WORLD_SIZE=65"} << "between 1 and 64";
        QTest::newRow("world 0") << QStringList{"RANK=0", "WORLD_SIZE=0"} << "between 1 and 64";
        QTest::newRow("rank only") << QStringList{"RANK=0"} << "WORLD_SIZE is not";
        QTest::newRow("world only") << QStringList{"WORLD_SIZE=2"} << "RANK is not";
        QTest::newRow("rank text") << QStringList{"RANK=one", "WORLD_SIZE=2"} << "RANK='one'";
        QTest::newRow("trailing junk") << QStringList{"RANK=1x", "WORLD_SIZE=2"} << "RANK='1x'";
        QTest::newRow("port 0") << QStringList{"RANK=0", "WORLD_SIZE=2", "MASTER_PORT=0"} << "master port";
        QTest::newRow("empty addr") << QStringList{"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR="} << "MASTER_ADDR";
    }
    void envRejected()
    {
        QFETCH(QStringList, vars);
        QFETCH(QString, mentions);
        ScopedEnv env(vars);
        try {
            distributedOptionsFromEnv();
            QFAIL("accepted");
        } catch (const ConfigError &e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }

    void ports()
    {
        const int port = pickFreePort();
        QVERIFY(port > 0 && port < 65536);
        requirePortFree("127.0.0.1", port); // nothing holds it now

        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa.sin_port = htons(static_cast<uint16_t>(port));
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) == 0);
        QVERIFY(::listen(fd, 1) == 0);
        QVERIFY_THROWS_EXCEPTION(ConfigError, requirePortFree("127.0.0.1", port));
        ::close(fd);
        QVERIFY_THROWS_EXCEPTION(ConfigError, requirePortFree("127.0.0.1", 0));
    }

    // The rendezvous's settings check: the first key that differs, named with both values, in
    // the order the settings were written; agreement gives "".
    void settingsDifference_data()
    {
        QTest::addColumn<QString>("mine");
        QTest::addColumn<QString>("theirs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("equal") << R"({"--seed":1,"--lr":0.05})" << R"({"--seed":1,"--lr":0.05})" << "";
        QTest::newRow("a number") << R"({"--seed":1,"--lr":0.05})" << R"({"--seed":2,"--lr":0.05})"
                                  << "--seed is 1 on rank 1 but 2 on rank 0";
        QTest::newRow("the first written wins") << R"({"--model":"wide","--hidden":64})"
                                                << R"({"--model":"lesson","--hidden":128})"
                                                << "--model is wide on rank 1 but lesson on rank 0";
        QTest::newRow("a real that differs in the last bit") << R"({"--lr":0.05})" << R"({"--lr":0.05000000000000001})"
                                                             << "--lr is 0.05 on rank 1 but 0.05000000000000001 on rank 0";
        QTest::newRow("a key only one side has") << R"({"--seed":1})" << R"({"--seed":1,"--scaling":"none"})"
                                                 << "--scaling is (not set) on rank 1 but none on rank 0";
        QTest::newRow("not JSON") << "garbage" << R"({"--seed":1})"
                                  << "rank 1 sent settings that are not a JSON object (another program's rank?)";
    }
    void settingsDifference()
    {
        QFETCH(QString, mine);
        QFETCH(QString, theirs);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(accumlab::settingsDifference(mine.toStdString(), 1, theirs.toStdString(), 0)),
                 expected);
    }

    // Every rank gets torchrun's variables; the launcher waits for all of them.
    void launcherSetsTorchrunEnvironment()
    {
        QTemporaryDir dir;
        LaunchOptions o;
        o.worldSize = 3;
        o.masterPort = pickFreePort();
        const std::string script =
            "echo \"$RANK $LOCAL_RANK $WORLD_SIZE $MASTER_ADDR $MASTER_PORT\" > \"$0/r$RANK\"; echo $ACCUMLAB_RUN_ID > \"$0/id$RANK\"";
        QStringList ids;
        for (int launch = 0; launch < 2; ++launch) {
            const LaunchResult r = launchLocalRanks(sh(), {"-c", script, dir.path().toStdString()}, o);
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(r.failedRank, -1);
            for (int rank = 0; rank < 3; ++rank) {
                QFile f(dir.filePath(QString("r%1").arg(rank)));
                QVERIFY(f.open(QIODevice::ReadOnly));
                QCOMPARE(QString::fromUtf8(f.readAll()).trimmed(),
                         QString("%1 %1 3 127.0.0.1 %2").arg(rank).arg(o.masterPort));
                QFile id(dir.filePath(QString("id%1").arg(rank)));
                QVERIFY(id.open(QIODevice::ReadOnly));
                ids << QString::fromUtf8(id.readAll()).trimmed();
            }
        }
        // One launch id for the ranks of a launch, a fresh one for the next launch.
        QCOMPARE(ids[0].size(), 16);
        QCOMPARE(ids[1], ids[0]);
        QCOMPARE(ids[2], ids[0]);
        QCOMPARE(ids[4], ids[3]);
        QVERIFY(ids[3] != ids[0]);
    }

    // A rank that gave up on a peer (exit 3) is not blamed while another rank is stopped or
    // still running: the launcher names that one. A rank that exits 3 alone is itself named.
    void launcherBlamesTheSilentRank_data()
    {
        QTest::addColumn<QString>("rank1");
        QTest::addColumn<int>("blamed");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("rank 1 stopped") << "kill -STOP $$" << 1 << "rank 1 stopped answering (it was stopped by a signal";
        QTest::newRow("rank 1 still running") << "sleep 60" << 1 << "rank 1 stopped answering (it was still running";
        QTest::newRow("rank 1 gave up too") << "sleep 0.3; exit 3" << 0 << "rank 0 exited with code 3";
        QTest::newRow("rank 1 ended well") << "exit 0" << 0 << "rank 0 exited with code 3";
    }
    void launcherBlamesTheSilentRank()
    {
        QFETCH(QString, rank1);
        QFETCH(int, blamed);
        QFETCH(QString, mentions);
        LaunchOptions o;
        o.worldSize = 2;
        const std::string script = "if [ $RANK = 0 ]; then sleep 0.2; exit 3; fi; " + rank1.toStdString();
        QElapsedTimer clock;
        clock.start();
        const LaunchResult r = launchLocalRanks(sh(), {"-c", script}, o);
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.failedRank, blamed);
        QVERIFY2(QString::fromStdString(r.failure).contains(mentions), r.failure.c_str());
        QVERIFY(clock.elapsed() < 10000);
    }

    // One rank fails: the launcher reports it (with its log's last line) and stops the others
    // well before their 60 s sleep ends, SIGKILLing one that ignores SIGTERM.
    void launcherStopsSurvivors_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("rank 1 exits 7")
            << R"(if [ "$RANK" = 1 ]; then echo "boom on rank 1" >&2; exit 7; fi; exec sleep 60)" << 7
            << "rank 1 exited with code 7: boom on rank 1; the other ranks were stopped";
        QTest::newRow("rank 2 killed, survivors ignore SIGTERM")
            << R"(trap "" TERM; if [ "$RANK" = 2 ]; then kill -9 $$; fi; exec sleep 60)" << 3
            << "rank 2 was killed by signal 9";
    }
    void launcherStopsSurvivors()
    {
        QFETCH(QString, script);
        QFETCH(int, exitCode);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        LaunchOptions o;
        o.worldSize = 3;
        o.logDir = dir.filePath("logs").toStdString();
        QElapsedTimer clock;
        clock.start();
        const LaunchResult r = launchLocalRanks(sh(), {"-c", script.toStdString()}, o);
        QVERIFY2(clock.elapsed() < 15000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromStdString(r.failure).contains(mentions), r.failure.c_str());
        QCOMPARE(QDir(dir.filePath("logs")).entryList(QDir::Files),
                 (QStringList{"rank-0.log", "rank-1.log", "rank-2.log"}));
    }

    void launcherCancels()
    {
        CancelToken cancel;
        cancel.cancel();
        LaunchOptions o;
        o.worldSize = 2;
        QElapsedTimer clock;
        clock.start();
        QVERIFY_THROWS_EXCEPTION(Cancelled, launchLocalRanks(sh(), {"-c", "sleep 60"}, o, &cancel));
        QVERIFY(clock.elapsed() < 10000);
    }

    // What the desktop app calls: a 2-rank sweep through accumlab-cli, points parsed back
    // with their collective counters.
    void sweepOnLocalRanks_data()
    {
        QTest::addColumn<bool>("noSync");
        QTest::newRow("no-sync on") << true;
        QTest::newRow("no-sync off") << false;
    }
    void sweepOnLocalRanks()
    {
        QFETCH(bool, noSync);
        QTemporaryDir dir;
        SweepConfig c;
        c.base.worldSize = 2;
        c.base.noSync = noSync;
        c.base.optimizer.lr = 0.03;
        // The ranks take the sweep's settings from its record: a planted bug and a width the
        // presets do not have reach them too (an argument list once dropped the bug).
        c.base.bug = noSync ? AccumBug::None : AccumBug::DivideByNPlusOne;
        c.base.shape = ModelShape{64, 40, 16};
        c.accumGrid = {1, 4};
        c.numSteps = 4;
        c.warmupSteps = 1;
        c.threads = 1;
        struct Count : EngineObserver {
            int points = 0;
            void onSweepPoint(const SweepPoint &) override { ++points; }
        } observer;
        const SweepResult r = runSweepOnLocalRanks(qEnvironmentVariable("ACCUMLAB_CLI").toStdString(), c,
                                                   dir.path().toStdString(), /*timeoutS=*/20.0, &observer);
        QCOMPARE(observer.points, 2);
        QCOMPARE(r.points.size(), size_t(2));
        for (const SweepPoint &p : r.points) {
            QCOMPARE(p.worldSize, 2);
            QCOMPARE(p.effectiveBatch, c.base.microBatch * p.accumSteps * 2);
            QCOMPARE(p.steps, c.numSteps);
            QCOMPARE(p.allreduceCalls, noSync ? p.steps : p.steps * p.accumSteps);
            QCOMPARE(p.allreduceCalls, p.syncCalls);
            QVERIFY(p.allreduceBytes > 0 && p.allreduceBytes % p.allreduceCalls == 0);
            QCOMPARE(p.losses.size(), size_t(c.numSteps));
        }
        // The settings reached the ranks: the config rank 0 wrote says so.
        QFile curve(dir.filePath("accum-curve.json"));
        QVERIFY(curve.open(QIODevice::ReadOnly));
        const auto config = parseCurveJson(curve.readAll().toStdString()).raw.at("config");
        QCOMPARE(config.at("lr").get<double>(), 0.03);
        QCOMPARE(QString::fromStdString(config.at("bug").get<std::string>()), QString::fromStdString(toString(c.base.bug)));
        QCOMPARE(config.at("hidden").get<int64_t>(), int64_t(40));
    }

    void sweepOnLocalRanksReportsFailure()
    {
        QTemporaryDir dir;
        SweepConfig c;
        c.base.worldSize = 2;
        c.accumGrid = {2};
        c.numSteps = 20;
        c.warmupSteps = 0;
        qputenv("ACCUMLAB_FAULT_RANK", "1");
        qputenv("ACCUMLAB_FAULT_AFTER", "3");
        try {
            runSweepOnLocalRanks(qEnvironmentVariable("ACCUMLAB_CLI").toStdString(), c, dir.path().toStdString(), 5.0);
            qunsetenv("ACCUMLAB_FAULT_RANK");
            QFAIL("a killed rank went unnoticed");
        } catch (const DistributedError &e) {
            qunsetenv("ACCUMLAB_FAULT_RANK");
            QVERIFY2(QString(e.what()).contains("rank 1 was killed by signal 9"), e.what());
        }
        QVERIFY(!QFileInfo::exists(dir.filePath("accum-curve.json")));
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
