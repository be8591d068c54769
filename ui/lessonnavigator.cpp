// The lesson navigator (ui/lessonnavigator.h): a name -> widget registry and the walk up the
// widget tree that brings a widget into view.
#include "ui/lessonnavigator.h"

#include <QPainter>
#include <QScrollArea>
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

void scrollTo(QWidget *widget)
{
    for (QWidget *w = widget->parentWidget(); w; w = w->parentWidget())
        if (auto *scroll = qobject_cast<QScrollArea *>(w))
            scroll->ensureWidgetVisible(widget);
}

} // namespace

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
    showPagesAbove(e.shown);
    scrollTo(e.shown);
    if (e.focus)
        e.focus->setFocus(Qt::OtherFocusReason);
    new HighlightOverlay(e.shown);
    return e.shown;
}

} // namespace accumlab::ui
