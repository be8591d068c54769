// Checkpoints (core/checkpoint.h): a run saved at any micro-batch and resumed in a fresh engine
// ends bit-identical to the uninterrupted run (SGD, momentum, AdamW with a warmup); checkpoints
// of another model shape, dtype or world size, and corrupt or truncated files, are refused with
// their codes; a failed write leaves the previous checkpoint whole.
#include "core/checkpoint.h"
#include "core/engine.h"
#include "core/sha256.h"

#include "common.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace accumlab;
namespace fs = std::filesystem;

namespace {

AccumConfig runConfig(OptimizerKind kind)
{
    AccumConfig c;
    c.preset = ModelPreset::Fixture;
    c.microBatch = 3;
    c.accumSteps = 4;
    c.optimizer.kind = kind;
    c.optimizer.lr = kind == OptimizerKind::AdamW ? 0.01 : 0.1;
    c.optimizer.lrWarmup = 3; // the schedule's position matters on resume
    c.device = DeviceRequest::Cpu;
    c.seed = 11;
    return c;
}

void runMicro(AccumEngine &e, int64_t untilMicroBatches)
{
    while (e.microBatches() < untilMicroBatches)
        e.microStep();
}

std::string readAll(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path &p, const std::string &bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// The code a load of `dir` into an engine of `c` is refused with; empty when it loads.
std::string refusal(const AccumConfig &c, const fs::path &dir)
{
    try {
        AccumEngine e(c);
        loadCheckpoint(e, dir);
    } catch (const CheckpointError &ex) {
        return ex.code();
    }
    return {};
}

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT
private slots:
    void sha256KnownAnswers_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("digest");
        // FIPS 180-4 examples and the empty message.
        QTest::newRow("empty") << QByteArray() << "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        QTest::newRow("abc") << QByteArray("abc") << "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        QTest::newRow("two blocks") << QByteArray("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                                    << "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
        QTest::newRow("a million a") << QByteArray(1000000, 'a')
                                     << "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    }
    void sha256KnownAnswers()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, digest);
        QCOMPARE(QString::fromStdString(sha256Hex(input.constData(), size_t(input.size()))), digest);
    }

