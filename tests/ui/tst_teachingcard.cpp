// The teaching card (Help → Teaching card, F1) as a teacher meets it on a 1024x768 projector:
// - F1 opens it over the window, in the window's language (Persian right to left), and a language
//   switch while it is open rewrites it;
// - it is the text of docs/teaching-card.<language>.md (the guides include the same file);
// - at the normal size it fits the 1024x768 screen whole: the dialog inside the screen and no
//   scrolling in its text;
// - every key of the window's actions is on the card in both languages; the planted row, a key
//   the card does not name, shows the check catches a missing one.
#include "ui/language.h"
#include "ui/mainwindow.h"
#include "ui/teachingcard.h"

#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScreen>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest/QtTest>

using namespace accumlab::ui;

namespace {

const QSize kProjector(1024, 768);

// The card's source file, as the repository has it.
QString sourceCard(const QString &language)
{
    QFile file(qEnvironmentVariable("ACCUMLAB_SOURCE_DIR") + QStringLiteral("/docs/teaching-card.%1.md").arg(language));
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The keys the card must name: every shortcut of the window's actions, as a keyboard labels it.
QStringList windowKeys(const MainWindow &w)
{
    QStringList keys;
    for (const QAction *a : w.findChildren<QAction *>())
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::PortableText);
    keys.removeDuplicates();
    return keys;
}

// The keys of `keys` the card's text does not name (a key stands between separators, so that
// Ctrl+1 is not found inside Ctrl+1x).
QStringList missingKeys(const QString &card, const QStringList &keys)
{
    QStringList missing;
    for (const QString &key : keys) {
        const QRegularExpression named(QStringLiteral("(^|[\\s|,،(])") + QRegularExpression::escape(key) +
                                       QStringLiteral("($|[\\s|,،)\u200e])"));
        if (!card.contains(named))
            missing << key;
    }
    return missing;
}

} // namespace

class TestTeachingCard : public QObject {
    Q_OBJECT

    MainWindow *m_window = nullptr;

public:
    // Before the application exists: the offscreen platform with one projector's screen and no
    // window frames (its own screen is 800x800).
    static void initMain()
    {
        static QTemporaryDir dir;
        const QJsonObject screen{{"name", QStringLiteral("projector")}, {"x", 0}, {"y", 0},
                                 {"width", kProjector.width()}, {"height", kProjector.height()}};
        QFile file(dir.filePath(QStringLiteral("screens.json")));
        if (!file.open(QIODevice::WriteOnly) ||
            file.write(QJsonDocument(QJsonObject{{"windowFrameMargins", false}, {"screens", QJsonArray{screen}}})
                           .toJson()) < 0)
            qFatal("cannot write the offscreen platform's screen");
        file.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + file.fileName().toLocal8Bit());
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
        m_window = new MainWindow(false);
        m_window->setZoom(1.0);
        m_window->setWindowState(Qt::WindowNoState);
        m_window->resize(kProjector);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window));
    }
    void cleanupTestCase() { delete m_window; }

    void opensInTheWindowsLanguageAndFits_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("other");
        QTest::newRow("fa") << QStringLiteral("fa") << QStringLiteral("en");
        QTest::newRow("en") << QStringLiteral("en") << QStringLiteral("fa");
    }
    void opensInTheWindowsLanguageAndFits()
    {
        QFETCH(QString, language);
        QFETCH(QString, other);
        LanguageManager::instance()->setLanguage(language);
        QAction *help = m_window->findChild<QAction *>(QStringLiteral("teachingCardAction"));
        QVERIFY(help);
        QCOMPARE(help->shortcut(), QKeySequence(Qt::Key_F1));
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window));
        QTest::keyClick(m_window, Qt::Key_F1);
        auto *card = m_window->findChild<TeachingCard *>();
        QVERIFY2(card && card->isVisible(), "F1 opened no card");
        QVERIFY(QTest::qWaitForWindowExposed(card));

        // The language's own text, from the repository's file, in its direction.
        const QString source = sourceCard(language);
        QVERIFY2(!source.isEmpty(), "docs/teaching-card.*.md not found (ACCUMLAB_SOURCE_DIR)");
        QCOMPARE(TeachingCard::markdown(language), source);
        const QString title = source.section(QLatin1Char('\n'), 0, 0).mid(2); // "# Title"
        const QString otherTitle = sourceCard(other).section(QLatin1Char('\n'), 0, 0).mid(2);
        QVERIFY2(card->browser()->toPlainText().contains(title), qPrintable(card->browser()->toPlainText().left(80)));
        QVERIFY(!card->browser()->toPlainText().contains(otherTitle));
        QCOMPARE(card->layoutDirection(), language == QLatin1String("fa") ? Qt::RightToLeft : Qt::LeftToRight);

        // One screen: the dialog inside the projector's screen, its text without a scroll.
        const QRect screen = card->screen()->availableGeometry();
        QCOMPARE(screen.size(), kProjector);
        QVERIFY2(screen.contains(card->frameGeometry()),
                 qPrintable(QStringLiteral("card %1x%2 at %3,%4").arg(card->frameGeometry().width())
                                .arg(card->frameGeometry().height()).arg(card->x()).arg(card->y())));
        QTRY_COMPARE(card->browser()->viewport()->width(), int(card->browser()->document()->textWidth()));
        QVERIFY2(card->browser()->document()->size().height() <= card->browser()->viewport()->height(),
                 qPrintable(QStringLiteral("text %1 px in a view of %2 px").arg(card->browser()->document()->size().height())
                                .arg(card->browser()->viewport()->height())));
        QCOMPARE(card->browser()->verticalScrollBar()->maximum(), 0);

        // Switched while open, the card speaks the new language.
        LanguageManager::instance()->setLanguage(other);
        QTRY_VERIFY(card->browser()->toPlainText().contains(otherTitle));
        card->close();
    }

    void everyKeyIsOnTheCard_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("plantedKey");
        QTest::newRow("fa") << QStringLiteral("fa") << QString();
        QTest::newRow("en") << QStringLiteral("en") << QString();
        QTest::newRow("planted: a key the card does not name") << QStringLiteral("en") << QStringLiteral("Ctrl+Shift+F9");
    }
    void everyKeyIsOnTheCard()
    {
        QFETCH(QString, language);
        QFETCH(QString, plantedKey);
        QStringList keys = windowKeys(*m_window);
        for (const char *key : {"Space", "Right", "Ctrl+Return", "Esc", "F1", "F11", "Ctrl+Shift+T"})
            QVERIFY2(keys.contains(QLatin1String(key)), key); // the table's keys are found at all
        if (!plantedKey.isEmpty())
            keys << plantedKey;
        const QStringList missing = missingKeys(TeachingCard::markdown(language), keys);
        if (plantedKey.isEmpty())
            QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
        else
            QCOMPARE(missing, QStringList{plantedKey});
    }
};

QTEST_MAIN(TestTeachingCard)
#include "tst_teachingcard.moc"
