// A Handover lives in one thread and runs there, in the order they were posted, the calls any
// thread posts to it: the window's one way for values to cross a thread (the threading
// contract, ui/worker/enginethreads.h, says who posts what). Touched by every posting thread and its
// own: a call and the values it captured pass through a std::mutex (m_calls), so the thread
// that runs the call reads what the posting thread wrote after a lock ThreadSanitizer sees. The
// wake-up is a posted QEvent that carries nothing.
#pragma once

#include <QObject>

#include <deque>
#include <functional>
#include <mutex>

namespace accumlab::ui {

class Handover final : public QObject {
public:
    using QObject::QObject;
    ~Handover() override;

    // Any thread: `call` runs in this object's thread, after every call posted before it.
    // Calls still queued when the Handover is deleted are dropped without running.
    void post(std::function<void()> call);

protected:
    void customEvent(QEvent *event) override;

private:
    std::mutex m_mutex;
    std::deque<std::function<void()>> m_calls; // guarded by m_mutex
};

} // namespace accumlab::ui
