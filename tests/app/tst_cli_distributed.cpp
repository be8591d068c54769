// accumlab-cli over real data-parallel ranks (c10d Gloo on loopback), end to end:
// equivalence across ranks, sync counts against the collectives issued, and the faults a
// user meets (a killed, hung or stopped rank, a port that answers nothing or another
// protocol, ranks started with different settings, a busy port or two launchers racing for
// one, a wrong world size or interface, a missing peer).
#include "core/export.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_run.h"

using accumlab::test::CliRun;
using accumlab::test::runCli;

#include <arpa/inet.h>
#include <atomic>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace accumlab;

namespace {

// Each fault test runs with this rendezvous/collective timeout (seconds) ...
constexpr int kDistTimeoutS = 3;
// ... and must end well inside this bound (start-up, the timeout, the launcher's stop grace).
constexpr qint64 kFaultBoundMs = 25000;



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
    int fd() const { return m_fd; }

private:
    int m_fd = -1;
    int m_port = 0;
};

int freePort() { return Listener().port(); }

// Another service on a port: accepts every connection and answers it with `reply` (before the
// client says anything when `first` is set, else after its first bytes).
class ForeignService {
public:
    ForeignService(QByteArray reply, bool first) : m_reply(std::move(reply)), m_first(first)
    {
        m_thread = std::thread([this] {
            for (;;) {
                const int c = ::accept(m_listener.fd(), nullptr, nullptr);
                if (c < 0 || m_stop)
                    return;
                char buf[256];
                if (!m_first)
                    (void)::recv(c, buf, sizeof buf, 0);
                for (int i = 0; i < 64; ++i)
                    (void)::send(c, m_reply.constData(), size_t(m_reply.size()), MSG_NOSIGNAL);
                m_open.push_back(c); // kept open: the client reads what it was sent, then waits
            }
        });
    }
    ~ForeignService()
    {
        m_stop = true;
        ::shutdown(m_listener.fd(), SHUT_RDWR);
        m_thread.join();
        for (int c : m_open)
            ::close(c);
    }
    int port() const { return m_listener.port(); }

private:
    Listener m_listener;
    QByteArray m_reply;
    bool m_first;
    std::atomic<bool> m_stop{false};
    std::vector<int> m_open;
    std::thread m_thread;
};

QMap<QString, QString> rankEnv(int rank, const QString &port)
{
    return {{"RANK", QString::number(rank)}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}};
}

// Two ranks started by hand (as torchrun would), rank r with args[r].
std::pair<CliRun, CliRun> twoRanks(const QStringList &args0, const QStringList &args1, const QString &workDir,
                             const QMap<QString, QString> &extraEnv = {})
{
    const QString port = QString::number(freePort());
    CliRun r1;
    std::thread t([&] {
        auto e = rankEnv(1, port);
        for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it)
            e.insert(it.key(), it.value());
        r1 = runCli(args1, e, workDir);
    });
    auto e0 = rankEnv(0, port);
    for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it)
        e0.insert(it.key(), it.value());
    const CliRun r0 = runCli(args0, e0, workDir);
    t.join();
    return {r0, r1};
}

QString dirListing(const QString &path) { return QDir(path).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).join(','); }

