// The skill recipe: its front matter, the recipe's steps, and this run's measured figures.
#include "core/skill.h"

#include <QRegularExpression>
#include <QtTest>

#include <cstdio>

using namespace accumlab;

class TestSkill : public QObject {
    Q_OBJECT
private slots:
    void content()
    {
        SweepConfig s;
        s.base.preset = ModelPreset::Fixture;
        s.base.device = DeviceRequest::Cpu;
        s.accumGrid = {1, 4};
        s.numSteps = 3;
        const auto sweep = runSweep(s);
        const auto eq = runEquivalence(EquivalenceConfig{});
        const QString md = QString::fromStdString(skillMarkdown(eq, sweep));

        QVERIFY(md.startsWith(QStringLiteral("---\nname: gradient-accumulation\n")));
        for (const char *key : {"description:", "version:", "tags:"})
            QVERIFY2(md.section(QStringLiteral("---"), 1, 1).contains(QLatin1String(key)), key);
        for (const char *heading : {"## When to use it", "## The recipe", "## What to log", "## Failure modes",
                                    "## Measured in this run"})
            QVERIFY2(md.contains(QLatin1String(heading)), heading);
        for (const char *needle : {"accum_steps = effective_batch // (micro_batch * world_size)", "assert",
                                   "no_sync", "/ accum_steps", "optimizer.step()", "scheduler.step()"})
            QVERIFY2(md.contains(QLatin1String(needle)), needle);

        // The measured figures appear as measured.
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3e", eq.maxGradDiff);
        QVERIFY2(md.contains(QLatin1String(buf)), buf);
        for (const auto &p : sweep.points) {
            std::snprintf(buf, sizeof buf, "| %lld | %lld | %lld | %.1f |", static_cast<long long>(p.effectiveBatch),
                          static_cast<long long>(p.accumSteps), static_cast<long long>(p.microBatch), p.samplesPerSec);
            QVERIFY2(md.contains(QLatin1String(buf)), buf);
        }
        QVERIFY(md.contains(QStringLiteral("| holds | yes |")));
    }

    // The Persian recipe: the same structure in Persian, code left as code, the same figures.
    void persian()
    {
        SweepConfig s;
        s.base.preset = ModelPreset::Fixture;
        s.base.device = DeviceRequest::Cpu;
        s.accumGrid = {1, 2};
        s.numSteps = 3;
        const auto sweep = runSweep(s);
        const auto eq = runEquivalence(EquivalenceConfig{});
        const QString md = QString::fromStdString(skillMarkdown(eq, sweep, Language::Persian));
        const QString en = QString::fromStdString(skillMarkdown(eq, sweep, Language::English));

        // Same front-matter keys and skill name: tools read them.
        QVERIFY(md.startsWith(QStringLiteral("---\nname: gradient-accumulation\n")));
        for (const char *key : {"description:", "version:", "tags:"})
            QVERIFY2(md.section(QStringLiteral("---"), 1, 1).contains(QLatin1String(key)), key);
        const char *headings[] = {"# انباشت گرادیان", "## چه وقت به کارش ببریم", "## دستورالعمل",
                                  "## چه چیزهایی را ثبت کنیم", "## خطاهای رایج", "## در مخزن خودتان بررسی کنید",
                                  "## اندازه‌گیری‌شده در این اجرا"};
        for (const char *heading : headings)
            QVERIFY2(md.contains(QString::fromUtf8(heading)), heading);
        // As many headings as the English recipe, and no English heading left behind.
        QCOMPARE(md.count(QRegularExpression(QStringLiteral("^#+ "), QRegularExpression::MultilineOption)),
                 en.count(QRegularExpression(QStringLiteral("^#+ "), QRegularExpression::MultilineOption)));
        QVERIFY(!md.contains(QStringLiteral("## The recipe")));
        QVERIFY(!md.contains(QStringLiteral("## Measured in this run")));
        // Code blocks are the English recipe's, unchanged.
        const QRegularExpression block(QStringLiteral("```python\n(.*?)```"), QRegularExpression::DotMatchesEverythingOption);
        QStringList faBlocks, enBlocks;
        for (auto it = block.globalMatch(md); it.hasNext();)
            faBlocks << it.next().captured(1);
        for (auto it = block.globalMatch(en); it.hasNext();)
            enBlocks << it.next().captured(1);
        QCOMPARE(faBlocks.size(), 2);
        QCOMPARE(faBlocks, enBlocks);

        // The measured figures, as measured, in Latin digits.
        char buf[96];
        std::snprintf(buf, sizeof buf, "%.3e", eq.maxGradDiff);
        QVERIFY2(md.contains(QLatin1String(buf)), buf);
        std::snprintf(buf, sizeof buf, "%.4f", eq.updateRatio);
        QVERIFY2(md.contains(QLatin1String(buf)), buf);
        for (const auto &p : sweep.points) {
            std::snprintf(buf, sizeof buf, "| %lld | %lld | %lld | %.1f |", static_cast<long long>(p.effectiveBatch),
                          static_cast<long long>(p.accumSteps), static_cast<long long>(p.microBatch), p.samplesPerSec);
            QVERIFY2(md.contains(QLatin1String(buf)), buf);
        }
        QVERIFY(md.contains(QString::fromUtf8("| هم‌ارزی برقرار است | بله |")));
    }
};

QTEST_GUILESS_MAIN(TestSkill)
#include "tst_skill.moc"
