// The window's frame (scroll areas, splitters, the lesson's dock) and its fit: the screen, the
// controls' column, the zoom, classroom mode's share and the tabs taking the lab's height.
#include "ui/layout/windowlayout.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/layout/adaptivesplitter.h"
#include "ui/charts/chartscale.h"
#include "ui/panels/controlpanel.h"
#include "ui/panels/equivalencepanel.h"
#include "ui/layout/fontscale.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QEvent>
#include <QGuiApplication>
#include <QLayout>
#include <QMainWindow>
#include <QScopedValueRollback>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QWindow>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

namespace accumlab::ui {

namespace {

const QSize kDefaultSize(1280, 800);
constexpr double kZoomStep = 1.15; // one Ctrl+= or Ctrl+-
constexpr double kMinZoom = 0.6, kMaxZoom = 3.0;

// The lesson's column: 18 lines of its font (340 pixels at the normal size), a readable measure.
constexpr double kLessonDockLines = 18;
// The least docked column, a readable one (about 300 pixels: narrower, it read two or three words
// a line): where the window has less room beside the lab's least width (a projector's 1024
// pixels), the lesson opens as a window of its own over the lab rather than pushing the lab
// into a sideways scroll that cut the tensor names.
constexpr double kLessonDockLeastLines = 16;
// Narrower windows open with the lesson closed (View or the toolbar's Lesson opens it), so the
// charts keep their room on a small projector.
constexpr int kLessonOpenMinWidth = 1400;
// The controls' column: the most of the screen (for its least width) and of the window (for
// its width) it takes.
constexpr double kMostForControls = 0.4;

// The width a scroll area takes beside its widget's: its vertical scroll bar and its frame.
int scrollRoom(const QAbstractScrollArea *area)
{
    return area->verticalScrollBar()->sizeHint().width() + 2 * area->frameWidth();
}

// The available area of the screen `w` stands on (the primary one before it has one).
QRect availableArea(const QWidget *w)
{
    const QScreen *screen = w->screen() ? w->screen() : QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect(QPoint(), kDefaultSize);
}

// The pages' scroll area asks the splitter beside the controls for the page's least width
// while the screen has room for it (the page then never scrolls sideways); past that room, a
// page zoomed in on a projector scrolls inside the window instead of pushing the window past
// its screen.
class PagesScroll : public QScrollArea {
public:
    explicit PagesScroll(std::function<int()> room) : m_room(std::move(room)) {}
    QSize minimumSizeHint() const override
    {
        if (!widget())
            return QScrollArea::minimumSizeHint();
        // A page taller than the view has the scroll bar beside it.
        const QSize page = widget()->minimumSizeHint();
        const int width = page.width() + (page.height() > height() - 2 * frameWidth() ? scrollRoom(this) : 0);
        return {std::max(0, std::min(width, m_room())), QScrollArea::minimumSizeHint().height()};
    }

private:
    std::function<int()> m_room;
};

// The charts' tab: one chart's least width, so the page asks for it and a chart is never cut at
// a side (the tab never scrolls sideways: zoomed thrice at 1024x768 the throughput chart's right
// axis, in Persian its left, was cut). Where the lab's page scrolls anyway (zoomed in on a
// projector: the buffers and the check alone are taller than the view), the tab holds its charts
// whole and the page alone scrolls, to whole charts, rather than the tab showing a strip of one
// inside the scrolling page (and its scroll bar taking width from a chart). Where the page fits,
// the tab keeps the room left to it (dragging the divider or View -> Tabs take the lab's height
// gives it more) and scrolls between its charts, its scroll bar beside them.
class ChartsScroll : public QScrollArea {
public:
    // `charts`: the tab's widget, `chart` one of them; `above`: the lab's pane above the tabs;
    // `viewHeight`: the height of the page's view.
    ChartsScroll(QWidget *charts, const QWidget *chart, QWidget *above, std::function<int()> viewHeight)
        : m_chart(chart), m_above(above), m_viewHeight(std::move(viewHeight))
    {
        setWidget(charts);
        setWidgetResizable(true);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // Their least sizes change with the zoom and the language, the charts' as they stack.
        above->installEventFilter(this);
        charts->installEventFilter(this);
    }
    QSize minimumSizeHint() const override
    {
        const QSize own = QScrollArea::minimumSizeHint();
        if (m_above->minimumSizeHint().height() <= m_viewHeight())
            return {std::max(own.width(), m_chart->minimumWidth() + scrollRoom(this)), own.height()};
        const QSize charts = widget()->minimumSizeHint().expandedTo(widget()->minimumSize());
        return {std::max(own.width(), m_chart->minimumWidth() + 2 * frameWidth()),
                std::max(own.height(), charts.height() + 2 * frameWidth())};
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if ((watched == m_above || watched == widget()) && event->type() == QEvent::LayoutRequest)
            updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }

private:
    const QWidget *m_chart;
    const QWidget *m_above;
    std::function<int()> m_viewHeight;
};

// The lesson's dock, which says when it is about to open: before QWidget::setVisible lays the
// window out with it (too late by its Show event, whose layout had widened a 1024-pixel window
// zoomed thrice to 1090 pixels and already moved the lab's splitters).
class LessonDock : public QDockWidget {
public:
    explicit LessonDock(std::function<void()> aboutToOpen) : m_aboutToOpen(std::move(aboutToOpen)) {}
    void setVisible(bool visible) override
    {
        if (visible && isHidden() && m_aboutToOpen)
            m_aboutToOpen();
        QDockWidget::setVisible(visible);
    }

private:
    std::function<void()> m_aboutToOpen;
};

} // namespace

WindowLayout::WindowLayout(const Parts &parts, QObject *parent)
    : QObject(parent), m_window(parts.window), m_controls(parts.controls), m_buffers(parts.buffers),
      m_check(parts.check)
{
    m_controlsScroll = new QScrollArea;
    m_controlsScroll->setWidget(m_controls);
    m_controlsScroll->setWidgetResizable(true);
    fitControlsColumn();

    buildLab(parts);

    // The lab, the guided experiments and the quiz share the space right of the controls, so
    // an experiment's settings show on the controls while its page is open.
    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->addWidget(m_labSplitter);
    for (QWidget *page : parts.morePages)
        m_pages->addWidget(page);

    // A page that needs more room than the window has (zoomed in on a projector) scrolls inside
    // the window instead of pushing the window past its screen. The lesson's column counts as
    // shown from before the window is (zoomed before its first show, the window took its least
    // width with the lesson's column beside a page as wide as the screen left without it, and
    // opened 56 pixels wider than a 1024-pixel screen); the first show closes it on a small screen.
    m_pagesScroll = new PagesScroll([this] {
        const int docked = m_lessonDock && m_lessonDock->isVisibleTo(m_window) && !m_lessonDock->isFloating()
                               ? std::max(m_lessonDock->minimumSizeHint().width(), lines(m_lessonDock, kLessonDockLeastLines))
                               : 0;
        // The window's frame (none before the window has one, nor maximised) and the handle.
        const int frame = m_window->frameGeometry().width() - m_window->width() +
                          (m_mainSplitter ? m_mainSplitter->handleWidth() : 0);
        return availableArea(m_window).width() - m_controlsScroll->minimumWidth() - docked - frame;
    });
    m_pagesScroll->setObjectName(QStringLiteral("pagesScroll"));
    m_pagesScroll->setWidget(m_pages);
    m_pagesScroll->setWidgetResizable(true);
    m_pagesScroll->setFrameShape(QFrame::NoFrame);

    m_mainSplitter = new QSplitter(Qt::Horizontal);
    m_mainSplitter->addWidget(m_controlsScroll);
    m_mainSplitter->addWidget(m_pagesScroll);
    m_mainSplitter->setStretchFactor(0, 0);
    m_mainSplitter->setStretchFactor(1, 1);
    m_mainSplitter->setChildrenCollapsible(false);
    m_window->setCentralWidget(m_mainSplitter);
    m_window->installEventFilter(this);
}

void WindowLayout::buildLab(const Parts &parts)
{
    // Side by side while both panels have their least widths; zoomed in on a small screen, the
    // equivalence panel goes below the buffers.
    auto *top = new AdaptiveSplitter;
    top->setObjectName(QStringLiteral("labTopSplitter"));
    top->addWidget(m_buffers);
    top->addWidget(m_check);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    top->stackWhenPanesDoNotFit();

    // Side by side where both charts have room for their labels; stacked, scrolling, on a
    // projector's narrower window.
    auto *charts = new AdaptiveSplitter;
    charts->setObjectName(QStringLiteral("chartsSplitter"));
    charts->addWidget(parts.throughputChart);
    charts->addWidget(parts.lossChart);
    charts->setWideWidth(2 * kChartMinWidthLines, kChartMinHeightLines);
    m_chartsScroll = new ChartsScroll(charts, parts.throughputChart, top, [this] {
        return m_pagesScroll ? m_pagesScroll->viewport()->height() : QWIDGETSIZE_MAX;
    });
    m_chartsScroll->setObjectName(QStringLiteral("chartsScroll"));
    m_chartsScroll->setFrameShape(QFrame::NoFrame);
    m_tabs = new QTabWidget;
    m_tabs->addTab(m_chartsScroll, QString());
    for (QWidget *tab : parts.moreTabs)
        m_tabs->addTab(tab, QString());

    m_labSplitter = new QSplitter(Qt::Vertical);
    m_labSplitter->addWidget(top);
    m_labSplitter->addWidget(m_tabs);
    // The buffers and the equivalence table get a little more height than the charts.
    m_labSplitter->setStretchFactor(0, 3);
    m_labSplitter->setStretchFactor(1, 2);
    m_labSplitter->setChildrenCollapsible(false);
    // The divider dragged down while the tabs fill the lab brings the buffers back.
    connect(m_labSplitter, &QSplitter::splitterMoved, this, [this] {
        if (m_tabsFillTheLab && m_labSplitter->sizes().value(0) > 0) {
            m_tabsFillTheLab = false;
            m_labSplitter->setCollapsible(0, false);
            emit tabsFillTheLabChanged(false);
        }
    });
}

QWidget *WindowLayout::chartsTab() const { return m_chartsScroll; }
QWidget *WindowLayout::lab() const { return m_labSplitter; }
QScrollArea *WindowLayout::pagesScroll() const { return m_pagesScroll; }

QDockWidget *WindowLayout::dockLesson(QWidget *lesson)
{
    Q_ASSERT(!m_lessonDock);
    m_lessonDock = new LessonDock([this] { lessonAboutToOpen(); });
    m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
    m_lessonDock->setWidget(lesson);
    m_lessonDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                              QDockWidget::DockWidgetFloatable);
    m_window->addDockWidget(Qt::RightDockWidgetArea, m_lessonDock);
    m_window->resizeDocks({m_lessonDock}, {lines(m_lessonDock, kLessonDockLines)}, Qt::Horizontal);
    // Opened docked (lessonAboutToOpen found room), the lesson takes its readable column where
    // the window has room for it beside the controls' and the page's least widths, else the
    // narrower column down to kLessonDockLeastLines. Closed, the lab gets back the layout it had.
    connect(m_lessonDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (m_switchingFloat)
            return; // the dock re-parented by this class, not opened or closed
        m_pagesScroll->updateGeometry();
        if (!visible) {
            if (m_lessonFloatedForRoom && !m_lessonDock->isVisible()) {
                m_lessonFloatedForRoom = false;
                const QScopedValueRollback guard(m_switchingFloat, true);
                m_lessonDock->setFloating(false); // docked again the next time, where there is room
            }
            // Once the window has laid itself out without the column.
            if (!m_layoutBeforeLesson.isEmpty())
                QTimer::singleShot(0, this, &WindowLayout::restoreLayoutBeforeLesson);
            return;
        }
        if (m_lessonDock->isFloating())
            return;
        // After the window has laid the dock out with the page's new least width.
        QTimer::singleShot(0, this, [this] {
            const int want = std::min(lines(m_lessonDock, kLessonDockLines), lessonRoom());
            if (m_lessonDock->isVisible() && !m_lessonDock->isFloating() && m_lessonDock->width() != want)
                m_window->resizeDocks({m_lessonDock}, {want}, Qt::Horizontal);
        });
    });
    return m_lessonDock;
}

