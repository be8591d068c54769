// Handover: a std::mutex-guarded queue of calls, one posted QEvent per call.
#include "ui/worker/handover.h"

#include <QCoreApplication>
#include <QEvent>

namespace accumlab::ui {

namespace {
const QEvent::Type kRunOne = static_cast<QEvent::Type>(QEvent::registerEventType());
}

Handover::~Handover()
{
    // Calls posted but not run (the thread's event loop ended first) are taken under the lock,
    // like every other read of the queue, and destroyed after it.
    std::deque<std::function<void()>> dropped;
    const std::lock_guard lock(m_mutex);
    dropped.swap(m_calls);
}

void Handover::post(std::function<void()> call)
{
    {
        const std::lock_guard lock(m_mutex);
        m_calls.push_back(std::move(call));
    }
    // One event per call, each taking the oldest: a call that opens a nested event loop (a
    // dialog) lets the later ones run inside it in order, as queued signals would.
    QCoreApplication::postEvent(this, new QEvent(kRunOne));
}

void Handover::customEvent(QEvent *event)
{
    if (event->type() != kRunOne)
        return QObject::customEvent(event);
    std::function<void()> call;
    {
        const std::lock_guard lock(m_mutex);
        if (m_calls.empty())
            return;
        call = std::move(m_calls.front());
        m_calls.pop_front();
    }
    call();
}

} // namespace accumlab::ui
