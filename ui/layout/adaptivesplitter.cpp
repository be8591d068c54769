// The adaptive splitter.
#include "ui/layout/adaptivesplitter.h"
#include "ui/layout/fontscale.h"

#include <QEvent>
#include <QScrollArea>
#include <QResizeEvent>

#include <algorithm>

namespace accumlab::ui {

AdaptiveSplitter::AdaptiveSplitter(QWidget *parent) : QSplitter(Qt::Horizontal, parent)
{
    setChildrenCollapsible(false);
}

void AdaptiveSplitter::setWideWidth(double width, double stackedHeight)
{
    m_adapts = true;
    m_wideWidth = width;
    m_stackedHeight = stackedHeight;
    adapt(roomFor(this->width()));
}

void AdaptiveSplitter::resizeEvent(QResizeEvent *event)
{
    // Placed in its scroll area by now: its view's resizes are heard from the first of ours.
    if (m_adapts && !m_watchedView) {
        m_watchedView = scrollView();
        if (m_watchedView)
            m_watchedView->installEventFilter(this);
    }
    adapt(roomFor(event->size().width()));
    QSplitter::resizeEvent(event);
}

QWidget *AdaptiveSplitter::scrollView() const
{
    for (QWidget *w = const_cast<AdaptiveSplitter *>(this); w; w = w->parentWidget())
        if (const auto *area = qobject_cast<const QScrollArea *>(w->parentWidget()); area && area->viewport() == w)
            return w;
    return nullptr;
}

// Its own width, or less where the scroll area around shows less of it: side by side, the
// panes' least widths widen the scrolled page to fit them, and a splitter measured against that
// width stayed side by side on a narrower window (moved from a 1366-pixel screen to a
// projector's 1024, zoomed in), the page scrolling sideways.
int AdaptiveSplitter::roomFor(int width) const
{
    const QWidget *view = scrollView();
    const QWidget *page = view ? static_cast<const QScrollArea *>(view->parentWidget())->widget() : nullptr;
    if (!page)
        return width;
    // What the page holds beside this splitter (margins, a pane beside it) keeps its width.
    return std::min(width, view->width() - (page->width() - this->width()));
}

bool AdaptiveSplitter::eventFilter(QObject *watched, QEvent *event)
{
    // A narrower view leaves the scrolled page (and this splitter) as wide as its least width:
    // no resize reaches the splitter, so the view's own resize does.
    if (event->type() == QEvent::Resize && watched == m_watchedView)
        adapt(roomFor(width()));
    return QSplitter::eventFilter(watched, event);
}

void AdaptiveSplitter::changeEvent(QEvent *event)
{
    QSplitter::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        adapt(roomFor(width()));
}

void AdaptiveSplitter::adapt(int width)
{
    if (!m_adapts)
        return;
    int panes = (count() - 1) * handleWidth();
    for (int i = 0; i < count(); ++i)
        panes += widget(i)->minimumSizeHint().expandedTo(widget(i)->minimumSize()).width();
    const Qt::Orientation wanted = width >= std::max(lines(this, m_wideWidth), panes) ? Qt::Horizontal : Qt::Vertical;
    // The minimum height asks the scroll area around for room while stacked; side by side the
    // panes' own minimums hold.
    const bool stackedMinimum = wanted == Qt::Vertical && m_stackedHeight > 0;
    setMinimumHeight(stackedMinimum ? count() * lines(this, m_stackedHeight) + (count() - 1) * handleWidth() : 0);
    if (orientation() != wanted)
        setOrientation(wanted);
}

} // namespace accumlab::ui