int WindowLayout::lessonRoom() const
{
    // The window's width less the controls' column and the page at their least widths, the
    // splitter's handle and the dock's separator.
    const int page = m_pages->minimumSizeHint().width() +
                     (m_pages->minimumSizeHint().height() > m_pagesScroll->viewport()->height() ? scrollRoom(m_pagesScroll) : 0);
    const int separator = m_window->style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent, nullptr, m_window);
    return m_window->width() - m_controlsScroll->minimumWidth() - m_mainSplitter->handleWidth() - page - separator;
}

void WindowLayout::lessonAboutToOpen()
{
    m_layoutBeforeLesson.clear();
    for (QSplitter *splitter : m_window->findChildren<QSplitter *>()) // parents before children
        if (splitter->isVisibleTo(m_window))
            m_layoutBeforeLesson.append({splitter, splitter->orientation(), splitter->sizes()});
    if (m_lessonDock->isFloating() || !m_window->isVisible())
        return;
    // Docked only where its column keeps its least width beside the lab's; else its readable
    // column (at most half the window) as a window of its own over the edge where the dock
    // stands: the right one, the left one right to left (in Persian it hid the controls).
    const int least = std::max(m_lessonDock->minimumSizeHint().expandedTo(m_lessonDock->minimumSize()).width(),
                               lines(m_lessonDock, kLessonDockLeastLines));
    if (lessonRoom() >= least)
        return;
    m_lessonFloatedForRoom = true;
    const QScopedValueRollback guard(m_switchingFloat, true);
    m_lessonDock->setFloating(true); // hidden still: shown as a window by the caller
    const QRect window = m_window->geometry();
    const int width = std::min(lines(m_lessonDock, kLessonDockLines), window.width() / 2);
    const int x = m_window->isRightToLeft() ? window.left() : window.right() + 1 - width;
    m_lessonDock->setGeometry(x, window.top(), width, window.height());
}

