// Numbers that cross to another process or into a file never depend on the C locale. The
// desktop app runs under the user's LC_NUMERIC (QApplication sets it), where printf writes
// 0,05; the two-rank sweep it launches passed the learning rate that way and every rank
// refused it. This builds a comma-decimal locale (de_DE.UTF-8, with localedef, into a
// temporary LOCPATH), shows that printf really changes under it (so the check can fail), then
// checks what core hands to the ranks.
#include "core/config.h"
#include "core/distributed/distributed.h"
#include "core/io/export.h"

#include "support.h"

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using accumlab::test::TempDir;

class CommaLocale : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!std::filesystem::exists("/usr/share/i18n/locales/de_DE"))
            GTEST_SKIP() << "no locale sources (Debian's package locales; scripts/setup.sh installs it)";
        const std::string out = (m_dir.path() / "de_DE.UTF-8").string();
        const std::string cmd = "localedef -i de_DE -f UTF-8 '" + out + "' >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        ::setenv("LOCPATH", m_dir.path().c_str(), 1);
        ASSERT_NE(std::setlocale(LC_NUMERIC, "de_DE.UTF-8"), nullptr);
    }
    void TearDown() override
    {
        std::setlocale(LC_NUMERIC, "C");
        ::unsetenv("LOCPATH");
    }
    TempDir m_dir;
};

std::string printfG(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

TEST_F(CommaLocale, PrintfWritesACommaSoTheCheckCanFail)
{
    EXPECT_EQ(printfG(0.05).find(','), 1u) << printfG(0.05);
}

TEST_F(CommaLocale, DecimalStringsKeepTheDotAndRoundTrip)
{
    for (double v : {0.05, 1e-4, 0.1, 2.5e-7, 3.0, 86400.0}) {
        const std::string s = accumlab::toDecimalString(v);
        EXPECT_EQ(s.find(','), std::string::npos) << s;
        std::setlocale(LC_NUMERIC, "C");
        EXPECT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
        std::setlocale(LC_NUMERIC, "de_DE.UTF-8");
    }
}

TEST_F(CommaLocale, RanksReceiveTheLearningRateWithADot)
{
    accumlab::SweepConfig c;
    c.base.optimizer.lr = 0.05;
    c.base.worldSize = 2;
    const std::string record = accumlab::sweepSettingsJson(c).dump();
    EXPECT_NE(record.find("\"lr\":0.05"), std::string::npos) << record;
    const auto read = accumlab::sweepSettingsFromJson(nlohmann::json::parse(record));
    EXPECT_EQ(read.base.optimizer.lr, 0.05);
}

} // namespace
