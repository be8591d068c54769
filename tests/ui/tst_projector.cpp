// The window on a projector: at 1024x768 and 1366x768, in Persian and in English, on every page
// (the lab with each of its tabs, the memory tab after its three runs, the experiments page
// after a run with curves, the quiz), nothing a person should read is out of sight:
// - the window keeps the screen's size (no minimum size pushes it past the screen);
// - no visible widget lies outside its parent, unless that parent is a scroll area's viewport
//   (the content scrolls there), and no scroll area that never scrolls sideways has a widget
//   wider than its view (zoomed thrice at 1024x768 the charts' tab cut the throughput chart's
//   right axis, in Persian its left), and the page never scrolls sideways;
// - no label or button is smaller than its text needs (a word-wrapped label is as tall as its
//   lines at its width);
// - no chart text (title, tick label, axis title, legend entry) is elided: Qt Charts cuts a
//   text that has no room to "..." (ChartPresenter::truncatedText), so every visible text item
//   of every visible chart's scene is read, and each lies inside its view.
// - zoomed in (Ctrl+= once, twice, three times), the same holds, the window keeps the screen's
//   size (no least size of the window beyond it, which would also drop it out of full screen),
//   every text has grown with the zoom (none below a least pixel size that grows with it: the
//   buffer chart's labels used to shrink as the zoomed text took its room) and every plot has
//   its least size (what does not fit side by side stacks, and the page scrolls).
// - zoomed in at 1024x768, Run sweep brings the chart it draws on into view, whole, from any tab
//   or page; moved from the 1366-pixel screen to the 1024 one, the lab stacks as where it opened.
// ACCUMLAB_PROJECTOR_SHOTS=<folder> saves a picture of every page checked.
// The planted rows squeeze a chart, push a label out of its parent and narrow a label below its
// text, and watch the checks name them.
#include "ui/panels/controlpanel.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/worker/enginecontroller.h"
#include "ui/panels/experimentpanel.h"
#include "ui/layout/fontscale.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/language.h"
#include "ui/charts/losschart.h"
#include "ui/mainwindow.h"
#include "ui/worker/labrun.h"
#include "ui/worker/sweeprunner.h"
#include "ui/charts/memorytimelinechart.h"
#include "ui/panels/memoryview.h"
#include "ui/panels/quizwidget.h"
#include "ui/charts/throughputchart.h"

#include "window_helpers.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QComboBox>
#include <QSpinBox>
#include <QWheelEvent>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QTimer>
#include <QAbstractScrollArea>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTextLayout>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtTest>

#include <algorithm>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

constexpr int kWaitMs = 180'000;

using accumlab::ui::test::awaitLayout;
using accumlab::ui::test::settle;

QString nameOf(const QWidget *w)
{
    QString name = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
    QString text;
    if (const auto *l = qobject_cast<const QLabel *>(w))
        text = l->text();
    else if (const auto *b = qobject_cast<const QAbstractButton *>(w))
        text = b->text();
    if (!text.isEmpty())
        name += QStringLiteral(" \"%1\"").arg(text.left(40));
    return name;
}

