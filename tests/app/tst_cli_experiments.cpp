// accumlab-cli experiment: the list, one JSON object per experiment with its verdicts, the
// text summary, and bad input (one line, exit 2).
#include "core/experiments.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include "cli_run.h"

using accumlab::test::CliRun;
using accumlab::test::runCli;

using namespace accumlab;

namespace {



} // namespace

class TestCliExperiments : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFileInfo(qEnvironmentVariable("ACCUMLAB_CLI")).isExecutable(), "ACCUMLAB_CLI"); }

    void list()
    {
        const CliRun r = runCli({"experiment", "list"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), int(experimentCatalog().size()));
        for (size_t i = 0; i < experimentCatalog().size(); ++i) {
            const auto &info = experimentCatalog()[i];
            QVERIFY(lines[int(i)].startsWith(QString::fromStdString(info.id) + ' '));
            QVERIFY(lines[int(i)].endsWith(QString::fromStdString(info.title.in("en"))));
        }
    }

    void json_data()
    {
        QTest::addColumn<QString>("id");
        for (const auto &info : experimentCatalog())
            QTest::newRow(info.id.c_str()) << QString::fromStdString(info.id);
    }
    // Exactly one JSON object on stdout, exit 0 (also where a claim fails: the verdict is data).
    void json()
    {
        QFETCH(QString, id);
        const CliRun r = runCli({"experiment", id, "--json", "--fast"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + "\n" + r.out));
        QVERIFY(doc.isObject());
        const auto o = doc.object();
        QCOMPARE(o.value("id").toString(), id);
        QCOMPARE(o.value("title").toString().toStdString(), findExperiment(id.toStdString())->title.in("en"));
        QVERIFY(o.value("values").isObject());
        QVERIFY(!o.value("values").toObject().isEmpty());
        for (const auto &v : o.value("values").toObject())
            QVERIFY(v.isDouble());
        const auto claims = o.value("claims").toArray();
        QVERIFY(!claims.isEmpty());
        bool all = true;
        for (const auto &c : claims) {
            const auto claim = c.toObject();
            QVERIFY(!claim.value("id").toString().isEmpty());
            QVERIFY(!claim.value("statement").toString().isEmpty());
            QVERIFY(claim.value("holds").isBool());
            const QString outcome = claim.value("outcome").toString();
            QVERIFY2(QStringList({"holds", "does not hold", "inconclusive", "observation"}).contains(outcome),
                     qPrintable(outcome));
            QCOMPARE(claim.value("holds").toBool(), outcome == "holds" || outcome == "observation");
            all = all && outcome != "does not hold"; // inconclusive timing claims and observations do not fail
            // Every verdict that does not read a clock holds on the engine path.
            if (!claim.value("timing").toBool())
                QVERIFY2(claim.value("holds").toBool(), qPrintable(claim.value("id").toString()));
        }
        QCOMPARE(o.value("holds").toBool(), all);
    }

    void textSummary()
    {
        const CliRun r = runCli({"experiment", "no-division", "--fast"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QString::fromStdString(findExperiment("no-division")->title.in("en"))));
        QVERIFY(r.out.contains("[holds]"));
        QVERIFY(r.out.contains("sgd_update_ratio"));
        QVERIFY(!r.out.trimmed().startsWith('{'));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown id") << QStringList{"experiment", "no-such-experiment", "--json"};
        QTest::newRow("no id") << QStringList{"experiment"};
        QTest::newRow("zero sweep steps") << QStringList{"experiment", "sweep-flattening", "--sweep-steps", "0"};
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        const CliRun r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.err.startsWith("accumlab-cli: error: "));
    }
};

QTEST_GUILESS_MAIN(TestCliExperiments)
#include "tst_cli_experiments.moc"
