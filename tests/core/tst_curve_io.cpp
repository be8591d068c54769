// The accum-curve.v1 reader as the importer meets it: every file of the fuzz corpus
// (tests/fuzz/corpus: ours, the lesson's, broken ones, and what libFuzzer kept) replayed
// against the fuzz target's invariants, plus the edges the fuzzer cannot reach (size, depth).
#include "core/curve_io.h"

#include "../fuzz/curve_invariants.h"

#include <QDir>
#include <QtTest>

using namespace accumlab;

namespace {

QString corpusDir() { return qEnvironmentVariable("ACCUMLAB_SOURCE_DIR") + "/tests/fuzz/corpus"; }

std::string pointJson(const std::string &extra)
{
    return R"({"schema":"accum-curve.v1","points":[{"effective_batch":8,"accum_steps":2,"micro_batch":4,)"
           R"("avg_loss":2.5,"samples_per_sec":100,"median_step_ms":1,"sync_calls":3,"steps":3)" +
           extra + "}]}";
}

QString rejection(const std::string &text)
{
    try {
        parseCurveJson(text);
    } catch (const CurveFormatError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestCurveIo : public QObject {
    Q_OBJECT
private slots:
    // Seeds named good-* must be accepted, bad-* rejected; every file must keep the invariants.
    void corpus_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(corpusDir());
        const QStringList files = dir.entryList(QDir::Files, QDir::Name);
        QVERIFY2(files.size() >= 10, qPrintable(corpusDir()));
        for (const QString &f : files)
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }
    void corpus()
    {
        QFETCH(QString, path);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        bool accepted = false;
        const std::string violation = fuzz::curveInvariantViolation(bytes.toStdString(), &accepted);
        QVERIFY2(violation.empty(), violation.c_str());
        const QString name = QFileInfo(path).fileName();
        if (name.startsWith("good-"))
            QVERIFY2(accepted, qPrintable(rejection(bytes.toStdString())));
        if (name.startsWith("bad-"))
            QVERIFY(!accepted);
    }

    void rejections_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("identity overflows int64")
            << QString::fromStdString(R"({"schema":"accum-curve.v1","points":[{"effective_batch":1,"accum_steps":4294967296,)"
                                      R"("micro_batch":4294967296,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})")
            << "micro_batch x accum_steps";
        QTest::newRow("above int64") << QString::fromStdString(pointJson(R"(,"world_size":18446744073709551615)"))
                                     << "world_size";
        QTest::newRow("null loss without divergence") << QString::fromStdString(
            R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":null,)"
            R"("samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})") << "avg_loss";
        QTest::newRow("diverged without a step") << QString::fromStdString(pointJson(R"(,"diverged":true)"))
                                                 << "diverged_at_step";
        QTest::newRow("diverged not a bool") << QString::fromStdString(pointJson(R"(,"diverged":1)")) << "diverged";
        QTest::newRow("losses not a list") << QString::fromStdString(pointJson(R"(,"losses":3)")) << "losses";
        QTest::newRow("negative peak memory") << QString::fromStdString(pointJson(R"(,"peak_mem_bytes":-1)"))
                                              << "peak_mem_bytes";
        QTest::newRow("second point broken")
            << QString::fromStdString(R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,)"
                                      R"("micro_batch":4,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1},7]})")
            << "point 2 is not an object";
        QTest::newRow("nested too deep")
            << QString::fromStdString(R"({"schema":"accum-curve.v1","points":)" + std::string(100000, '[') +
                                      std::string(100000, ']') + "}")
            << "nests deeper";
    }
    void rejections()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        const QString message = rejection(text.toStdString());
        QVERIFY2(message.contains(mentions), qPrintable(message.isEmpty() ? QStringLiteral("accepted") : message));
    }

    void refusesAHugeFileBeforeParsing()
    {
        const std::string huge = pointJson(",\"device\":\"" + std::string(kMaxCurveFileBytes, 'x') + "\"");
        QVERIFY(rejection(huge).contains(QStringLiteral("MiB")));
    }

    // Our own diverged point: JSON has no NaN, so the loss is null and "diverged" says why.
    void divergedPointRoundTrips()
    {
        SweepPoint p;
        p.effectiveBatch = 64;
        p.accumSteps = 16;
        p.microBatch = 4;
        p.steps = 3;
        p.syncCalls = 3;
        p.samplesPerSec = 1000;
        p.medianStepMs = 2;
        p.losses = {2.7, 40.0, std::numeric_limits<double>::infinity()};
        p.avgLoss = std::numeric_limits<double>::infinity();
        p.finalLoss = p.losses.back();
        p.diverged = true;
        p.divergedAtStep = 5;
        const nlohmann::json file = {{"schema", kCurveSchema}, {"points", {toJson(p)}}};
        const std::string text = file.dump();
        QVERIFY(text.find("\"avg_loss\":null") != std::string::npos);
        const CurveFile back = parseCurveJson(text);
        QCOMPARE(back.points.size(), size_t(1));
        QVERIFY(back.points[0].diverged);
        QCOMPARE(back.points[0].divergedAtStep, 5);
        QVERIFY(std::isnan(back.points[0].avgLoss));
        QCOMPARE(back.points[0].losses.size(), size_t(3));
        QCOMPARE(back.points[0].losses[1], 40.0);
        QVERIFY(fuzz::curveInvariantViolation(text).empty());
    }
};

QTEST_GUILESS_MAIN(TestCurveIo)
#include "tst_curve_io.moc"
