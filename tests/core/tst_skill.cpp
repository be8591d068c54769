// The skill recipe: its front matter, the recipe's steps, and this run's measured figures, in
// every language of the content (resources/content/skill.<lang>.md, skill.json).
#include "core/content.h"
#include "core/loop_code.h"
#include "core/skill.h"

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <cstdio>

using namespace accumlab;

namespace {

NumberStyle styleOf(const QString &language, bool latinDigits)
{
    NumberStyle style;
    style.language = language.toStdString();
    style.latinDigits = latinDigits;
    return style;
}

QString q(const std::string &s) { return QString::fromStdString(s); }

// The fenced code blocks of a document, as written.
QStringList codeBlocks(const QString &md)
{
    static const QRegularExpression block(QStringLiteral("```python\n(.*?)```"),
                                          QRegularExpression::DotMatchesEverythingOption);
    QStringList blocks;
    for (auto it = block.globalMatch(md); it.hasNext();)
        blocks << it.next().captured(1);
    return blocks;
}

// The code blocks without their comment lines, which are in the reader's language (the code
// panel's loop): the code itself is every language's.
QStringList codeOf(const QString &md)
{
    static const QRegularExpression comment(QStringLiteral("^ *# [^\n]*\n"), QRegularExpression::MultilineOption);
    QStringList blocks = codeBlocks(md);
    for (QString &b : blocks)
        b.remove(comment);
    return blocks;
}

// What a person reads as text: the front matter's description and the body, without the
// direction markup (<div dir="rtl">, </div>), which is HTML, not words.
QString proseOf(const QString &md)
{
    const QString frontMatter = md.section(QStringLiteral("---\n"), 1, 1);
    const QString body = md.section(QStringLiteral("\n---\n"), 1);
    QString description;
    for (const QString &line : frontMatter.split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1String("description:")))
            description = line;
    QString prose = description + QLatin1Char('\n') + body;
    prose.remove(QRegularExpression(QStringLiteral("^ *<div dir=\"(rtl|ltr)\">$|^ *</div>$"),
                                    QRegularExpression::MultilineOption));
    return prose;
}

// The section after the last heading: this run's measured figures.
QString measuredSection(const QString &md) { return md.mid(md.lastIndexOf(QStringLiteral("\n## "))); }

// The numbers of a text in reading order, whatever digits they are written in: Persian digits,
// the Persian decimal sign, minus and percent, "×10⁻⁹" exponents. Code spans and digits inside
// identifiers ("float32", "cuda:0") are not figures.
QList<double> figures(QString text)
{
    text.remove(QChar(0x200E));
    text.remove(QRegularExpression(QStringLiteral("`[^`]*`")));
    const QString persian = QStringLiteral("۰۱۲۳۴۵۶۷۸۹");
    const QString superscript = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    for (int d = 0; d < 10; ++d) {
        text.replace(persian[d], QChar(u'0' + d));
        text.replace(superscript[d], QChar(u'0' + d));
    }
    text.replace(QChar(0x066B), QLatin1Char('.')); // ٫
    text.replace(QChar(0x2212), QLatin1Char('-')); // −
    text.replace(QChar(0x207B), QLatin1Char('-')); // ⁻
    text.replace(QStringLiteral("×10"), QStringLiteral("e"));
    static const QRegularExpression number(QStringLiteral("(?<![A-Za-z_0-9.:])-?\\d+(?:\\.\\d+)?(?:e-?\\d+)?"));
    QList<double> out;
    for (auto it = number.globalMatch(text); it.hasNext();)
        out << it.next().captured(0).toDouble();
    return out;
}

// The content files the recipe is made of, and the ones validateContent needs beside them.
std::map<std::string, std::string> skillContent()
{
    std::map<std::string, std::string> files;
    for (const auto &[path, text] : embeddedContent())
        if (path == "languages.json" || path == "glossary.json" || path.rfind("skill.", 0) == 0)
            files[path] = text;
    return files;
}

