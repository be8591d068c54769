// The label that keeps its height while its sentence changes (steadylabel.h).
#include "ui/steadylabel.h"

#include <QFontMetrics>
#include <QLayout>
#include <QResizeEvent>

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

namespace {

void applyRoomForWrappedText(QWidget *w)
{
    const QLayout *layout = w->layout();
    int least = 0; // none of its own: the widget's least size hint holds
    if (layout && layout->hasHeightForWidth() && w->width() > 0)
        least = std::max(w->minimumSizeHint().height(), layout->totalMinimumHeightForWidth(w->width()));
    if (least != w->minimumHeight())
        w->setMinimumHeight(least);
}

// Measures again on a new width and on a change of the layout's contents (a new sentence, a
// font): the layout asks its widget to lay it out again with a LayoutRequest.
class WrappedTextRoom : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *w = static_cast<QWidget *>(watched);
        if (event->type() == QEvent::LayoutRequest ||
            (event->type() == QEvent::Resize && static_cast<QResizeEvent *>(event)->oldSize().width() != w->width()))
            applyRoomForWrappedText(w);
        return false;
    }
};

} // namespace

void keepRoomForWrappedText(QWidget *w)
{
    w->installEventFilter(new WrappedTextRoom(w));
    applyRoomForWrappedText(w);
}

} // namespace accumlab::ui
