// The class's mouse guard: one event filter shared by every value control, and focus policies.
#include "ui/classinput.h"

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>

namespace accumlab::ui {

namespace {

class WheelGuard final : public QObject {
public:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::Wheel || static_cast<QWidget *>(watched)->hasFocus())
            return QObject::eventFilter(watched, event);
        // Not delivered to the control, and not accepted: QApplication passes a wheel that no
        // one accepted on to the parents, so the scroll area around the control scrolls.
        event->ignore();
        return true;
    }
};

// A scroll bar is a slider too, but the wheel is its own work: it stays unguarded.
bool isValueControl(const QWidget *w)
{
    return (qobject_cast<const QAbstractSlider *>(w) && !qobject_cast<const QScrollBar *>(w)) ||
           qobject_cast<const QComboBox *>(w) || qobject_cast<const QAbstractSpinBox *>(w);
}

void guard(QWidget *w)
{
    static WheelGuard filter; // outlives every widget: it is never the parent of one
    if (isValueControl(w)) {
        w->setFocusPolicy(Qt::StrongFocus);
        w->removeEventFilter(&filter); // guarding twice filters once
        w->installEventFilter(&filter);
    } else if (qobject_cast<QAbstractButton *>(w) && w->focusPolicy() != Qt::NoFocus) {
        w->setFocusPolicy(Qt::TabFocus);
    }
}

} // namespace

void guardClassInput(QWidget *root)
{
    guard(root);
    for (QWidget *w : root->findChildren<QWidget *>())
        guard(w);
}

} // namespace accumlab::ui
