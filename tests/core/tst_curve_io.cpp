// The accum-curve.v1 reader as the importer meets it: every file of the fuzz corpus
// (tests/fuzz/corpus: ours, the lesson's, broken ones, and what libFuzzer kept) replayed
// against the fuzz target's invariants, plus the edges the fuzzer cannot reach (size, depth).
#include "core/curve_io.h"

#include "../fuzz/curve_invariants.h"

#include <QDir>

#include <functional>
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

// A one-point file from the lesson's eight fields, with `field` set to the raw JSON `value`,
// or removed when `value` is empty.
std::string pointWith(const std::string &field, const std::string &value)
{
    nlohmann::ordered_json point = {{"effective_batch", 8}, {"accum_steps", 2}, {"micro_batch", 4}, {"avg_loss", 2.5},
                                    {"samples_per_sec", 100}, {"median_step_ms", 1}, {"sync_calls", 3}, {"steps", 3}};
    if (value.empty())
        point.erase(field);
    else
        point[field] = nlohmann::ordered_json::parse(value);
    return R"({"schema":"accum-curve.v1","points":[)" + point.dump() + "]}";
}

// A two-point accum-tradeoff.v1 file at effective batch 64 under a budget of 1000 bytes: micro 32
// fitted with a peak of 900, micro 64 ran out of memory. `edit` changes it before it is written.
std::string tradeoffWith(const std::function<void(nlohmann::json &)> &edit)
{
    nlohmann::json j = {{"schema", "accum-tradeoff.v1"}, {"effective_batch", 64}, {"world_size", 1}, {"budget_bytes", 1000},
                        {"points",
                         {{{"micro_batch", 32}, {"accum_steps", 2}, {"effective_batch", 64}, {"out_of_memory", false},
                           {"error", nullptr}, {"steps", 3}, {"step_ms_median", 2.5}, {"samples_per_sec", 25600},
                           {"peak_mem_bytes", 900}},
                          {{"micro_batch", 64}, {"accum_steps", 1}, {"effective_batch", 64}, {"out_of_memory", true},
                           {"error", "CPU out of memory."}, {"steps", 0}, {"step_ms_median", 0}, {"samples_per_sec", 0},
                           {"peak_mem_bytes", 1000}}}}};
    edit(j);
    return j.dump();
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

    // Each refusal carries a code and its arguments (the desktop app words them in Persian),
    // while what() keeps the English sentence: one row per code.
    void codes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("code");
        QTest::addColumn<qint64>("point"); // 1-based; 0: about the whole file
        QTest::addColumn<QString>("field");
        QTest::addColumn<qint64>("number");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<QString>("found");
        QTest::addColumn<QString>("english"); // part of what()
        const auto row = [](const char *name, const std::string &text, CurveErrorCode code, qint64 point, const char *field,
                            qint64 number, qint64 limit, const char *found, const char *english) {
            QTest::newRow(name) << QString::fromStdString(text) << int(code) << point << QString::fromLatin1(field)
                                << number << limit << QString::fromLatin1(found) << QString::fromLatin1(english);
        };
        // A plain literal: moc's scanner miscounts braces in an unbalanced raw string.
        const std::string truncated = "{\"schema\":\"accum-curve.v1\",\"poi";
        // nlohmann's byte: 1-based, here the one after the last, where the text broke off.
        row("not JSON", truncated, CurveErrorCode::NotJson, 0, "", qint64(truncated.size()) + 1, 0, "", "not valid JSON");
        row("nested too deep", R"({"schema":"accum-curve.v1","points":)" + std::string(200, '[') + std::string(200, ']') + "}",
            CurveErrorCode::TooDeep, 0, "", 0, kMaxCurveJsonDepth, "", "nests deeper than 64 levels");
        row("not an object", "[1,2]", CurveErrorCode::NotAnObject, 0, "", 0, 0, "", "not a JSON object");
        row("wrong schema", R"({"schema":"accum-curve.v0","points":[]})", CurveErrorCode::WrongSchema, 0, "", 0, 0,
            "accum-curve.v0", "the schema is not accum-curve.v1");
        row("no schema", R"({"points":[]})", CurveErrorCode::WrongSchema, 0, "", 0, 0, "", "the schema is not");
        row("no points", R"({"schema":"accum-curve.v1"})", CurveErrorCode::NoPoints, 0, "", 0, 0, "", "no 'points' list");
        row("empty points", R"({"schema":"accum-curve.v1","points":[]})", CurveErrorCode::EmptyPoints, 0, "", 0, 0, "",
            "'points' list is empty");
        row("point not an object", R"({"schema":"accum-curve.v1","points":[7]})", CurveErrorCode::PointNotAnObject, 1, "",
            0, 0, "", "point 1 is not an object");
        row("missing field", pointWith("median_step_ms", ""), CurveErrorCode::MissingField, 1, "median_step_ms", 0, 0, "",
            "point 1 has no field 'median_step_ms'");
        row("missing loss", pointWith("avg_loss", ""), CurveErrorCode::MissingField, 1, "avg_loss", 0, 0, "",
            "has no field 'avg_loss'");
        row("string speed", pointWith("samples_per_sec", R"("fast")"), CurveErrorCode::NotANumber, 1, "samples_per_sec", 0,
            0, "", "field 'samples_per_sec' is not a number");
        row("null loss", pointWith("avg_loss", "null"), CurveErrorCode::NotANumber, 1, "avg_loss", 0, 0, "",
            "field 'avg_loss' is not a number");
        // JSON has no Inf, and the parser refuses a literal that overflows a double, so NotFinite
        // (kept for a tree built in memory) cannot come from a file.
        row("overflowing number", R"({"schema":"accum-curve.v1","points":[{"median_step_ms":1e999}]})",
            CurveErrorCode::NotJson, 0, "", 0, 0, "", "number overflow");
        row("fractional steps", pointWith("steps", "2.5"), CurveErrorCode::NotAWholeNumber, 1, "steps", 0, 0, "",
            "field 'steps' must be a whole number >= 0");
        row("zero accumulation", pointWith("accum_steps", "0"), CurveErrorCode::NotAWholeNumber, 1, "accum_steps", 0, 1, "",
            "field 'accum_steps' must be a whole number >= 1");
        row("negative time", pointWith("median_step_ms", "-1"), CurveErrorCode::Negative, 1, "median_step_ms", 0, 0, "",
            "field 'median_step_ms' is negative");
        row("diverged not a bool", pointWith("diverged", "1"), CurveErrorCode::NotTrueOrFalse, 1, "diverged", 0, 0, "",
            "field 'diverged' is not true or false");
        row("losses not a list", pointWith("losses", "3"), CurveErrorCode::NotAList, 1, "losses", 0, 0, "",
            "field 'losses' is not a list");
        row("identity broken", pointWith("effective_batch", "9"), CurveErrorCode::BatchIdentity, 1, "effective_batch", 9, 0,
            "", "effective_batch 9 is not micro_batch x accum_steps x world_size");
        // Numbers no machine measures, which would also stretch the chart's axes to nothing.
        row("speed 1e308", pointWith("samples_per_sec", "1e308"), CurveErrorCode::OutOfRange, 1, "samples_per_sec", 0, 0,
            "", "field 'samples_per_sec' is 1e+308, outside what a measurement can be");
        row("speed subnormal", pointWith("samples_per_sec", "5e-324"), CurveErrorCode::OutOfRange, 1, "samples_per_sec",
            0, 0, "", "outside what a measurement can be");
        row("step time 1e300", pointWith("median_step_ms", "1e300"), CurveErrorCode::OutOfRange, 1, "median_step_ms", 0,
            0, "", "outside what a measurement can be");
        row("micro-batch 2^50", pointWith("micro_batch", "1125899906842624"), CurveErrorCode::OutOfRange, 1,
            "micro_batch", 0, 0, "", "beyond 2^40");
    }
    void codes()
    {
        QFETCH(QString, text);
        QFETCH(int, code);
        QFETCH(qint64, point);
        QFETCH(QString, field);
        QFETCH(qint64, number);
        QFETCH(qint64, limit);
        QFETCH(QString, found);
        QFETCH(QString, english);
        try {
            parseCurveJson(text.toStdString());
            QFAIL("accepted");
        } catch (const CurveFormatError &e) {
            const CurveErrorDetail &d = e.detail();
            QVERIFY2(QString::fromUtf8(e.what()).contains(english), e.what());
            QCOMPARE(int(e.code()), code);
            QCOMPARE(d.point, point);
            QCOMPARE(QString::fromStdString(d.field), field);
            QCOMPARE(d.number, number);
            QCOMPARE(d.limit, limit);
            QCOMPARE(QString::fromStdString(d.found), found);
        }
    }

    // The trade-off reader: a good file reads back; each planted fault is refused with its code.
    void tradeoffReader_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("code"); // -1: reads back
        QTest::newRow("good") << "" << -1;
        QTest::newRow("curve schema") << "schema" << int(CurveErrorCode::WrongSchema);
        QTest::newRow("effective disagrees") << "effective" << int(CurveErrorCode::BatchIdentity);
        QTest::newRow("out of memory with timed steps") << "oom steps" << int(CurveErrorCode::OutOfRange);
        QTest::newRow("fitted above the budget") << "above budget" << int(CurveErrorCode::OutOfRange);
        QTest::newRow("no out_of_memory") << "no flag" << int(CurveErrorCode::MissingField);
        QTest::newRow("negative peak") << "negative peak" << int(CurveErrorCode::NotAWholeNumber);
        QTest::newRow("zero world size") << "world" << int(CurveErrorCode::NotAWholeNumber);
        QTest::newRow("fitted without a time") << "no time" << int(CurveErrorCode::OutOfRange);
    }
    void tradeoffReader()
    {
        QFETCH(QString, fault);
        QFETCH(int, code);
        const std::string text = tradeoffWith([&](nlohmann::json &j) {
            auto &fit = j["points"][0];
            auto &oom = j["points"][1];
            if (fault == "schema")
                j["schema"] = "accum-curve.v1";
            else if (fault == "effective")
                fit["accum_steps"] = 3;
            else if (fault == "oom steps")
                oom["steps"] = 2;
            else if (fault == "above budget")
                fit["peak_mem_bytes"] = 1001;
            else if (fault == "no flag")
                fit.erase("out_of_memory");
            else if (fault == "negative peak")
                fit["peak_mem_bytes"] = -1;
            else if (fault == "world")
                j["world_size"] = 0;
            else if (fault == "no time")
                fit["step_ms_median"] = 0;
        });
        try {
            const TradeoffFile f = parseTradeoffJson(text);
            QCOMPARE(code, -1);
            QCOMPARE(f.points.size(), size_t(2));
            QCOMPARE(*f.budgetBytes, int64_t(1000));
            QVERIFY(!f.points[0].outOfMemory && f.points[1].outOfMemory);
            QCOMPARE(*f.points[0].peakMemBytes, int64_t(900));
        } catch (const CurveFormatError &e) {
            QVERIFY2(code != -1, e.what());
            QCOMPARE(int(e.code()), code);
        }
    }

    void refusesAHugeFileBeforeParsing()
    {
        const std::string huge = pointJson(",\"device\":\"" + std::string(kMaxCurveFileBytes, 'x') + "\"");
        QVERIFY(rejection(huge).contains(QStringLiteral("MiB")));
        try {
            parseCurveJson(huge);
            QFAIL("accepted");
        } catch (const CurveFormatError &e) {
            QCOMPARE(int(e.code()), int(CurveErrorCode::FileTooLarge));
            QCOMPARE(e.detail().number, qint64(huge.size() >> 20));
            QCOMPARE(e.detail().limit, qint64(kMaxCurveFileBytes >> 20));
        }
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
