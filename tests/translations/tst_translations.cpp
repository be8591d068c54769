// The translations against the sources. lupdate runs over the ui/ and app/gui/ sources into a
// temporary copy of each .ts file with the options the build uses; a copy that comes out
// different means a source string is missing from the .ts or the .ts keeps one the sources
// dropped. The Persian file must also be finished: no unfinished, vanished or obsolete entry,
// no empty translation, the same %1..%9 placeholders as the source, and a left-to-right mark
// after every Latin token that ends in a parenthesis. Finally the .qm embedded
// in the app must be the one compiled from the committed Persian file.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

struct Message {
    QString context;
    QString source;
    QString translation;
    QString type; // "", "unfinished", "vanished", "obsolete"
};

QList<Message> parseTs(const QByteArray &xml, QString *error)
{
    QList<Message> messages;
    QXmlStreamReader r(xml);
    QString context;
    while (!r.atEnd()) {
        r.readNext();
        if (!r.isStartElement())
            continue;
        if (r.name() == QLatin1String("name")) {
            context = r.readElementText();
        } else if (r.name() == QLatin1String("message")) {
            Message m;
            m.context = context;
            while (!(r.isEndElement() && r.name() == QLatin1String("message")) && !r.atEnd()) {
                r.readNext();
                if (r.isStartElement() && r.name() == QLatin1String("source")) {
                    m.source = r.readElementText();
                } else if (r.isStartElement() && r.name() == QLatin1String("translation")) {
                    m.type = r.attributes().value(QLatin1String("type")).toString();
                    m.translation = r.readElementText(QXmlStreamReader::IncludeChildElements);
                }
            }
            messages << m;
        }
    }
    if (r.hasError() && error)
        *error = r.errorString();
    return messages;
}

QSet<QString> keys(const QList<Message> &messages)
{
    QSet<QString> out;
    for (const Message &m : messages)
        out.insert(m.context + QStringLiteral(" :: ") + m.source);
    return out;
}

QStringList placeholders(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("%[1-9]"));
    QStringList out;
    for (auto it = re.globalMatch(text); it.hasNext();)
        out << it.next().captured();
    out.sort();
    return out;
}

// The letter after a single '&' (Qt's mnemonic; "&&" is a literal ampersand), or a null char.
QChar mnemonic(const QString &text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (text[i + 1] == QLatin1Char('&')) {
            ++i;
            continue;
        }
        if (!text[i + 1].isSpace())
            return text[i + 1];
    }
    return {};
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void upToDateWithSources_data();
    void upToDateWithSources();
    void persianIsFinished();
    void embeddedPersianMatchesTs();
    void mnemonicsKept_data();
    void mnemonicsKept();

private:
    // Runs lupdate into a copy of translations/<file> and returns the updated bytes.
    QByteArray lupdateCopy(const QString &file);

    QString m_root;
    QString m_lupdate;
    QStringList m_sources;
    QStringList m_options;
    QTemporaryDir m_tmp;
};

void TestTranslations::initTestCase()
{
    m_root = qEnvironmentVariable("ACCUMLAB_SOURCE_DIR");
    m_lupdate = qEnvironmentVariable("ACCUMLAB_LUPDATE");
    QVERIFY2(!m_root.isEmpty() && !m_lupdate.isEmpty(), "run through CTest (ACCUMLAB_SOURCE_DIR, ACCUMLAB_LUPDATE)");
    QVERIFY2(QFile::exists(m_lupdate), qPrintable(m_lupdate));
    const QString list = QString::fromUtf8(readFile(qEnvironmentVariable("ACCUMLAB_LUPDATE_SOURCES")));
    m_sources = list.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(m_sources.size() > 10, "the list of sources lupdate scans is missing");
    m_options = qEnvironmentVariable("ACCUMLAB_LUPDATE_OPTIONS").split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QVERIFY(m_tmp.isValid());
}

QByteArray TestTranslations::lupdateCopy(const QString &file)
{
    const QString original = QDir(m_root).filePath(QStringLiteral("translations/") + file);
    const QString copy = m_tmp.filePath(file);
    QFile::remove(copy);
    if (!QFile::copy(original, copy))
        return {};
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    QProcess lupdate;
    lupdate.setProcessChannelMode(QProcess::MergedChannels);
    lupdate.start(m_lupdate, m_options + QStringList{QStringLiteral("-I"), m_root} + m_sources +
                                 QStringList{QStringLiteral("-ts"), copy});
    if (!lupdate.waitForFinished(60'000) || lupdate.exitCode() != 0) {
        qWarning("lupdate failed: %s", lupdate.readAll().constData());
        return {};
    }
    return readFile(copy);
}

void TestTranslations::upToDateWithSources_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("Persian") << QStringLiteral("accumlab_fa.ts");
    QTest::newRow("English") << QStringLiteral("accumlab_en.ts");
}

