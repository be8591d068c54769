// The base of the window's four plots (loss, throughput, memory timeline, trade-off): what
// each one did by hand on a language change. A LanguageChange event calls the chart's own
// retranslateUi(); retranslateFrame() names the view for screen readers, sets the chart's
// title and formats its ticks and legends with the UI's digits (Qt Charts formats numbers with
// the chart's locale, which does not follow the widget's by itself). GUI thread only.
#pragma once

#include <QChartView>

namespace accumlab::ui {

class LessonChart : public QChartView {
    Q_OBJECT
public:
    using QChartView::QChartView;

protected:
    void changeEvent(QEvent *event) override;
    // Every text of the chart in the current language; called by the subclass's constructor
    // (and wherever its texts change) and on every language change.
    virtual void retranslateUi() = 0;
    // The frame every chart shares: its accessible name, its title (natural text direction) and
    // the locale of its numbers. `title` is the translated title.
    void retranslateFrame(const QString &accessibleName, const QString &title);
};

} // namespace accumlab::ui
