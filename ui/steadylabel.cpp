// The label that keeps its height while its sentence changes (steadylabel.h).
#include "ui/steadylabel.h"

#include <QFontMetrics>
#include <QLayout>

#include <algorithm>

namespace accumlab::ui {

SteadyLabel::SteadyLabel(QWidget *parent) : QLabel(parent) { setWordWrap(true); }

void SteadyLabel::setReservedTexts(const QStringList &texts)
{
    m_reserved = texts;
    updateGeometry();
}

int SteadyLabel::reservedHeight(int width) const
{
    // The text's own width at `width`, as QLabel lays it out: less the margins and indent.
    const QMargins m = contentsMargins();
    const int inner = std::max(1, width - m.left() - m.right() - 2 * margin() - std::max(indent(), 0));
    const QFontMetrics fm(font());
    int tallest = 0;
    for (const QString &text : m_reserved)
        tallest = std::max(tallest, fm.boundingRect(QRect(0, 0, inner, 1 << 20), Qt::TextWordWrap | int(alignment()), text).height());
    return tallest + m.top() + m.bottom() + 2 * margin();
}

int SteadyLabel::heightForWidth(int width) const
{
    return std::max(QLabel::heightForWidth(width), reservedHeight(width));
}

QSize leastSizeAtWidth(const QWidget *w, QSize least)
{
    if (w->layout() && w->layout()->hasHeightForWidth() && w->width() > 0)
        least.setHeight(std::max(least.height(), w->layout()->totalMinimumHeightForWidth(w->width())));
    return least;
}

} // namespace accumlab::ui
