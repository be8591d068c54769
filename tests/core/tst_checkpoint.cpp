// Checkpoints (core/checkpoint.h): a run saved at any micro-batch and resumed in a fresh engine
// ends bit-identical to the uninterrupted run (SGD, momentum, AdamW with a warmup); checkpoints
// of another model shape, dtype or world size, and corrupt or truncated files, are refused with
// their codes; a failed write leaves the previous checkpoint whole.
#include "core/checkpoint.h"
#include "core/device.h"
#include "core/engine.h"
#include "core/sha256.h"

#include "common.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <functional>

using namespace accumlab;
namespace fs = std::filesystem;
using nlohmann::json;

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

// A checkpoint of a fresh run of `c` saved in `dir` after `micro` micro-batches.
void saveAfter(const AccumConfig &c, const fs::path &dir, int64_t micro)
{
    AccumEngine e(c);
    runMicro(e, micro);
    saveCheckpoint(e, dir);
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

// A rank file (format 3, safetensors) in its parts: the header (JSON) and the data after it.
struct RankFile {
    json header;
    std::string data;
    size_t headerBytes = 0; // the header's length as the file states it
};
RankFile splitRankFile(const std::string &bytes)
{
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), sizeof n);
    return {json::parse(bytes.substr(8, n)), bytes.substr(8 + n), size_t(n)};
}
std::string joinRankFile(const RankFile &f)
{
    std::string header = f.header.dump();
    header.append((8 - header.size() % 8) % 8, ' ');
    const uint64_t n = header.size();
    std::string out(sizeof n, '\0');
    std::memcpy(out.data(), &n, sizeof n);
    return out + header + f.data;
}
// The manifest's text as the file holds it (the header's __metadata__.manifest).
std::string manifestText(const fs::path &file)
{
    return splitRankFile(readAll(file)).header.at("__metadata__").at("manifest").get<std::string>();
}

// Rewrites a rank file's manifest with `edit` applied and its checksum recomputed, as a student
// who read the format would: only the checks of the fields themselves stand between that file
// and the engine.
void editManifest(const fs::path &file, const std::function<void(json &)> &edit, bool reseal = true)
{
    RankFile f = splitRankFile(readAll(file));
    json manifest = json::parse(f.header["__metadata__"]["manifest"].get<std::string>());
    manifest.erase("manifest_sha256");
    // The header's tensor table offered to `edit` as the manifest's "tensors" (name, dtype,
    // shape, offset, bytes), written back into the header and its checksum when it changed.
    json tensors = json::array();
    for (auto it = f.header.begin(); it != f.header.end(); ++it)
        if (it.key() != "__metadata__") {
            const auto range = it.value()["data_offsets"];
            tensors.push_back({{"name", it.key()}, {"dtype", it.value()["dtype"]}, {"shape", it.value()["shape"]},
                               {"offset", range[0]}, {"bytes", range[1].get<uint64_t>() - range[0].get<uint64_t>()}});
        }
    manifest["tensors"] = tensors;
    edit(manifest);
    const json edited = manifest["tensors"];
    manifest.erase("tensors");
    if (edited != tensors) {
        json header = json::object({{"__metadata__", f.header["__metadata__"]}});
        for (const json &t : edited) {
            const uint64_t offset = t["offset"].get<uint64_t>();
            header[t["name"].get<std::string>()] = {{"dtype", t["dtype"]}, {"shape", t["shape"]},
                                                    {"data_offsets", {offset, offset + t["bytes"].get<uint64_t>()}}};
        }
        f.header = header;
        json table = json::object();
        for (auto it = header.begin(); it != header.end(); ++it)
            if (it.key() != "__metadata__")
                table[it.key()] = it.value();
        const std::string text = table.dump();
        manifest["tensors_sha256"] = sha256Hex(text.data(), text.size());
    }
    if (reseal) {
        const std::string unsealed = manifest.dump();
        manifest["manifest_sha256"] = sha256Hex(unsealed.data(), unsealed.size());
    }
    f.header["__metadata__"]["manifest"] = manifest.dump();
    writeAll(file, joinRankFile(f));
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

using ManifestEdit = std::function<void(json &)>;

} // namespace

