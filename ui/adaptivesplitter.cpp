// The adaptive splitter.
#include "ui/adaptivesplitter.h"

#include <QResizeEvent>

namespace accumlab::ui {

AdaptiveSplitter::AdaptiveSplitter(QWidget *parent) : QSplitter(Qt::Horizontal, parent)
{
    setChildrenCollapsible(false);
}

void AdaptiveSplitter::setWideWidth(int width, int stackedHeight)
{
    m_wideWidth = width;
    m_stackedHeight = stackedHeight;
    adapt(this->width());
}

void AdaptiveSplitter::resizeEvent(QResizeEvent *event)
{
    adapt(event->size().width());
    QSplitter::resizeEvent(event);
}

void AdaptiveSplitter::adapt(int width)
{
    if (m_wideWidth <= 0)
        return;
    const Qt::Orientation wanted = width >= m_wideWidth ? Qt::Horizontal : Qt::Vertical;
    // The minimum height asks the scroll area around for room while stacked; side by side the
    // panes' own minimums hold.
    setMinimumHeight(wanted == Qt::Vertical ? count() * m_stackedHeight + (count() - 1) * handleWidth() : 0);
    if (orientation() != wanted)
        setOrientation(wanted);
}

} // namespace accumlab::ui
