// The class's mouse guard: one event filter shared by every value control, and focus policies;
// the lab's keys after a mouse choice; and the doubling slider.
#include "ui/panels/classinput.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPointer>
#include <QTabBar>
#include <QTextEdit>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>
#include <QtGlobal>

#include <algorithm>
#include <cmath>

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

// The power of two `doublings` steps from `value`: up from 5 is 8 (one) or 16 (two), down from
// 5 is 4 (one) or 2 (two); from a power of two itself one step is its double or half.
int doublingStep(int value, int doublings)
{
    const int exponent = value <= 1 ? 0 : static_cast<int>(std::floor(std::log2(double(value))));
    const bool isPower = (1 << exponent) == value;
    const int target = doublings > 0 ? exponent + doublings : exponent + doublings + (isPower ? 0 : 1);
    return 1 << std::clamp(target, 0, 30);
}

// The power of two nearest `value` by ratio (ties go up): 5 -> 4, 6 -> 8, 3 -> 4.
int nearestPowerOfTwo(int value)
{
    const int below = doublingStep(value + 1, -1); // the largest power of two <= value
    return qint64(value) * value >= 2 * qint64(below) * below ? below * 2 : below; // value >= below·√2
}

// Where the teacher types: an editable line edit (a spin box's own among them) or text edit.
// A press on a text edit lands on its viewport.
bool isTypingPlace(const QWidget *w)
{
    if (const auto *edit = qobject_cast<const QLineEdit *>(w))
        return !edit->isReadOnly();
    const QWidget *parent = w->parentWidget();
    if (const auto *text = qobject_cast<const QTextEdit *>(parent); text && text->viewport() == w)
        return !text->isReadOnly();
    return false;
}

// Space and Right for the lab, unless the control the keyboard reached takes them itself.
class LabKeys final : public QObject {
public:
    explicit LabKeys(QWidget *window) : QObject(window), m_window(window) { qApp->installEventFilter(this); }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *widget = qobject_cast<QWidget *>(watched);
        if (!widget || widget->window() != m_window) // a combo box's list is a window of its own
            return QObject::eventFilter(watched, event);
        switch (event->type()) {
        case QEvent::MouseButtonPress:
        case QEvent::MouseButtonDblClick:
            // Qt has moved the focus by now (a click-focus control took it). A click into a text
            // field is the start of typing; anything else is a choice made with the mouse.
            m_keyboardLast = false;
            m_owner = isTypingPlace(widget) ? QApplication::focusWidget() : nullptr;
            break;
        case QEvent::FocusIn:
            switch (static_cast<QFocusEvent *>(event)->reason()) {
            case Qt::TabFocusReason:
            case Qt::BacktabFocusReason:
            case Qt::ShortcutFocusReason:
            case Qt::OtherFocusReason:
                // By the keyboard or the program. Qt moves the focus by "Tab" itself when the
                // focused widget hides (the quiz's Check after a click): that one is no key's.
                if (m_keyboardLast)
                    m_owner = widget;
                break;
            default: break; // a click (decided above), a closing popup, a window coming back
            }
            break;
        case QEvent::ShortcutOverride: {
            m_keyboardLast = true;
            const auto *key = static_cast<QKeyEvent *>(event);
            const bool space = key->key() == Qt::Key_Space, right = key->key() == Qt::Key_Right;
            if (key->modifiers() != Qt::NoModifier || !(space || right))
                break;
            if (widget != m_owner) {
                // Kept from the control, which would take it (a spin box's text takes Right).
                event->ignore();
                return true;
            }
            // Accepting the override hands the key to the focused control instead of the shortcut.
            const bool takesBoth = qobject_cast<QAbstractButton *>(widget) || qobject_cast<QComboBox *>(widget) ||
                                   qobject_cast<QAbstractItemView *>(widget) ||
                                   qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QLineEdit *>(widget) ||
                                   qobject_cast<QTextEdit *>(widget);
            const bool takesRight =
                takesBoth || qobject_cast<QAbstractSlider *>(widget) || qobject_cast<QTabBar *>(widget);
            if ((space && takesBoth) || (right && takesRight)) {
                event->accept();
                return true;
            }
            break;
        }
        case QEvent::KeyPress:
            m_keyboardLast = true;
            // A key the focused spin box or field took (a digit, Backspace): the teacher types in it.
            if (widget == QApplication::focusWidget() &&
                (qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QLineEdit *>(widget)))
                m_owner = widget;
            break;
        default: break;
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QWidget *m_window;
    QPointer<QWidget> m_owner; // the control working by keyboard: reached by keys, or typed in
    bool m_keyboardLast = true; // the last input was a key, not a click
};

} // namespace

void guardLabKeys(QWidget *window) { new LabKeys(window); }

void stepInDoublings(QAbstractSlider *slider)
{
    QObject::connect(slider, &QAbstractSlider::actionTriggered, slider, [slider](int action) {
        // Qt has moved sliderPosition() by the linear step and not yet set the value: the
        // position is put where the doubling goes instead (QAbstractSlider's documented hook).
        const int from = slider->value();
        int to;
        switch (action) {
        case QAbstractSlider::SliderSingleStepAdd: to = doublingStep(from, 1); break;
        case QAbstractSlider::SliderSingleStepSub: to = doublingStep(from, -1); break;
        case QAbstractSlider::SliderPageStepAdd: to = doublingStep(from, 2); break;
        case QAbstractSlider::SliderPageStepSub: to = doublingStep(from, -2); break;
        case QAbstractSlider::SliderMove:
            // A drag snaps; a wheel (a move with the handle not held) steps one doubling its way.
            if (slider->isSliderDown())
                to = nearestPowerOfTwo(slider->sliderPosition());
            else if (slider->sliderPosition() != from)
                to = doublingStep(from, slider->sliderPosition() > from ? 1 : -1);
            else
                return;
            break;
        default: return; // Home, End
        }
        slider->setSliderPosition(std::clamp(to, slider->minimum(), slider->maximum()));
    });
}

void guardClassInput(QWidget *root)
{
    guard(root);
    for (QWidget *w : root->findChildren<QWidget *>())
        guard(w);
}

} // namespace accumlab::ui