Q_DECLARE_METATYPE(ManifestEdit)

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
        saveAfter(c, dir, 6);
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
        saveAfter(runConfig(OptimizerKind::Sgd), dir, 2);
        // The manifest sits in the safetensors header, sealed by its own checksum: an edit
        // resealed (as one who read the format could) is refused by the setting's own check.
        const fs::path file = latestRankFile(dir, 0);
        QVERIFY(manifestText(file).find(from.toStdString()) != std::string::npos);
        editManifest(file, [&](json &m) {
            std::string text = m.dump();
            text.replace(text.find(from.toStdString()), size_t(from.size()), to.toStdString());
            m = json::parse(text);
        });
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
        QTest::newRow("older format version") << "version-1" << "checkpoint/version";
        QTest::newRow("a loss scaler section") << "scaler" << "checkpoint/unsupported-section";
        QTest::newRow("edited manifest") << "edit-manifest" << "checkpoint/manifest-corrupt";
        QTest::newRow("manifest without its seal") << "unseal" << "checkpoint/manifest-corrupt";
        QTest::newRow("tensor table edited") << "table" << "checkpoint/corrupt";
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
        else if (change == "scaler")
            editManifest(file, [](json &m) { m["loss_scaler"] = json::object(); });
        else if (change == "edit-manifest") // the sed: one digit of micro_index
            editManifest(file, [](json &m) { m["window"]["micro_index"] = 3; }, /*reseal=*/false);
        else if (change == "table") // a tensor's byte range moved in the header (its shape kept)
            [&] {
                RankFile f = splitRankFile(readAll(file));
                auto &range = f.header["fc1.bias"]["data_offsets"];
                range[0] = range[0].get<uint64_t>() + 4;
                range[1] = range[1].get<uint64_t>() + 4;
                writeAll(file, joinRankFile(f));
            }();
        else if (change == "unseal")
            editManifest(file, [](json &) {}, /*reseal=*/false);
        else if (change == "corrupt" || change == "truncate" || change == "truncate-manifest" ||
                 change == "version" || change == "version-1") {
            std::string bytes = readAll(file);
            const size_t header = splitRankFile(bytes).headerBytes;
            const size_t data = 8 + header;
            const auto setVersion = [&](const char *to) {
                const std::string from = "\\\"version\\\":3"; // inside the manifest's string
                const size_t at = bytes.find(from);
                QVERIFY(at != std::string::npos && at < data);
                bytes.replace(at, from.size(), std::string("\\\"version\\\":") + to);
            };
            if (change == "corrupt")
                bytes[data + (bytes.size() - data) / 2] ^= 0x01;
            else if (change == "truncate")
                bytes.resize(bytes.size() - 7);
            else if (change == "truncate-manifest")
                bytes.resize(8 + header / 2);
            else if (change == "version")
                setVersion("4");
            else
                setVersion("1");
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

    // A manifest resealed after an edit (its checksums recomputed) is checked field by field
    // against the run before the engine sees it. The crash: micro_index 4 in a window of
    // 4 indexed past the window's micro-batches (a segmentation fault); 100 and -1 read other
    // memory. Saved mid-window: AdamW, micro 3 x accum 4, 6 micro-batches (window 2, micro 2).
    void manifestCheckedFieldByField_data()
    {
        QTest::addColumn<ManifestEdit>("edit");
        QTest::addColumn<QString>("code");
        const auto row = [](const char *name, ManifestEdit e, const char *code) { QTest::newRow(name) << e << QString(code); };
        const auto micro = [](int64_t v) { return [v](json &m) { m["window"]["micro_index"] = v; }; };
        row("resealed, unchanged", [](json &) {}, "");
        row("micro_index 4", micro(4), "checkpoint/out-of-range");
        row("micro_index 5", micro(5), "checkpoint/out-of-range");
        row("micro_index 7", micro(7), "checkpoint/out-of-range");
        row("micro_index 100", micro(100), "checkpoint/out-of-range");
        row("micro_index -1", micro(-1), "checkpoint/out-of-range");
        row("micro_index 2^40", micro(int64_t(1) << 40), "checkpoint/out-of-range");
        row("micro_index 3, two losses", micro(3), "checkpoint/out-of-range");
        row("micro_index 1, counters at 2", micro(1), "checkpoint/out-of-range");
        row("window closed, micro-batches mid-window", [](json &m) { m["window"]["open"] = false; },
            "checkpoint/out-of-range");
        row("micro_batches 7", [](json &m) { m["micro_batches"] = 7; }, "checkpoint/out-of-range");
        row("rank 1's file in rank 0's place", [](json &m) { m["rank"] = 1; }, "checkpoint/wrong-rank");
        row("windows_done -1", [](json &m) { m["shared"]["windows_done"] = -1; }, "checkpoint/out-of-range");
        row("windows_done 2^62", [](json &m) { m["shared"]["windows_done"] = int64_t(1) << 62; },
            "checkpoint/out-of-range");
        row("optimizer_steps 99", [](json &m) { m["shared"]["optimizer_steps"] = 99; }, "checkpoint/out-of-range");
        row("last_lr -1", [](json &m) { m["shared"]["last_lr"] = -1.0; }, "checkpoint/out-of-range");
        row("last_lr as text", [](json &m) { m["shared"]["last_lr"] = "0.01"; }, "checkpoint/not-a-checkpoint");
        row("a setting as an object", [](json &m) { m["config"]["lr"] = {{"a", 1}}; }, "checkpoint/config-differs");
        const auto tensor = [](const std::string &name, std::function<void(json &)> f) {
            return [name, f](json &m) {
                for (json &t : m["tensors"])
                    if (t["name"] == name)
                        f(t);
            };
        };
        row("window.y named as a gradient", tensor("window.y", [](json &t) { t["name"] = "grad.fc1.weight"; }),
            "checkpoint/out-of-range");
        row("window.noise reshaped, same bytes", tensor("window.noise", [](json &t) {
                const auto shape = t["shape"].get<std::vector<int64_t>>();
                t["shape"] = {shape[0] / 2, shape[1] * 2};
            }),
            "checkpoint/out-of-range");
        row("fc1.weight as one row", tensor("fc1.weight", [](json &t) {
                const auto shape = t["shape"].get<std::vector<int64_t>>();
                t["shape"] = {1, shape[0] * shape[1]};
            }),
            "checkpoint/out-of-range");
        row("window.losses cut to one", tensor("window.losses", [](json &t) {
                t["shape"] = {1};
                t["bytes"] = 4;
            }),
            "checkpoint/out-of-range");
    }
    void manifestCheckedFieldByField()
    {
        QFETCH(ManifestEdit, edit);
        QFETCH(QString, code);
        const AccumConfig c = runConfig(OptimizerKind::AdamW);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        std::string sha;
        {
            AccumEngine e(c);
            runMicro(e, 6);
            saveCheckpoint(e, dir);
            runMicro(e, 12);
            sha = e.paramsSha256();
        }
        editManifest(latestRankFile(dir, 0), edit);
        QCOMPARE(QString::fromStdString(refusal(c, dir)), code);
        if (code.isEmpty()) { // and it resumes to the same end
            AccumEngine e(c);
            loadCheckpoint(e, dir);
            runMicro(e, 12);
            QCOMPARE(e.paramsSha256(), sha);
        }
    }
    // Format 2 (one manifest line, raw bytes: the files of the previous build, kept in
    // tests/data/checkpoint-v2) is still read, and resumes bit for bit: AdamW inside a window
    // (6 micro-batches of 4-micro windows), momentum with the teacher's labels at a window's end.
    void readsFormat2_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("micro");
        QTest::newRow("adamw, inside a window") << "adamw-mid-window" << 6;
        QTest::newRow("momentum, at a window's end") << "momentum-window-end" << 8;
    }
    void readsFormat2()
    {
        QFETCH(QString, folder);
        QFETCH(int, micro);
        const QString root = qEnvironmentVariable("ACCUMLAB_SOURCE_DIR");
        if (root.isEmpty())
            QSKIP("ACCUMLAB_SOURCE_DIR is not set");
        const fs::path dir = (root + "/tests/data/checkpoint-v2/" + folder).toStdString();
        QVERIFY(fs::exists(dir / "latest.json"));
        QCOMPARE(readAll(dir / "latest.json").find("\"version\": 2") != std::string::npos, true);
        const AccumConfig c = checkpointConfig(dir);
        AccumEngine straight(c);
        runMicro(straight, 16);
        AccumEngine resumed(c);
        const CheckpointSummary from = loadCheckpoint(resumed, dir);
        QCOMPARE(from.microBatches, int64_t(micro));
        runMicro(resumed, 16);
        // The files were written by this project on Debian's LibTorch 1.13: there the resumed run
        // is the uninterrupted one bit for bit; another LibTorch computed the saved micro-batches
        // with other kernels, so its runs agree within float32 rounding.
        if (torchVersion().rfind("1.13", 0) == 0)
            QCOMPARE(resumed.paramsSha256(), straight.paramsSha256());
        else
            QVERIFY2(resumed.maxAbsParamDiff(straight) < 1e-5, torchVersion().c_str());
        // Saved again, it is format 3.
        QTemporaryDir tmp;
        saveCheckpoint(resumed, tmp.path().toStdString());
        QVERIFY(fs::exists(latestRankFile(tmp.path().toStdString(), 0)));
        QCOMPARE(latestRankFile(tmp.path().toStdString(), 0).extension().string(), std::string(".safetensors"));
    }

    // A value nested 100,000 deep overflowed the stack when the refusal printed it: the depth
    // is counted (without recursion) before the manifest is parsed.
    void deeplyNestedManifestRefused()
    {
        const AccumConfig c = runConfig(OptimizerKind::AdamW);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        saveAfter(c, dir, 6);
        const fs::path file = latestRankFile(dir, 0);
        RankFile f = splitRankFile(readAll(file));
        std::string manifest = f.header["__metadata__"]["manifest"].get<std::string>();
        const size_t at = manifest.find("\"lr\":");
        QVERIFY(at != std::string::npos);
        const size_t end = manifest.find_first_of(",}", at);
        manifest.replace(at + 5, end - at - 5, std::string(100000, '[') + std::string(100000, ']'));
        f.header["__metadata__"]["manifest"] = manifest;
        writeAll(file, joinRankFile(f));
        QCOMPARE(QString::fromStdString(refusal(c, dir)), QStringLiteral("checkpoint/not-a-checkpoint"));
        try {
            checkpointConfig(dir);
            QFAIL("read a manifest nested 100000 deep");
        } catch (const CheckpointError &ex) {
            QVERIFY(std::string(ex.what()).size() < 300);
        }
    }

    // The loss scaler's restored state, range-checked the same way: a scale of -1 or 0 or a
    // growth tracker of -1e18 once ran on to a final loss scale of -0.125.
    void scalerStateChecked_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("code");
        QTest::newRow("unchanged") << "" << 0.0 << "";
        QTest::newRow("scale -1") << "scale" << -1.0 << "checkpoint/out-of-range";
        QTest::newRow("scale 0") << "scale" << 0.0 << "checkpoint/out-of-range";
        QTest::newRow("growth_tracker -1e18") << "growth_tracker" << -1e18 << "checkpoint/out-of-range";
        QTest::newRow("growth_tracker at the interval") << "growth_tracker" << 2000.0 << "checkpoint/out-of-range";
        QTest::newRow("skipped_windows 5") << "skipped_windows" << 5.0 << "checkpoint/out-of-range";
    }
    void scalerStateChecked()
    {
        QFETCH(QString, key);
        QFETCH(double, value);
        QFETCH(QString, code);
        AccumConfig c = runConfig(OptimizerKind::Sgd);
        c.dtype = DType::Float16;
        c.lossScaler.enabled = true;
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        saveAfter(c, dir, 6);
        editManifest(latestRankFile(dir, 0), [&](json &m) {
            if (key.isEmpty())
                return;
            if (key == "scale")
                m["loss_scaler"]["scale"] = value;
            else
                m["loss_scaler"][key.toStdString()] = static_cast<int64_t>(value);
        });
        QCOMPARE(QString::fromStdString(refusal(c, dir)), code);
    }

    // Checkpoint files are read only when they are regular files of a bounded size: a FIFO in
    // place of latest.json or a rank file hung the resume, /dev/zero was read until memory ran
    // out. Refused at once (the FIFO is opened without blocking).
    void readsOnlyRegularFiles_data()
    {
        QTest::addColumn<QString>("which"); // latest.json or the rank file
        QTest::addColumn<QString>("node");
        QTest::addColumn<QString>("code");
        for (const char *which : {"latest", "rank"}) {
            QTest::addRow("%s FIFO", which) << which << "fifo" << "checkpoint/not-a-file";
            QTest::addRow("%s folder", which) << which << "folder" << "checkpoint/not-a-file";
            QTest::addRow("%s link to /dev/zero", which) << which << "zero" << "checkpoint/not-a-file";
            QTest::addRow("%s sparse file of 2^40 bytes", which) << which << "huge" << "checkpoint/too-large";
        }
    }
    void readsOnlyRegularFiles()
    {
        QFETCH(QString, which);
        QFETCH(QString, node);
        QFETCH(QString, code);
        const AccumConfig c = runConfig(OptimizerKind::Sgd);
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        saveAfter(c, dir, 5);
        const fs::path file = which == "latest" ? dir / "latest.json" : latestRankFile(dir, 0);
        fs::remove(file);
        if (node == "fifo")
            QCOMPARE(::mkfifo(file.c_str(), 0600), 0);
        else if (node == "folder")
            fs::create_directory(file);
        else if (node == "zero")
            fs::create_symlink("/dev/zero", file);
        else {
            writeAll(file, "x");
            fs::resize_file(file, uint64_t(1) << 40); // sparse: no disk is used
        }
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(QString::fromStdString(refusal(c, dir)), code);
        QVERIFY(clock.elapsed() < 10000);
    }

    // One run at a time writes checkpoints into a folder: a second run's rank 0 is refused while
    // the first holds the folder (two writers pruned each other's generations and one ended on
    // the other's latest.json); once it ends, the folder is free. Ranks other than 0 of the
    // same run do not take it. A folder that is a file is refused before anything trains.
    void oneWriterPerFolder()
    {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "ck";
        QString code;
        {
            const CheckpointFolderLock first = prepareCheckpointFolder(dir);
            const CheckpointFolderLock otherRank = prepareCheckpointFolder(dir, /*lock=*/false);
            try {
                prepareCheckpointFolder(dir);
            } catch (const CheckpointError &e) {
                code = QString::fromStdString(e.code());
                QVERIFY(!e.text(NumberStyle{"fa"}).empty());
            }
            // The lock keeps nothing else out: the run's own checkpoints are written as before.
            saveAfter(runConfig(OptimizerKind::Sgd), dir, 2);
        }
        QCOMPARE(code, QStringLiteral("checkpoint/folder-in-use"));
        const CheckpointFolderLock again = prepareCheckpointFolder(dir);
        writeAll(fs::path(tmp.path().toStdString()) / "file", "x");
        code.clear();
        try {
            prepareCheckpointFolder(fs::path(tmp.path().toStdString()) / "file");
        } catch (const CheckpointError &e) {
            code = QString::fromStdString(e.code());
        }
        QCOMPARE(code, QStringLiteral("checkpoint/write-failed-first"));
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
