// accumlab-cli experiment: the list, one JSON object per experiment with its verdicts, the
// text summary, and bad input (one line, exit 2).
#include "core/experiments/experiments.h"

#include "support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace accumlab;
using accumlab::test::ProcessResult;
using accumlab::test::runCli;
using nlohmann::json;

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        if (end > start)
            out.push_back(text.substr(start, end - start));
    if (start < text.size())
        out.push_back(text.substr(start));
    return out;
}

class CliExperiments : public testing::Test {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_F(CliExperiments, List)
{
    const ProcessResult r = runCli({"experiment", "list"});
    EXPECT_EQ(r.exitCode, 0);
    const std::vector<std::string> listed = lines(r.out);
    ASSERT_EQ(listed.size(), experimentCatalog().size());
    for (size_t i = 0; i < experimentCatalog().size(); ++i) {
        const auto &info = experimentCatalog()[i];
        const std::string &line = listed[i];
        const std::string title = info.title.in("en");
        EXPECT_EQ(line.rfind(info.id + ' ', 0), 0u) << line;
        EXPECT_TRUE(line.size() >= title.size() && line.compare(line.size() - title.size(), title.size(), title) == 0)
            << line;
    }
}

struct ExperimentId {
    std::string name;
};

class CliExperimentJson : public testing::TestWithParam<ExperimentId> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

// Exactly one JSON object on stdout, exit 0 (also where a claim fails: the verdict is data).
TEST_P(CliExperimentJson, OneObjectWithItsVerdicts)
{
    const std::string id = GetParam().name;
    const ProcessResult r = runCli({"experiment", id, "--json", "--fast"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    json o;
    ASSERT_NO_THROW(o = json::parse(r.out)) << r.out;
    ASSERT_TRUE(o.is_object());
    EXPECT_EQ(o.at("id"), id);
    EXPECT_EQ(o.at("title").get<std::string>(), findExperiment(id)->title.in("en"));
    ASSERT_TRUE(o.at("values").is_object());
    EXPECT_FALSE(o.at("values").empty());
    for (const auto &v : o.at("values"))
        EXPECT_TRUE(v.is_number()) << v;
    const json &claims = o.at("claims");
    ASSERT_TRUE(claims.is_array());
    EXPECT_FALSE(claims.empty());
    bool all = true;
    const std::vector<std::string> outcomes{"holds", "does not hold", "inconclusive", "observation"};
    for (const json &claim : claims) {
        EXPECT_FALSE(claim.value("id", std::string()).empty());
        EXPECT_FALSE(claim.value("statement", std::string()).empty());
        ASSERT_TRUE(claim.at("holds").is_boolean());
        const std::string outcome = claim.at("outcome").get<std::string>();
        EXPECT_NE(std::find(outcomes.begin(), outcomes.end(), outcome), outcomes.end()) << outcome;
        EXPECT_EQ(claim.at("holds").get<bool>(), outcome == "holds" || outcome == "observation");
        all = all && outcome != "does not hold"; // inconclusive timing claims and observations do not fail
        // Every verdict that does not read a clock holds on the engine path.
        if (!claim.value("timing", false))
            EXPECT_TRUE(claim.at("holds").get<bool>()) << claim.at("id");
    }
    EXPECT_EQ(o.at("holds").get<bool>(), all);
}

std::vector<ExperimentId> experimentIds()
{
    std::vector<ExperimentId> ids;
    for (const auto &info : experimentCatalog())
        ids.push_back({info.id});
    return ids;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CliExperimentJson, testing::ValuesIn(experimentIds()), accumlab::test::ByName());

TEST_F(CliExperiments, TextSummary)
{
    const ProcessResult r = runCli({"experiment", "no-division", "--fast"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find(findExperiment("no-division")->title.in("en")), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[holds]"), std::string::npos);
    EXPECT_NE(r.out.find("sgd_update_ratio"), std::string::npos);
    const size_t first = r.out.find_first_not_of(" \t\n");
    EXPECT_TRUE(first == std::string::npos || r.out[first] != '{');
}

struct BadInput {
    const char *name;
    std::vector<std::string> args;
};

class CliExperimentBadInput : public testing::TestWithParam<BadInput> {
protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli()); }
};

TEST_P(CliExperimentBadInput, ExitsTwoInOneLine)
{
    const ProcessResult r = runCli(GetParam().args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("accumlab-cli: error: ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Rows, CliExperimentBadInput,
    testing::Values(BadInput{"unknown id", {"experiment", "no-such-experiment", "--json"}},
                    BadInput{"no id", {"experiment"}},
                    BadInput{"zero sweep steps", {"experiment", "sweep-flattening", "--sweep-steps", "0"}}),
    accumlab::test::ByName());

} // namespace