    // core's checkpointConfig reads back the run a checkpoint belongs to: an engine of that
    // config resumes it (every setting the resume compares is equal), for each kind of setting.
    void runConfigReadsBack_data()
    {
        QTest::addColumn<QString>("change");
        for (const char *change : {"defaults", "adamw clip decay", "momentum", "float16 scaler", "wide", "shape",
                                   "random labels", "undivided", "never-zero", "step every micro", "sync every micro",
                                   "scaler bug", "float64", "seed"})
            QTest::newRow(change) << QString::fromLatin1(change);
    }
    void runConfigReadsBack()
    {
        QFETCH(QString, change);
        AccumConfig c = runConfig(OptimizerKind::Sgd);
        if (change == "adamw clip decay") {
            c.optimizer.kind = OptimizerKind::AdamW;
            c.optimizer.clipNorm = 0.5;
            c.optimizer.adamWeightDecay = 0.05;
            c.optimizer.beta1 = 0.8;
            c.optimizer.beta2 = 0.99;
            c.optimizer.eps = 1e-6;
        } else if (change == "momentum") {
            c.optimizer.kind = OptimizerKind::Momentum;
            c.optimizer.momentum = 0.7;
            c.optimizer.weightDecay = 0.001;
        } else if (change == "float16 scaler") {
            c.dtype = DType::Float16;
            c.lossScaler.enabled = true;
            c.lossScaler.initScale = 1024;
            c.lossScaler.growthInterval = 3;
        } else if (change == "wide") {
            c.preset = ModelPreset::Wide;
        } else if (change == "shape") {
            c.shape = ModelShape{5, 7, 3};
        } else if (change == "random labels") {
            c.labels = LabelKind::Random;
        } else if (change == "undivided") {
            c.scaling = Scaling::None;
        } else if (change == "never-zero") {
            c.bug = AccumBug::NeverZero;
        } else if (change == "step every micro") {
            c.stepEveryMicro = true;
        } else if (change == "sync every micro") {
            c.noSync = false;
        } else if (change == "scaler bug") {
            c.dtype = DType::Float16;
            c.lossScaler.enabled = true;
            c.lossScaler.bug = ScalerBug::LogScaledLoss;
        } else if (change == "float64") {
            c.dtype = DType::Float64;
        } else if (change == "seed") {
            c.seed = 123456789012345ULL;
        }
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        {
            AccumEngine e(c);
            runMicro(e, 6);
            saveCheckpoint(e, dir);
        }
        const AccumConfig back = checkpointConfig(dir);
        QCOMPARE(refusal(back, dir), std::string());
        const ModelShape a = c.modelShape(), b = back.modelShape();
        QCOMPARE(b.inFeatures, a.inFeatures);
        QCOMPARE(b.hidden, a.hidden);
        QCOMPARE(b.classes, a.classes);
        QCOMPARE(back.shape.has_value(), c.shape.has_value());
        QCOMPARE(back.worldSize, c.worldSize);
        QVERIFY(back.device == DeviceRequest::Cpu);
    }
    // Settings this build does not know are refused in words, not guessed.
    void runConfigRefusesUnknownSettings_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::newRow("optimizer") << "\"optimizer\":\"sgd\"" << "\"optimizer\":\"lamb\"";
        QTest::newRow("micro-batch out of range") << "\"micro_batch\":3" << "\"micro_batch\":0";
        QTest::newRow("missing setting") << "\"labels\":\"teacher\"," << "";
    }
    void runConfigRefusesUnknownSettings()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        {
            AccumEngine e(runConfig(OptimizerKind::Sgd));
            runMicro(e, 2);
            saveCheckpoint(e, dir);
        }
        // The manifest is one line of JSON before the data; its checksum covers only the data.
        const fs::path file = latestRankFile(dir, 0);
        std::string bytes = readAll(file);
        const auto at = bytes.find(from.toStdString());
        QVERIFY(at != std::string::npos && at < bytes.find('\n'));
        bytes.replace(at, size_t(from.size()), to.toStdString());
        writeAll(file, bytes);
        try {
            checkpointConfig(dir);
            QFAIL("read a setting this build does not accept");
        } catch (const CheckpointError &ex) {
            QCOMPARE(ex.code(), std::string("checkpoint/not-a-checkpoint"));
        }
    }

    void resumeIsBitIdentical_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<qint64>("stopAt"); // micro-batches done when the checkpoint is taken
        QTest::addColumn<bool>("scaled");   // float16 with the loss scaler, an overflow in window 1
        const std::pair<const char *, OptimizerKind> kinds[] = {
            {"sgd", OptimizerKind::Sgd}, {"momentum", OptimizerKind::Momentum}, {"adamw", OptimizerKind::AdamW}};
        for (const auto &[name, kind] : kinds) {
            // At a window's end (4, 8), inside the first window (1, 3) and inside a later one (6).
            for (qint64 stop : {1, 3, 4, 6, 8})
                QTest::addRow("%s at micro %lld", name, static_cast<long long>(stop)) << int(kind) << stop << false;
        }
        // The scaler's state travels too: its scale after a skipped window (the overflow in
        // window 1) and a growth, its counters, and mid-window its unscale stage.
        for (qint64 stop : {2, 6, 8, 11})
            QTest::addRow("adamw float16 scaled at micro %lld", static_cast<long long>(stop))
                << int(OptimizerKind::AdamW) << stop << true;
    }
    void resumeIsBitIdentical()
    {
        QFETCH(int, kind);
        QFETCH(qint64, stopAt);
        QFETCH(bool, scaled);
        AccumConfig c = runConfig(OptimizerKind(kind));
        if (scaled) {
            c.dtype = DType::Float16;
            c.lossScaler.enabled = true;
            c.lossScaler.growthInterval = 2;
            c.lossScaler.spikeWindow = 1;
            c.lossScaler.spikeMicro = 1;
        }
        const int64_t total = 5 * c.accumSteps;
        AccumEngine straight(c);
        runMicro(straight, total);

        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        {
            AccumEngine first(c);
            runMicro(first, stopAt);
            saveCheckpoint(first, dir);
        } // the first process is gone
        AccumEngine resumed(c);
        const CheckpointSummary s = loadCheckpoint(resumed, dir);
        QCOMPARE(s.microBatches, stopAt);
        QCOMPARE(s.microIndex, stopAt % c.accumSteps);
        runMicro(resumed, total);
        QCOMPARE(resumed.maxAbsParamDiff(straight), 0.0);
        QCOMPARE(resumed.paramsSha256(), straight.paramsSha256());
        QCOMPARE(resumed.optimizerStateStep(), straight.optimizerStateStep());
        QCOMPARE(resumed.optimizerSteps(), straight.optimizerSteps());
        QCOMPARE(resumed.lastStep().lr, straight.lastStep().lr);
        QCOMPARE(resumed.lastStep().loss, straight.lastStep().loss);
        if (scaled) {
            const LossScalerState a = resumed.lossScalerState(), b = straight.lossScalerState();
            QCOMPARE(b.skippedWindows, int64_t(1)); // the overflow happened, so there is state to carry
            QCOMPARE(a.scale, b.scale);
            QCOMPARE(a.growthTracker, b.growthTracker);
            QCOMPARE(a.skippedWindows, b.skippedWindows);
            QCOMPARE(a.unscaleCalls, b.unscaleCalls);
            QCOMPARE(a.growths, b.growths);
            QCOMPARE(a.backoffs, b.backoffs);
        }
    }

    // The planted resume bugs change the result, so the identity above is not by construction.
    void resumeBugsDrift_data()
    {
        QTest::addColumn<int>("bug");
        QTest::addRow("drop partial buffers") << int(ResumeBug::DropPartialBuffers);
        QTest::addRow("restart window count") << int(ResumeBug::RestartWindowCount);
    }
    void resumeBugsDrift()
    {
        QFETCH(int, bug);
        const AccumConfig c = runConfig(OptimizerKind::Momentum);
        AccumEngine straight(c);
        runMicro(straight, 12);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        AccumEngine first(c);
        runMicro(first, 6);
        saveCheckpoint(first, dir);
        AccumEngine resumed(c);
        loadCheckpoint(resumed, dir, ResumeBug(bug));
        runMicro(resumed, 12);
        QVERIFY2(resumed.maxAbsParamDiff(straight) > 0.0, "a resume without the window's state must drift");
        QVERIFY(resumed.paramsSha256() != straight.paramsSha256());
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("code");
        QTest::newRow("other hidden width") << "hidden" << "checkpoint/shape-differs";
        QTest::newRow("other dtype") << "dtype" << "checkpoint/dtype-differs";
        QTest::newRow("other world size") << "world" << "checkpoint/world-size-differs";
        QTest::newRow("other learning rate") << "lr" << "checkpoint/config-differs";
        QTest::newRow("flipped payload byte") << "corrupt" << "checkpoint/corrupt";
        QTest::newRow("cut payload") << "truncate" << "checkpoint/truncated";
        QTest::newRow("cut manifest") << "truncate-manifest" << "checkpoint/not-a-checkpoint";
        QTest::newRow("newer format version") << "version" << "checkpoint/version";
        QTest::newRow("a loss scaler section") << "scaler" << "checkpoint/unsupported-section";
        QTest::newRow("no checkpoint") << "empty" << "checkpoint/none";
        QTest::newRow("unchanged") << "" << "";
    }
    void refusals()
    {
        QFETCH(QString, change);
        QFETCH(QString, code);
        AccumConfig c = runConfig(OptimizerKind::AdamW);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        if (change != "empty") {
            AccumEngine e(c);
            runMicro(e, 6);
            saveCheckpoint(e, dir);
        }
        const fs::path file = change == "empty" ? fs::path() : latestRankFile(dir, 0);
        if (change == "hidden")
            c.shape = ModelShape{32, 40, 8};
        else if (change == "dtype")
            c.dtype = DType::Float64;
        else if (change == "world")
            c.worldSize = 2; // refused before an engine of two ranks is needed: by latest.json
        else if (change == "lr")
            c.optimizer.lr *= 2;
        else if (change == "corrupt" || change == "truncate" || change == "truncate-manifest" ||
                 change == "version" || change == "scaler") {
            std::string bytes = readAll(file);
            const size_t eol = bytes.find('\n');
            if (change == "corrupt")
                bytes[eol + 1 + (bytes.size() - eol) / 2] ^= 0x01;
            else if (change == "truncate")
                bytes.resize(bytes.size() - 7);
            else if (change == "truncate-manifest")
                bytes.resize(eol / 2);
            else if (change == "version")
                bytes.replace(bytes.find("\"version\":1"), 11, "\"version\":2");
            else
                bytes.replace(bytes.find("\"loss_scaler\":null"), 18, "\"loss_scaler\":{ }");
            writeAll(file, bytes);
        }
        if (change == "world") {
            // An engine of two ranks needs a process group; the refusal comes before the engine
            // is touched, so an engine of one rank reading a two-rank checkpoint shows it as well.
            std::string latest = readAll(dir / "latest.json");
            latest.replace(latest.find("\"world_size\": 1"), 15, "\"world_size\": 2");
            writeAll(dir / "latest.json", latest);
            c.worldSize = 1;
        }
        const std::string got = refusal(c, dir);
        QCOMPARE(QString::fromStdString(got), code);
        if (!code.isEmpty()) {
            // Worded in every language the content has.
            try {
                AccumEngine e(c);
                loadCheckpoint(e, dir);
            } catch (const CheckpointError &ex) {
                QVERIFY(!ex.text(NumberStyle{"fa"}).empty());
                QVERIFY(std::string(ex.what()).size() > 10);
            }
        }
    }

    // A write that fails leaves the previous checkpoint whole and the latest.
    void failedWriteKeepsPrevious()
    {
        const AccumConfig c = runConfig(OptimizerKind::Sgd);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        AccumEngine e(c);
        runMicro(e, 5);
        saveCheckpoint(e, dir);
        const std::string sha = e.paramsSha256();
        const std::string before = readAll(latestRankFile(dir, 0));
        runMicro(e, 7);
        writeAll(dir / "gen-000000000007", "a file where the generation's folder would go");
        QVERIFY_THROWS_EXCEPTION(CheckpointError, saveCheckpoint(e, dir));
        QCOMPARE(readAll(latestRankFile(dir, 0)), before);
        AccumEngine resumed(c);
        QCOMPARE(loadCheckpoint(resumed, dir).microBatches, int64_t(5));
        QCOMPARE(resumed.paramsSha256(), sha);
        // and the next write that succeeds replaces it, pruning the older generation
        fs::remove(dir / "gen-000000000007");
        saveCheckpoint(e, dir);
        QVERIFY(!fs::exists(dir / "gen-000000000005"));
        AccumEngine again(c);
        QCOMPARE(loadCheckpoint(again, dir).microBatches, int64_t(7));
        QCOMPARE(again.paramsSha256(), e.paramsSha256());
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
