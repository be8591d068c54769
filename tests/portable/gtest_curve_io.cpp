// The accum-curve.v1 reader as the importer meets it: every file of the fuzz corpus
// (tests/fuzz/corpus: ours, the lesson's, broken ones, and what libFuzzer kept) replayed
// against the fuzz target's invariants, plus the edges the fuzzer cannot reach (size, depth).
#include "core/io/curve_io.h"

#include "../fuzz/curve_invariants.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;
namespace fs = std::filesystem;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

std::string corpusDir()
{
    const char *source = std::getenv("ACCUMLAB_SOURCE_DIR");
    return std::string(source ? source : "") + "/tests/fuzz/corpus";
}

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

std::string rejection(const std::string &text)
{
    try {
        parseCurveJson(text);
    } catch (const CurveFormatError &e) {
        return e.what();
    }
    return {};
}

using test::contains;

// ---- The corpus ------------------------------------------------------------------------------

struct CorpusFile {
    std::string name; // the file's name, the row's label
    std::string path;
};

// The corpus's files (not dot-files, not folders), by name; none when the folder is missing,
// which GoogleTest reports as a suite with no rows.
const std::vector<CorpusFile> &corpusFiles()
{
    static const std::vector<CorpusFile> files = [] {
        std::vector<CorpusFile> found;
        std::error_code ec;
        for (fs::directory_iterator it(corpusDir(), ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.front() != '.' && fs::is_regular_file(it->path()))
                found.push_back({name, it->path().string()});
        }
        std::sort(found.begin(), found.end(),
                  [](const CorpusFile &a, const CorpusFile &b) { return a.name < b.name; });
        return found;
    }();
    return files;
}

// Seeds named good-* must be accepted, bad-* rejected; every file must keep the invariants.
class Corpus : public testing::TestWithParam<CorpusFile> {};

TEST_P(Corpus, KeepsTheInvariants)
{
    ASSERT_GE(corpusFiles().size(), size_t(10)) << corpusDir();
    const std::string &path = GetParam().path;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in.is_open()) << path;
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    bool accepted = false;
    const std::string violation = fuzz::curveInvariantViolation(bytes, &accepted);
    EXPECT_TRUE(violation.empty()) << violation;
    const std::string &name = GetParam().name;
    if (name.rfind("good-", 0) == 0)
        EXPECT_TRUE(accepted) << rejection(bytes);
    if (name.rfind("bad-", 0) == 0)
        EXPECT_FALSE(accepted);
}

INSTANTIATE_TEST_SUITE_P(Rows, Corpus, testing::ValuesIn(corpusFiles()), test::ByName());

// ---- Rejections ------------------------------------------------------------------------------

struct Rejection {
    const char *name;
    std::string text;
    std::string mentions;
};

class Rejections : public testing::TestWithParam<Rejection> {};

TEST_P(Rejections, NameTheFault)
{
    const std::string message = rejection(GetParam().text);
    EXPECT_TRUE(contains(message, GetParam().mentions)) << (message.empty() ? std::string("accepted") : message);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, Rejections,
    testing::ValuesIn(std::vector<Rejection>{
        {"identity overflows int64",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":1,"accum_steps":4294967296,)"
         R"("micro_batch":4294967296,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})",
         "micro_batch x accum_steps"},
        {"above int64", pointJson(R"(,"world_size":18446744073709551615)"), "world_size"},
        {"null loss without divergence",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,"micro_batch":4,"avg_loss":null,)"
         R"("samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1}]})",
         "avg_loss"},
        {"diverged without a step", pointJson(R"(,"diverged":true)"), "diverged_at_step"},
        {"diverged not a bool", pointJson(R"(,"diverged":1)"), "diverged"},
        {"losses not a list", pointJson(R"(,"losses":3)"), "losses"},
        {"negative peak memory", pointJson(R"(,"peak_mem_bytes":-1)"), "peak_mem_bytes"},
        {"second point broken",
         R"({"schema":"accum-curve.v1","points":[{"effective_batch":4,"accum_steps":1,)"
         R"("micro_batch":4,"avg_loss":1,"samples_per_sec":1,"median_step_ms":1,"sync_calls":1,"steps":1},7]})",
         "point 2 is not an object"},
        {"nested too deep",
         R"({"schema":"accum-curve.v1","points":)" + std::string(100000, '[') + std::string(100000, ']') + "}",
         "nests deeper"},
    }),
    test::ByName());

// ---- Codes -----------------------------------------------------------------------------------

// Each refusal carries a code and its arguments (the desktop app words them in Persian),
// while what() keeps the English sentence: one row per code.
struct CodeRow {
    const char *name;
    std::string text;
    CurveErrorCode code;
    int64_t point; // 1-based; 0: about the whole file
    std::string field;
    int64_t number;
    int64_t limit;
    std::string found;
    std::string english; // part of what()
};