// What a rank said after the line where a rank other than 0, started by hand, says where it
// waits for rank 0: its verdict.
QString verdictOf(const QString &err)
{
    static const QRegularExpression joining(QStringLiteral(
        "^accumlab-cli: rank \\d+ of \\d+: joining the rendezvous at \\S+; waiting for rank 0 for up to [^\\n]*\\n"));
    return QString(err).remove(joining);
}

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
            << QStringList{"--world-size", "2", "--accum-steps", "2", "--scaling", "none"} << 1 << 4 << "2.00×";
    }
    void equivalenceAcrossRanks()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(int, microBatch);
        QFETCH(QString, stderrMentions);
        const CliRun r = runCli(QStringList{"equivalence", "--dist-timeout", "20"} + args);
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
        const CliRun r = runCli(fastSweep() + QStringList{"--world-size", QString::number(world), "--no-sync",
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

        const CliRun r = runCli(fastSweep("1,2", "20") + QStringList{"--world-size", "2", "--dist-timeout",
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
        const CliRun launched = runCli(fastSweep() + QStringList{"--world-size", "2", "--master-port", port}, {}, dir.path());
        QCOMPARE(launched.exitCode, 2);
        QCOMPARE(launched.err.count('\n'), 1);
        QVERIFY2(launched.err.contains("master port " + port + " on 127.0.0.1 is busy"), qPrintable(launched.err));
        QCOMPARE(dirListing(dir.path()), QString());
        // Rank 0 started by hand on the busy port cannot serve the store.
        const CliRun byHand = runCli({"equivalence", "--dist-timeout", QString::number(kDistTimeoutS)},
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
        const CliRun r = runCli(args, vars, dir.path());
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString());
        QCOMPARE(verdictOf(r.err).count('\n'), 1);
        QVERIFY(verdictOf(r.err).startsWith("accumlab-cli: error: "));
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
        // One bound for the whole rendezvous: the rank waits the timeout (rank 1 keeps knocking
        // for rank 0 all along) and not much longer, whatever stage it waits in.
        constexpr int kTimeoutS = 5;
        const CliRun r = runCli({"equivalence", "--dist-timeout", QString::number(kTimeoutS)},
                             rankEnv(rank.toInt(), QString::number(freePort())), dir.path());
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.out, QString());
        QCOMPARE(verdictOf(r.err).count('\n'), 1);
        QVERIFY2(r.err.contains("rank " + rank + " of 2: the 2 ranks did not all meet"), qPrintable(r.err));
        QVERIFY2(r.err.contains(QString("within %1 s").arg(kTimeoutS)), qPrintable(r.err));
        QVERIFY2(r.ms >= kTimeoutS * 1000 && r.ms < kTimeoutS * 1000 + 4000, qPrintable(QString::number(r.ms)));
        QCOMPARE(dirListing(dir.path()), QString());
    }

    // SIGSTOP leaves a rank alive and silent: at the rendezvous (rank 0 before or after it
    // serves the store) and mid-run. Every wait is bounded, and the launcher blames the
    // stopped rank, not the healthy one that gave up on it.
    void stoppedRank_data()
    {
        QTest::addColumn<QString>("faultRank");
        QTest::addColumn<QString>("after");
        QTest::newRow("rank 0 stopped before serving the store") << "0" << "-1";
        QTest::newRow("rank 0 stopped while serving the store") << "0" << "-2";
        QTest::newRow("rank 1 stopped at the rendezvous") << "1" << "-2";
        QTest::newRow("rank 0 stopped mid-run") << "0" << "5";
        QTest::newRow("rank 1 stopped mid-run") << "1" << "5";
    }
    void stoppedRank()
    {
        QFETCH(QString, faultRank);
        QFETCH(QString, after);
        QTemporaryDir dir;
        const CliRun r = runCli(fastSweep("1,2", "20") + QStringList{"--world-size", "2", "--dist-timeout",
                                                            QString::number(kDistTimeoutS), "--out-dir",
                                                            dir.filePath("out")},
                             {{"ACCUMLAB_FAULT_RANK", faultRank}, {"ACCUMLAB_FAULT_AFTER", after},
                              {"ACCUMLAB_FAULT_MODE", "stop"}});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("rank " + faultRank + " stopped answering (it was stopped by a signal"), qPrintable(r.err));
        QVERIFY2(r.ms < kFaultBoundMs, qPrintable(QString::number(r.ms)));
        QVERIFY2(!QFileInfo::exists(dir.filePath("out/accum-curve.json")), "a failed run wrote its curve");
        for (const QString &line : r.err.split('\n', Qt::SkipEmptyParts))
            QVERIFY2(line.startsWith("accumlab-cli: error: "), qPrintable(line));
    }

    // A port that accepts connections (the kernel's backlog) but never answers: rank 1 gives up
    // within the timeout and says so, as it must when rank 0 itself is stopped.
    void silentStore()
    {
        const Listener silent;
        QTemporaryDir dir;
        const CliRun r = runCli({"equivalence", "--dist-timeout", QString::number(kDistTimeoutS)},
                             rankEnv(1, QString::number(silent.port())), dir.path());
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.out, QString());
        QCOMPARE(verdictOf(r.err).count('\n'), 1);
        QVERIFY2(r.err.contains(QString("within %1 s").arg(kDistTimeoutS)), qPrintable(r.err));
        QVERIFY2(r.err.contains("nothing answered the rendezvous"), qPrintable(r.err));
        QVERIFY2(r.ms >= kDistTimeoutS * 1000 && r.ms < kDistTimeoutS * 1000 + 4000, qPrintable(QString::number(r.ms)));
        QCOMPARE(dirListing(dir.path()), QString());
    }

    // Another service on the rendezvous port: a clear sentence and exit 3, never
    // `terminate called` (an exception thrown on one of LibTorch's threads), never a hang.
    void foreignService_data()
    {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<bool>("first");
        QTest::newRow("greets first (ssh)") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n") << true;
        QTest::newRow("answers a request (http)") << QByteArray("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") << false;
        QTest::newRow("answers 0xff bytes") << QByteArray(512, '\xff') << false;
        QTest::newRow("greets with zeros") << QByteArray(512, '\0') << true;
    }
    void foreignService()
    {
        QFETCH(QByteArray, reply);
        QFETCH(bool, first);
#if defined(__SANITIZE_ADDRESS__)
        // LibTorch's client reads the banner as a length and asks for that many bytes: a plain
        // build throws std::bad_alloc (turned into a sentence by the terminate handler), while
        // AddressSanitizer's allocator ends the process on the request before anything throws.
        if (reply.startsWith("SSH"))
            QSKIP("under AddressSanitizer the oversized allocation aborts instead of throwing");
#endif
        const ForeignService service(reply, first);
        QTemporaryDir dir;
        const CliRun r = runCli({"equivalence", "--dist-timeout", QString::number(kDistTimeoutS)},
                             rankEnv(1, QString::number(service.port())), dir.path());
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.out, QString());
        QVERIFY2(!r.err.contains("terminate called"), qPrintable(r.err));
        QCOMPARE(verdictOf(r.err).count('\n'), 1);
        QVERIFY2(verdictOf(r.err).startsWith("accumlab-cli: error: rank 1 of 2: "), qPrintable(r.err));
        QVERIFY2(r.err.contains("another program") || r.err.contains("nothing answered"), qPrintable(r.err));
        QVERIFY2(r.ms < kDistTimeoutS * 1000 + 4000, qPrintable(QString::number(r.ms)));
        QCOMPARE(dirListing(dir.path()), QString());
    }

    // Ranks started by hand with one setting changed on rank 1: both refuse at the rendezvous
    // with exit 2, naming the option and both values, before any collective; nothing is
    // written. The unchanged row is the control: the same two ranks agree and run.
    void mismatchedRanks_data()
    {
        QTest::addColumn<QStringList>("common");
        QTest::addColumn<QStringList>("rank1");
        QTest::addColumn<QString>("option"); // "" when the ranks agree
        const QStringList sweep = fastSweep("1,2", "2");
        QTest::newRow("same settings") << sweep << QStringList{} << QString();
        QTest::newRow("--seed") << sweep << QStringList{"--seed", "5"} << "--seed";
        QTest::newRow("--hidden") << sweep << QStringList{"--hidden", "64"} << "--hidden";
        QTest::newRow("--model") << sweep << QStringList{"--model", "fixture"} << "--model";
        QTest::newRow("--dtype") << sweep << QStringList{"--dtype", "float64"} << "--dtype";
        QTest::newRow("--accum-grid") << sweep << QStringList{"--accum-grid", "1,4"} << "--accum-grid";
        QTest::newRow("--micro-batch") << sweep << QStringList{"--micro-batch", "8"} << "--micro-batch";
        QTest::newRow("--lr") << sweep << QStringList{"--lr", "0.1"} << "--lr";
        QTest::newRow("--optimizer") << sweep << QStringList{"--optimizer", "adamw"} << "--optimizer";
        QTest::newRow("--no-sync") << sweep << QStringList{"--no-sync", "off"} << "--no-sync";
        QTest::newRow("--num-steps") << sweep << QStringList{"--num-steps", "3"} << "--num-steps";
        QTest::newRow("--warmup-steps") << sweep << QStringList{"--warmup-steps", "2"} << "--warmup-steps";
        QTest::newRow("--repeats") << sweep << QStringList{"--repeats", "2"} << "--repeats";
        // The sweep's settings come from core's record of a sweep: a new one reaches the check.
        QTest::newRow("--equal-work") << sweep << QStringList{"--equal-work"} << "--equal-work";
        QTest::newRow("--scaling") << sweep << QStringList{"--scaling", "none"} << "--scaling";
        QTest::newRow("--labels") << sweep << QStringList{"--labels", "random"} << "--labels";
        QTest::newRow("--step-every-micro") << sweep << QStringList{"--step-every-micro"} << "--step-every-micro";
        // The loss scaler's settings: the ranks took them from a hand-written list that left
        // them out, and a rank without the scaler skipped windows the others stepped.
        const QStringList scaled = sweep + QStringList{"--dtype", "float16", "--loss-scaling"};
        QTest::newRow("--loss-scaling") << sweep + QStringList{"--dtype", "float16"} << QStringList{"--loss-scaling"}
                                        << "--loss-scaling";
        QTest::newRow("--scaler-growth-interval") << scaled << QStringList{"--scaler-growth-interval", "5"}
                                                  << "--scaler-growth-interval";
        QTest::newRow("--scaler-bug") << scaled << QStringList{"--scaler-bug", "update-every-micro"} << "--scaler-bug";
        const QStringList train{"train", "--num-steps", "2", "--dtype", "float16"};
        QTest::newRow("train, same settings") << train << QStringList{} << QString();
        QTest::newRow("train --loss-scaling") << train << QStringList{"--loss-scaling"} << "--loss-scaling";
        QTest::newRow("train --scaler-growth-interval") << train + QStringList{"--loss-scaling"}
                                                        << QStringList{"--scaler-growth-interval", "5"}
                                                        << "--scaler-growth-interval";
        QTest::newRow("train --lr") << train << QStringList{"--lr", "0.2"} << "--lr";
        const QStringList eq{"equivalence", "--accum-steps", "2"};
        QTest::newRow("equivalence, same settings") << eq << QStringList{} << QString();
        QTest::newRow("equivalence --seed") << eq << QStringList{"--seed", "8"} << "--seed";
        QTest::newRow("equivalence --big-batch") << eq << QStringList{"--big-batch", "32"} << "--big-batch";
        QTest::newRow("equivalence --lr") << eq << QStringList{"--lr", "0.2"} << "--lr";
        QTest::newRow("equivalence --dtype") << eq << QStringList{"--dtype", "bfloat16"} << "--dtype";
        QTest::newRow("equivalence --compare-split") << eq << QStringList{"--compare-split", "4x2"} << "--compare-split";
    }
    void mismatchedRanks()
    {
        QFETCH(QStringList, common);
        QFETCH(QStringList, rank1);
        QFETCH(QString, option);
        QTemporaryDir dir;
        const QStringList timeout{"--dist-timeout", "20"};
        const bool eq = common.first() == "equivalence" || common.first() == "train"; // no files to write
        const QStringList out = eq ? QStringList{} : QStringList{"--out-dir", dir.filePath("out")};
        QStringList other = common; // rank 1: the same options with one of them changed or added
        const int at = other.indexOf(rank1.value(0));
        if (at >= 0 && rank1.size() == 2)
            other[at + 1] = rank1[1];
        else
            other += rank1;
        const auto [r0, r1] = twoRanks(common + timeout + out, other + timeout + out, dir.path());
        if (option.isEmpty()) {
            QVERIFY2(r0.exitCode == 0, qPrintable(r0.err));
            QVERIFY2(r1.exitCode == 0, qPrintable(r1.err));
            return;
        }
        for (const CliRun &r : {r0, r1}) {
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.out, QString());
            QCOMPARE(verdictOf(r.err).count('\n'), 1);
            QVERIFY2(r.err.contains("the ranks were started with different settings: " + option + " is "),
                     qPrintable(r.err));
            QVERIFY2(r.err.contains(" on rank 1 but "), qPrintable(r.err));
        }
        QCOMPARE(r0.err.section(": the ranks", 1), r1.err.section(": the ranks", 1)); // one sentence on both
        QCOMPARE(dirListing(dir.path()), QString());
    }
    // The main job on one rank and the equivalence check on the other.
    void mismatchedCommand()
    {
        QTemporaryDir dir;
        const auto [r0, r1] = twoRanks({"--no-write", "--dist-timeout", "20"}, {"equivalence", "--dist-timeout", "20"},
                                       dir.path());
        QCOMPARE(r0.exitCode, 2);
        QCOMPARE(r1.exitCode, 2);
        QVERIFY2(r0.err.contains("different settings: "), qPrintable(r0.err));
    }

    // GLOO_SOCKET_IFNAME names the interface Gloo uses: a name this host lacks is bad input,
    // said as such before anything connects; `lo` is a real one and works.
    void socketInterface_data()
    {
        QTest::addColumn<QString>("ifname");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("lo") << "lo" << 0;
        QTest::newRow("no such interface") << "nosuch0" << 2;
        QTest::newRow("one of a list is bogus") << "lo,nosuch0" << 2;
        QTest::newRow("too long for an interface name") << QString(40, 'x') << 2;
    }
    void socketInterface()
    {
        QFETCH(QString, ifname);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        const CliRun r = runCli({"equivalence", "--world-size", "2", "--dist-timeout", "20"}, {{"GLOO_SOCKET_IFNAME", ifname}},
                             dir.path());
        QCOMPARE(r.exitCode, exitCode);
        if (exitCode == 0)
            return;
        QVERIFY2(r.err.contains("GLOO_SOCKET_IFNAME='" + ifname + "' names no network interface of this host"),
                 qPrintable(r.err));
        QCOMPARE(r.out, QString());
    }

    // Two launchers given one --master-port at once: one runs to the end; the other ends with
    // 2 (the port was busy when it looked) or 3 (taken between its look and rank 0's bind, or
    // its ranks could not meet), in sentences, and its ranks never join the first run (each
    // launch has its own keys in the store).
    void racingLaunchers()
    {
        const QString port = QString::number(freePort());
        QTemporaryDir a, b;
        CliRun ra;
        // Long enough (about half a second of steps) that the two runs overlap: with a few
        // steps one launcher could finish before the other looked, and both would succeed.
        const QStringList args = fastSweep("1,2", "1500") + QStringList{"--world-size", "2", "--master-port", port,
                                                                        "--dist-timeout", "10"};
        std::thread t([&] { ra = runCli(args + QStringList{"--out-dir", a.filePath("out")}); });
        const CliRun rb = runCli(args + QStringList{"--out-dir", b.filePath("out")});
        t.join();
        QVERIFY2((ra.exitCode == 0) != (rb.exitCode == 0), qPrintable(ra.err + rb.err));
        const CliRun &lost = ra.exitCode == 0 ? rb : ra;
        QVERIFY2(lost.exitCode == 2 || lost.exitCode == 3, qPrintable(lost.err));
        for (const QString &line : lost.err.split('\n', Qt::SkipEmptyParts))
            QVERIFY2(line.startsWith("accumlab-cli: error: "), qPrintable(line));
        const QString wonDir = (ra.exitCode == 0 ? a : b).filePath("out");
        QFile curve(wonDir + "/accum-curve.json");
        QVERIFY(curve.open(QIODevice::ReadOnly));
        QCOMPARE(parseCurveJson(curve.readAll().toStdString()).points.size(), size_t(2));
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
        // Rank 1 says when it reaches the rendezvous; rank 0 (half a second to load LibTorch)
        // starts after that, so rank 1 knocks on a port nobody serves yet.
        QByteArray said;
        rank1.setReadChannel(QProcess::StandardError);
        while (!said.contains("waiting for rank 0") && rank1.state() == QProcess::Running)
            if (rank1.waitForReadyRead(30000))
                said += rank1.readAllStandardError();
            else
                break;
        QVERIFY2(said.contains("rank 1 of 2: joining the rendezvous at 127.0.0.1:" + port.toUtf8() +
                               "; waiting for rank 0 for up to 20 s"),
                 said.constData());
        const CliRun rank0 = runCli({"equivalence", "--accum-steps", "2", "--dist-timeout", "20"},
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
