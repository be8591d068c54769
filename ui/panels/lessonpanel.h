// The lesson: gradient accumulation explained in short sections, read from
// resources/content/lesson.json in the UI language and digits, each ending with links to the
// live control or chart that shows it. A link is a target string ("control/accumSteps",
// "view/throughput"); the window decides what to show for it.
// GUI thread only.
#pragma once

#include <QStringList>
#include <QWidget>

class QTextBrowser;
class QUrl;

namespace accumlab::ui {

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget *parent = nullptr);

    QTextBrowser *browser() const { return m_browser; }
    // Every link target the lesson contains, in order of appearance.
    QStringList linkTargets() const;
    // Follows a link as a click would.
    void activate(const QString &target);

signals:
    void targetActivated(const QString &target);

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void onAnchorClicked(const QUrl &url);

    QTextBrowser *m_browser = nullptr;
};

} // namespace accumlab::ui
