// The label that keeps its height while its sentence changes (steadylabel.h).
#include "ui/layout/steadylabel.h"

#include <QAbstractItemModel>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLayout>
#include <QResizeEvent>
#include <QScrollBar>
#include <QTableView>

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
    QLayout *layout = w->layout();
    int least = 0; // none of its own: the widget's least size hint holds
    if (layout && layout->hasHeightForWidth() && w->width() > 0)
        least = std::max(w->minimumSizeHint().height(), layout->totalMinimumHeightForWidth(w->width()));
    if (least == w->minimumHeight())
        return;
    w->setMinimumHeight(least);
    // A splitter can resize `w` to that height at once, inside this event, while its layout
    // still waits to be laid out: it would keep its contents at the old height. Laid out again
    // from the size it has now (the LayoutRequest this posts finds the same least height).
    if (layout)
        layout->invalidate();
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

void applyRoomForEveryRow(QTableView *t)
{
    t->resizeRowsToContents();
    const QHeaderView *header = t->horizontalHeader();
    int least = 2 * t->frameWidth() + t->verticalHeader()->length();
    if (!header->isHidden())
        least += std::max(header->height(), header->sizeHint().height());
    if (t->horizontalScrollBar()->isVisible())
        least += t->horizontalScrollBar()->height();
    if (least != t->minimumHeight())
        t->setMinimumHeight(least);
}

// After the table's own handling of the event (its columns take the new width first), so
// queued.
void measureRowsLater(QTableView *t)
{
    QMetaObject::invokeMethod(t, [t] { applyRoomForEveryRow(t); }, Qt::QueuedConnection);
}

class EveryRowRoom : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *t = static_cast<QTableView *>(watched);
        if ((event->type() == QEvent::Resize && static_cast<QResizeEvent *>(event)->oldSize().width() != t->width()) ||
            event->type() == QEvent::FontChange || event->type() == QEvent::Show)
            measureRowsLater(t);
        return false;
    }
};

} // namespace

void keepRoomForEveryRow(QTableView *table)
{
    table->installEventFilter(new EveryRowRoom(table));
    QAbstractItemModel *model = table->model();
    const auto later = [table] { measureRowsLater(table); };
    QObject::connect(model, &QAbstractItemModel::rowsInserted, table, later);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, table, later);
    QObject::connect(model, &QAbstractItemModel::modelReset, table, later);
    QObject::connect(model, &QAbstractItemModel::dataChanged, table, later);
    QObject::connect(model, &QAbstractItemModel::layoutChanged, table, later);
    applyRoomForEveryRow(table);
}

void keepRoomForWrappedText(QWidget *w)
{
    w->installEventFilter(new WrappedTextRoom(w));
    applyRoomForWrappedText(w);
}

} // namespace accumlab::ui