void TestTranslations::upToDateWithSources()
{
    QFETCH(QString, file);
    const QByteArray committed = readFile(QDir(m_root).filePath(QStringLiteral("translations/") + file));
    QVERIFY2(!committed.isEmpty(), qPrintable(file + QStringLiteral(" is missing")));
    const QByteArray updated = lupdateCopy(file);
    QVERIFY2(!updated.isEmpty(), "lupdate did not run");
    if (updated == committed)
        return;
    QString error;
    const QSet<QString> before = keys(parseTs(committed, &error));
    const QSet<QString> after = keys(parseTs(updated, &error));
    QStringList report;
    for (const QString &k : after - before)
        report << QStringLiteral("  missing from %1: %2").arg(file, k);
    for (const QString &k : before - after)
        report << QStringLiteral("  no longer in the sources: %1").arg(k);
    QFAIL(qPrintable(QStringLiteral("%1 is out of date with the sources; run the update_translations target.\n%2")
                         .arg(file, report.isEmpty() ? QStringLiteral("  (formatting or order differs)")
                                                     : report.join(QLatin1Char('\n')))));
}

void TestTranslations::persianIsFinished()
{
    // Checked on lupdate's output, so a string just added to the sources counts as unfinished.
    const QByteArray updated = lupdateCopy(QStringLiteral("accumlab_fa.ts"));
    QVERIFY(!updated.isEmpty());
    QString error;
    const QList<Message> messages = parseTs(updated, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(messages.size() > 100);
    QStringList problems;
    // `backward()` followed by Persian would show its parentheses on the Persian side.
    static const QRegularExpression bareParenthesis(QStringLiteral("[A-Za-z0-9_.(]\\)(?!\\x{200E})"));
    for (const Message &m : messages) {
        const QString where = m.context + QStringLiteral(" :: ") + m.source;
        if (!m.type.isEmpty())
            problems << QStringLiteral("  %1: %2").arg(m.type, where);
        else if (m.translation.trimmed().isEmpty())
            problems << QStringLiteral("  empty: %1").arg(where);
        else if (placeholders(m.source) != placeholders(m.translation))
            problems << QStringLiteral("  placeholders differ: %1").arg(where);
        else if (bareParenthesis.match(m.translation).hasMatch())
            problems << QStringLiteral("  a Latin token's ')' needs a left-to-right mark (U+200E) after it: %1").arg(where);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("Persian entries to fix:\n") + problems.join(QLatin1Char('\n'))));
}

// A label, button or menu entry reached by Alt and a letter in English is reached so in every
// translation: a translated text of a source with a mnemonic has one too (Persian puts the
// Latin letter in parentheses, "آزمایش (&E):"). Issue 62 found 19 Persian labels without one.
void TestTranslations::mnemonicsKept_data() { upToDateWithSources_data(); }

void TestTranslations::mnemonicsKept()
{
    QFETCH(QString, file);
    QString error;
    const QList<Message> messages = parseTs(readFile(QDir(m_root).filePath(QStringLiteral("translations/") + file)), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(!messages.isEmpty());
    QStringList problems;
    for (const Message &m : messages)
        if (!mnemonic(m.source).isNull() && !m.translation.isEmpty() && mnemonic(m.translation).isNull())
            problems << QStringLiteral("  %1 :: %2 -> %3").arg(m.context, m.source, m.translation);
    QVERIFY2(problems.isEmpty(),
             qPrintable(QStringLiteral("translations without the source's Alt mnemonic:\n") + problems.join(QLatin1Char('\n'))));
}

void TestTranslations::embeddedPersianMatchesTs()
{
    QString error;
    const QList<Message> messages =
        parseTs(readFile(QDir(m_root).filePath(QStringLiteral("translations/accumlab_fa.ts"))), &error);
    QVERIFY(!messages.isEmpty());
    QTranslator translator;
    QVERIFY2(translator.load(QStringLiteral(":/i18n/accumlab_fa.qm")), "the Persian .qm is not embedded");
    for (const Message &m : messages) {
        const QString compiled = translator.translate(m.context.toUtf8().constData(), m.source.toUtf8().constData());
        QVERIFY2(compiled == m.translation, qPrintable(QStringLiteral("%1 :: %2").arg(m.context, m.source)));
    }
}

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