void WindowLayout::restoreLayoutBeforeLesson()
{
    // Each splitter its orientation, then its sizes where it has its old length again; the outer
    // ones first, as their sizes give the inner ones theirs. A few rounds: each one's layout
    // (the page's scroll bar, a pair standing side by side again) follows the last.
    constexpr int kRounds = 4;
    for (int round = 0; round < kRounds && !m_layoutBeforeLesson.isEmpty(); ++round) {
        if (m_lessonDock->isVisible() && !m_lessonDock->isFloating())
            return; // opened again meanwhile
        if (QLayout *layout = m_window->layout())
            layout->activate();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        bool same = true;
        for (const SplitterState &state : std::as_const(m_layoutBeforeLesson)) {
            QSplitter *splitter = state.splitter;
            if (!splitter || !splitter->isVisibleTo(m_window))
                continue;
            if (splitter->orientation() != state.orientation) {
                splitter->setOrientation(state.orientation);
                same = false;
                continue;
            }
            const QList<int> now = splitter->sizes();
            if (now == state.sizes)
                continue;
            same = false;
            if (std::accumulate(now.begin(), now.end(), 0) == std::accumulate(state.sizes.begin(), state.sizes.end(), 0))
                splitter->setSizes(state.sizes);
        }
        if (same)
            m_layoutBeforeLesson.clear();
    }
}

