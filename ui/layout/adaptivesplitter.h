// A splitter that lays its panes side by side where it has room for them and one above the
// other where it does not, so that a projector's narrow window stacks two charts (in a scroll
// area) instead of squeezing both until Qt Charts elides their labels. It is not a layout
// engine: it only picks the orientation from its own width, or from the width a scroll area
// around shows of it where that is less.
#pragma once

#include <QPointer>
#include <QSplitter>

namespace accumlab::ui {

class AdaptiveSplitter : public QSplitter {
    Q_OBJECT
public:
    explicit AdaptiveSplitter(QWidget *parent = nullptr);
    // Side by side from `width` lines of its font up (fontscale.h), and only where the panes'
    // least widths fit side by side; stacked below that. Each pane keeps `stackedHeight` lines
    // at least while stacked (0: its own least height), and the scroll area around the splitter
    // then scrolls. In lines, so that a zoomed window stacks sooner.
    void setWideWidth(double width, double stackedHeight);
    // Side by side wherever the panes' least widths fit, each pane at its own least height
    // when stacked: setWideWidth(0, 0), named.
    void stackWhenPanesDoNotFit() { setWideWidth(0, 0); }

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override; // the scroll area's view resized

private:
    void adapt(int width);
    QWidget *scrollView() const; // the viewport of the nearest scroll area around, if any
    int roomFor(int width) const;

    bool m_adapts = false; // from the first setWideWidth on
    double m_wideWidth = 0;
    double m_stackedHeight = 0;
    QPointer<QWidget> m_watchedView; // scrollView(), once found
};

} // namespace accumlab::ui
