// The lesson panel (ui/panels/lessonpanel.h) reads its words from resources/content/lesson.json: in
// Persian the browser shows no English prose outside code, its numbers follow the digit
// setting, a language switch rewrites it, code stays left to right, and every link keeps its
// target and order (the window maps them to widgets; tst_language follows each one there).
#include "core/content/content.h"
#include "ui/language.h"
#include "ui/panels/lessonpanel.h"

#include "wait_helpers.h"

#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QtTest>

#include <set>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

// The link targets, in order of appearance, one line per section: MainWindow::showLessonTarget()
// knows these names.
const QStringList kTargets = {
    "control/microBatch", "control/accumSteps", "view/identity",
    "control/noDivision", "view/buffers",
    "view/counters", "control/stepEveryMicro", "control/optimizer",
    "control/noSync", "view/syncCalls",
    "view/equivalence", "control/dtype",
    "view/throughput", "view/sweepTable", "view/memory",
    "view/memoryBudget", "control/lr", "control/accumSteps",
};

const QRegularExpression kPersianDigit(QStringLiteral("[\\x{06F0}-\\x{06F9}]"));
const QRegularExpression kLatinDigit(QStringLiteral("[0-9]"));

using accumlab::ui::test::settle;

void setReader(const QString &language, bool latinDigits)
{
    LanguageManager::instance()->setLanguage(LanguageManager::fromCode(language));
    LanguageManager::instance()->setLatinDigits(latinDigits);
    settle();
}

// The browser's text without its code: the code blocks of lesson.json, the spans the panel
// keeps left to right (between left-to-right marks, or in a left-to-right isolate).
QString proseOf(const QTextBrowser *browser)
{
    QString text = browser->toPlainText();
    for (const auto &section : contentJson("lesson.json").at("sections"))
        for (const auto &block : section.at("blocks"))
            if (block.at("type") == "code")
                text.remove(QString::fromStdString(block.at("text").get<std::string>()));
    static const QRegularExpression marked(
        QStringLiteral("\\x{200E}[^\\x{200E}]*\\x{200E}|\\x{2066}[^\\x{2069}]*\\x{2069}"));
    return text.remove(marked);
}

// Latin words of `prose` that glossary.json does not keep (product names, optimizers, N, k).
QStringList englishWords(const QString &prose)
{
    std::set<std::string> kept;
    for (const auto &w : contentJson("glossary.json").at("kept_latin"))
        kept.insert(w.get<std::string>());
    QStringList words;
    static const QRegularExpression word(QStringLiteral("[A-Za-z]+"));
    for (auto it = word.globalMatch(prose); it.hasNext();) {
        const QString w = it.next().captured();
        if (!kept.count(w.toStdString()))
            words << w;
    }
    return words;
}

} // namespace

class TestLessonPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init()
    {
        QSettings().clear();
        LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
        setReader(QStringLiteral("en"), false);
    }
    void cleanup() { setReader(QStringLiteral("en"), false); }

    void readsInTheReadersLanguageAndDigits_data();
    void readsInTheReadersLanguageAndDigits();
    void followsTheLanguageSwitch();
    void codeReadsLeftToRight_data();
    void codeReadsLeftToRight();
    void linksKeepTheirTargets_data();
    void linksKeepTheirTargets();
};

void TestLessonPanel::readsInTheReadersLanguageAndDigits_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<bool>("latinDigits");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("year");     // "(Goyal et al., 2017)" in section 7
    QTest::addColumn<QString>("firstSync"); // "the first N−1 micro-batches" in section 4
    QTest::newRow("English") << "en" << false << "Gradient accumulation, step by step" << "2017" << "N−1";
    QTest::newRow("Persian") << "fa" << false << QString::fromUtf8("انباشت گرادیان، گام به گام")
                             << QString::fromUtf8("۲۰۱۷") << QString::fromUtf8("N−۱");
    QTest::newRow("Persian, Latin digits")
        << "fa" << true << QString::fromUtf8("انباشت گرادیان، گام به گام") << "2017" << "N−1";
}

void TestLessonPanel::readsInTheReadersLanguageAndDigits()
{
    QFETCH(QString, language);
    QFETCH(bool, latinDigits);
    QFETCH(QString, title);
    QFETCH(QString, year);
    QFETCH(QString, firstSync);
    setReader(language, latinDigits);
    LessonPanel panel;
    const QString text = panel.browser()->toPlainText();
    QVERIFY2(text.contains(title), qPrintable(text.left(200)));
    QVERIFY2(text.contains(year), qPrintable(year));
    QVERIFY2(text.contains(firstSync), qPrintable(firstSync));
    // The markup of the data is gone: emphasis is italics, not asterisks or backticks.
    QVERIFY(!text.contains(QLatin1Char('*')) && !text.contains(QLatin1Char('`')));
    const QString prose = proseOf(panel.browser());
    if (language == QLatin1String("fa")) {
        const QStringList english = englishWords(prose);
        QVERIFY2(english.isEmpty(), qPrintable(english.join(QLatin1String(", "))));
        // Every number of the prose in the reader's digits: the section numbers too.
        QVERIFY2(!prose.contains(latinDigits ? kPersianDigit : kLatinDigit), qPrintable(prose));
        QVERIFY(text.contains(latinDigits ? QStringLiteral("7. ") : QString::fromUtf8("۷. ")));
    } else {
        QVERIFY(!text.contains(kPersianDigit));
        QVERIFY(text.contains(QStringLiteral("7. In production")));
    }
}

