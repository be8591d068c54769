// A walk through every page of the window, as a Persian teacher sees it: the lab with each of
// its tabs after a sweep and an equivalence check, the memory tab after its finder, the
// experiments page after a run and the quiz. Every visible text (labels, buttons, group
// titles, tabs, fields, tables and their headers, text browsers, menus, chart titles, axes and
// legends, the status bar) is read as the reader sees it and must be the reader's language
// all the way: no English word outside the left-to-right spans where code, paths and formulas
// sit (core's strayLatinWords, with the glossary's kept terms), and one kind of digit: the
// language's own, or Latin ones when the teacher chose them. English walks the same pages
// and must show no Persian digit. The planted cases render one English sentence or one Latin
// number into a Persian label and watch the walk catch it.
#include "ui/panels/controlpanel.h"
#include "ui/panels/experimentpanel.h"
#include "ui/language.h"
#include "ui/panels/codepanel.h"
#include "ui/mainwindow.h"
#include "ui/worker/labrun.h"
#include "ui/worker/sweeprunner.h"
#include "ui/panels/memoryview.h"

#include "core/content/content.h"

#include "window_helpers.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTextEdit>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QAbstractSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtTest>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

// The finder trains at every micro-batch it tries (doubling, then bisecting): about 60 s alone
// on 2 cores, twice that beside another LibTorch test under `ctest -j2`. Waiting longer costs
// nothing when it ends sooner. Every wait of the set-up takes this bound.
constexpr int kFinderWaitMs = 400'000;

using accumlab::ui::test::settle;

// A text as a person reads it: HTML reduced to its words.
QString plain(const QString &text)
{
    return Qt::mightBeRichText(text) ? QTextDocumentFragment::fromHtml(text).toPlainText() : text;
}

struct Seen {
    QString where;
    QString text;
};

void add(QList<Seen> &out, const QObject *o, const QString &what, const QString &text)
{
    if (!text.trimmed().isEmpty())
        out.push_back({o->objectName().isEmpty() ? QString::fromLatin1(o->metaObject()->className()) + what
                                                 : o->objectName() + what,
                       plain(text)});
}

void addModel(QList<Seen> &out, const QAbstractItemView *view)
{
    const QAbstractItemModel *model = view->model();
    if (!model)
        return;
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c)
            add(out, view, QStringLiteral("[%1,%2]").arg(r).arg(c), model->index(r, c).data(Qt::DisplayRole).toString());
    for (int c = 0; c < model->columnCount(); ++c)
        add(out, view, QStringLiteral("[header %1]").arg(c), model->headerData(c, Qt::Horizontal).toString());
    const auto *table = qobject_cast<const QTableView *>(view);
    if (table && table->verticalHeader()->isVisible())
        for (int r = 0; r < model->rowCount(); ++r)
            add(out, view, QStringLiteral("[row %1]").arg(r), model->headerData(r, Qt::Vertical).toString());
}

void addMenu(QList<Seen> &out, const QMenu *menu)
{
    add(out, menu, QStringLiteral("[title]"), menu->title());
    for (const QAction *a : menu->actions()) {
        if (a->isSeparator() || !a->isVisible())
            continue;
        if (a->menu())
            addMenu(out, a->menu());
        else
            add(out, menu, QStringLiteral("[%1]").arg(a->objectName()), a->text());
    }
}

