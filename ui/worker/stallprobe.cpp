// The stall probe.
#include "ui/worker/stallprobe.h"

#include <QTimer>

namespace accumlab::ui {

StallProbe::StallProbe(QObject *parent) : QObject(parent)
{
    m_timer = new QTimer(this);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setInterval(kIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &StallProbe::tick);
}

void StallProbe::start()
{
    m_maxStallMs = 0.0;
    m_ticks = 0;
    m_clock.start();
    m_lastNs = 0;
    m_timer->start();
}

void StallProbe::stop() { m_timer->stop(); }

bool StallProbe::isRunning() const { return m_timer->isActive(); }

void StallProbe::tick()
{
    const qint64 now = m_clock.nsecsElapsed();
    const double lateMs = static_cast<double>(now - m_lastNs) / 1e6 - kIntervalMs;
    m_lastNs = now;
    m_maxStallMs = std::max(m_maxStallMs, lateMs);
    ++m_ticks;
}

} // namespace accumlab::ui