QString rectText(const QRectF &r)
{
    return QStringLiteral("(%1,%2 %3x%4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// Whether `w` is the widget a scroll area scrolls (a child of its viewport).
// Inside a pane folded away in its splitter (View → Tabs take the lab's height): where Qt keeps
// a collapsed pane, out of sight, not a widget pushed out.
bool folded(const QWidget *w)
{
    for (; w && !w->isWindow(); w = w->parentWidget())
        if (const auto *splitter = qobject_cast<const QSplitter *>(w->parentWidget());
            splitter && splitter->sizes().value(splitter->indexOf(const_cast<QWidget *>(w)), -1) == 0)
            return true;
    return false;
}

bool scrolls(const QWidget *w)
{
    const QWidget *parent = w->parentWidget();
    const auto *area = parent ? qobject_cast<const QAbstractScrollArea *>(parent->parentWidget()) : nullptr;
    return area && area->viewport() == parent;
}

// Widgets out of their parent's rectangle or smaller than their text, one line each.
QStringList widgetProblems(QWidget *window)
{
    QStringList out;
    for (QWidget *w : window->findChildren<QWidget *>()) {
        if (w->isWindow() || !w->isVisibleTo(window) || scrolls(w) || folded(w))
            continue;
        const QWidget *parent = w->parentWidget();
        // A right-to-left QSplitter places its last pane one pixel past its edge (rounding in
        // Qt); one pixel is tolerated.
        if (!parent->rect().adjusted(-1, -1, 1, 1).contains(w->geometry()))
            out << QStringLiteral("%1 %2 lies outside %3 (%4x%5)")
                       .arg(nameOf(w), rectText(w->geometry()), nameOf(parent))
                       .arg(parent->width())
                       .arg(parent->height());
        const auto *label = qobject_cast<const QLabel *>(w);
        // A dock's title bar buttons are icons the style sizes itself.
        const bool styleButton = w->objectName().startsWith(QLatin1String("qt_dockwidget_"));
        const bool text = (label && !label->text().isEmpty()) || (qobject_cast<const QAbstractButton *>(w) && !styleButton);
        if (!text || w->size().isEmpty())
            continue;
        QSize need = w->minimumSizeHint();
        if (label && label->wordWrap())
            need = QSize(0, label->heightForWidth(label->width()));
        if (w->width() < need.width() || w->height() < need.height())
            out << QStringLiteral("%1 is %2x%3, its text needs %4x%5")
                       .arg(nameOf(w))
                       .arg(w->width())
                       .arg(w->height())
                       .arg(need.width())
                       .arg(need.height());
    }
    // A scroll area that never scrolls sideways cuts what of its widget is wider than its view
    // (the widget itself lies in the viewport, so the check above passes it).
    for (QScrollArea *area : window->findChildren<QScrollArea *>()) {
        if (!area->isVisibleTo(window) || !area->widget() || area->horizontalScrollBarPolicy() != Qt::ScrollBarAlwaysOff)
            continue;
        if (area->widget()->width() > area->viewport()->width() + 1)
            out << QStringLiteral("%1 is %2 px wide in %3's view of %4 px, which never scrolls sideways")
                       .arg(nameOf(area->widget()))
                       .arg(area->widget()->width())
                       .arg(nameOf(area))
                       .arg(area->viewport()->width());
    }
    return out;
}

// Elided or cut chart texts of every visible chart, one line each.
QStringList chartProblems(QWidget *window)
{
    QStringList out;
    for (QChartView *view : window->findChildren<QChartView *>()) {
        if (!view->isVisibleTo(window) || view->size().isEmpty())
            continue;
        const QRect room = view->viewport()->rect().adjusted(-1, -1, 1, 1);
        for (QGraphicsItem *item : view->scene()->items()) {
            const auto *text = qgraphicsitem_cast<QGraphicsTextItem *>(item);
            if (!text || !text->isVisible())
                continue;
            const QString plain = text->toPlainText();
            if (plain.trimmed().isEmpty())
                continue;
            if (plain.endsWith(QLatin1String("...")) || plain.endsWith(QChar(0x2026)))
                out << QStringLiteral("%1 (%2x%3): \"%4\" is elided")
                           .arg(nameOf(view))
                           .arg(view->width())
                           .arg(view->height())
                           .arg(plain);
            const QRect at = view->mapFromScene(text->sceneBoundingRect()).boundingRect();
            if (!room.contains(at))
                out << QStringLiteral("%1: \"%2\" at %3 is cut by the view %4")
                           .arg(nameOf(view), plain, rectText(at), rectText(room));
        }
    }
    return out;
}

// Table columns cut to fit: a section narrower or a header lower than its title needs, or
// narrower than its widest figure.
QStringList headerProblems(QWidget *window)
{
    QStringList out;
    for (QTableView *table : window->findChildren<QTableView *>()) {
        QHeaderView *header = table->horizontalHeader();
        if (!table->isVisibleTo(window) || table->size().isEmpty() || !header->isVisible() || !table->model())
            continue;
        for (int i = 0; i < header->count(); ++i) {
            if (header->isSectionHidden(i))
                continue;
            const int width = header->sectionSizeHint(i);  // the title's width, as the header lays it out
            const int height = header->sizeHint().height(); // its tallest title's height
            if (header->sectionSize(i) < width || header->height() < height)
                out << QStringLiteral("%1: the title \"%2\" is cut (%3x%4 of %5x%6)")
                           .arg(nameOf(table), table->model()->headerData(i, Qt::Horizontal).toString())
                           .arg(header->sectionSize(i))
                           .arg(header->height())
                           .arg(width)
                           .arg(height);
            // A table whose rows grow to their wrapped text wraps a long cell rather than cutting it.
            const bool wraps = table->wordWrap() && table->verticalHeader()->sectionResizeMode(0) == QHeaderView::ResizeToContents;
            const int figures = static_cast<QAbstractItemView *>(table)->sizeHintForColumn(i); // its widest cell
            if (!wraps && table->model()->rowCount() > 0 && header->sectionSize(i) < figures)
                out << QStringLiteral("%1: a figure under \"%2\" is cut (%3 of %4 px)")
                           .arg(nameOf(table), table->model()->headerData(i, Qt::Horizontal).toString())
                           .arg(header->sectionSize(i))
                           .arg(figures);
        }
    }
    return out;
}

// The smallest text a person reads at the normal size, in pixels; zoomed, that times the zoom.
constexpr double kLeastTextPixels = 9.0;

// Texts smaller than `least` pixels: labels, buttons and every chart's texts. Plots drawn by
// hand smaller than their least size (their labels would overlap).
QStringList sizeProblems(QWidget *window, double least)
{
    QStringList out;
    const auto small = [least](const QFont &font) { return QFontInfo(font).pixelSize() < least; };
    for (QWidget *w : window->findChildren<QWidget *>()) {
        if (w->isWindow() || !w->isVisibleTo(window) || w->size().isEmpty())
            continue;
        const auto *label = qobject_cast<const QLabel *>(w);
        const bool text = (label && !label->text().isEmpty()) || qobject_cast<const QAbstractButton *>(w);
        if (text && small(w->font()))
            out << QStringLiteral("%1: its text is %2 px, less than %3").arg(nameOf(w)).arg(QFontInfo(w->font()).pixelSize()).arg(least);
        if (qobject_cast<GradientBufferView *>(w) && w->height() < w->minimumSizeHint().height())
            out << QStringLiteral("%1 is %2 px high, its rows need %3").arg(nameOf(w)).arg(w->height()).arg(w->minimumSizeHint().height());
    }
    for (QChartView *view : window->findChildren<QChartView *>()) {
        if (!view->isVisibleTo(window) || view->size().isEmpty())
            continue;
        for (QGraphicsItem *item : view->scene()->items()) {
            const auto *t = qgraphicsitem_cast<QGraphicsTextItem *>(item);
            if (t && t->isVisible() && !t->toPlainText().trimmed().isEmpty() && small(t->font()))
                out << QStringLiteral("%1: \"%2\" is %3 px, less than %4")
                           .arg(nameOf(view), t->toPlainText())
                           .arg(QFontInfo(t->font()).pixelSize())
                           .arg(least);
        }
    }
    return out;
}

} // namespace

// The two projectors' screens side by side, so that each row's window stands on a screen of its
// own size: what its least size may not pass, what full screen gives it, and what the window
// measures its room against (the offscreen platform's own screen is 800x800).
const QSize kProjectors[] = {QSize(1024, 768), QSize(1366, 768)};

// How many rows of pixels of `w` are in sight: its rectangle clipped by every parent (a scroll
// area's viewport among them); 0 while it is hidden.
int heightInSight(const QWidget *w)
{
    QRect r = w->rect();
    for (const QWidget *c = w; c->parentWidget() && !c->isWindow(); c = c->parentWidget())
        r = r.translated(c->pos()).intersected(c->parentWidget()->rect());
    return w->isVisible() ? r.height() : 0;
}

// How many columns of pixels of `w` are in sight: its rectangle clipped by every parent (a
// scroll area's viewport among them); 0 while it is hidden.
int widthInSight(const QWidget *w)
{
    QRect r = w->rect();
    for (const QWidget *c = w; c->parentWidget() && !c->isWindow(); c = c->parentWidget())
        r = r.translated(c->pos()).intersected(c->parentWidget()->rect());
    return w->isVisible() ? r.width() : 0;
}

// Puts `w` on the screen of `size` (the first projector's where none has that size).
void placeOn(QWidget *w, const QSize &size)
{
    QScreen *screen = QGuiApplication::primaryScreen();
    for (QScreen *s : QGuiApplication::screens())
        if (s->geometry().size() == size)
            screen = s;
    w->setScreen(screen);
    w->move(screen->geometry().topLeft());
}

class TestProjector : public QObject {
    Q_OBJECT

    MainWindow *m_window = nullptr;

public:
    // Before the application exists (QTEST_MAIN calls it): the offscreen platform with the
    // projectors' screens and no window frames.
    static void initMain()
    {
        static QTemporaryDir dir;
        QJsonArray screens;
        int x = 0;
        for (const QSize &size : kProjectors) {
            screens.append(QJsonObject{{"name", QStringLiteral("projector %1x%2").arg(size.width()).arg(size.height())},
                                       {"x", x},
                                       {"y", 0},
                                       {"width", size.width()},
                                       {"height", size.height()}});
            x += size.width();
        }
        QFile file(dir.filePath(QStringLiteral("screens.json")));
        if (!file.open(QIODevice::WriteOnly) ||
            file.write(QJsonDocument(QJsonObject{{"windowFrameMargins", false}, {"screens", screens}}).toJson()) < 0)
            qFatal("cannot write the offscreen platform's screens");
        file.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + file.fileName().toLocal8Bit());
    }

private:
    void show(const QSize &size, const QString &language, const QString &page, int zoomSteps = 0)
    {
        LanguageManager::instance()->setLanguage(language);
        m_window->setZoom(1.0);
        m_window->zoomBy(zoomSteps);
        m_window->setWindowState(Qt::WindowNoState);
        placeOn(m_window, size);
        settle(); // the zoomed layout's least sizes, measured against the new screen
        m_window->resize(size);
        if (page.startsWith(QLatin1String("lab/"))) {
            m_window->showPage(MainWindow::LabPage);
            m_window->tabs()->setCurrentIndex(page.mid(4).toInt());
        } else {
            m_window->showPage(page == QLatin1String("quiz") ? MainWindow::QuizPage : MainWindow::ExperimentsPage);
        }
        QVERIFY(awaitLayout(m_window));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
        m_window = new MainWindow(false);
        m_window->setWindowState(Qt::WindowNoState);
        m_window->resize(1024, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        // Something in every view: a sweep of six points (six loss curves, the throughput
        // chart's legend full), the equivalence check, the memory tab's three runs (the bars
        // measured, the trade-off chart) and an experiment with curves.
        test::fillEveryView(m_window, QStringLiteral("1,2,4,8,16,32"), {"oomDemoButton", "tradeoffButton", "finderButton"},
                            QStringLiteral("linear-scaling"), kWaitMs);
    }

    void cleanupTestCase()
    {
        m_window->setZoom(1.0);
        delete m_window;
        LanguageManager::instance()->setLanguage(QStringLiteral("en"));
    }

    void everyPageFits_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("page"); // lab/<tab index>, experiments, quiz
        QTest::addColumn<int>("zoom");     // presses of Ctrl+=
        const QStringList pages{QStringLiteral("lab/0"), QStringLiteral("lab/1"),       QStringLiteral("lab/2"),
                                QStringLiteral("lab/3"), QStringLiteral("experiments"), QStringLiteral("quiz")};
        // A window of the screen's size is what full screen gives too.
        for (int zoom = 0; zoom <= 3; ++zoom)
            for (const QSize size : kProjectors)
                for (const char *language : {"en", "fa"})
                    for (const QString &page : pages)
                        QTest::addRow("%dx%d %s %s zoom %d", size.width(), size.height(), language, qPrintable(page), zoom)
                            << size << QString::fromLatin1(language) << page << zoom;
    }

    void everyPageFits()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QFETCH(QString, page);
        QFETCH(int, zoom);
        show(size, language, page, zoom);
        QCOMPARE(m_window->size(), size);
        QStringList found = widgetProblems(m_window) + chartProblems(m_window) + headerProblems(m_window) +
                            sizeProblems(m_window, kLeastTextPixels * m_window->zoom());
        const QSize least = m_window->minimumSizeHint().expandedTo(m_window->minimumSize());
        if (least.width() > size.width() || least.height() > size.height())
            found << QStringLiteral("the window needs at least %1x%2").arg(least.width()).arg(least.height());
        const auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        if (pages && pages->horizontalScrollBar()->maximum() > 0)
            found << QStringLiteral("the page scrolls sideways by %1 px").arg(pages->horizontalScrollBar()->maximum());
        // ACCUMLAB_PROJECTOR_SHOTS=<folder> keeps a picture of each page for a person to look at.
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("%1x%2-%3-%4.png")
                                                           .arg(size.width())
                                                           .arg(size.height())
                                                           .arg(language, QString(page).replace(QLatin1Char('/'), QLatin1Char('-')) +
                                                                              QStringLiteral("-zoom%1").arg(zoom))));
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // A window just opened, nothing measured yet: the charts' empty axes keep their titles whole
    // (an axis with hidden labels used to elide its title to "..."), and with bfloat16 the
    // equivalence panel's tolerance row, two bounds on wrapped lines, is shown whole.
    void freshWindowFits_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("dtype");
        for (const QSize size : {QSize(1024, 768), QSize(1366, 768)})
            for (const char *language : {"en", "fa"})
                for (const char *dtype : {"float32", "bfloat16"})
                    QTest::addRow("%dx%d %s %s", size.width(), size.height(), language, dtype)
                        << size << QString::fromLatin1(language) << QString::fromLatin1(dtype);
    }

    void freshWindowFits()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QFETCH(QString, dtype);
        LanguageManager::instance()->setLanguage(language);
        // Zooming scales the application font: the shared window back at the normal size, so
        // that this one opens as a fresh window does (after a zoomed row it opened with fonts
        // zoomed thrice at zoom 1).
        m_window->setZoom(1.0);
        MainWindow w(false);
        Preset p = w.currentPreset();
        p.run.dtype = dtypeFromString(dtype.toStdString());
        w.applyPreset(p);
        w.setWindowState(Qt::WindowNoState);
        placeOn(&w, size);
        w.resize(size);
        w.show();
        w.lab()->requestEquivalenceNow();
        QTRY_VERIFY_WITH_TIMEOUT(w.lab()->lastEquivalence().has_value(), kWaitMs);
        QVERIFY(awaitLayout(&w));
        QCOMPARE(w.size(), size);
        const QStringList found = widgetProblems(&w) + chartProblems(&w);
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // The classroom mode's dialog shows its title, its wrapped introduction and every choice
    // whole, in both languages.
    void hiddenControlsDialogFits_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << "en";
        QTest::newRow("fa") << "fa";
    }

    void hiddenControlsDialogFits()
    {
        QFETCH(QString, language);
        show(QSize(1024, 768), language, QStringLiteral("lab/0"));
        auto *action = m_window->findChild<QAction *>(QStringLiteral("hiddenControlsAction"));
        QVERIFY(action);
        QStringList found;
        QString title;
        QTimer::singleShot(300, m_window, [&] {
            QWidget *dialog = QApplication::activeModalWidget();
            if (!dialog)
                return;
            settle();
            found = widgetProblems(dialog);
            title = dialog->windowTitle();
            // The title bar shows the title whole where the dialog is at least as wide.
            if (dialog->width() < dialog->fontMetrics().horizontalAdvance(title))
                found << QStringLiteral("the dialog is %1 wide, its title needs %2")
                             .arg(dialog->width())
                             .arg(dialog->fontMetrics().horizontalAdvance(title));
            if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
                dialog->grab().save(QDir(shots).filePath(QStringLiteral("hidden-controls-%1.png").arg(language)));
            qobject_cast<QDialog *>(dialog)->reject();
        });
        action->trigger();
        QVERIFY2(!title.isEmpty(), "no dialog opened");
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // The lesson opened on the smaller projector gets a readable column: it got about 115 px (two
    // or three words a line, the formula over four lines) and could not be widened, the page's
    // least width holding the rest. At least 16 lines of its font wide now (docked, or as a window
    // of its own where the lab has no room beside it), the window keeps the screen's size and
    // nothing is cut.
    void lessonHasRoomOnASmallScreen_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << "en";
        QTest::newRow("fa") << "fa";
    }
    void lessonHasRoomOnASmallScreen()
    {
        QFETCH(QString, language);
        const QSize size(1024, 768);
        show(size, language, QStringLiteral("lab/0"));
        auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("lessonDock"));
        QVERIFY(dock);
        dock->show();
        QVERIFY(awaitLayout(m_window));
        const int width = dock->width(), least = lines(dock, 16);
        const QStringList found = widgetProblems(m_window) + chartProblems(m_window);
        const QSize window = m_window->size();
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("lesson-%1.png").arg(language)));
        dock->hide();
        settle();
        QCOMPARE(window, size);
        QVERIFY2(width >= least, qPrintable(QStringLiteral("the lesson is %1 px wide, less than %2").arg(width).arg(least)));
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // At 1024x768 the lab's tabs get about 200 pixels, less than one chart's least height, and
    // the buffers above cannot give more: View → Tabs take the lab's height (Ctrl+Shift+T)
    // folds them away and both stacked charts are in view without scrolling; pressed again, the
    // buffers come back at the height they had.
    void tabsFillTheLabOnASmallScreen_data() { lessonHasRoomOnASmallScreen_data(); }
    void tabsFillTheLabOnASmallScreen()
    {
        QFETCH(QString, language);
        show(QSize(1024, 768), language, QStringLiteral("lab/0"));
        auto *splitter = qobject_cast<QSplitter *>(m_window->findChild<QTabWidget *>()->parentWidget());
        QVERIFY(splitter);
        auto *charts = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("chartsScroll"));
        QVERIFY(charts);
        const QList<int> before = splitter->sizes();
        QVERIFY2(charts->verticalScrollBar()->maximum() > 0, "the charts fit already: the test shows nothing");
        m_window->activateWindow(); // the shortcut goes to the active window
        QVERIFY(QTest::qWaitForWindowActive(m_window));
        QTest::keyClick(m_window, Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
        settle();
        QCOMPARE(splitter->sizes().value(0), 0);
        QVERIFY2(charts->verticalScrollBar()->maximum() == 0,
                 qPrintable(QStringLiteral("the charts still scroll by %1 px").arg(charts->verticalScrollBar()->maximum())));
        const QStringList found = widgetProblems(m_window) + chartProblems(m_window);
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("tabs-fill-%1.png").arg(language)));
        QTest::keyClick(m_window, Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
        settle();
        QCOMPARE(splitter->sizes(), before);
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // The two charts of the lab's first tab stand in the same order after a language switch as
    // in a window started in that language (they used to swap after a switch).
    void chartsKeepTheirOrderAcrossASwitch_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::newRow("English to Persian") << "en" << "fa";
        QTest::newRow("Persian to English") << "fa" << "en";
    }

    void chartsKeepTheirOrderAcrossASwitch()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        // Whether the throughput chart stands left of the loss chart, on a wide page.
        const auto throughputFirst = [](MainWindow &w) {
            w.setWindowState(Qt::WindowNoState);
            w.resize(1366, 768);
            w.show();
            settle();
            const QPoint t = w.throughputChart()->mapTo(&w, QPoint());
            const QPoint l = w.lossChart()->mapTo(&w, QPoint());
            return t.x() < l.x();
        };
        LanguageManager::instance()->setLanguage(to);
        bool fresh = false;
        {
            MainWindow w(false);
            fresh = throughputFirst(w);
        }
        LanguageManager::instance()->setLanguage(from);
        MainWindow w(false);
        throughputFirst(w);
        LanguageManager::instance()->setLanguage(to);
        settle();
        QCOMPARE(throughputFirst(w), fresh);
    }

    // Each check catches what it exists to catch, on the smaller projector in Persian.
    // Each counter's value sits nearer its own caption than any other caption of its row, in
    // both reading directions (in Persian a four-column grid once put the micro-batches' 4 next
    // to the optimizer steps' caption: «۴ گام‌های بهینه‌ساز» after one step).
    void countersPairWithTheirCaptions_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << "en";
        QTest::newRow("fa") << "fa";
    }
    void countersPairWithTheirCaptions()
    {
        QFETCH(QString, language);
        show(QSize(1024, 768), language, QStringLiteral("lab/0"));
        auto *counters = m_window->findChild<QWidget *>(QStringLiteral("countersWidget"));
        QVERIFY(counters && counters->isVisible());
        QList<QLabel *> captions;
        for (QLabel *l : counters->findChildren<QLabel *>())
            if (l->buddy() && l->isVisible())
                captions << l;
        QCOMPARE(captions.size(), 5);
        const auto rectOf = [this](QWidget *w) { return QRect(w->mapTo(m_window, QPoint(0, 0)), w->size()); };
        const auto gap = [](const QRect &a, const QRect &b) {
            return std::max({0, a.left() - b.right(), b.left() - a.right()});
        };
        for (QLabel *caption : captions) {
            const QRect value = rectOf(caption->buddy());
            const int own = gap(value, rectOf(caption));
            for (QLabel *other : captions) {
                const QRect o = rectOf(other);
                if (other == caption || o.bottom() < value.top() || o.top() > value.bottom())
                    continue; // another row
                QVERIFY2(own < gap(value, o), qPrintable(caption->text() + QStringLiteral(": its value is nearer ") + other->text()));
            }
        }
    }

    // The wheel over a control that has no focus scrolls what holds it and changes nothing (a
    // teacher scrolling the controls dock set the learning rate 0.05 -> 0.0005 and reset the
    // run); once the control has focus (a click, or Tab) the wheel changes it.
    void wheelLeavesUnfocusedControls_data()
    {
        QTest::addColumn<QString>("page");
        QTest::addColumn<QString>("control");
        QTest::newRow("learning rate") << "lab/0" << "lrSlider";
        QTest::newRow("accum_steps") << "lab/0" << "accumStepsSlider";
        QTest::newRow("optimizer") << "lab/0" << "optimizerCombo";
        QTest::newRow("seed") << "lab/0" << "seedSpin";
        QTest::newRow("experiment") << "experiments" << "experimentPicker";
    }
    void wheelLeavesUnfocusedControls()
    {
        QFETCH(QString, page);
        QFETCH(QString, control);
        show(QSize(1024, 768), QStringLiteral("en"), page);
        auto *w = m_window->findChild<QWidget *>(control);
        QVERIFY(w);
        QVERIFY(w->isVisible());
        const auto value = [w]() -> int {
            if (auto *slider = qobject_cast<QAbstractSlider *>(w))
                return slider->value();
            if (auto *combo = qobject_cast<QComboBox *>(w))
                return combo->currentIndex();
            return qobject_cast<QSpinBox *>(w)->value();
        };
        const auto setValue = [w](int v) {
            if (auto *slider = qobject_cast<QAbstractSlider *>(w))
                slider->setValue(v);
            else if (auto *combo = qobject_cast<QComboBox *>(w))
                combo->setCurrentIndex(v);
            else
                qobject_cast<QSpinBox *>(w)->setValue(v);
        };
        const auto wheel = [w](int delta) {
            const QPointF at(w->width() / 2.0, w->height() / 2.0);
            QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &e);
            return e.isAccepted();
        };
        QCOMPARE(w->focusPolicy(), Qt::StrongFocus); // a wheel gives it no focus
        const int before = value();
        w->clearFocus();
        for (int delta : {120, -120}) {
            QVERIFY2(!wheel(delta), "an unfocused control took the wheel");
            QCOMPARE(value(), before);
        }
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window));
        w->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(w->hasFocus());
        wheel(120);
        if (value() == before)
            wheel(-120); // it stood at the end the first turn moves towards
        QVERIFY2(value() != before, "a focused control ignored the wheel");
        setValue(before);
        w->clearFocus();
        settle();
    }

    // accum_steps and the micro-batch move in doublings, as the lesson's splits go: one key
    // press 4 -> 8 (the linear slider took 12 presses from 4 to 16, and Page Up went 7 -> 17),
    // a focused wheel turn one doubling, a drag onto the nearest power of two; a value a preset
    // set (3) stays until the next step, which lands on a power of two. In both directions of
    // reading.
    void slidersMoveInDoublings_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("control");
        QTest::addColumn<int>("from");
        QTest::addColumn<QString>("move");
        QTest::addColumn<int>("to");
        for (const char *language : {"en", "fa"}) {
            const auto row = [language](const char *name) -> QTestData & {
                return QTest::newRow(qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(language), QLatin1String(name))))
                       << QString::fromLatin1(language);
            };
            row("accum up 4") << "accumStepsSlider" << 4 << "up" << 8;
            row("accum down 8") << "accumStepsSlider" << 8 << "down" << 4;
            row("accum up from 3") << "accumStepsSlider" << 3 << "up" << 4;
            row("accum down from 3") << "accumStepsSlider" << 3 << "down" << 2;
            row("accum page up 4") << "accumStepsSlider" << 4 << "page up" << 16;
            row("accum page up 7") << "accumStepsSlider" << 7 << "page up" << 16;
            row("accum page down 64") << "accumStepsSlider" << 64 << "page down" << 16;
            row("accum up at the end") << "accumStepsSlider" << 64 << "up" << 64;
            row("accum down at 1") << "accumStepsSlider" << 1 << "down" << 1;
            row("accum wheel up 16") << "accumStepsSlider" << 16 << "wheel up" << 32;
            row("accum wheel down 16") << "accumStepsSlider" << 16 << "wheel down" << 8;
            row("accum drag to 6") << "accumStepsSlider" << 1 << "drag 6" << 8;
            row("accum drag to 5") << "accumStepsSlider" << 1 << "drag 5" << 4;
            row("accum drag to 45") << "accumStepsSlider" << 1 << "drag 45" << 32;
            row("accum drag to 46") << "accumStepsSlider" << 1 << "drag 46" << 64;
            row("micro up 32") << "microBatchSlider" << 32 << "up" << 64;
            row("micro page down 128") << "microBatchSlider" << 128 << "page down" << 32;
        }
    }
    void slidersMoveInDoublings()
    {
        QFETCH(QString, language);
        QFETCH(QString, control);
        QFETCH(int, from);
        QFETCH(QString, move);
        QFETCH(int, to);
        show(QSize(1024, 768), language, QStringLiteral("lab/0"));
        auto *slider = m_window->findChild<QSlider *>(control);
        QVERIFY(slider);
        const int before = slider->value();
        const auto restore = qScopeGuard([&] {
            slider->setValue(before);
            slider->clearFocus();
            settle();
        });
        slider->setValue(from);
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window));
        slider->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(slider->hasFocus());
        // The keys as the reader sees them: the value grows towards the reading direction's end.
        const bool rtl = slider->layoutDirection() == Qt::RightToLeft;
        if (move == QLatin1String("up"))
            QTest::keyClick(slider, rtl ? Qt::Key_Left : Qt::Key_Right);
        else if (move == QLatin1String("down"))
            QTest::keyClick(slider, rtl ? Qt::Key_Right : Qt::Key_Left);
        else if (move == QLatin1String("page up"))
            QTest::keyClick(slider, Qt::Key_PageUp);
        else if (move == QLatin1String("page down"))
            QTest::keyClick(slider, Qt::Key_PageDown);
        else if (move.startsWith(QLatin1String("wheel"))) {
            const QPointF at(slider->width() / 2.0, slider->height() / 2.0);
            QWheelEvent e(at, slider->mapToGlobal(at), QPoint(), QPoint(0, move.endsWith(QLatin1String("up")) ? 120 : -120),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(slider, &e);
        } else {
            // A drag: the handle held while it passes the position, as QSlider's mouse moves do.
            slider->setSliderDown(true);
            slider->setSliderPosition(move.section(QLatin1Char(' '), 1).toInt());
            slider->setSliderDown(false);
        }
        QCOMPARE(slider->value(), to);
    }

    void plantedFaultsAreCaught_data()
    {
        QTest::addColumn<QString>("planted");
        QTest::addColumn<QString>("caught");
        QTest::newRow("a chart squeezed to a fixed small size") << "small chart" << "is elided";
        QTest::newRow("a label pushed out of its parent") << "outside" << "lies outside";
        QTest::newRow("a label narrower than its text") << "narrow" << "its text needs";
    }

    void plantedFaultsAreCaught()
    {
        QFETCH(QString, planted);
        QFETCH(QString, caught);
        show(QSize(1024, 768), QStringLiteral("fa"), QStringLiteral("lab/0"));
        QVERIFY2((widgetProblems(m_window) + chartProblems(m_window)).isEmpty(), "the window was not clean");
        QWidget *chart = m_window->lossChart();
        QLabel *label = m_window->findChild<QLabel *>(QStringLiteral("equivalenceVerdict"));
        QVERIFY(label);
        const QSize chartMin = chart->minimumSize(), chartMax = chart->maximumSize();
        const QPoint labelAt = label->pos();
        if (planted == QLatin1String("small chart")) {
            chart->setFixedSize(160, 120);
        } else if (planted == QLatin1String("outside")) {
            label->move(label->parentWidget()->width() - 10, label->y()); // until the next layout pass
        } else {
            label->setFixedWidth(label->minimumSizeHint().width() / 2);
        }
        if (planted != QLatin1String("outside"))
            settle();
        const QStringList found = widgetProblems(m_window) + chartProblems(m_window);
        chart->setMinimumSize(chartMin);
        chart->setMaximumSize(chartMax);
        label->setMinimumWidth(0);
        label->setMaximumWidth(QWIDGETSIZE_MAX);
        label->move(labelAt);
        settle();
        QVERIFY2(found.join(QLatin1Char('\n')).contains(caught), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // Zoomed in on one tab of the lab and back out there, every other tab is laid out for the
    // normal size when it is opened: a tab not on screen kept its children where the zoomed
    // fonts put them (the Memory tab, zoomed on the Code tab and back, drew its children 145
    // pixels wider than itself, cut at the right).
    void zoomingBackLaysOutEveryTab_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("zoomedOn");
        for (const char *language : {"en", "fa"})
            for (int tab = 0; tab < 4; ++tab)
                QTest::addRow("%s, zoomed on lab/%d", language, tab) << QString::fromLatin1(language) << tab;
    }
    void zoomingBackLaysOutEveryTab()
    {
        QFETCH(QString, language);
        QFETCH(int, zoomedOn);
        const QString page = QStringLiteral("lab/%1").arg(zoomedOn);
        show(QSize(1024, 768), language, page, 3);
        show(QSize(1024, 768), language, page, 0); // Ctrl+- three times, on the same tab
        QStringList found;
        for (int tab = 0; tab < m_window->tabs()->count(); ++tab) {
            m_window->tabs()->setCurrentIndex(tab);
            QVERIFY(awaitLayout(m_window));
            // Where each widget lies and whether its text fits; the charts' own texts are
            // everyPageFits's (their widths after many zooms vary with the splitters' history).
            for (const QString &problem : widgetProblems(m_window))
                found << QStringLiteral("lab/%1: %2").arg(tab).arg(problem);
        }
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // Zooming and moving between screens and back gives the pages the room a fresh window
    // gives them: the controls' column is as wide as in a window opened at that size, and the
    // charts' texts fit. A column left as wide as it was zoomed squeezed the Memory tab's
    // timeline to 563 pixels at 1024x768, eliding its legend.
    void zoomAndScreensGiveTheRoomBack_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("history"); // size@zoom steps, last: where it ends
        for (const char *language : {"en", "fa"})
            for (const char *history : {"1024@3 1024@0", "1366@0 1024@0", "1024@3 1366@3 1024@0", "1366@3 1366@0"})
                QTest::addRow("%s %s", language, history)
                    << QString::fromLatin1(language) << QString::fromLatin1(history);
    }
    void zoomAndScreensGiveTheRoomBack()
    {
        QFETCH(QString, language);
        QFETCH(QString, history);
        QSize size;
        for (const QString &stop : history.split(QLatin1Char(' '))) {
            const QStringList parts = stop.split(QLatin1Char('@'));
            size = QSize(parts[0].toInt(), 768);
            show(size, language, QStringLiteral("lab/1"), parts[1].toInt());
        }
        LanguageManager::instance()->setLanguage(language);
        MainWindow fresh(false);
        fresh.setWindowState(Qt::WindowNoState);
        placeOn(&fresh, size);
        fresh.resize(size);
        fresh.show();
        QVERIFY(awaitLayout(&fresh));
        const auto columns = [](MainWindow *w) { return qobject_cast<QSplitter *>(w->centralWidget())->sizes(); };
        QVERIFY(qobject_cast<QSplitter *>(fresh.centralWidget()));
        const QList<int> want = columns(&fresh), got = columns(m_window);
        QVERIFY2(std::abs(got.value(0) - want.value(0)) <= 2,
                 qPrintable(QStringLiteral("controls %1 px, pages %2 px; a fresh window: %3 and %4")
                                .arg(got.value(0)).arg(got.value(1)).arg(want.value(0)).arg(want.value(1))));
        const QStringList found = widgetProblems(m_window) + chartProblems(m_window);
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // The controls' column never scrolls sideways, at either projector size, in either
    // language, at the normal size and zoomed up to three steps: a setting cut at the column's
    // edge, reached only by a sideways scroll bar, is a setting the class does not see. Where
    // the names beside their controls do not fit, they stand above them.
    void controlsNeverScrollSideways_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("zoom");
        for (const QSize size : kProjectors)
            for (const char *language : {"en", "fa"})
                for (int zoom = 0; zoom <= 3; ++zoom)
                    QTest::addRow("%dx%d %s zoom %d", size.width(), size.height(), language, zoom)
                        << size << QString::fromLatin1(language) << zoom;
    }
    void controlsNeverScrollSideways()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QFETCH(int, zoom);
        // Shown in the other language, then switched: a switch changes what the names and
        // controls need without changing the column's width.
        show(size, language == QLatin1String("en") ? QStringLiteral("fa") : QStringLiteral("en"), QStringLiteral("lab/0"), zoom);
        LanguageManager::instance()->setLanguage(language);
        settle();
        ControlPanel *controls = m_window->controlPanel();
        QAbstractScrollArea *column = nullptr;
        for (QWidget *w = controls->parentWidget(); w && !column; w = w->parentWidget())
            column = qobject_cast<QAbstractScrollArea *>(w);
        QVERIFY(column);
        QVERIFY2(column->horizontalScrollBar()->maximum() == 0,
                 qPrintable(QStringLiteral("the column is %1 px and scrolls %2 px sideways")
                                .arg(column->width())
                                .arg(column->horizontalScrollBar()->maximum())));
        // Where there is room (1366 pixels at the normal size) the names stand beside their
        // controls, as a form reads best; elsewhere they may stand above them.
        if (zoom == 0 && size.width() >= 1366)
            QVERIFY(!controls->namesAbove());
        // Nor is anything cut instead: a check box's words, a name, a slider's value.
        const QStringList found = widgetProblems(controls);
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(
                QStringLiteral("controls-%1x%2-%3-zoom%4.png").arg(size.width()).arg(size.height()).arg(language).arg(zoom)));
    }

    // Zoomed in on a projector, View -> Lab tab opens each tab of the lab from the keyboard
    // where it lies below the fold, from the quiz: the lab shows, the tab is in front and in
    // sight, and its entry is the checked one (it follows the tab bar too), named as the tab.
    void labTabsFromTheViewMenu_data() { lessonHasRoomOnASmallScreen_data(); }
    void labTabsFromTheViewMenu()
    {
        QFETCH(QString, language);
        auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        QVERIFY(pages);
        QTabWidget *tabs = m_window->tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            show(QSize(1024, 768), language, QStringLiteral("quiz"), 3);
            pages->verticalScrollBar()->setValue(0);
            settle();
            auto *entry = m_window->findChild<QAction *>(QStringLiteral("labTabAction%1").arg(i));
            QVERIFY(entry);
            QCOMPARE(entry->text(), tabs->tabText(i));
            entry->trigger();
            settle();
            QCOMPARE(m_window->currentPage(), MainWindow::LabPage);
            QCOMPARE(tabs->currentIndex(), i);
            QVERIFY(entry->isChecked());
            QWidget *tab = tabs->widget(i);
            const int least = std::min(tab->height(), pages->viewport()->height());
            QVERIFY2(heightInSight(tab) >= least, qPrintable(QStringLiteral("%1 px of tab %2 in sight, less than %3")
                                                                 .arg(heightInSight(tab))
                                                                 .arg(tabs->tabText(i))
                                                                 .arg(least)));
        }
        tabs->setCurrentIndex(0); // the tab bar moves the menu's check along
        QVERIFY(m_window->findChild<QAction *>(QStringLiteral("labTabAction0"))->isChecked());
    }

    // Zoomed in twice, moved from a 1366-pixel screen to a projector's 1024: the lab's buffers
    // and check stack as in a window opened there, and the page does not scroll sideways. Side by
    // side their least widths had widened the scrolled page, so the splitter, measured against
    // its own width, stayed side by side.
    void movedToASmallerScreenStacks_data() { lessonHasRoomOnASmallScreen_data(); }
    void movedToASmallerScreenStacks()
    {
        QFETCH(QString, language);
        show(QSize(1366, 768), language, QStringLiteral("lab/0"), 2);
        auto *top = m_window->findChild<QSplitter *>(QStringLiteral("labTopSplitter"));
        QVERIFY(top);
        QCOMPARE(top->orientation(), Qt::Horizontal); // or the row shows nothing
        placeOn(m_window, QSize(1024, 768));
        m_window->resize(1024, 768);
        QVERIFY(awaitLayout(m_window));
        auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        QVERIFY(pages);
        QCOMPARE(top->orientation(), Qt::Vertical);
        QCOMPARE(pages->horizontalScrollBar()->maximum(), 0);
    }

    // Zoomed in on a projector the lab's tabs sit below the fold. A sweep draws on the
    // throughput chart and the sweep table: started from the top of the lab with the code or the
    // memory tab in front, or from the quiz, it brings the chart into view (it ran out of sight);
    // with the table in front the table stays there, in view.
    void sweepComesIntoView_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("page");   // where the sweep starts: lab/<tab index> or quiz
        QTest::addColumn<QString>("expect"); // the view in sight: throughput or table
        for (const char *language : {"en", "fa"}) {
            QTest::addRow("%s code tab", language) << QString::fromLatin1(language) << "lab/3" << "throughput";
            QTest::addRow("%s memory tab", language) << QString::fromLatin1(language) << "lab/1" << "throughput";
            QTest::addRow("%s table tab", language) << QString::fromLatin1(language) << "lab/2" << "table";
            QTest::addRow("%s quiz", language) << QString::fromLatin1(language) << "quiz" << "throughput"; // the code tab behind
        }
    }
    void sweepComesIntoView()
    {
        QFETCH(QString, language);
        QFETCH(QString, page);
        QFETCH(QString, expect);
        m_window->tabs()->setCurrentIndex(3); // behind the quiz: the code tab
        show(QSize(1024, 768), language, page, 3);
        auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        QVERIFY(pages);
        pages->verticalScrollBar()->setValue(0);
        settle();
        QWidget *view = expect == QLatin1String("table") ? static_cast<QWidget *>(m_window->sweepTable())
                                                          : m_window->throughputChart();
        const auto shown = [view] { return heightInSight(view); };
        QCOMPARE(shown(), 0); // out of sight before the sweep, or the row shows nothing
        QSignalSpy finished(m_window->sweep(), &SweepRunner::finished);
        QAction *sweep = m_window->findChild<QAction *>(QStringLiteral("sweepAction"));
        QVERIFY(sweep);
        sweep->trigger();
        settle();
        QCOMPARE(m_window->currentPage(), MainWindow::LabPage);
        const int height = shown(), least = std::min(view->height(), pages->viewport()->height()); // all of it where it fits
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("sweep-from-%1-%2.png")
                                                           .arg(QString(page).replace(QLatin1Char('/'), QLatin1Char('-')), language)));
        QVERIFY(finished.wait(kWaitMs));
        QVERIFY2(height >= least, qPrintable(QStringLiteral("%1 px of the %2 in sight, less than %3").arg(height).arg(expect).arg(least)));
    }

    // The Memory tab's live timeline after Step has run one window (its line, the floor, and
    // forward, backward and the optimizer step shaded, five legend entries) fits at 1024x768
    // in both languages, at the normal size and zoomed three times. Last: the live window
    // replaces the demo's picture the other rows look at.
    void liveTimelineFits_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("zoom");
        for (const char *language : {"en", "fa"})
            for (int zoom : {0, 3})
                QTest::addRow("%s zoom %d", language, zoom) << QString::fromLatin1(language) << zoom;
    }
    void liveTimelineFits()
    {
        QFETCH(QString, language);
        QFETCH(int, zoom);
        show(QSize(1024, 768), language, QStringLiteral("lab/1"), zoom);
        MemoryTimelineChart *chart = m_window->memoryView()->timelineChart();
        const auto stepped = [&] {
            const MemoryTimeline &w = chart->liveWindow();
            return chart->showsLiveWindow() && std::any_of(w.events.begin(), w.events.end(), [](const MemoryEvent &e) {
                       return e.phase == MemoryPhase::Step;
                   });
        };
        QAction *step = m_window->findChild<QAction *>(QStringLiteral("stepAction"));
        QVERIFY(step);
        const int64_t accum = m_window->controller()->engineInfo()->config.accumSteps;
        for (int64_t k = 0; k < accum && !stepped(); ++k) {
            step->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(chart->showsLiveWindow() && chart->liveWindow().events.size() > 0 &&
                                         chart->liveWindow().events.back().micro >= k,
                                     kWaitMs);
        }
        QTRY_VERIFY_WITH_TIMEOUT(stepped(), kWaitMs);
        QVERIFY(awaitLayout(m_window));
        const QStringList found = widgetProblems(m_window) + chartProblems(m_window);
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
        {
            chart->grab().save(QDir(shots).filePath(QStringLiteral("live-timeline-%1-zoom%2.png").arg(language).arg(zoom)));
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("live-window-%1-zoom%2.png").arg(language).arg(zoom)));
        }
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }

    // N5 of issue 62: at 1024x768 the quiz's Next stands where Check stood, whole and in sight,
    // once the answer is checked (it sat at the page's foot, two screens below the question).
    void quizNextBesideCheck_data() { lessonHasRoomOnASmallScreen_data(); }
    void quizNextBesideCheck()
    {
        QFETCH(QString, language);
        show(QSize(1024, 768), language, QStringLiteral("quiz"));
        auto *quiz = m_window->findChild<QuizWidget *>();
        QVERIFY(quiz);
        auto *check = quiz->findChild<QPushButton *>(QStringLiteral("quizCheckButton"));
        auto *next = quiz->findChild<QPushButton *>(QStringLiteral("quizNextButton"));
        QVERIFY(check && next);
        if (check->isHidden()) { // answered by an earlier row: on to a fresh question
            QTest::mouseClick(next, Qt::LeftButton);
            QVERIFY(awaitLayout(m_window));
        }
        QRadioButton *choice = nullptr;
        for (QRadioButton *b : quiz->findChildren<QRadioButton *>())
            if (b->isVisible() && b->isEnabled())
                choice = b;
        QVERIFY(choice);
        QTest::mouseClick(choice, Qt::LeftButton, {}, QPoint(4, choice->height() / 2));
        QVERIFY(check->isEnabled());
        const int checkTop = check->mapTo(m_window, QPoint(0, 0)).y();
        QTest::mouseClick(check, Qt::LeftButton);
        QVERIFY(awaitLayout(m_window));
        QVERIFY(next->isEnabled());
        QCOMPARE(heightInSight(next), next->height());
        const int nextTop = next->mapTo(m_window, QPoint(0, 0)).y();
        QVERIFY2(std::abs(nextTop - checkTop) <= check->height() / 2,
                 qPrintable(QStringLiteral("Next at y %1, Check was at y %2").arg(nextTop).arg(checkTop)));
    }

    // The lab never scrolls sideways at 1024x768 or 1366x768, in either language, zoomed 0 to 3
    // times, with classroom mode on or off and the lesson's column open or closed: a sideways
    // scroll that, right to left, shows the page's right part cut the tensor names at the
    // buffers' left edge (classroom mode, zoom 3, 1024). The buffers' view is whole in sight and
    // as wide as its names, bars and ratios need. Closed again, the lesson gives the lab back
    // the layout it had (the columns, the lab's panes and their arrangement).
    void labNeverScrollsSideways_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("zoom");
        QTest::addColumn<bool>("classroom");
        QTest::addColumn<bool>("lesson");
        for (const QSize size : kProjectors)
            for (const char *language : {"en", "fa"})
                for (int zoom = 0; zoom <= 3; ++zoom)
                    for (bool classroom : {false, true})
                        for (bool lesson : {false, true})
                            QTest::addRow("%dx%d %s zoom %d%s%s", size.width(), size.height(), language, zoom,
                                          classroom ? " classroom" : "", lesson ? " lesson" : "")
                                << size << QString::fromLatin1(language) << zoom << classroom << lesson;
    }
    void labNeverScrollsSideways()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QFETCH(int, zoom);
        QFETCH(bool, classroom);
        QFETCH(bool, lesson);
        auto *classroomAction = m_window->findChild<QAction *>(QStringLiteral("classroomAction"));
        auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("lessonDock"));
        auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        QVERIFY(classroomAction && dock && pages);
        show(size, language, QStringLiteral("lab/0"), zoom);
        if (classroomAction->isChecked() != classroom)
            classroomAction->trigger();
        QVERIFY(awaitLayout(m_window));
        const auto layoutOf = [this] {
            QStringList out;
            for (QSplitter *s : m_window->findChildren<QSplitter *>())
                if (s->isVisibleTo(m_window))
                    out << QStringLiteral("%1 %2 %3").arg(s->objectName()).arg(int(s->orientation())).arg(
                               [s] { QStringList l; for (int v : s->sizes()) l << QString::number(v); return l.join(QLatin1Char(',')); }());
            return out.join(QLatin1String("; "));
        };
        const QString before = layoutOf();
        if (lesson) {
            dock->show();
            QVERIFY(awaitLayout(m_window));
        }
        QStringList found;
        if (const int by = pages->horizontalScrollBar()->maximum(); by > 0)
            found << QStringLiteral("the page scrolls sideways by %1 px").arg(by);
        GradientBufferView *buffers = m_window->bufferView();
        if (widthInSight(buffers) < buffers->width())
            found << QStringLiteral("%1 of the buffers' %2 px are in sight").arg(widthInSight(buffers)).arg(buffers->width());
        if (buffers->width() < buffers->minimumSizeHint().width())
            found << QStringLiteral("the buffers are %1 px wide, their names, bars and ratios need %2")
                         .arg(buffers->width())
                         .arg(buffers->minimumSizeHint().width());
        if (m_window->size() != size)
            found << QStringLiteral("the window is %1x%2").arg(m_window->width()).arg(m_window->height());
        // The identity wraps between whole terms: no line of it is a lone figure or ends with
        // "=" or "×".
        if (auto *identity = m_window->findChild<QLabel *>(QStringLiteral("identityLabel")); identity && identity->isVisible()) {
            QTextLayout text(identity->text(), identity->font());
            QTextOption option;
            option.setWrapMode(QTextOption::WordWrap);
            text.setTextOption(option);
            text.beginLayout();
            for (QTextLine line = text.createLine(); line.isValid(); line = text.createLine())
                line.setLineWidth(identity->contentsRect().width());
            text.endLayout();
            for (int i = 0; i < text.lineCount(); ++i) {
                QString words = identity->text().mid(text.lineAt(i).textStart(), text.lineAt(i).textLength());
                words.remove(QChar(0x2068)).remove(QChar(0x2069));
                words = words.trimmed();
                bool figure = false;
                QLocale(language).toDouble(words, &figure);
                if (figure || words.toDouble() != 0.0 || words.endsWith(QLatin1Char('=')) || words.endsWith(QChar(0x00D7)))
                    found << QStringLiteral("the identity's line \"%1\" stands alone").arg(words);
            }
        }
        if (lesson && dock->isVisible() && !dock->isFloating() && dock->width() < lines(dock, 16))
            found << QStringLiteral("the lesson is %1 px wide, less than 16 lines").arg(dock->width());
        if (const QString shots = qEnvironmentVariable("ACCUMLAB_PROJECTOR_SHOTS"); !shots.isEmpty())
            m_window->grab().save(QDir(shots).filePath(QStringLiteral("sideways-%1x%2-%3-zoom%4%5%6.png")
                                                           .arg(size.width()).arg(size.height()).arg(language).arg(zoom)
                                                           .arg(classroom ? "-classroom" : "", lesson ? "-lesson" : "")));
        if (lesson) {
            dock->hide();
            QVERIFY(awaitLayout(m_window));
            if (const QString after = layoutOf(); after != before)
                found << QStringLiteral("the lab's layout after the lesson closed: %1; before: %2").arg(after, before);
        }
        if (classroom)
            classroomAction->trigger();
        QVERIFY(awaitLayout(m_window));
        for (const QString &problem : found)
            qInfo().noquote() << problem;
        QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    }
    // The lesson opened and closed, twice, by its toolbar button (View's action) gives the lab
    // back where every pane stood: the buffers, the check, the tabs and the charts, in the
    // window's coordinates, and the page's scroll ranges. After a history (classroom mode on and
    // off): the lab stayed stacked once the lesson had narrowed it (the stacked pair needed the
    // page's scroll bar, whose width kept it stacked), and the columns kept the lesson's share.
    void lessonGivesTheLabBack_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("zoom");
        for (const QSize size : kProjectors)
            for (const char *language : {"en", "fa"})
                for (int zoom : {0, 2, 3})
                    QTest::addRow("%dx%d %s zoom %d", size.width(), size.height(), language, zoom)
                        << size << QString::fromLatin1(language) << zoom;
    }
    void lessonGivesTheLabBack()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QFETCH(int, zoom);
        auto *classroomAction = m_window->findChild<QAction *>(QStringLiteral("classroomAction"));
        auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("lessonDock"));
        auto *pages = m_window->findChild<QAbstractScrollArea *>(QStringLiteral("pagesScroll"));
        QVERIFY(classroomAction && dock && pages);
        show(size, language, QStringLiteral("lab/0"), zoom);
        for (int i = 0; i < 2; ++i) {
            classroomAction->trigger();
            QVERIFY(awaitLayout(m_window));
        }
        const auto geometry = [&] {
            QStringList out;
            const QList<const QWidget *> panes{m_window->bufferView(), m_window->equivalencePanel(), m_window->tabs(),
                                               m_window->findChild<QWidget *>(QStringLiteral("chartsSplitter")),
                                               m_window->controlPanel()};
            for (const QWidget *w : panes)
                out << QStringLiteral("%1 %2,%3 %4x%5")
                           .arg(nameOf(w))
                           .arg(w->mapTo(m_window, QPoint()).x())
                           .arg(w->mapTo(m_window, QPoint()).y())
                           .arg(w->width())
                           .arg(w->height());
            out << QStringLiteral("page scrolls %1 x %2")
                       .arg(pages->horizontalScrollBar()->maximum())
                       .arg(pages->verticalScrollBar()->maximum());
            return out.join(QLatin1String("; "));
        };
        const QString before = geometry();
        QAction *lesson = dock->toggleViewAction();
        for (int i = 0; i < 2; ++i) {
            lesson->trigger();
            QVERIFY(awaitLayout(m_window));
            QVERIFY(dock->isVisible());
            QCOMPARE(m_window->size(), size);
            lesson->trigger();
            QVERIFY(awaitLayout(m_window));
            QVERIFY(!dock->isVisible());
            QCOMPARE(geometry(), before);
        }
    }
};

QTEST_MAIN(TestProjector)
#include "tst_projector.moc"