QString joined(const std::vector<std::string> &problems)
{
    QStringList lines;
    for (const auto &p : problems)
        lines << q(p);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestSkill : public QObject {
    Q_OBJECT
    EquivalenceResult m_eq;
    SweepResult m_sweep;

private slots:
    void initTestCase()
    {
        SweepConfig s;
        s.base.preset = ModelPreset::Fixture;
        s.base.device = DeviceRequest::Cpu;
        s.accumGrid = {1, 4};
        s.numSteps = 3;
        m_sweep = runSweep(s);
        m_eq = runEquivalence(EquivalenceConfig{});
        QVERIFY(m_sweep.points.size() == 2);
    }

    void content()
    {
        const auto &eq = m_eq;
        const auto &sweep = m_sweep;
        const QString md = q(skillMarkdown(eq, sweep));

        QVERIFY(md.startsWith(QStringLiteral("---\nname: gradient-accumulation\n")));
        for (const char *key : {"description:", "version: 1.0.0", "tags: [training,"})
            QVERIFY2(md.section(QStringLiteral("---"), 1, 1).contains(QLatin1String(key)), key);
        for (const char *heading : {"## When to use it", "## The recipe", "## What to log", "## Failure modes",
                                    "## Measured in this run"})
            QVERIFY2(md.contains(QLatin1String(heading)), heading);
        for (const char *needle : {"accum_steps = effective_batch // (micro_batch * world_size)", "assert",
                                   "no_sync", "/ accum_steps", "optimizer.step()", "scheduler.step()"})
            QVERIFY2(md.contains(QLatin1String(needle)), needle);
        // Every placeholder was filled; English carries no direction markup.
        QVERIFY(!md.contains(QLatin1Char('{')));
        QVERIFY(!md.contains(QStringLiteral("<div")));

        // The measured figures appear as measured.
        const QString gradDiff = q(formatNumber(eq.maxGradDiff, ".3e"));
        QVERIFY2(md.contains(QStringLiteral("| max abs grad diff | ") + gradDiff + QStringLiteral(" |")),
                 qPrintable(gradDiff));
        char buf[96];
        for (const auto &p : sweep.points) {
            std::snprintf(buf, sizeof buf, "| %lld | %lld | %lld | %.1f |", static_cast<long long>(p.effectiveBatch),
                          static_cast<long long>(p.accumSteps), static_cast<long long>(p.microBatch), p.samplesPerSec);
            QVERIFY2(md.contains(QLatin1String(buf)), buf);
        }
        QVERIFY(md.contains(QStringLiteral("| holds | yes |")));
        std::snprintf(buf, sizeof buf, "; sgd lr %g; float32; loss scaling divide):", eq.config.run.optimizer.lr);
        QVERIFY2(md.contains(QLatin1String(buf)), buf);
        QVERIFY(md.contains(QStringLiteral("Throughput sweep (fixture model, ")));
    }

    // The recipe's loop is the code panel's, line for line (the code tests/pytorch/check_loop_code.py
    // runs against the engine): the correct loop in its data-parallel form, even when the run
    // it reports had a bug planted, with its comments in the recipe's language.
    void embedsTheCodePanelsLoop_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("en");
        QTest::newRow("fa") << QStringLiteral("fa");
    }
    void embedsTheCodePanelsLoop()
    {
        QFETCH(QString, language);
        const NumberStyle style{language.toStdString(), false};
        EquivalenceResult planted = m_eq;
        planted.config.run.bug = AccumBug::ZeroEveryMicro;
        const QString md = q(skillMarkdown(planted, m_sweep, style));
        const LoopListing listing = loopListing(m_eq.config.run, style, LoopForm::DataParallel);
        QVERIFY(listing.lines.size() > 10);
        for (const QString &line : q(loopSource(listing)).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            QVERIFY2(md.contains(QStringLiteral("\n   ") + line + QLatin1Char('\n')), qPrintable(line));
        QVERIFY(md.contains(QStringLiteral("with model.no_sync() if k < accum_steps - 1 else contextlib.nullcontext():")));
        QVERIFY(!md.contains(QStringLiteral("# bug:")) && !md.contains(QStringLiteral("# خطا:"))); // no planted line
    }

    // The Persian recipe: the same structure in Persian, code left as code (and left to right),
    // the same figures in Persian digits.
    void persian()
    {
        const auto &eq = m_eq;
        const auto &sweep = m_sweep;
        const NumberStyle fa = styleOf(QStringLiteral("fa"), false);
        const QString md = q(skillMarkdown(eq, sweep, NumberStyle{"fa", false}));
        const QString en = q(skillMarkdown(eq, sweep));
        // The Language API is the "fa" style with the language's digits.
        QCOMPARE(md, q(skillMarkdown(eq, sweep, fa)));

        // Same front-matter keys and skill name: tools read them.
        QVERIFY(md.startsWith(QStringLiteral("---\nname: gradient-accumulation\n")));
        QCOMPARE(md.section(QStringLiteral("---"), 1, 1).split(QLatin1Char('\n')).filter(QStringLiteral("tags:")),
                 en.section(QStringLiteral("---"), 1, 1).split(QLatin1Char('\n')).filter(QStringLiteral("tags:")));
        for (const char *key : {"description:", "version: 1.0.0", "tags:"})
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
        QVERIFY(!md.contains(QLatin1Char('{')));

        // A direction hint: the body right to left (the front matter first, as tools expect),
        // each code block left to right, blank lines around so the Markdown inside renders.
        QVERIFY(md.contains(QStringLiteral("---\n\n<div dir=\"rtl\">\n\n# ")));
        QVERIFY(md.endsWith(QStringLiteral("\n\n</div>\n")));
        QCOMPARE(md.count(QStringLiteral("<div dir=\"ltr\">\n\n   ```python\n")), 2);
        QCOMPARE(md.count(QStringLiteral("   ```\n\n   </div>\n\n")), 2);
        QCOMPARE(md.count(QStringLiteral("<div")), md.count(QStringLiteral("</div>")));

        // Code blocks are the English recipe's, their comments in Persian.
        QCOMPARE(codeBlocks(md).size(), 2);
        QCOMPARE(codeOf(md), codeOf(en));
        QVERIFY(codeBlocks(md) != codeBlocks(en));

        // The measured figures, as measured, in Persian digits.
        QVERIFY(md.contains(q(formatNumber(eq.maxGradDiff, ".3e", fa))));
        QVERIFY(md.contains(q(formatNumber(eq.updateRatio, ".4f", fa))));
        for (const auto &p : sweep.points) {
            const QString row = QStringLiteral("| %1 | %2 | %3 | %4 |")
                                    .arg(q(formatNumber(static_cast<double>(p.effectiveBatch), "d", fa)),
                                         q(formatNumber(static_cast<double>(p.accumSteps), "d", fa)),
                                         q(formatNumber(static_cast<double>(p.microBatch), "d", fa)),
                                         q(formatNumber(p.samplesPerSec, ".1f", fa)));
            QVERIFY2(md.contains(row), qPrintable(row));
        }
        QVERIFY(md.contains(QString::fromUtf8("| هم‌ارزی برقرار است | بله |")));
        // The settings in Persian words: no "sgd", "divide" or "fixture" as prose.
        QVERIFY(md.contains(QString::fromUtf8("؛ SGD با نرخ یادگیری ")));
        QVERIFY(md.contains(QString::fromUtf8("مقیاس‌دهی زیان: تقسیم بر `accum_steps`)")));
        QVERIFY(md.contains(QString::fromUtf8("(مدل کوچکِ آزمون‌ها (`fixture`)، ")));
    }

    // A right-to-left recipe reads in its language: no English word outside code, no Latin
    // digit outside code unless the reader chose Latin digits (then no Persian digit at all).
    void rtlProseInItsLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<bool>("latinDigits");
        QTest::newRow("fa") << QStringLiteral("fa") << false;
        QTest::newRow("fa, Latin digits") << QStringLiteral("fa") << true;
    }
    void rtlProseInItsLanguage()
    {
        QFETCH(QString, language);
        QFETCH(bool, latinDigits);
        const NumberStyle style = styleOf(language, latinDigits);
        const QString md = q(skillMarkdown(m_eq, m_sweep, style));
        const QString en = q(skillMarkdown(m_eq, m_sweep));

        // The rendered documents as if they were templates: the content check reads them.
        auto files = skillContent();
        files.erase("skill.json");
        files["skill.en.md"] = proseOf(en).toStdString();
        files["skill." + style.language + ".md"] = proseOf(md).toStdString();
        const auto problems = validateContent(files);
        if (!latinDigits) {
            QVERIFY2(problems.empty(), qPrintable(joined(problems)));
            return;
        }
        for (const auto &p : problems)
            QVERIFY2(q(p).contains(QStringLiteral(": Latin digits in \"fa\": ")), p.c_str());
        QVERIFY(!problems.empty()); // the figures are there, in Latin digits
        const LanguageInfo &lang = languageInfo(style.language);
        for (const auto &d : lang.digits)
            QVERIFY2(!md.contains(q(d)), d.c_str());
        QVERIFY(!md.contains(q(lang.decimal)));
        QCOMPARE(codeOf(md), codeOf(en));
    }

    // Every language carries the same measured figures: read back from each document, they are
    // the English ones, in the same order, and they are what was measured.
    void sameFiguresInEveryLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<bool>("latinDigits");
        for (const auto &lang : contentLanguages()) {
            QTest::newRow(lang.code.c_str()) << q(lang.code) << false;
            QTest::newRow((lang.code + ", Latin digits").c_str()) << q(lang.code) << true;
        }
    }
    void sameFiguresInEveryLanguage()
    {
        QFETCH(QString, language);
        QFETCH(bool, latinDigits);
        const QList<double> en = figures(measuredSection(q(skillMarkdown(m_eq, m_sweep))));
        const QList<double> other =
            figures(measuredSection(q(skillMarkdown(m_eq, m_sweep, styleOf(language, latinDigits)))));
        QCOMPARE(other, en);

        // Read back: the equivalence setting, its table, then each sweep point's row.
        const auto &c = m_eq.config;
        const QList<double> setting{double(c.run.modelShape().inFeatures), double(c.run.modelShape().hidden), double(c.run.modelShape().classes),
                                    double(c.bigBatch()), double(c.run.accumSteps), double(c.run.microBatch),
                                    c.run.optimizer.lr};
        QCOMPARE(other.mid(0, setting.size()), setting);
        const auto close = [](double read, double measured) {
            return std::abs(read - measured) <= 1e-3 * std::abs(measured) + 1e-300;
        };
        QVERIFY(close(other.at(7), m_eq.maxGradDiff));
        QVERIFY(close(other.at(8), m_eq.maxParamDiff));
        QVERIFY(std::abs(other.at(9) - m_eq.updateRatio) <= 5e-5);
        QVERIFY(close(other.at(10), c.fixedTolerance));
        QVERIFY(close(other.at(11), m_eq.gradBoundDtype));
        const int rowsStart = int(other.size()) - 8 * int(m_sweep.points.size());
        for (size_t i = 0; i < m_sweep.points.size(); ++i) {
            const auto &p = m_sweep.points[i];
            const QList<double> row = other.mid(rowsStart + 8 * int(i), 8);
            QCOMPARE(row.at(0), double(p.effectiveBatch));
            QCOMPARE(row.at(1), double(p.accumSteps));
            QCOMPARE(row.at(2), double(p.microBatch));
            QVERIFY(std::abs(row.at(3) - p.samplesPerSec) <= 0.05 + 1e-9 * p.samplesPerSec);
            QCOMPARE(row.at(6), double(p.syncCalls));
        }
    }

    // The content check catches a broken recipe: a placeholder missing from one language, a
    // word or a digit left in English, a missing language.
    void plantedFaultFails_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected"); // a problem containing this; empty: no problem
        QTest::newRow("as shipped") << QString() << QString() << QString() << QString();
        QTest::newRow("fa lacks a placeholder")
            << "skill.fa.md" << "{max_grad_diff:.3e}" << "" << "skill.fa.md: the placeholders of \"fa\" differ";
        QTest::newRow("fa has an extra placeholder")
            << "skill.fa.md" << "{holds}" << "{holds} {seed}" << "skill.fa.md: the placeholders of \"fa\" differ";
        QTest::newRow("en lacks a placeholder")
            << "skill.en.md" << "{sweep_table}" << "" << "skill.fa.md: the placeholders of \"fa\" differ";
        QTest::newRow("English word in fa")
            << "skill.fa.md" << QString::fromUtf8("# انباشت گرادیان") << "# Gradient accumulation"
            << "skill.fa.md: English words in \"fa\": Gradient, accumulation";
        QTest::newRow("Latin digit in fa")
            << "skill.fa.md" << QString::fromUtf8("- **۱. ") << "- **1. " << "skill.fa.md: Latin digits in \"fa\": 1.";
        QTest::newRow("fa missing") << "skill.fa.md" << "*" << "" << "skill.fa.md: no text in \"fa\"";
        QTest::newRow("setting left in English")
            << "skill.json" << QString::fromUtf8("\"fa\": \"بدون تقسیم\"") << "\"fa\": \"none\""
            << "skill.json:/scaling/none: English words in \"fa\": none";
        QTest::newRow("column without fa")
            << "skill.json" << QString::fromUtf8(",\n      \"fa\": \"میانگین زیان\"") << ""
            << "skill.json:/sweep_columns/7: no text in \"fa\"";
    }
    void plantedFaultFails()
    {
        QFETCH(QString, path);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        auto files = skillContent();
        QVERIFY(files.count("skill.en.md") && files.count("skill.fa.md") && files.count("skill.json"));
        if (!path.isEmpty()) {
            QString text = q(files.at(path.toStdString()));
            if (from == QLatin1String("*")) {
                text.clear();
            } else {
                QVERIFY2(text.contains(from), qPrintable(from));
                text.replace(from, to);
            }
            files[path.toStdString()] = text.toStdString();
        }
        const auto problems = validateContent(files);
        if (expected.isEmpty()) {
            QVERIFY2(problems.empty(), qPrintable(joined(problems)));
            return;
        }
        bool found = false;
        for (const auto &p : problems)
            found = found || q(p).contains(expected);
        QVERIFY2(found, qPrintable(QStringLiteral("expected \"%1\" among:\n%2").arg(expected, joined(problems))));
    }
};

QTEST_GUILESS_MAIN(TestSkill)
#include "tst_skill.moc"