void TestLessonPanel::followsTheLanguageSwitch()
{
    LessonPanel panel;
    QVERIFY(panel.browser()->toPlainText().contains(QStringLiteral("Show me:")));
    setReader(QStringLiteral("fa"), false);
    QString text = panel.browser()->toPlainText();
    QVERIFY2(text.contains(QString::fromUtf8("نشانم بده:")), qPrintable(text.left(200)));
    QVERIFY(text.contains(QString::fromUtf8("۲۰۱۷")));
    QCOMPARE(panel.browser()->document()->defaultTextOption().textDirection(), Qt::RightToLeft);
    // The digit setting alone rewrites the numbers.
    LanguageManager::instance()->setLatinDigits(true);
    settle();
    text = panel.browser()->toPlainText();
    QVERIFY(text.contains(QStringLiteral("2017")) && !text.contains(kPersianDigit));
    setReader(QStringLiteral("en"), false);
    text = panel.browser()->toPlainText();
    QVERIFY(text.contains(QStringLiteral("Show me:")) && !text.contains(QString::fromUtf8("نشانم")));
    QCOMPARE(panel.browser()->document()->defaultTextOption().textDirection(), Qt::LeftToRight);
}

void TestLessonPanel::codeReadsLeftToRight_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << "en";
    QTest::newRow("Persian") << "fa";
}

void TestLessonPanel::codeReadsLeftToRight()
{
    QFETCH(QString, language);
    setReader(language, false);
    LessonPanel panel;
    int codeLines = 0;
    bool italic = false;
    for (QTextBlock b = panel.browser()->document()->begin(); b.isValid(); b = b.next()) {
        // The code of section 2, verbatim, in a left-to-right block.
        if (b.text() == QLatin1String("loss = loss_fn(model(x), y) / accum_steps") ||
            b.text() == QLatin1String("loss.backward()") ||
            b.text().contains(QLatin1String("assert (a.grad - b.grad).abs().max() < tol"))) {
            QCOMPARE(b.blockFormat().layoutDirection(), Qt::LeftToRight);
            ++codeLines;
        }
        for (auto it = b.begin(); !it.atEnd(); ++it)
            italic = italic || it.fragment().charFormat().fontItalic();
    }
    // QTextDocument may keep a <pre>'s lines in one block, separated by line breaks.
    QVERIFY2(codeLines >= 2 || panel.browser()->toPlainText().contains(QLatin1String("/ accum_steps\nloss.backward()")),
             qPrintable(QString::number(codeLines)));
    QVERIFY(italic); // "*effective batch*" is emphasis
}

void TestLessonPanel::linksKeepTheirTargets_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << "en";
    QTest::newRow("Persian") << "fa";
}

void TestLessonPanel::linksKeepTheirTargets()
{
    QFETCH(QString, language);
    setReader(language, false);
    LessonPanel panel;
    QCOMPARE(panel.linkTargets(), kTargets);
    // A click on each link of the document reports its target, and nothing else does.
    QSignalSpy spy(&panel, &LessonPanel::targetActivated);
    for (const QString &target : kTargets)
        emit panel.browser()->anchorClicked(QUrl(QStringLiteral("accumlab:") + target));
    emit panel.browser()->anchorClicked(QUrl(QStringLiteral("https://example.org/control/lr")));
    QCOMPARE(spy.count(), kTargets.size());
    for (int i = 0; i < kTargets.size(); ++i)
        QCOMPARE(spy.at(i).at(0).toString(), kTargets.at(i));
    // Every anchor the reader sees is one of them, with a visible text.
    QStringList seen;
    for (QTextBlock b = panel.browser()->document()->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (it.fragment().charFormat().isAnchor()) {
                QVERIFY(!it.fragment().text().trimmed().isEmpty());
                const QString href = it.fragment().charFormat().anchorHref();
                if (seen.isEmpty() || seen.last() != href)
                    seen << href;
            }
    QStringList expected;
    for (const QString &t : kTargets)
        expected << QStringLiteral("accumlab:") + t;
    QCOMPARE(seen, expected);
}

QTEST_MAIN(TestLessonPanel)
#include "tst_lessonpanel.moc"
