// accum-curve.v1: the lesson's field names, a round trip through the reader, the reader's
// rejections, the atomic write leaving no partial file, a pair of files published together
// (rolled back when the second fails, never interleaved between writers), a symlink replaced
// rather than followed, a signal mid-export leaving no temporary file, and the other results'
// JSON objects.
#include "core/device.h"
#include "core/export.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstring>
#include <functional>
#include <fstream>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

// One change to an AccumConfig (accumConfigJsonHasEveryField's rows).
using ConfigChange = std::function<void(AccumConfig &)>;

} // namespace

Q_DECLARE_METATYPE(ConfigChange)

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

    // toJson(AccumConfig) is the one record of a run's settings: a checkpoint compares it on
    // resume and the ranks of one job compare it before they start. Each row changes one
    // field of AccumConfig; a field the record leaves out leaves it unchanged, and the fault
    // goes unnoticed (a rank without the loss scaler once ran beside ranks with it).
    void accumConfigJsonHasEveryField_data()
    {
        using Change = ConfigChange;
        QTest::addColumn<Change>("change");
        QTest::addColumn<QString>("key");
        const auto row = [](const char *name, const char *key, Change c) { QTest::newRow(name) << c << QString(key); };
        row("preset", "model", [](AccumConfig &c) { c.preset = ModelPreset::Wide; });
        row("shape", "hidden", [](AccumConfig &c) { c.shape = ModelShape{64, 96, 16}; });
        row("microBatch", "micro_batch", [](AccumConfig &c) { c.microBatch = 8; });
        row("accumSteps", "accum_steps", [](AccumConfig &c) { c.accumSteps = 3; });
        row("worldSize", "world_size", [](AccumConfig &c) { c.worldSize = 2; });
        row("optimizer.kind", "optimizer", [](AccumConfig &c) { c.optimizer.kind = OptimizerKind::AdamW; });
        row("optimizer.lr", "lr", [](AccumConfig &c) { c.optimizer.lr = 0.2; });
        row("optimizer.momentum", "momentum", [](AccumConfig &c) { c.optimizer.momentum = 0.5; });
        row("optimizer.weightDecay", "weight_decay", [](AccumConfig &c) { c.optimizer.weightDecay = 0.1; });
        row("optimizer.adamWeightDecay", "adam_weight_decay", [](AccumConfig &c) { c.optimizer.adamWeightDecay = 0.2; });
        row("optimizer.beta1", "beta1", [](AccumConfig &c) { c.optimizer.beta1 = 0.8; });
        row("optimizer.beta2", "beta2", [](AccumConfig &c) { c.optimizer.beta2 = 0.99; });
        row("optimizer.eps", "eps", [](AccumConfig &c) { c.optimizer.eps = 1e-6; });
        row("optimizer.clipNorm", "clip_norm", [](AccumConfig &c) { c.optimizer.clipNorm = 1.0; });
        row("optimizer.lrWarmup", "lr_warmup", [](AccumConfig &c) { c.optimizer.lrWarmup = 4; });
        row("scaling", "scaling", [](AccumConfig &c) { c.scaling = Scaling::None; });
        row("stepEveryMicro", "step_every_micro", [](AccumConfig &c) { c.stepEveryMicro = true; });
        row("bug", "bug", [](AccumConfig &c) { c.bug = AccumBug::CountMicroTwice; });
        row("noSync", "no_sync", [](AccumConfig &c) { c.noSync = false; });
        row("dtype", "dtype", [](AccumConfig &c) { c.dtype = DType::Float64; });
        row("lossScaler.enabled", "loss_scaling", [](AccumConfig &c) { c.lossScaler.enabled = true; });
        row("lossScaler.initScale", "scaler_init_scale", [](AccumConfig &c) { c.lossScaler.initScale = 1024; });
        row("lossScaler.growthFactor", "scaler_growth_factor", [](AccumConfig &c) { c.lossScaler.growthFactor = 4; });
        row("lossScaler.backoffFactor", "scaler_backoff_factor", [](AccumConfig &c) { c.lossScaler.backoffFactor = 0.25; });
        row("lossScaler.growthInterval", "scaler_growth_interval", [](AccumConfig &c) { c.lossScaler.growthInterval = 3; });
        row("lossScaler.bug", "scaler_bug", [](AccumConfig &c) { c.lossScaler.bug = ScalerBug::LogScaledLoss; });
        row("lossScaler.spikeWindow", "scaler_spike_window", [](AccumConfig &c) { c.lossScaler.spikeWindow = 2; });
        row("lossScaler.spikeMicro", "scaler_spike_micro", [](AccumConfig &c) { c.lossScaler.spikeMicro = 1; });
        row("device", "device", [](AccumConfig &c) { c.device = DeviceRequest::Cuda; });
        row("labels", "labels", [](AccumConfig &c) { c.labels = LabelKind::Random; });
        row("seed", "seed", [](AccumConfig &c) { c.seed = 99; });
    }
    void accumConfigJsonHasEveryField()
    {
        QFETCH(ConfigChange, change);
        QFETCH(QString, key);
        AccumConfig base;
        base.device = DeviceRequest::Cpu;
        AccumConfig changed = base;
        change(changed);
        if (key == "device" && !cudaAvailable())
            QSKIP("the device record is the resolved device: without CUDA every request resolves to the CPU");
        const auto a = toJson(base), b = toJson(changed);
        QVERIFY2(a.at(key.toStdString()) != b.at(key.toStdString()), qPrintable(key));
    }
    // accumConfigFromJson reads back every key toJson writes (the window hands a sweep to its
    // ranks as this record): each row's change survives the trip, and the record read back is
    // the record written.
    void accumConfigJsonReadsBackEveryField_data() { accumConfigJsonHasEveryField_data(); }
    void accumConfigJsonReadsBackEveryField()
    {
        QFETCH(ConfigChange, change);
        QFETCH(QString, key);
        if (key == "device" && !cudaAvailable())
            QSKIP("the device record is the resolved device: without CUDA every request resolves to the CPU");
        AccumConfig changed;
        changed.device = DeviceRequest::Cpu;
        change(changed);
        if (key.startsWith("scaler_") && key != "scaler_bug")
            changed.lossScaler.enabled = true;
        const auto written = toJson(changed);
        const AccumConfig read = accumConfigFromJson(nlohmann::json::parse(written.dump()));
        QCOMPARE(QString::fromStdString(toJson(read).dump()), QString::fromStdString(written.dump()));
        const AccumConfig defaults = accumConfigFromJson(nlohmann::json::object({{key.toStdString(), written.at(key.toStdString())}}),
                                                         AccumConfig{});
        QCOMPARE(QString::fromStdString(toJson(defaults).at(key.toStdString()).dump()),
                 QString::fromStdString(written.at(key.toStdString()).dump()));
    }

    // What the record refuses, each with the key at fault: a key toJson does not write, a value
    // of another type, a name no enum has, a negative seed.
    void accumConfigJsonRefuses_data()
    {
        QTest::addColumn<QString>("record");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("key");
        QTest::newRow("unknown key") << R"({"micro_batches": 4})" << "config/settings-unknown-key" << "micro_batches";
        QTest::newRow("number as text") << R"({"micro_batch": "4"})" << "config/settings-bad-value" << "micro_batch";
        QTest::newRow("fraction for an integer") << R"({"accum_steps": 2.5})" << "config/settings-bad-value" << "accum_steps";
        QTest::newRow("switch as number") << R"({"no_sync": 1})" << "config/settings-bad-value" << "no_sync";
        QTest::newRow("negative seed") << R"({"seed": -1})" << "config/settings-bad-value" << "seed";
        QTest::newRow("not an object") << R"([1, 2])" << "config/settings-bad-value" << "run";
        QTest::newRow("unknown bug") << R"({"bug": "zero-twice"})" << "config/unknown-bug" << "";
    }
    void accumConfigJsonRefuses()
    {
        QFETCH(QString, record);
        QFETCH(QString, code);
        QFETCH(QString, key);
        try {
            accumConfigFromJson(nlohmann::json::parse(record.toStdString()));
            QFAIL("accepted");
        } catch (const ConfigError &e) {
            QCOMPARE(QString::fromStdString(e.code()), code);
            if (!key.isEmpty())
                QVERIFY2(QString::fromStdString(e.what()).contains(key), e.what());
        }
    }

    // The sweep's record: every field of the sweep and of its run comes back (a run the lesson
    // preset's command line could not express, another input width, included), and only that.
    void sweepSettingsRoundTrip()
    {
        SweepConfig c;
        c.base.device = DeviceRequest::Cpu;
        c.base.shape = ModelShape{8, 8, 2};
        c.base.bug = AccumBug::CountMicroTwice;
        c.base.optimizer.clipNorm = 0.5;
        c.base.optimizer.lrWarmup = 6;
        c.base.optimizer.lr = 0.05;
        c.base.stepEveryMicro = true;
        c.base.dtype = DType::Float16;
        c.base.lossScaler.enabled = true;
        c.base.lossScaler.growthInterval = 7;
        c.base.lossScaler.initScale = 1024;
        c.base.lossScaler.bug = ScalerBug::UnscaleEveryMicro;
        c.base.worldSize = 2;
        c.accumGrid = {2, 8};
        c.numSteps = 11;
        c.warmupSteps = 3;
        c.repeats = 4;
        c.threads = 1;
        c.equalWork = true;
        const auto written = sweepSettingsJson(c);
        QCOMPARE(QString::fromStdString(written.at("schema").get<std::string>()), QString(kSweepSettingsSchema));
        const SweepConfig read = sweepSettingsFromJson(nlohmann::json::parse(written.dump()));
        QCOMPARE(QString::fromStdString(sweepSettingsJson(read).dump()), QString::fromStdString(written.dump()));
        QCOMPARE(read.base.modelShape().inFeatures, int64_t(8));
        QVERIFY(read.base.lossScaler.bug == ScalerBug::UnscaleEveryMicro);
        QCOMPARE(read.accumGrid, (std::vector<int64_t>{2, 8}));

        nlohmann::json extra = written;
        extra["accum_steps"] = 4; // the grid's: a run's key at the sweep's level is no setting
        QVERIFY_THROWS_EXCEPTION(ConfigError, sweepSettingsFromJson(extra));
        nlohmann::json other = written;
        other["schema"] = "accum-curve.v1";
        QVERIFY_THROWS_EXCEPTION(ConfigError, sweepSettingsFromJson(other));
        nlohmann::json grid = written;
        grid["accum_grid"] = {2, "8"};
        QVERIFY_THROWS_EXCEPTION(ConfigError, sweepSettingsFromJson(grid));
    }

    // A tripwire for the table above: a field added to AccumConfig (or OptimizerConfig,
    // LossScalerConfig) usually changes its size (x86-64, GCC); then this fails until the field
    // has its key in toJson(AccumConfig) and its row above, and the size here is updated.
    // The results the CLI prints with --json are core's objects: every key, a "fails after"
    // that was not asked for is null, the finder's tries in order, the listing's source whole.
    void resultsPrintTheirKeys()
    {
        OomDemoResult oom;
        oom.budgetBytes = 1024;
        oom.accumulationSucceeded = true;
        oom.maxParamDiff = 1e-6;
        oom.paramTolerance = 1e-4;
        const json o = toJson(oom);
        for (const char *key : {"device", "device_bytes", "budget_bytes", "fails_after_samples", "micro_batch",
                                "accum_steps", "effective_batch", "full_batch", "full_batch_out_of_memory",
                                "full_batch_error", "accumulation_succeeded", "accumulation_error", "accumulation",
                                "accumulation_loss", "max_param_diff", "param_tolerance", "params_match"})
            QVERIFY2(o.contains(key), key);
        QCOMPARE(o.size(), size_t(17));
        QVERIFY(o["fails_after_samples"].is_null());
        QCOMPARE(o["params_match"].get<bool>(), true);
        QCOMPARE(o["full_batch"].size(), size_t(6));

        MicroBatchFinding found;
        found.microBatch = 32;
        found.accumSteps = 16;
        found.effectiveBatch = 512;
        found.tried = {{64, false}, {32, true}};
        const json f = toJson(found);
        QCOMPARE(f["tried"].size(), size_t(2));
        QCOMPARE(f["tried"][0]["micro_batch"].get<int64_t>(), int64_t(64));
        QCOMPARE(f["tried"][0]["fits"].get<bool>(), false);
        QCOMPARE(f["sentence"].get<std::string>(), found.sentence());

        AccumConfig c;
        c.scaling = Scaling::None;
        const LoopListing listing = loopListing(c, NumberStyle{}, LoopForm::AsConfigured);
        const nlohmann::ordered_json l = toJson(listing);
        QCOMPARE(l["variant"].get<std::string>(), listing.variant);
        QCOMPARE(l["lines"].size(), listing.lines.size());
        QCOMPARE(l["source"].get<std::string>(), loopSource(listing));
        QCOMPARE(l.begin().key(), std::string("variant"));
    }

    void accumConfigJsonTableIsComplete()
    {
        QCOMPARE(toJson(AccumConfig{}).size(), size_t(33)); // 31 rows; in_features and classes follow the shape
        QCOMPARE(sizeof(AccumConfig), size_t(248));
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

    // The second file of a pair cannot be published (its name is taken by a folder): the first
    // gets its earlier content back, or goes away if it had none, and the sentence names the
    // file that failed. Publishing one after the other without the rollback fails this test.
    void pairRollsBack_data()
    {
        QTest::addColumn<bool>("earlier");
        QTest::newRow("earlier exports present") << true;
        QTest::newRow("first export") << false;
    }
    void pairRollsBack()
    {
        QFETCH(bool, earlier);
        QTemporaryDir dir;
        const std::string a = dir.filePath("a.json").toStdString();
        const std::string b = dir.filePath("b.md").toStdString();
        if (earlier)
            writeFileAtomic(a, "old A");
        QString message;
        {
            StagedFile fa(a, "new A");
            StagedFile fb(b, "new B");
            // The second rename fails: its staged file is gone (ENOENT) when the pair publishes.
            const QStringList staged = QDir(dir.path()).entryList({"b.md.tmp-*"}, QDir::Files | QDir::Hidden);
            QCOMPARE(staged.size(), 1);
            QVERIFY(QFile::remove(dir.filePath(staged.first())));
            try {
                publishTogether({&fa, &fb});
            } catch (const ExportError &e) {
                message = QString::fromUtf8(e.what());
            }
        }
        QVERIFY2(message.startsWith("cannot write " + dir.filePath("b.md")), qPrintable(message));
        QVERIFY2(!message.contains("is new"), qPrintable(message));
        if (earlier)
            QCOMPARE(QString::fromStdString(readAll(a)), QStringLiteral("old A"));
        else
            QVERIFY(!QFileInfo::exists(dir.filePath("a.json")));
        QStringList expected;
        if (earlier)
            expected << "a.json";
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden), expected);
    }

    // The one writer refuses a destination that exists and is not a regular file or a link to
    // one: a rename would replace a device node, a FIFO or a socket (as root, /dev/null became a
    // PNG). Made in a temporary folder, never on /dev: a FIFO, a socket, a folder, links to
    // them; a regular file, a link to one and a dangling link are replaced as before.
    void refusesTargetsThatAreNotFiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("code"); // "" when the write succeeds
        QTest::newRow("absent") << "absent" << "";
        QTest::newRow("regular file") << "file" << "";
        QTest::newRow("link to a file") << "link-file" << "";
        QTest::newRow("dangling link") << "link-dangling" << "";
        QTest::newRow("folder") << "folder" << "export/target-is-folder";
        QTest::newRow("FIFO") << "fifo" << "export/target-is-fifo";
        QTest::newRow("socket") << "socket" << "export/target-is-socket";
        QTest::newRow("link to a FIFO") << "link-fifo" << "export/target-is-fifo";
        QTest::newRow("link to a folder") << "link-folder" << "export/target-is-folder";
    }
    void refusesTargetsThatAreNotFiles()
    {
        QFETCH(QString, kind);
        QFETCH(QString, code);
        QTemporaryDir dir;
        const std::string target = dir.filePath("accum-curve.json").toStdString();
        const std::string other = dir.filePath("other").toStdString();
        auto makeNode = [](const QString &k, const std::string &path) {
            if (k == "file")
                writeFileAtomic(path, "earlier");
            else if (k == "folder")
                QVERIFY(QDir().mkpath(QString::fromStdString(path)));
            else if (k == "fifo")
                QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
            else if (k == "socket") {
                const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
                QVERIFY(fd >= 0);
                sockaddr_un addr{};
                addr.sun_family = AF_UNIX;
                QVERIFY(path.size() < sizeof(addr.sun_path));
                std::strcpy(addr.sun_path, path.c_str());
                QCOMPARE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)), 0);
                ::close(fd); // the socket's node stays
            }
        };
        if (kind.startsWith("link-")) {
            const QString to = kind.mid(5);
            if (to != "dangling")
                makeNode(to, other);
            QCOMPARE(::symlink(other.c_str(), target.c_str()), 0);
        } else if (kind != "absent") {
            makeNode(kind, target);
        }
        struct stat before {};
        const bool existed = ::lstat(target.c_str(), &before) == 0;
        QString got;
        try {
            writeFileAtomic(target, "new");
        } catch (const ExportError &e) {
            got = QString::fromStdString(e.code());
            QVERIFY2(std::string(e.what()).find(target) != std::string::npos, e.what());
            QVERIFY(!e.text(NumberStyle{"fa"}).empty());
        }
        QCOMPARE(got, code);
        struct stat after {};
        QCOMPARE(::lstat(target.c_str(), &after), 0);
        if (code.isEmpty()) {
            QVERIFY(S_ISREG(after.st_mode)); // the file itself, a link replaced by it
            QCOMPARE(QString::fromStdString(readAll(target)), QStringLiteral("new"));
        } else {
            QVERIFY(existed);
            QCOMPARE(after.st_ino, before.st_ino); // the node is untouched
            QCOMPARE(after.st_mode, before.st_mode);
        }
        // Nothing staged is left beside it.
        QCOMPARE(QDir(dir.path()).entryList({"*.tmp-*"}, QDir::AllEntries | QDir::Hidden | QDir::System), QStringList());
    }

    // The folder's lock is waited for a bounded time: a process that holds it for ever (a 30 s
    // flock kept a write waiting 29.6 s, and the window's export waits on the GUI thread) makes
    // the write fail in a sentence after kFolderLockWait, with nothing left behind.
    void lockedFolderIsWaitedForABoundedTime()
    {
        QTemporaryDir dir;
        const int held = ::open(dir.path().toLocal8Bit().constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        QVERIFY(held >= 0);
        QCOMPARE(::flock(held, LOCK_EX), 0);
        QElapsedTimer clock;
        clock.start();
        QString code;
        try {
            writeFileAtomic(dir.filePath("accum-curve.json").toStdString(), "new");
        } catch (const ExportError &e) {
            code = QString::fromStdString(e.code());
            QVERIFY2(std::string(e.what()).find("10 seconds") != std::string::npos, e.what());
        }
        ::close(held);
        QCOMPARE(code, QStringLiteral("export/folder-busy"));
        const qint64 waited = clock.elapsed();
        QVERIFY2(waited >= 9500 && waited < 20000, qPrintable(QString::number(waited)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden), QStringList());
        writeFileAtomic(dir.filePath("accum-curve.json").toStdString(), "new"); // released: it writes
        QCOMPARE(QString::fromStdString(readAll(dir.filePath("accum-curve.json").toStdString())), QStringLiteral("new"));
    }

    // Writers of one out-dir (threads here; processes take the same lock) publish whole pairs:
    // after every round the two files carry the same writer's mark.
    void concurrentWritersPublishPairs()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath("a.json").toStdString();
        const std::string b = dir.filePath("b.md").toStdString();
        for (int round = 0; round < 200; ++round) {
            std::vector<std::thread> writers;
            for (int w = 0; w < 3; ++w)
                writers.emplace_back([&, w] {
                    const std::string mark = std::to_string(round) + "/" + std::to_string(w);
                    StagedFile fa(a, mark + std::string(size_t(4096 * (w + 1)), 'a'));
                    StagedFile fb(b, mark + std::string(size_t(4096 * (3 - w)), 'b'));
                    publishTogether({&fa, &fb});
                });
            for (auto &t : writers)
                t.join();
            const std::string ca = readAll(a), cb = readAll(b);
            QCOMPARE(QString::fromStdString(ca.substr(0, ca.find('a'))),
                     QString::fromStdString(cb.substr(0, cb.find('b'))));
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden),
                 (QStringList{"a.json", "b.md"}));
    }

    // A symlink in the out-dir pointing outside it: the export replaces the link with a file
    // and leaves the link's target untouched (QSaveFile and a plain open() would write through).
    void symlinkIsReplacedNotFollowed()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath("elsewhere.txt");
        writeFileAtomic(target.toStdString(), "precious");
        QVERIFY(QDir(dir.path()).mkpath("out"));
        QVERIFY(QFile::link(target, dir.filePath("out/accum-curve.json")));
        writeFileAtomic(dir.filePath("out/accum-curve.json").toStdString(), "export");
        QCOMPARE(QString::fromStdString(readAll(target.toStdString())), QStringLiteral("precious"));
        const QFileInfo written(dir.filePath("out/accum-curve.json"));
        QVERIFY(!written.isSymLink());
        QCOMPARE(QString::fromStdString(readAll(written.filePath().toStdString())), QStringLiteral("export"));
    }

    // SIGINT or SIGTERM while files are staged: with the cleanup installed (as both mains do)
    // no temporary file is left; without it the same run leaves them, which is the fault.
    void signalMidExport_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addColumn<bool>("cleanup");
        QTest::newRow("SIGTERM") << int(SIGTERM) << true;
        QTest::newRow("SIGINT") << int(SIGINT) << true;
        QTest::newRow("SIGHUP") << int(SIGHUP) << true;
        QTest::newRow("SIGTERM without the cleanup (planted)") << int(SIGTERM) << false;
    }
    void signalMidExport()
    {
        QFETCH(int, sig);
        QFETCH(bool, cleanup);
        QTemporaryDir dir;
        const std::string a = dir.filePath("a.json").toStdString();
        const std::string b = dir.filePath("b.md").toStdString();
        const std::string ready = dir.filePath("ready").toStdString();
        const pid_t child = ::fork();
        if (child == 0) {
            for (int s : {SIGINT, SIGTERM, SIGHUP})
                std::signal(s, SIG_DFL);
            if (cleanup)
                installExportSignalCleanup();
            StagedFile fa(a, std::string(100000, 'a'));
            StagedFile fb(b, std::string(100000, 'b'));
            ::close(::open(ready.c_str(), O_WRONLY | O_CREAT, 0644));
            for (;;)
                ::pause();
        }
        QVERIFY(child > 0);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(QString::fromStdString(ready)), 10000);
        QCOMPARE(::kill(child, sig), 0);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), sig); // ended as the signal ends a process
        const QStringList left = QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::Hidden);
        if (cleanup)
            QCOMPARE(left, QStringList{"ready"});
        else
            QCOMPARE(left.size(), 3); // two temporary files beside the marker
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
