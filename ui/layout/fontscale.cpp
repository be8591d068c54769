// Scaling fonts by a ratio (see fontscale.h).
#include "ui/layout/fontscale.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFontMetricsF>
#include <QSizeF>
#include <QLegend>
#include <QList>
#include <QWidget>

#include <utility>

namespace accumlab::ui {

namespace {

QFont scaled(QFont font, double ratio)
{
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * ratio);
    else if (font.pixelSize() > 0)
        font.setPixelSize(qRound(font.pixelSize() * ratio));
    return font;
}

} // namespace

namespace {

// Every font to set, read before any is set.
QList<std::pair<QWidget *, QFont>> scaledFonts(const QList<QWidget *> &widgets, double ratio)
{
    QList<std::pair<QWidget *, QFont>> fonts;
    for (QWidget *top : widgets) {
        fonts.append({top, scaled(top->font(), ratio)});
        for (QWidget *w : top->findChildren<QWidget *>())
            if (w->testAttribute(Qt::WA_SetFont))
                fonts.append({w, scaled(w->font(), ratio)});
    }
    return fonts;
}

void scaleCharts(const QList<QWidget *> &widgets, double ratio)
{
    for (QWidget *top : widgets) {
        if (auto *view = qobject_cast<QChartView *>(top))
            scaleChartFonts(view->chart(), ratio);
        for (QChartView *view : top->findChildren<QChartView *>())
            scaleChartFonts(view->chart(), ratio);
    }
}

} // namespace

void scaleFonts(const QList<QWidget *> &widgets, double ratio)
{
    const auto fonts = scaledFonts(widgets, ratio);
    for (const auto &[w, font] : fonts)
        w->setFont(font);
    scaleCharts(widgets, ratio);
}

void scaleChartFonts(QChart *chart, double ratio)
{
    chart->setTitleFont(scaled(chart->titleFont(), ratio));
    chart->legend()->setFont(scaled(chart->legend()->font(), ratio));
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsFont(scaled(axis->labelsFont(), ratio));
        axis->setTitleFont(scaled(axis->titleFont(), ratio));
    }
}

void scaleAllFonts(QWidget *root, double ratio)
{
    // Only the fonts widgets set for themselves are set again (one that only set bold still
    // follows its parent's size); the others follow the application font.
    QList<std::pair<QWidget *, QFont>> own;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *w : std::as_const(widgets))
        if (w->testAttribute(Qt::WA_SetFont))
            own.append({w, scaled(w->font(), ratio)});
    QApplication::setFont(scaled(QApplication::font(), ratio));
    for (const auto &[w, font] : std::as_const(own))
        w->setFont(font);
    scaleCharts({root}, ratio);
}

int lines(const QWidget *w, double n) { return qRound(n * QFontMetricsF(w->font()).lineSpacing()); }

namespace {

const char *const kMinimumLines = "accumlabMinimumLines"; // a QSizeF of lines on the widget

void applyMinimumLines(QWidget *w)
{
    const QSizeF want = w->property(kMinimumLines).toSizeF();
    w->setMinimumSize(want.width() > 0 ? lines(w, want.width()) : 0, want.height() > 0 ? lines(w, want.height()) : 0);
}

// Sets the minimum again when the widget's font changes (the zoom, a language's font).
class MinimumLinesKeeper : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::FontChange)
            applyMinimumLines(static_cast<QWidget *>(watched));
        return false;
    }
};

} // namespace

void setMinimumLines(QWidget *w, double width, double height)
{
    if (!w->property(kMinimumLines).isValid())
        w->installEventFilter(new MinimumLinesKeeper(w));
    w->setProperty(kMinimumLines, QSizeF(width, height));
    applyMinimumLines(w);
}

} // namespace accumlab::ui
