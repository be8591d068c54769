// The class's mouse guard: one event filter shared by every value control, and focus policies;
// and the doubling slider.
#include "ui/panels/classinput.h"

#include <QAbstractButton>
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

} // namespace

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
