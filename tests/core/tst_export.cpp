// accum-curve.v1: the lesson's field names, a round trip through the reader, the reader's
// rejections, and the atomic write leaving no partial file.
#include "core/export.h"

#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <sys/resource.h>

using namespace accumlab;
using nlohmann::json;

namespace {

SweepResult smallResult()
{
    SweepConfig s;
    s.base.preset = ModelPreset::Fixture;
    s.base.device = DeviceRequest::Cpu;
    s.accumGrid = {1, 2};
    s.numSteps = 3;
    s.warmupSteps = 0;
    return runSweep(s);
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void lessonFieldNames()
    {
        const auto sweep = smallResult();
        const json j = curveJson(sweep);
        QCOMPARE(QString::fromStdString(j.at("schema").get<std::string>()), QStringLiteral("accum-curve.v1"));
        QCOMPARE(j.at("points").size(), size_t(2));
        for (const char *field : {"effective_batch", "accum_steps", "micro_batch", "avg_loss", "samples_per_sec",
                                  "median_step_ms", "sync_calls", "steps"})
            QVERIFY2(j.at("points")[0].contains(field), field);
        QVERIFY(j.at("points")[0].at("steps").is_number_integer());
        QVERIFY(j.contains("timed_region"));
        QVERIFY(j.contains("config"));
        QVERIFY(j.contains("environment"));
        QCOMPARE(j.at("config").at("accum_grid").size(), size_t(2));
    }

    void roundTrip()
    {
        QTemporaryDir dir;
        const auto sweep = smallResult();
        const auto eq = runEquivalence(EquivalenceConfig{});
        const std::string path = dir.filePath("accum-curve.json").toStdString();
        writeFileAtomic(path, curveJson(sweep, &eq).dump(2));
        const CurveFile file = parseCurveJson(readAll(path));
        QCOMPARE(file.points.size(), sweep.points.size());
        for (size_t i = 0; i < file.points.size(); ++i) {
            QCOMPARE(file.points[i].effectiveBatch, sweep.points[i].effectiveBatch);
            QCOMPARE(file.points[i].samplesPerSec, sweep.points[i].samplesPerSec);
            QCOMPARE(file.points[i].avgLoss, sweep.points[i].avgLoss);
            QCOMPARE(file.points[i].syncCalls, sweep.points[i].syncCalls);
        }
        QCOMPARE(file.raw.at("equivalence").at("max_grad_diff").get<double>(), eq.maxGradDiff);
        QVERIFY(file.raw.at("equivalence").at("holds").get<bool>());
    }

    // The lesson's own file: eight fields per point, nothing else.
    void readsTheLessonsFile()
    {
        const std::string lesson = R"({"schema": "accum-curve.v1", "points": [
          {"effective_batch": 4, "accum_steps": 1, "micro_batch": 4, "avg_loss": 2.79,
           "samples_per_sec": 7200.5, "median_step_ms": 0.5, "sync_calls": 25, "steps": 25}]})";
        const CurveFile file = parseCurveJson(lesson);
        QCOMPARE(file.points.size(), size_t(1));
        QCOMPARE(file.points[0].samplesPerSec, 7200.5);
    }

    void rejectsBadFiles_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not json") << "{oops" << "JSON";
        QTest::newRow("array") << "[]" << "object";
        QTest::newRow("wrong schema") << R"({"schema":"accum-curve.v2","points":[]})" << "schema";
        QTest::newRow("no points") << R"({"schema":"accum-curve.v1"})" << "points";
        QTest::newRow("empty points") << R"({"schema":"accum-curve.v1","points":[]})" << "empty";
        QTest::newRow("missing field")
            << R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4}]})"
            << "avg_loss";
        QTest::newRow("string sps")
            << R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":1,"samples_per_sec":"fast","median_step_ms":1,"sync_calls":1,"steps":1}]})"
            << "samples_per_sec";
        QTest::newRow("negative sps")
            << R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":1,"samples_per_sec":-1,"median_step_ms":1,"sync_calls":1,"steps":1}]})"
            << "negative";
        QTest::newRow("identity broken")
            << R"({"schema":"accum-curve.v1","points":[{"effective_batch":5,"accum_steps":2,"micro_batch":4,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})"
            << "micro_batch x accum_steps";
    }
    void rejectsBadFiles()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        try {
            parseCurveJson(text.toStdString());
            QFAIL("a bad file was accepted");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(mentions), e.what());
            QVERIFY(dynamic_cast<const CurveFormatError *>(&e));
        }
    }

    // /proc takes no new files, even from root: the write fails with a sentence.
    void atomicWriteToAnUnwritableFolder()
    {
        try {
            writeFileAtomic("/proc/accumlab-test.json", "{}");
            QFAIL("the write succeeded");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot write")), e.what());
        }
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/accumlab-test.json")));
    }

    void atomicWriteFailsOnAFileAsFolder()
    {
        QTemporaryDir dir;
        const QString blocker = dir.filePath("blocker");
        std::ofstream(blocker.toStdString()) << "x";
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeFileAtomic((blocker + "/a.json").toStdString(), "{}"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"blocker"});
    }

    // Staged files become visible only on commit; dropped, they leave nothing behind.
    void stagedFilesPublishOnCommitOnly()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a.json").toStdString();
        const std::string b = dir.filePath("b.md").toStdString();
        {
            StagedFile fa(a, "A");
            StagedFile fb(b, "B");
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // two temp files
            QVERIFY(!QFileInfo::exists(dir.filePath("a.json")));
        }
        QVERIFY(QDir(dir.path()).isEmpty());
        {
            StagedFile fa(a, "A");
            StagedFile fb(b, "B");
            fa.commit();
            fb.commit();
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), (QStringList{"a.json", "b.md"}));
        QCOMPARE(QString::fromStdString(readAll(b)), QStringLiteral("B"));
        QCOMPARE(QFileInfo(dir.filePath("a.json")).permissions() & QFileDevice::ReadOther, QFileDevice::ReadOther);
    }

    // A full disk, simulated by this process's file-size limit (EFBIG instead of ENOSPC; both
    // fail write() the same way): the error names the file, the earlier content stays.
    void atomicWriteOnAFullDisk()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.json").toStdString();
        writeFileAtomic(path, "earlier");
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = saved;
        lowered.rlim_cur = 4096;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &lowered), 0);
        QString message;
        try {
            writeFileAtomic(path, std::string(65536, 'z'));
        } catch (const ExportError &e) {
            message = QString::fromUtf8(e.what());
        }
        setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, oldHandler);
        QVERIFY2(message.contains(QStringLiteral("cannot write")) && message.contains(QStringLiteral("x.json")),
                 qPrintable(message));
        QCOMPARE(QString::fromStdString(readAll(path)), QStringLiteral("earlier"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"x.json"});
    }

    void atomicWriteReplacesWhole()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.json").toStdString();
        writeFileAtomic(path, std::string(10000, 'a'));
        writeFileAtomic(path, "short");
        QCOMPARE(QString::fromStdString(readAll(path)), QStringLiteral("short"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"x.json"});
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
