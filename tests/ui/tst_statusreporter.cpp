// StatusReporter says a status-bar message again in the language switched to, clears an
// error's sentence instead (it was worded in the old language) while keeping it as lastError,
// and prints errors instead of opening a message box where nobody could close it. Planted: a
// retranslate that keeps the old words, or keeps an error on show, fails here.
#include "ui/statusreporter.h"

#include "ui/language.h"

#include <QCoreApplication>
#include <QMainWindow>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

using namespace accumlab::ui;

namespace {
// A sentence of the window's catalogue, in the current language.
QString sweepRunning() { return QCoreApplication::translate("accumlab::ui::SweepRunner", "Sweep running…"); }
} // namespace

class TestStatusReporter : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void saidAgainInTheNewLanguage_data();
    void saidAgainInTheNewLanguage();
    void errorIsClearedOnSwitch_data();
    void errorIsClearedOnSwitch();
};

void TestStatusReporter::initTestCase() { QStandardPaths::setTestModeEnabled(true); }

void TestStatusReporter::init()
{
    QSettings().clear();
    LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
}

void TestStatusReporter::saidAgainInTheNewLanguage_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::newRow("en to fa") << "en" << "fa";
    QTest::newRow("fa to en") << "fa" << "en";
}

void TestStatusReporter::saidAgainInTheNewLanguage()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QMainWindow window;
    StatusReporter status(&window, window.statusBar());
    LanguageManager::instance()->setLanguage(from);
    status.say(sweepRunning);
    const QString before = window.statusBar()->currentMessage();
    QCOMPARE(before, sweepRunning());
    LanguageManager::instance()->setLanguage(to);
    status.retranslate(); // the window calls it on QEvent::LanguageChange
    QCOMPARE(window.statusBar()->currentMessage(), sweepRunning());
    QVERIFY2(window.statusBar()->currentMessage() != before, "the message stayed in the old language");
}

void TestStatusReporter::errorIsClearedOnSwitch_data()
{
    QTest::addColumn<bool>("saidBefore"); // a message was showing when the error came
    QTest::newRow("error alone") << false;
    QTest::newRow("error after a message") << true;
}

void TestStatusReporter::errorIsClearedOnSwitch()
{
    QFETCH(bool, saidBefore);
    QMainWindow window;
    StatusReporter status(&window, window.statusBar());
    QVERIFY2(status.errorsToTerminal(), "the offscreen platform prints errors; a message box would wait for ever");
    if (saidBefore)
        status.say(sweepRunning);
    const QString error = QStringLiteral("Could not import a.json: not JSON");
    status.showError(error);
    QCOMPARE(window.statusBar()->currentMessage(), error);
    QCOMPARE(status.lastError(), error);
    LanguageManager::instance()->setLanguage(QStringLiteral("fa"));
    status.retranslate();
    QCOMPARE(window.statusBar()->currentMessage(), QString());
    QCOMPARE(status.lastError(), error);
}

QTEST_MAIN(TestStatusReporter)
#include "tst_statusreporter.moc"