// ---- zoom, classroom mode and the tabs' height ------------------------------------------

void WindowLayout::setZoom(double zoom)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (std::abs(zoom - 1.0) < 1e-3)
        zoom = 1.0; // steps in and back out land on the normal size exactly
    if (zoom == m_zoom)
        return;
    scaleAllFonts(m_window, zoom / m_zoom);
    // The widgets that follow the application font hear of it through posted events.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::ApplicationFontChange);
    // A page not on screen (another tab of the lab) kept its children where the old fonts put
    // them: a Memory tab zoomed on the Code tab and back drew its children 145 pixels wider
    // than itself, cut at the right. Every layout is invalidated; a hidden one is laid out
    // again as it is shown.
    for (QLayout *layout : m_window->findChildren<QLayout *>())
        layout->invalidate();
    fitControlsColumn();
    m_zoom = zoom;
    emit zoomChanged(m_zoom);
}

void WindowLayout::zoomBy(int steps) { setZoom(m_zoom * std::pow(kZoomStep, steps)); }

void WindowLayout::setClassroomMode(bool on)
{
    if (on == m_classroomShown)
        return;
    m_classroomShown = on;
    setTabsFillTheLab(false); // classroom mode shares the lab's height itself
    m_buffers->setClassroomMode(on);
    m_check->setClassroomMode(on);
    if (on)
        m_labSizesBeforeClassroom = m_labSplitter->sizes();
    else if (!m_labSizesBeforeClassroom.isEmpty())
        m_labSplitter->setSizes(m_labSizesBeforeClassroom);
    shareClassroomRoom();
}

void WindowLayout::setTabsFillTheLab(bool on)
{
    emit tabsFillTheLabChanged(on);
    if (on == m_tabsFillTheLab)
        return;
    m_tabsFillTheLab = on;
    // Collapsed, not hidden: the panes keep their widths (a hidden pane changed the page's least
    // width, and came back taller than it left). Folded by the action only, never by a drag.
    m_labSplitter->setCollapsible(0, on);
    if (on) {
        m_labSizesBeforeTabsFill = m_labSplitter->sizes();
        const int height = m_labSizesBeforeTabsFill.value(0) + m_labSizesBeforeTabsFill.value(1);
        m_labSplitter->setSizes({0, height});
    } else {
        m_labSplitter->setSizes(m_labSizesBeforeTabsFill);
    }
}