std::vector<CodeRow> codeRows()
{
    const std::string truncated = "{\"schema\":\"accum-curve.v1\",\"poi";
    return {
        // nlohmann's byte: 1-based, here the one after the last, where the text broke off.
        {"not JSON", truncated, CurveErrorCode::NotJson, 0, "", int64_t(truncated.size()) + 1, 0, "", "not valid JSON"},
        {"nested too deep",
         R"({"schema":"accum-curve.v1","points":)" + std::string(200, '[') + std::string(200, ']') + "}",
         CurveErrorCode::TooDeep, 0, "", 0, kMaxCurveJsonDepth, "", "nests deeper than 64 levels"},
        {"not an object", "[1,2]", CurveErrorCode::NotAnObject, 0, "", 0, 0, "", "not a JSON object"},
        {"wrong schema", R"({"schema":"accum-curve.v0","points":[]})", CurveErrorCode::WrongSchema, 0, "", 0, 0,
         "accum-curve.v0", "the schema is not accum-curve.v1"},
        {"no schema", R"({"points":[]})", CurveErrorCode::WrongSchema, 0, "", 0, 0, "", "the schema is not"},
        {"no points", R"({"schema":"accum-curve.v1"})", CurveErrorCode::NoPoints, 0, "", 0, 0, "", "no 'points' list"},
        {"empty points", R"({"schema":"accum-curve.v1","points":[]})", CurveErrorCode::EmptyPoints, 0, "", 0, 0, "",
         "'points' list is empty"},
        {"point not an object", R"({"schema":"accum-curve.v1","points":[7]})", CurveErrorCode::PointNotAnObject, 1,
         "", 0, 0, "", "point 1 is not an object"},
        {"missing field", pointWith("median_step_ms", ""), CurveErrorCode::MissingField, 1, "median_step_ms", 0, 0, "",
         "point 1 has no field 'median_step_ms'"},
        {"missing loss", pointWith("avg_loss", ""), CurveErrorCode::MissingField, 1, "avg_loss", 0, 0, "",
         "has no field 'avg_loss'"},
        {"string speed", pointWith("samples_per_sec", R"("fast")"), CurveErrorCode::NotANumber, 1, "samples_per_sec",
         0, 0, "", "field 'samples_per_sec' is not a number"},
        {"null loss", pointWith("avg_loss", "null"), CurveErrorCode::NotANumber, 1, "avg_loss", 0, 0, "",
         "field 'avg_loss' is not a number"},
        // JSON has no Inf, and the parser refuses a literal that overflows a double, so NotFinite
        // (kept for a tree built in memory) cannot come from a file.
        {"overflowing number", R"({"schema":"accum-curve.v1","points":[{"median_step_ms":1e999}]})",
         CurveErrorCode::NotJson, 0, "", 0, 0, "", "number overflow"},
        {"fractional steps", pointWith("steps", "2.5"), CurveErrorCode::NotAWholeNumber, 1, "steps", 0, 0, "",
         "field 'steps' must be a whole number >= 0"},
        {"zero accumulation", pointWith("accum_steps", "0"), CurveErrorCode::NotAWholeNumber, 1, "accum_steps", 0, 1,
         "", "field 'accum_steps' must be a whole number >= 1"},
        {"negative time", pointWith("median_step_ms", "-1"), CurveErrorCode::Negative, 1, "median_step_ms", 0, 0, "",
         "field 'median_step_ms' is negative"},
        {"diverged not a bool", pointWith("diverged", "1"), CurveErrorCode::NotTrueOrFalse, 1, "diverged", 0, 0, "",
         "field 'diverged' is not true or false"},
        {"losses not a list", pointWith("losses", "3"), CurveErrorCode::NotAList, 1, "losses", 0, 0, "",
         "field 'losses' is not a list"},
        {"identity broken", pointWith("effective_batch", "9"), CurveErrorCode::BatchIdentity, 1, "effective_batch", 9,
         0, "", "effective_batch 9 is not micro_batch x accum_steps x world_size"},
        // Numbers no machine measures, which would also stretch the chart's axes to nothing.
        {"speed 1e308", pointWith("samples_per_sec", "1e308"), CurveErrorCode::OutOfRange, 1, "samples_per_sec", 0, 0,
         "", "field 'samples_per_sec' is 1e+308, outside what a measurement can be"},
        {"speed subnormal", pointWith("samples_per_sec", "5e-324"), CurveErrorCode::OutOfRange, 1, "samples_per_sec",
         0, 0, "", "outside what a measurement can be"},
        {"step time 1e300", pointWith("median_step_ms", "1e300"), CurveErrorCode::OutOfRange, 1, "median_step_ms", 0,
         0, "", "outside what a measurement can be"},
        {"micro-batch 2^50", pointWith("micro_batch", "1125899906842624"), CurveErrorCode::OutOfRange, 1,
         "micro_batch", 0, 0, "", "beyond 2^40"},
    };
}

