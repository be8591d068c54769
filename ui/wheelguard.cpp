// The wheel guard: one event filter shared by every guarded control.
#include "ui/wheelguard.h"

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
    w->setFocusPolicy(Qt::StrongFocus);
    w->removeEventFilter(&filter); // guarding twice filters once
    w->installEventFilter(&filter);
}

} // namespace

void guardWheel(QWidget *root)
{
    if (isValueControl(root))
        guard(root);
    for (QWidget *w : root->findChildren<QWidget *>())
        if (isValueControl(w))
            guard(w);
}

} // namespace accumlab::ui
