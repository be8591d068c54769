// See statusreporter.h.
#include "ui/statusreporter.h"

#include <QGuiApplication>
#include <QMessageBox>
#include <QStatusBar>
#include <QWidget>

#include <cstdio>

namespace accumlab::ui {

StatusReporter::StatusReporter(QWidget *window, QStatusBar *bar)
    : QObject(window), m_window(window), m_bar(bar),
      m_errorsToTerminal(QGuiApplication::platformName() == QLatin1String("offscreen"))
{
}

void StatusReporter::say(std::function<QString()> message)
{
    m_message = std::move(message);
    m_bar->showMessage(m_message());
}

void StatusReporter::showError(const QString &message)
{
    m_lastError = message;
    m_message = nullptr;
    m_bar->showMessage(message);
    if (m_errorsToTerminal) {
        std::fprintf(stderr, "accumlab: %s\n", qPrintable(message));
        return;
    }
    QMessageBox::warning(m_window, tr("AccumLab"), message);
}

void StatusReporter::retranslate()
{
    if (m_message)
        m_bar->showMessage(m_message());
    else
        m_bar->clearMessage();
}

} // namespace accumlab::ui
