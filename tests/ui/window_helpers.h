// What the window's tests share: waiting for the engine the controls asked for.
#pragma once

#include "ui/enginecontroller.h"
#include "ui/labrun.h"
#include "ui/mainwindow.h"

#include <QElapsedTimer>
#include <QtTest/QtTest>

#include <functional>

namespace accumlab::ui::test {

// Applies the edits, then waits (up to `timeoutMs`) until the worker reports the engine it
// built from them; false when none that `matches` came.
inline bool waitForEngine(MainWindow &w, const std::function<bool(const AccumConfig &)> &matches, int timeoutMs = 30'000)
{
    w.lab()->applyConfigNow();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        const auto &info = w.controller()->engineInfo();
        if (info && matches(info->config))
            return true;
        QTest::qWait(10);
    }
    return false;
}

} // namespace accumlab::ui::test