class Codes : public testing::TestWithParam<CodeRow> {};

TEST_P(Codes, CarryTheirArguments)
{
    const CodeRow &row = GetParam();
    try {
        parseCurveJson(row.text);
        FAIL() << "accepted";
    } catch (const CurveFormatError &e) {
        const CurveErrorDetail &d = e.detail();
        EXPECT_TRUE(contains(e.what(), row.english)) << e.what();
        EXPECT_EQ(int(e.code()), int(row.code));
        EXPECT_EQ(d.point, row.point);
        EXPECT_EQ(d.field, row.field);
        EXPECT_EQ(d.number, row.number);
        EXPECT_EQ(d.limit, row.limit);
        EXPECT_EQ(d.found, row.found);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, Codes, testing::ValuesIn(codeRows()), test::ByName());

// ---- The trade-off reader --------------------------------------------------------------------

// The trade-off reader: a good file reads back; each planted fault is refused with its code.
struct TradeoffRow {
    const char *name;
    std::string fault;
    int code; // -1: reads back
};

class TradeoffReader : public testing::TestWithParam<TradeoffRow> {};

TEST_P(TradeoffReader, RefusesEachPlantedFault)
{
    const std::string &fault = GetParam().fault;
    const int code = GetParam().code;
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
        ASSERT_EQ(code, -1);
        ASSERT_EQ(f.points.size(), size_t(2));
        EXPECT_EQ(f.budgetBytes, std::optional<int64_t>(1000));
        EXPECT_TRUE(!f.points[0].outOfMemory && f.points[1].outOfMemory);
        EXPECT_EQ(f.points[0].peakMemBytes, std::optional<int64_t>(900));
    } catch (const CurveFormatError &e) {
        EXPECT_TRUE(code != -1) << e.what();
        EXPECT_EQ(int(e.code()), code);
    }
}

INSTANTIATE_TEST_SUITE_P(Rows, TradeoffReader,
                         testing::ValuesIn(std::vector<TradeoffRow>{
                             {"good", "", -1},
                             {"curve schema", "schema", int(CurveErrorCode::WrongSchema)},
                             {"effective disagrees", "effective", int(CurveErrorCode::BatchIdentity)},
                             {"out of memory with timed steps", "oom steps", int(CurveErrorCode::OutOfRange)},
                             {"fitted above the budget", "above budget", int(CurveErrorCode::OutOfRange)},
                             {"no out_of_memory", "no flag", int(CurveErrorCode::MissingField)},
                             {"negative peak", "negative peak", int(CurveErrorCode::NotAWholeNumber)},
                             {"zero world size", "world", int(CurveErrorCode::NotAWholeNumber)},
                             {"fitted without a time", "no time", int(CurveErrorCode::OutOfRange)},
                         }),
                         test::ByName());

// ---- Edges -----------------------------------------------------------------------------------

TEST(CurveIo, RefusesAHugeFileBeforeParsing)
{
    const std::string huge = pointJson(",\"device\":\"" + std::string(kMaxCurveFileBytes, 'x') + "\"");
    EXPECT_TRUE(contains(rejection(huge), "MiB"));
    try {
        parseCurveJson(huge);
        FAIL() << "accepted";
    } catch (const CurveFormatError &e) {
        EXPECT_EQ(int(e.code()), int(CurveErrorCode::FileTooLarge));
        EXPECT_EQ(e.detail().number, int64_t(huge.size() >> 20));
        EXPECT_EQ(e.detail().limit, int64_t(kMaxCurveFileBytes >> 20));
    }
}

// Our own diverged point: JSON has no NaN, so the loss is null and "diverged" says why.
TEST(CurveIo, DivergedPointRoundTrips)
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
    EXPECT_TRUE(text.find("\"avg_loss\":null") != std::string::npos);
    const CurveFile back = parseCurveJson(text);
    ASSERT_EQ(back.points.size(), size_t(1));
    EXPECT_TRUE(back.points[0].diverged);
    EXPECT_EQ(back.points[0].divergedAtStep, 5);
    EXPECT_TRUE(std::isnan(back.points[0].avgLoss));
    ASSERT_EQ(back.points[0].losses.size(), size_t(3));
    EXPECT_DOUBLE_EQ(back.points[0].losses[1], 40.0);
    EXPECT_TRUE(fuzz::curveInvariantViolation(text).empty());
}

} // namespace
