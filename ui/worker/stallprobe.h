// A GUI-responsiveness probe: a timer in the GUI thread that measures how late each of its
// own ticks fires. The worst lateness while armed is the longest the GUI thread was busy
// (the window froze) during, for example, a sweep. GUI thread only.
#pragma once

#include <QElapsedTimer>
#include <QObject>

class QTimer;

namespace accumlab::ui {

class StallProbe : public QObject {
    Q_OBJECT
public:
    static constexpr int kIntervalMs = 5;

    explicit StallProbe(QObject *parent = nullptr);
    void start(); // resets the worst stall
    void stop();
    bool isRunning() const;
    double maxStallMs() const { return m_maxStallMs; }
    // Ticks measured since the last start(): 0 means nothing was measured, and maxStallMs()
    // is then no figure to show.
    qint64 ticks() const { return m_ticks; }

private:
    void tick();

    QTimer *m_timer = nullptr;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    double m_maxStallMs = 0.0;
    qint64 m_ticks = 0;
};

} // namespace accumlab::ui
