// The lesson navigator (ui/panels/lessonnavigator.h): a name -> widget registry and the walk up the
// widget tree that brings a widget into view.
#include "ui/panels/lessonnavigator.h"

#include <QCoreApplication>
#include <QEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimer>
#include <QWidget>

#include <algorithm>

namespace accumlab::ui {

namespace {

constexpr int kHighlightMs = 1800; // how long a lesson link outlines its target
const QColor kHighlightColor(0xf5, 0xa6, 0x23);

// An outline drawn over a widget for a moment, then gone; clicks pass through it.
class HighlightOverlay : public QWidget {
public:
    explicit HighlightOverlay(QWidget *target) : QWidget(target)
    {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setGeometry(target->rect());
        raise();
        show();
        QTimer::singleShot(kHighlightMs, this, &QObject::deleteLater);
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.setPen(QPen(kHighlightColor, 4));
        p.drawRect(rect().adjusted(2, 2, -2, -2));
    }
};

// Every page that holds `widget` becomes the current one, outermost last (a tab widget's pages
// sit in its own stacked widget: the tab widget switches them, so its tab bar follows).
void showPagesAbove(QWidget *widget)
{
    for (QWidget *child = widget; child && child->parentWidget(); child = child->parentWidget()) {
        auto *stack = qobject_cast<QStackedWidget *>(child->parentWidget());
        if (!stack)
            continue;
        if (auto *tabs = qobject_cast<QTabWidget *>(stack->parentWidget()))
            tabs->setCurrentWidget(child);
        else
            stack->setCurrentWidget(child);
    }
}

// The part of `widget` its parents let through, in the coordinates of `scroll`'s content.
QRect shownIn(const QWidget *widget, const QScrollArea *scroll)
{
    QRect r = widget->rect();
    for (const QWidget *w = widget; w && w != scroll->widget(); w = w->parentWidget()) {
        r.translate(w->pos());
        if (const QWidget *parent = w->parentWidget(); parent && parent != scroll->widget())
            r &= parent->rect();
    }
    return r;
}

// Every scroll area above `widget`, innermost first, scrolls to it: sideways as Qt's
// ensureWidgetVisible() does it (in both directions of text); up and down to all of its shown
// part where that fits, else to its top (a chart's title, a panel's heading).
// ensureWidgetVisible() alone aims at a widget's text cursor where it has one (a chart view's is
// its corner: a chart came into view as a strip of 50 pixels) and centres a tall widget.
void scrollTo(QWidget *widget)
{
    for (QWidget *w = widget->parentWidget(); w; w = w->parentWidget()) {
        auto *scroll = qobject_cast<QScrollArea *>(w);
        if (!scroll || !scroll->widget())
            continue;
        scroll->ensureWidgetVisible(widget);
        const QRect shown = shownIn(widget, scroll);
        if (shown.isEmpty())
            continue;
        QScrollBar *bar = scroll->verticalScrollBar();
        const int room = scroll->viewport()->height();
        if (shown.top() < bar->value() || shown.height() > room)
            bar->setValue(shown.top());
        else if (shown.bottom() >= bar->value() + room)
            bar->setValue(shown.bottom() + 1 - room);
    }
}

} // namespace

void bringIntoView(QWidget *widget)
{
    showPagesAbove(widget);
    // A page just switched to lays itself out on posted events (the charts' tab takes a chart's
    // height only then, in a page that scrolls): scroll to where it then lies.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    scrollTo(widget);
}

LessonNavigator::LessonNavigator(QObject *parent) : QObject(parent) {}

void LessonNavigator::add(const QString &target, QWidget *shown, QWidget *focus)
{
    Q_ASSERT(shown);
    m_targets.insert(target, Entry{shown, focus});
}

bool LessonNavigator::contains(const QString &target) const
{
    const auto it = m_targets.constFind(target);
    return it != m_targets.cend() && it->shown;
}

QStringList LessonNavigator::targets() const
{
    QStringList names;
    for (auto it = m_targets.cbegin(); it != m_targets.cend(); ++it)
        if (it->shown)
            names << it.key();
    std::sort(names.begin(), names.end());
    return names;
}

QWidget *LessonNavigator::reveal(const QString &target)
{
    if (!contains(target))
        return nullptr;
    const Entry &e = m_targets[target];
    bringIntoView(e.shown);
    if (e.focus)
        e.focus->setFocus(Qt::OtherFocusReason);
    new HighlightOverlay(e.shown);
    return e.shown;
}

} // namespace accumlab::ui
