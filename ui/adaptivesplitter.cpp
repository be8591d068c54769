// The adaptive splitter.
#include "ui/adaptivesplitter.h"
#include "ui/fontscale.h"

#include <QEvent>
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
    adapt(this->width());
}

void AdaptiveSplitter::resizeEvent(QResizeEvent *event)
{
    adapt(event->size().width());
    QSplitter::resizeEvent(event);
}

void AdaptiveSplitter::changeEvent(QEvent *event)
{
    QSplitter::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        adapt(width());
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
