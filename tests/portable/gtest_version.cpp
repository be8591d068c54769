// The one version number, from project(VERSION ...): what core reports, what the exports
// record and what `accumlab-cli --version` prints all equal the value CMake passed to this
// test (ACCUMLAB_EXPECTED_VERSION), so a version restated anywhere by hand shows up here.
#include "core/io/export.h"
#include "core/version.h"

#include "support.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#ifndef ACCUMLAB_EXPECTED_VERSION
#error "ACCUMLAB_EXPECTED_VERSION must come from the build (tests/portable/CMakeLists.txt)"
#endif

using namespace accumlab;

namespace {

const std::string kExpected = ACCUMLAB_EXPECTED_VERSION;

TEST(Version, CoreReportsTheProjectVersion)
{
    EXPECT_EQ(std::string(kVersion), kExpected);
    EXPECT_TRUE(std::regex_match(kExpected, std::regex(R"(\d+\.\d+\.\d+)"))) << kExpected;
}

TEST(Version, ExportsRecordTheProjectVersion)
{
    // The environment block written into every accum-curve.json.
    const nlohmann::json env = environmentJson();
    EXPECT_EQ(env.at("accumlab_version").get<std::string>(), kExpected);
    // And the BLAS LibTorch's matmuls run on (core/device.h's blasName).
    const std::string blas = env.at("blas").get<std::string>();
    EXPECT_FALSE(blas.empty());
    EXPECT_NE(blas, "unknown");
}

TEST(Version, CliPrintsTheProjectVersion)
{
    ASSERT_NO_FATAL_FAILURE(accumlab::test::requireCli());
    const auto r = accumlab::test::runCli({"--version"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, "accumlab-cli " + kExpected + "\n");
    EXPECT_EQ(r.err, "");
}

} // namespace
