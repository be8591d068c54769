// Painting of the gradient buffers.
#include "ui/charts/gradientbufferview.h"
#include "ui/colors.h"
#include "ui/layout/fontscale.h"

#include "ui/language.h"
#include "ui/localizedtext.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace accumlab::ui {

namespace {

constexpr double kMinAxis = 1.25;      // room to the right of the marker when bars are correct
constexpr double kAxisHeadroom = 1.08; // the longest bar ends short of the edge
// Rows the plot keeps room for before it knows the model's tensors.
constexpr qsizetype kFewRows = 6;
// Around the bars, in pixels; the plot's least width between the names and the ratios, in lines.
constexpr int kMargin = 8;
constexpr double kPlotLeastLines = 6;
constexpr double kLeastWidthLines = 17;

double niceStep(double range)
{
    // 1-2-5 steps giving at most about six ticks.
    const double raw = range / 6.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw)
            return m * mag;
    return 10.0 * mag;
}

} // namespace

GradientBufferView::GradientBufferView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("gradientBufferView"));
    // A plot: never mirrored in a right-to-left layout.
    setLayoutDirection(Qt::LeftToRight);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize GradientBufferView::sizeHint() const { return {560, 260}; }
QSize GradientBufferView::minimumSizeHint() const
{
    // A whole line of text for every row, the axis and the marker's caption (the labels never
    // shrink, so the zoom enlarges them), and the margins.
    const qsizetype rows = std::max({m_names.size(), qsizetype(m_update.event.gradNorms.size()), kFewRows});
    // Wide enough for what paintEvent lays out in a row: the longest tensor name, a plot of
    // kPlotLeastLines, the ratio. Measured from the names rather than a fixed count of lines, so
    // that classroom mode's larger font at zoom 3 does not ask a 1024-pixel page for more than
    // the charts below need (the page scrolled sideways and cut the names).
    const QFontMetrics fm(font());
    int nameWidth = 0;
    for (const QString &n : m_names)
        nameWidth = std::max(nameWidth, fm.horizontalAdvance(n));
    const int ratioWidth = fm.horizontalAdvance(QStringLiteral("000.00×")) + 8;
    // At least 17 lines of the panel's font (not classroom mode's enlarged one), so the
    // sentences under the bars keep their width and the bars their height as they grow.
    const QWidget *panel = parentWidget() ? parentWidget() : this;
    const int width = std::max(lines(panel, kLeastWidthLines), 2 * kMargin + nameWidth + 8 + lines(this, kPlotLeastLines) + ratioWidth);
    return {width, qRound(double(rows + 2) * QFontMetricsF(font()).height()) + 16};
}

void GradientBufferView::setParameterNames(const QStringList &names)
{
    m_names = names;
    updateGeometry(); // its rows' room
    clear();
}

void GradientBufferView::setConfig(const AccumConfig &config)
{
    // Without the division the window's buffers end at N times the full batch: the axis holds
    // that from the start, so the bar grows along a scale that stays put.
    const double reach = config.scaling == Scaling::None ? static_cast<double>(config.accumSteps) : 1.0;
    m_fixedAxis = std::max(kMinAxis, reach * kAxisHeadroom);
    m_ghost = config.scaling != Scaling::Divide || config.bug != AccumBug::None || config.stepEveryMicro;
    clear();
}

void GradientBufferView::setVerdict(const std::optional<QVector<bool>> &differs)
{
    m_differs = differs;
    update();
}

void GradientBufferView::clear()
{
    m_hasData = false;
    m_update = MicroBatchUpdate{};
    m_axisMax = m_fixedAxis;
    update();
}

void GradientBufferView::setUpdate(const MicroBatchUpdate &u)
{
    const bool moreRows =
        qsizetype(u.event.gradNorms.size()) > std::max(qsizetype(m_update.event.gradNorms.size()), m_names.size());
    m_update = u;
    m_hasData = true;
    if (moreRows)
        updateGeometry();
    double longest = 0.0;
    for (double r : tensorRatios())
        longest = std::max(longest, r);
    // The axis only grows past the fixed one (a bar beyond it) until the next reset, so a class
    // sees the overshoot stay put.
    if (longest > m_axisMax)
        m_axisMax = longest * kAxisHeadroom;
    update();
}

QVector<double> GradientBufferView::tensorRatios() const
{
    // The projection onto the full-batch gradient adds up over micro-batches (the norm of a
    // partial sum does not: mid-window it can read 1.13x without any bug).
    if (!m_update.event.fills.empty())
        return QVector<double>(m_update.event.fills.begin(), m_update.event.fills.end());
    QVector<double> ratios;
    const auto &g = m_update.event.gradNorms;
    const auto &r = m_update.referenceNorms;
    for (qsizetype i = 0; i < qsizetype(g.size()) && i < r.size(); ++i)
        ratios << (r[i] > 0.0 ? g[i] / r[i] : 0.0);
    return ratios;
}

