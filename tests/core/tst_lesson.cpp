// The lesson's main job under faults: cancelled in each phase (equivalence, sweep, export) it
// leaves no half-written file and the next run works; a diverged point is reported in a
// sentence and marked in the JSON while the rest of the sweep runs; exports that cannot be
// written (a full disk, a folder that vanished) fail in a sentence and keep the earlier files.
#include "core/export.h"
#include "core/lesson.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

using namespace accumlab;

Q_DECLARE_METATYPE(accumlab::LessonPhase)

namespace {

LessonOptions smallLesson(const QString &outDir)
{
    LessonOptions o;
    o.sweep.base.preset = ModelPreset::Fixture;
    o.sweep.base.device = DeviceRequest::Cpu;
    o.sweep.accumGrid = {1, 2};
    o.sweep.numSteps = 2;
    o.sweep.warmupSteps = 0;
    o.sweep.threads = 1;
    o.outDir = outDir.toStdString();
    return o;
}

std::string readAll(const QString &path)
{
    std::ifstream in(path.toStdString());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

QStringList entries(const QString &dir) { return QDir(dir).entryList(QDir::NoDotAndDotDot | QDir::AllEntries); }

// Cancels its token when the lesson reaches `phase`, or after the first sweep point.
struct CancelAt : EngineObserver {
    CancelToken *token = nullptr;
    std::optional<LessonPhase> phase;
    bool afterFirstPoint = false;
    std::vector<LessonPhase> seen;
    void onPhase(LessonPhase p) override
    {
        seen.push_back(p);
        if (phase && *phase == p)
            token->cancel();
    }
    void onSweepPoint(const SweepPoint &) override
    {
        if (afterFirstPoint)
            token->cancel();
    }
};

// Lowers this process's file-size limit for its lifetime: writes past `bytes` fail with
// EFBIG, as on a full disk (SIGXFSZ ignored so write() returns the error instead of killing).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &m_saved);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit lowered = m_saved;
        lowered.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &lowered);
    }
    ~FileSizeLimit()
    {
        setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_oldHandler);
    }

private:
    rlimit m_saved{};
    void (*m_oldHandler)(int) = nullptr;
};

} // namespace

class TestLesson : public QObject {
    Q_OBJECT
private slots:
    void phasesInOrder()
    {
        QTemporaryDir dir;
        CancelToken token;
        CancelAt obs;
        obs.token = &token;
        std::ostringstream out, err;
        QCOMPARE(runLesson(smallLesson(dir.filePath("out")), out, err, &obs, &token), 0);
        const std::vector<LessonPhase> expected{LessonPhase::Equivalence, LessonPhase::Sweep, LessonPhase::Export};
        QVERIFY(obs.seen == expected);
        QCOMPARE(entries(dir.filePath("out")), (QStringList{kCurveFileName, kSkillFileName}));
    }

    void cancelInEachPhase_data()
    {
        QTest::addColumn<int>("phase"); // -1: after the first sweep point
        QTest::newRow("equivalence") << int(LessonPhase::Equivalence);
        QTest::newRow("sweep start") << int(LessonPhase::Sweep);
        QTest::newRow("mid-sweep") << -1;
        QTest::newRow("export") << int(LessonPhase::Export);
    }
    void cancelInEachPhase()
    {
        QFETCH(int, phase);
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        QVERIFY(QDir().mkpath(out));
        // An earlier run's exports, which a cancelled run must leave exactly as they were.
        const std::string earlierCurve = "{\"earlier\": true}\n";
        const std::string earlierSkill = "# earlier recipe\n";
        writeFileAtomic((out + "/" + kCurveFileName).toStdString(), earlierCurve);
        writeFileAtomic((out + "/" + kSkillFileName).toStdString(), earlierSkill);

        CancelToken token;
        CancelAt obs;
        obs.token = &token;
        if (phase >= 0)
            obs.phase = LessonPhase(phase);
        else
            obs.afterFirstPoint = true;
        std::ostringstream sink, err;
        const LessonOptions options = smallLesson(out);
        QVERIFY_THROWS_EXCEPTION(Cancelled, runLesson(options, sink, err, &obs, &token));
        QCOMPARE(entries(out), (QStringList{kCurveFileName, kSkillFileName})); // no temp file left
        QCOMPARE(readAll(out + "/" + kCurveFileName), earlierCurve);
        QCOMPARE(readAll(out + "/" + kSkillFileName), earlierSkill);

        // The next run, with the same token reset, works and replaces both files whole.
        token.reset();
        CancelAt quiet;
        quiet.token = &token;
        std::ostringstream out2, err2;
        QCOMPARE(runLesson(options, out2, err2, &quiet, &token), 0);
        const CurveFile file = parseCurveJson(readAll(out + "/" + kCurveFileName));
        QCOMPARE(file.points.size(), options.sweep.accumGrid.size());
        QVERIFY(readAll(out + "/" + kSkillFileName).find("earlier") == std::string::npos);
        QCOMPARE(entries(out), (QStringList{kCurveFileName, kSkillFileName}));
    }

