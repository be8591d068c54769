// The lesson navigator: the registry of what a lesson link may point at. The panels register
// their own widgets under the lesson's target names ("control/accumSteps", "view/memory");
// revealing a target brings it into view wherever it lives (every tab and stacked page above it
// switches to the page that holds it, every scroll area above it scrolls to it), gives the
// focus widget the keyboard focus and outlines the target for a moment. No tab index is known
// here or in the window: moving a panel moves its links with it. GUI thread only.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>

class QWidget;

namespace accumlab::ui {

class LessonNavigator : public QObject {
    Q_OBJECT
public:
    explicit LessonNavigator(QObject *parent = nullptr);

    // `shown` is brought into view and outlined; `focus` (when given) takes the keyboard focus.
    // A second registration of a name replaces the first.
    void add(const QString &target, QWidget *shown, QWidget *focus = nullptr);
    bool contains(const QString &target) const;
    QStringList targets() const; // sorted
    // Reveals `target` and returns its widget; nullptr for a name nobody registered (or whose
    // widget is gone).
    QWidget *reveal(const QString &target);

private:
    struct Entry {
        QPointer<QWidget> shown;
        QPointer<QWidget> focus;
    };
    QHash<QString, Entry> m_targets;
};

// What reveal() does before the focus and the outline: every tab and stacked page above `widget`
// switches to the page that holds it, and every scroll area above it scrolls to it. The window
// uses it for what it shows by itself (a sweep's chart, a page asked for on the command line).
void bringIntoView(QWidget *widget);

} // namespace accumlab::ui