void WindowLayout::shareClassroomRoom()
{
    // The hidden controls' room goes to the pages: the column shrinks to what is left in it.
    fitControlsColumn();
    if (!m_controls->classroomMode())
        return;
    // Two thirds of the lab's height for the enlarged buffers and verdict.
    constexpr double kClassroomTopShare = 0.66;
    const QList<int> lab = m_labSplitter->sizes();
    const int height = lab.value(0) + lab.value(1);
    if (height > 0)
        m_labSplitter->setSizes({int(height * kClassroomTopShare), height - int(height * kClassroomTopShare)});
}

// ---- the screen and the controls' column ------------------------------------------------

void WindowLayout::fitTheScreen()
{
    // The first start: the default size where the screen has room for it and its frame; on a
    // smaller screen (a projector's 1024x768) the screen's available area, maximised, so
    // nothing starts off-screen.
    const QRect available = availableArea(m_window);
    const QSize frame(16, 48); // a title bar and borders, before the window has its own
    if (kDefaultSize.width() + frame.width() <= available.width() &&
        kDefaultSize.height() + frame.height() <= available.height()) {
        m_window->resize(kDefaultSize);
        return;
    }
    m_window->resize(
        available.size().shrunkBy(QMargins(0, 0, frame.width(), frame.height())).expandedTo(m_window->minimumSizeHint()));
    m_window->setWindowState(m_window->windowState() | Qt::WindowMaximized);
}

void WindowLayout::fitControlsColumn()
{
    // As wide as the controls need with their names above them (and a vertical scroll bar), but
    // at most two fifths of the screen, so a zoomed column never pushes the window past it.
    const int most = int(availableArea(m_window).width() * kMostForControls);
    m_controlsScroll->setMinimumWidth(std::min(m_controls->minimumSizeHint().width() + scrollRoom(m_controlsScroll), most));
    shareControlsColumn();
}

void WindowLayout::shareControlsColumn()
{
    const int controls = m_controlsScroll->minimumWidth();
    // The column takes the controls' preferred width, at least that and at most two fifths of
    // the window, and the pages the rest: on the first show, after a zoom, a language switch, a
    // move to another screen or a resize. A splitter grows a pane to its least width but never
    // shrinks it back, and it placed a new window's panes by a size its scroll area had measured
    // before the window was laid out: the column's width depended on the window's history (at
    // 1024x768 in Persian 355 pixels when opened, 411 after zooming in and out, with the Memory
    // tab's legend cut). A drag of the splitter holds until the next zoom, language, screen or
    // resize.
    if (!m_mainSplitter)
        return;
    const QList<int> sizes = m_mainSplitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    const int most = int(total * kMostForControls);
    const int preferred =
        std::clamp(m_controls->sizeHint().width() + scrollRoom(m_controlsScroll), controls, std::max(controls, most));
    if (total > preferred)
        m_mainSplitter->setSizes({preferred, total - preferred});
}

void WindowLayout::languageChanged()
{
    // The controls' least width follows their words, once the new texts are laid out.
    QTimer::singleShot(0, this, &WindowLayout::fitControlsColumn);
}

void WindowLayout::windowShown()
{
    m_shownOnce = true;
    if (m_lessonDock && m_window->width() < kLessonOpenMinWidth)
        m_lessonDock->hide();
    // Moved to another screen (a laptop's window onto the projector): the controls' share of it
    // is measured again.
    if (QWindow *window = m_window->windowHandle())
        connect(window, &QWindow::screenChanged, this, &WindowLayout::fitControlsColumn);
    // Once the window has its size: the controls' column, and a lesson that opens in classroom
    // mode shares the room.
    QTimer::singleShot(0, this, [this] {
        if (m_controls->classroomMode())
            shareClassroomRoom();
        else
            fitControlsColumn();
    });
}

bool WindowLayout::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_window)
        return QObject::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::Show:
        if (!m_shownOnce)
            windowShown();
        break;
    case QEvent::Resize:
        // The column's share follows the window's width (moved from a wide screen to a
        // projector's 1024 pixels, it kept the wide window's 429 pixels).
        if (m_shownOnce)
            shareControlsColumn();
        m_chartsScroll->updateGeometry(); // its least height follows whether the page scrolls
        break;
    case QEvent::LayoutDirectionChange:
        // A QSplitter places its panes for the reading direction only when it is resized: after
        // a switch between Persian and English the panes kept the old order (the two charts
        // stood swapped against a window started in the new language) until the window was
        // resized.
        for (QSplitter *splitter : m_window->findChildren<QSplitter *>())
            splitter->refresh();
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace accumlab::ui