    // No division with a high learning rate: accum 16 multiplies SGD's step by 16 and the
    // point diverges; accum 1 (where no division changes nothing) runs on after it.
    void divergedPointIsReportedAndTheSweepCarriesOn()
    {
        QTemporaryDir dir;
        LessonOptions o = smallLesson(dir.filePath("out"));
        o.sweep.base.scaling = Scaling::None;
        o.sweep.base.optimizer.lr = kDivergingLr;
        o.sweep.accumGrid = {16, 1};
        o.sweep.numSteps = 20;
        o.sweep.warmupSteps = 1;
        std::ostringstream out, err;
        QCOMPARE(runLesson(o, out, err), 0);

        const CurveFile file = parseCurveJson(readAll(dir.filePath("out/accum-curve.json")));
        QCOMPARE(file.points.size(), size_t(2));
        const SweepPoint &bad = file.points[0];
        QVERIFY(bad.diverged);
        QVERIFY(bad.divergedAtStep >= 1 && bad.divergedAtStep <= o.sweep.warmupSteps + o.sweep.numSteps);
        QCOMPARE(bad.steps, std::max<int64_t>(0, bad.divergedAtStep - o.sweep.warmupSteps));
        QCOMPARE(file.raw.at("points")[0].at("diverged_at_step").get<int64_t>(), bad.divergedAtStep);
        // The next point ran all its steps and stayed finite.
        const SweepPoint &good = file.points[1];
        QVERIFY(!good.diverged);
        QCOMPARE(good.steps, o.sweep.numSteps);
        QVERIFY(std::isfinite(good.avgLoss));
        QVERIFY(!file.raw.at("points")[1].contains("diverged_at_step"));

        const std::string sentence =
            "diverged at step " + std::to_string(bad.divergedAtStep) + " of effective batch 64";
        QVERIFY2(err.str().find("warning: " + sentence) != std::string::npos, err.str().c_str());
        QVERIFY2(out.str().find(sentence) != std::string::npos, out.str().c_str());
        QCOMPARE(QString::fromStdString(err.str()).count('\n'), 1); // one line per diverged point
    }

    // A full disk at the end of a run: one sentence, and both earlier exports stay whole.
    void fullDiskKeepsEarlierExports()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        const LessonOptions options = smallLesson(out);
        std::ostringstream sink, err;
        QCOMPARE(runLesson(options, sink, err), 0);
        const std::string curve = readAll(out + "/" + kCurveFileName);
        const std::string skill = readAll(out + "/" + kSkillFileName);
        QVERIFY(curve.size() > kLimitBytes && skill.size() > kLimitBytes);
        try {
            FileSizeLimit limit(kLimitBytes);
            runLesson(options, sink, err);
            QFAIL("the exports were written past the file-size limit");
        } catch (const ExportError &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot write")), e.what());
        }
        QCOMPARE(readAll(out + "/" + kCurveFileName), curve);
        QCOMPARE(readAll(out + "/" + kSkillFileName), skill);
        QCOMPARE(entries(out), (QStringList{kCurveFileName, kSkillFileName}));
    }

    // The output folder checked at the start and gone by the end, a file in its place.
    void outputFolderReplacedByAFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        const LessonOptions options = smallLesson(out);
        requireWritableDir(options.outDir);
        QVERIFY(QDir(out).removeRecursively());
        QFile blocker(out);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        SweepResult sweep;
        sweep.config = options.sweep;
        sweep.points = runSweep(options.sweep).points;
        const EquivalenceResult eq = runEquivalence(options.equivalence);
        QVERIFY_THROWS_EXCEPTION(ExportError, writeExports(options.outDir, sweep, eq));
        QCOMPARE(entries(dir.path()), QStringList{"out"});
        QVERIFY(QFileInfo(out).isFile());
        QCOMPARE(QFileInfo(out).size(), 0);
    }

    // The main job as a program runs it: a refusal is one "<program>: error:" line and the
    // exit code of core's table (the window's terminal fallback and the CLI share it).
    void jobExitCodes_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("code");
        QTest::newRow("runs") << "none" << 0;
        QTest::newRow("a refused setting") << "setting" << kExitBadInput;
        QTest::newRow("an export that cannot be written") << "export" << kExitWriteFailed;
    }
    void jobExitCodes()
    {
        QFETCH(QString, fault);
        QFETCH(int, code);
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        LessonOptions o = smallLesson(out);
        if (fault == "setting")
            o.sweep.base.microBatch = 0;
        if (fault == "export") // a folder where accum-curve.json goes: the write fails after the sweep
            QVERIFY(QDir().mkpath(out + QLatin1Char('/') + QString::fromUtf8(kCurveFileName)));
        std::ostringstream so, se;
        QCOMPARE(runLessonJob(o, "prog", so, se), code);
        QCOMPARE(se.str().find("prog: error: ") != std::string::npos, code != 0);
    }

private:
    // Measured at seed 0: accum 16 without division diverges from lr 0.5 up, accum 1 trains up to lr 1.
    static constexpr double kDivergingLr = 0.7;
    static constexpr size_t kLimitBytes = 512; // below either export's size
};

QTEST_GUILESS_MAIN(TestLesson)
#include "tst_lesson.moc"