double GradientBufferView::measuredRatio() const
{
    if (!m_update.event.fills.empty())
        return m_update.event.fillTotal;
    double g2 = 0.0, r2 = 0.0;
    const auto &g = m_update.event.gradNorms;
    const auto &r = m_update.referenceNorms;
    for (qsizetype i = 0; i < qsizetype(g.size()) && i < r.size(); ++i) {
        g2 += g[i] * g[i];
        r2 += r[i] * r[i];
    }
    return r2 > 0.0 ? std::sqrt(g2 / r2) : 0.0;
}

void GradientBufferView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setLayoutDirection(Qt::LeftToRight); // a painter starts in the application's direction
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.base());
    const int rows = static_cast<int>(std::max<qsizetype>(m_names.size(), qsizetype(m_update.event.gradNorms.size())));
    const QFontMetrics fm(font());

    if (rows == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Press Step or Play to run micro-batches."));
        return;
    }

    int nameWidth = 0;
    for (const QString &n : m_names)
        nameWidth = std::max(nameWidth, fm.horizontalAdvance(n));
    const int ratioWidth = fm.horizontalAdvance(QStringLiteral("000.00×")) + 8;
    const int margin = kMargin;
    const QRect plot(margin + nameWidth + 8, margin + fm.height() + 4,
                     width() - (2 * margin + nameWidth + 8 + ratioWidth), height() - 2 * margin - 2 * fm.height() - 8);
    if (plot.width() < 40 || plot.height() < rows * 6)
        return;
    auto xOf = [&](double ratio) { return plot.left() + plot.width() * std::min(ratio, m_axisMax) / m_axisMax; };

    // Ticks in units of the full-batch norm.
    p.setPen(pal.color(QPalette::Mid));
    const double step = niceStep(m_axisMax);
    for (double t = 0.0; t <= m_axisMax + 1e-9; t += step) {
        const double x = xOf(t);
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        const QString label = tr("%1×").arg(figure(t, ".3g"));
        p.drawText(QRectF(x - 40, plot.bottom() + 2, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, label);
    }

    const double rowHeight = static_cast<double>(plot.height()) / rows;
    // With a bug planted each row holds the bar and, below it, the correct bar's ghost.
    const double barHeight = std::max(4.0, rowHeight * (m_ghost ? 0.4 : 0.55));
    const double ghostHeight = std::max(2.0, rowHeight * 0.2);
    QColor ghostColor = pal.color(QPalette::Text);
    ghostColor.setAlphaF(0.18);
    const QVector<double> ratios = tensorRatios();
    const bool windowClosed = m_hasData && m_update.event.microIndex + 1 == m_update.event.accumSteps;
    for (int i = 0; i < rows; ++i) {
        const double yMid = plot.top() + rowHeight * (i + (m_ghost ? 0.38 : 0.5));
        p.setPen(pal.color(QPalette::Text));
        const QString name = i < m_names.size() ? m_names[i] : QString::number(i);
        p.drawText(QRectF(margin, yMid - fm.height() / 2.0, nameWidth, fm.height()), Qt::AlignRight | Qt::AlignVCenter, name);
        if (i >= ratios.size())
            continue;
        const double ratio = ratios[i];
        // Filling, or a closed window in the verdict's colours for this tensor.
        QColor fill = colors::kMeasured;
        if (windowClosed && m_differs && i < m_differs->size())
            fill = (*m_differs)[i] ? colors::kWarning : colors::kGood;
        const QRectF bar(plot.left(), yMid - barHeight / 2, xOf(ratio) - plot.left(), barHeight);
        p.fillRect(bar, fill);
        if (m_ghost)
            p.fillRect(QRectF(plot.left(), yMid + barHeight / 2 + 1, xOf(1.0) - plot.left(), ghostHeight), ghostColor);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(xOf(ratio) + 4, yMid - fm.height() / 2.0, ratioWidth + 40, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, tr("%1×").arg(figure(ratio, ".2f")));
    }

    // The marker: the full-batch gradient norm of this window.
    QPen marker(QColor(0x11, 0x11, 0x11), 2.5, Qt::DashLine);
    marker.setColor(pal.color(QPalette::Text));
    p.setPen(marker);
    const double xm = xOf(1.0);
    p.drawLine(QPointF(xm, plot.top() - 2), QPointF(xm, plot.bottom()));
    const QString markerText = LanguageManager::natural(tr("full batch"));
    p.drawText(QRectF(xm - 100, margin, 200, fm.height()), Qt::AlignHCenter | Qt::AlignTop, markerText);
    if (m_ghost) {
        // What the faint bars are, on the far side of the marker's label.
        ghostColor.setAlphaF(0.6);
        p.setPen(ghostColor);
        const QString ghostText = LanguageManager::natural(tr("faint: the correct loop's bar"));
        const bool right = xm < plot.left() + plot.width() / 2.0;
        const double room = right ? plot.right() - (xm + 100) : xm - 100 - plot.left();
        const QString shown = fm.elidedText(ghostText, Qt::ElideRight, static_cast<int>(std::max(0.0, room)));
        p.drawText(right ? QRectF(xm + 100, margin, room, fm.height()) : QRectF(plot.left(), margin, room, fm.height()),
                   (right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop, shown);
    }
}

} // namespace accumlab::ui
