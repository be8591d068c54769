// How the window's tests wait: on events, never on time. settle() delivers what is posted until
// nothing more is laid out, awaitLayout() also lets a window's widgets run their coalesced
// redraws, and flushEngine() knows that every answer the engine's worker owes has arrived
// (EngineController::flush()), which is how a test learns that nothing more follows.
#pragma once

#include "ui/worker/enginecontroller.h"

#include <QCoreApplication>
#include <QEvent>
#include <QSignalSpy>
#include <QTimer>
#include <QWidget>
#include <QtTest/QtTest>

namespace accumlab::ui::test {

// Counts, while it lives, the events that move, size, show, hide or re-text a widget or a
// chart's item.
class LayoutEvents final : public QObject {
public:
    LayoutEvents() { QCoreApplication::instance()->installEventFilter(this); }
    ~LayoutEvents() override { QCoreApplication::instance()->removeEventFilter(this); }
    int count = 0;

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        switch (event->type()) {
        case QEvent::LayoutRequest:
        case QEvent::Resize:
        case QEvent::Move:
        case QEvent::Show:
        case QEvent::Hide:
        case QEvent::Polish:
        case QEvent::PolishRequest:
        case QEvent::FontChange:
        case QEvent::StyleChange:
        case QEvent::LanguageChange:
        case QEvent::LayoutDirectionChange:
        case QEvent::ContentsRectChange:
        case QEvent::GraphicsSceneResize:
        case QEvent::GraphicsSceneMove: ++count; break;
        default: break;
        }
        return false;
    }
};

// Rounds of delivery settle() runs at most: a layout that is still changing after this many
// is oscillating.
constexpr int kSettleRounds = 50;

// Delivers the posted events and those they post in turn (a language change's LanguageChange,
// a label's new height asking its parents' layouts again, a chart laying out its axes) until a
// round delivers none that moves, sizes or re-texts anything. False when that never happens.
inline bool settle()
{
    for (int round = 0; round < kSettleRounds; ++round) {
        LayoutEvents events;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        if (events.count == 0)
            return true;
    }
    return false;
}

// Whether a widget of `window` still holds work back on a single-shot timer (a chart's
// coalesced redraw).
inline bool redrawPending(const QWidget *window)
{
    for (const QTimer *timer : window->findChildren<QTimer *>())
        if (timer->isActive() && timer->isSingleShot() && qobject_cast<const QWidget *>(timer->parent()))
            return true;
    return false;
}

// The upper bound of awaitLayout: a coalesced redraw waits tens of milliseconds.
constexpr int kLayoutTimeoutMs = 10'000;

// The window laid out as it will stay: its widgets' coalesced redraws have run and settle()
// found nothing more to lay out. False when that did not come within `timeoutMs`.
inline bool awaitLayout(const QWidget *window, int timeoutMs = kLayoutTimeoutMs)
{
    return QTest::qWaitFor([&] { return !redrawPending(window) && settle(); }, timeoutMs);
}

// Every answer to what the engine was asked before this call has arrived: the answer to
// EngineController::flush(), within `timeoutMs` (the worker finishes the job it runs first).
inline bool flushEngine(EngineController &controller, int timeoutMs = 60'000)
{
    QSignalSpy flushed(&controller, &EngineController::flushed);
    const quint64 serial = controller.flush();
    return QTest::qWaitFor(
        [&] {
            for (const QList<QVariant> &answer : std::as_const(flushed))
                if (answer.at(0).value<quint64>() == serial)
                    return true;
            return false;
        },
        timeoutMs);
}

} // namespace accumlab::ui::test
