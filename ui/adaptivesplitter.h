// A splitter that lays its panes side by side where it has room for them and one above the
// other where it does not, so that a projector's narrow window stacks two charts (in a scroll
// area) instead of squeezing both until Qt Charts elides their labels. It is not a layout
// engine: it only picks the orientation from its own width.
#pragma once

#include <QSplitter>

namespace accumlab::ui {

class AdaptiveSplitter : public QSplitter {
    Q_OBJECT
public:
    explicit AdaptiveSplitter(QWidget *parent = nullptr);
    // Side by side from `width` pixels up, stacked below it. Each pane keeps `stackedHeight`
    // pixels at least while stacked (the scroll area around the splitter then scrolls).
    void setWideWidth(int width, int stackedHeight);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void adapt(int width);

    int m_wideWidth = 0;
    int m_stackedHeight = 0;
};

} // namespace accumlab::ui