// Every text the window shows now.
QList<Seen> visibleTexts(MainWindow &w)
{
    QList<Seen> out;
    for (QWidget *widget : w.findChildren<QWidget *>()) {
        if (!widget->isVisibleTo(&w))
            continue;
        if (auto *code = qobject_cast<CodePanel *>(widget)) {
            // The code is Python, the same in every language; its comments are the reader's.
            for (const CodeLine &line : code->listing().lines)
                add(out, code, QStringLiteral("[comment]"), QString::fromStdString(line.note));
        } else if (widget->objectName() == QLatin1String("codeView"))
            continue;
        else if (auto *l = qobject_cast<QLabel *>(widget))
            add(out, l, {}, l->text());
        else if (auto *b = qobject_cast<QAbstractButton *>(widget))
            add(out, b, {}, b->text());
        else if (auto *d = qobject_cast<QDockWidget *>(widget))
            add(out, d, QStringLiteral("[title]"), d->windowTitle());
        else if (auto *g = qobject_cast<QGroupBox *>(widget))
            add(out, g, {}, g->title());
        else if (auto *t = qobject_cast<QTabBar *>(widget))
            for (int i = 0; i < t->count(); ++i)
                add(out, t, QStringLiteral("[%1]").arg(i), t->tabText(i));
        else if (auto *c = qobject_cast<QComboBox *>(widget))
            add(out, c, {}, c->currentText());
        else if (auto *e = qobject_cast<QLineEdit *>(widget))
            add(out, e, {}, e->text().isEmpty() ? e->placeholderText() : e->text());
        else if (auto *s = qobject_cast<QAbstractSpinBox *>(widget))
            add(out, s, {}, s->text());
        else if (auto *te = qobject_cast<QTextEdit *>(widget))
            add(out, te, {}, te->toPlainText());
        else if (auto *v = qobject_cast<QAbstractItemView *>(widget)) {
            if (!qobject_cast<QHeaderView *>(v)) // a table's header shares the table's model
                addModel(out, v);
        }
        else if (auto *cv = qobject_cast<QChartView *>(widget)) {
            const QChart *chart = cv->chart();
            add(out, cv, QStringLiteral("[title]"), chart->title());
            for (const QAbstractAxis *axis : chart->axes())
                if (axis->isVisible() && axis->isTitleVisible())
                    add(out, cv, QStringLiteral("[axis]"), axis->titleText());
            for (const QLegendMarker *m : chart->legend()->markers())
                if (chart->legend()->isVisible() && m->isVisible())
                    add(out, cv, QStringLiteral("[legend]"), m->label());
        }
    }
    for (const QAction *a : w.menuBar()->actions())
        if (a->menu())
            addMenu(out, a->menu());
    add(out, w.statusBar(), QStringLiteral("[message]"), w.statusBar()->currentMessage());
    return out;
}

// What is wrong with the texts for a reader of `language` with `latinDigits`, one line each.
QStringList problems(const QList<Seen> &texts, const QString &language, bool latinDigits)
{
    const LanguageInfo &info = languageInfo(language.toStdString());
    QString own;
    for (const std::string &d : info.digits)
        own += QString::fromStdString(d);
    const QString latin = QStringLiteral("0123456789");
    const bool ownDigits = own != latin;
    // The digits this reader must not see: Latin ones where the language has its own and
    // they were not chosen; the language's own where Latin ones were; Persian in English.
    const QString wrong = !ownDigits ? QString::fromUtf8("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩") : latinDigits ? own : latin;
    QStringList out;
    for (const Seen &s : texts) {
        if (info.rightToLeft) {
            QStringList words;
            for (const std::string &w : strayLatinWords(s.text.toStdString()))
                words << QString::fromStdString(w);
            if (!words.isEmpty())
                out << QStringLiteral("%1: English words %2 in \"%3\"").arg(s.where, words.join(u' '), s.text);
        }
        // Latin digits may stand in code and identifiers (float32, fc1.weight); the
        // language's own digits may not stand anywhere once Latin ones were chosen.
        const QString seen = ownDigits && !latinDigits ? QString::fromStdString(screenProse(s.text.toStdString())) : s.text;
        QString digits;
        for (const QChar c : seen)
            if (wrong.contains(c))
                digits += c;
        if (!digits.isEmpty())
            out << QStringLiteral("%1: digits %2 in \"%3\"").arg(s.where, digits, s.text);
    }
    return out;
}

} // namespace

class TestWindowWalk : public QObject {
    Q_OBJECT

