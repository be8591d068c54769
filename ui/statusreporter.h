// What the window says in its status bar: a message kept as how to say it (so a language or
// digit switch says it again in the new language), and errors, which also go to a message box
// on screen or to stderr in the scripted mode. One per window; the panels and the File menu's
// work report through it. GUI thread only.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QStatusBar;
class QWidget;

namespace accumlab::ui {

class StatusReporter : public QObject {
    Q_OBJECT
public:
    // `window` parents the message boxes; `bar` is its status bar.
    StatusReporter(QWidget *window, QStatusBar *bar);

    // Shows `message()` now and again after each retranslate().
    void say(std::function<QString()> message);
    // A sentence already in the UI language: shown in the status bar (until the next language
    // switch, which clears it rather than leave it in the other language) and in a message box,
    // or on stderr when errors go to the terminal.
    void showError(const QString &message);
    // Says the kept message again in the current language, or clears an error's.
    void retranslate();
    const QString &lastError() const { return m_lastError; }
    // The scripted mode (and the offscreen platform, where a message box would wait for ever)
    // prints errors instead.
    void setErrorsToTerminal(bool on) { m_errorsToTerminal = on; }
    bool errorsToTerminal() const { return m_errorsToTerminal; }

private:
    QWidget *m_window;
    QStatusBar *m_bar;
    std::function<QString()> m_message;
    QString m_lastError;
    bool m_errorsToTerminal = false;
};

} // namespace accumlab::ui