    MainWindow *m_window = nullptr;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
        m_window = new MainWindow(false);
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        // Something in every view: a short sweep (throughput chart, table, loss chart), the
        // equivalence check, the finder on the memory tab and one experiment's results.
        test::fillEveryView(m_window, QStringLiteral("1,2"), {"finderButton"}, QStringLiteral("no-division"),
                            kFinderWaitMs);
    }

    void cleanupTestCase()
    {
        delete m_window;
        LanguageManager::instance()->setLatinDigits(false);
        LanguageManager::instance()->setLanguage(QStringLiteral("en"));
    }

    void everyPageInTheReadersWords_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<bool>("latinDigits");
        QTest::addColumn<QString>("page"); // lab/<tab index>, experiments, quiz
        int tabs = 0;
        {
            MainWindow probe(false);
            tabs = probe.tabs()->count();
        }
        for (const QString &language : LanguageManager::languages())
            for (const bool latin : {false, true}) {
                if (latin && !LanguageManager::hasOwnDigits(language))
                    continue;
                QStringList pages;
                for (int t = 0; t < tabs; ++t)
                    pages << QStringLiteral("lab/%1").arg(t);
                pages << QStringLiteral("experiments") << QStringLiteral("quiz");
                for (const QString &page : pages)
                    QTest::addRow("%s%s %s", qPrintable(language), latin ? " latin digits" : "", qPrintable(page))
                        << language << latin << page;
            }
    }

    void everyPageInTheReadersWords()
    {
        QFETCH(QString, language);
        QFETCH(bool, latinDigits);
        QFETCH(QString, page);
        LanguageManager::instance()->setLanguage(language);
        LanguageManager::instance()->setLatinDigits(latinDigits);
        settle();
        if (page.startsWith(QLatin1String("lab/"))) {
            m_window->showPage(MainWindow::LabPage);
            m_window->tabs()->setCurrentIndex(page.mid(4).toInt());
        } else {
            m_window->showPage(page == QLatin1String("quiz") ? MainWindow::QuizPage : MainWindow::ExperimentsPage);
        }
        settle();
        const QList<Seen> texts = visibleTexts(*m_window);
        QVERIFY(texts.size() > 20);
        const QStringList found = problems(texts, language, latinDigits);
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // The walk catches what it exists to catch: an English sentence, a Latin number and, with
    // Latin digits chosen, a Persian one, each planted into a Persian label.
    void plantedFaultsAreCaught_data()
    {
        QTest::addColumn<bool>("latinDigits");
        QTest::addColumn<QString>("planted");
        QTest::addColumn<QString>("caught");
        QTest::newRow("English sentence") << false << QStringLiteral("the loss was not divided") << "English words";
        QTest::newRow("Latin number") << false << QString::fromUtf8("نسبت 16.00 برابر") << "digits";
        QTest::newRow("Persian digit under Latin") << true << QString::fromUtf8("نسبت ۱۶ برابر") << "digits";
        QTest::newRow("code outside its span") << false << QString::fromUtf8("تابع backward فراخوانی شد") << "English words";
    }

    void plantedFaultsAreCaught()
    {
        QFETCH(bool, latinDigits);
        QFETCH(QString, planted);
        QFETCH(QString, caught);
        LanguageManager::instance()->setLanguage(QStringLiteral("fa"));
        LanguageManager::instance()->setLatinDigits(latinDigits);
        settle();
        m_window->showPage(MainWindow::LabPage);
        settle();
        QLabel *label = m_window->findChild<QLabel *>(QStringLiteral("equivalenceVerdict"));
        QVERIFY(label);
        const QString before = label->text();
        QVERIFY2(problems(visibleTexts(*m_window), QStringLiteral("fa"), latinDigits).isEmpty(), "the window was not clean");
        label->setText(planted);
        const QStringList found = problems(visibleTexts(*m_window), QStringLiteral("fa"), latinDigits);
        label->setText(before);
        QVERIFY2(found.join(QLatin1Char('\n')).contains(caught), qPrintable(found.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestWindowWalk)
#include "tst_windowwalk.moc"
