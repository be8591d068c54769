// The loss chart.
#include "ui/charts/losschart.h"

#include "ui/charts/chartscale.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include <QLocale>
#include <QEvent>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTimer>
#include <QValueAxis>

#include <algorithm>
#include <iterator>
#include <cmath>

namespace accumlab::ui {

namespace {
// The step axis keeps QValueAxis's default five ticks (four intervals) and whole-number labels,
// so its upper end is a multiple of four steps: ticks then fall on whole steps (0 1 2 3 4, or
// 0 7 14 21 28) instead of reading "0 0 1 1 1".
constexpr int kStepIntervals = 4;
// Tableau's ten categorical colours (as in matplotlib's tab10), chosen to stay apart.
constexpr QRgb kCurvePalette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                  0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
constexpr int kPaletteSize = static_cast<int>(std::size(kCurvePalette));
constexpr double kGoldenAngleTurns = 0.381966; // 137.5 degrees: each new hue far from the last ones
// What a series draws of its points: every k-th (and the last), at most kMaxDrawnPoints (a
// point per two pixels or so of the chart), so that the equal-work sweep's 9,600 steps at N = 1
// do not stall the GUI thread at every redraw (1,200 a series: 16-18 ms stalls; 300: 5-7 ms,
// as short sweeps). A stride keeps the curve's own noise, where averaging would smooth the
// small batches' curves like the large ones'.
constexpr qsizetype kMaxDrawnPoints = 300;
QList<QPointF> thinned(const QList<QPointF> &points)
{
    if (points.size() <= kMaxDrawnPoints)
        return points;
    const qsizetype stride = (points.size() + kMaxDrawnPoints - 1) / kMaxDrawnPoints;
    QList<QPointF> out;
    out.reserve(points.size() / stride + 1);
    for (qsizetype i = 0; i < points.size(); i += stride)
        out << points[i];
    if ((points.size() - 1) % stride != 0)
        out << points.back();
    return out;
}

double wholeStepRange(double lastStep)
{
    return kStepIntervals * std::max(1.0, std::ceil(lastStep / kStepIntervals));
}
} // namespace

QColor LossChart::curveColor(int index)
{
    if (index >= 0 && index < kPaletteSize)
        return QColor(kCurvePalette[index]);
    const int n = std::max(0, index - kPaletteSize);
    const double hue = std::fmod(0.05 + n * kGoldenAngleTurns, 1.0);
    // Alternate darker and lighter shades so neighbouring hues differ in lightness too.
    return QColor::fromHsvF(static_cast<float>(hue), 0.85f, n % 2 == 0 ? 0.55f : 0.9f);
}

QColor LossChart::seriesColor(int pointIndex) const
{
    const QLineSeries *s = m_series.value(pointIndex);
    return s ? s->color() : QColor();
}

LossChart::LossChart(QWidget *parent) : LessonChart(parent)
{
    setObjectName(QStringLiteral("lossChart"));
    QChart *chart = installChart(this, Qt::AlignRight);
    QFont small = chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    chart->legend()->setFont(small);
    m_xAxis = new QValueAxis;
    m_xAxis->setLabelFormat(QStringLiteral("%.0f")); // localized labels need a precision
    m_xAxis->setTickCount(kStepIntervals + 1);
    m_yAxis = new QValueAxis;
    m_yAxis->setLabelFormat(QStringLiteral("%.3f"));
    chart->addAxis(m_xAxis, Qt::AlignBottom);
    chart->addAxis(m_yAxis, Qt::AlignLeft);
    m_xAxis->setRange(0, wholeStepRange(0));
    m_yAxis->setRange(0, 1);
    showScale(m_yAxis, false); // no loss measured yet: no scale to show
    m_redrawTimer = new QTimer(this);
    m_redrawTimer->setSingleShot(true);
    m_redrawTimer->setInterval(kRedrawIntervalMs);
    connect(m_redrawTimer, &QTimer::timeout, this, &LossChart::redraw);
    retranslateUi();
}

void LossChart::retranslateUi()
{
    retranslateFrame(tr("Loss chart"), tr("Loss per optimizer step"));
    m_xAxis->setTitleText(LanguageManager::natural(tr("samples seen")));
    m_yAxis->setTitleText(LanguageManager::natural(tr("loss")));
    for (auto it = m_series.begin(); it != m_series.end(); ++it)
        it.value()->setName(seriesName(it.key(), m_effective.value(it.key())));
    nameLoggedSeries();
}

void LossChart::nameLoggedSeries()
{
    // One legend entry speaks for every dashed curve.
    bool first = true;
    for (QLineSeries *s : std::as_const(m_loggedSeries)) {
        s->setName(LanguageManager::natural(tr("dashed: logged loss")));
        if (const auto markers = chart()->legend()->markers(s); !markers.isEmpty())
            markers.first()->setVisible(first);
        first = false;
    }
}

void LossChart::clear()
{
    chart()->removeAllSeries();
    m_series.clear();
    m_loggedSeries.clear();
    m_effective.clear();
    m_points.clear();
    m_logged.clear();
    m_dirty.clear();
    m_xAxis->setRange(0, wholeStepRange(0));
    m_yAxis->setRange(0, 1);
    showScale(m_yAxis, false);
}

QLineSeries *LossChart::seriesFor(int pointIndex, qint64 effectiveBatch)
{
    if (auto *s = m_series.value(pointIndex))
        return s;
    auto *s = new QLineSeries;
    chart()->addSeries(s);
    s->setPen(QPen(curveColor(pointIndex), 2));
    s->attachAxis(m_xAxis);
    s->attachAxis(m_yAxis);
    m_series.insert(pointIndex, s);
    m_effective.insert(pointIndex, effectiveBatch);
    auto *logged = new QLineSeries;
    chart()->addSeries(logged);
    logged->attachAxis(m_xAxis);
    logged->attachAxis(m_yAxis);
    logged->setPen(QPen(s->color(), 1.5, Qt::DashLine));
    m_loggedSeries.insert(pointIndex, logged);
    s->setName(seriesName(pointIndex, effectiveBatch));
    nameLoggedSeries();
    return s;
}

QString LossChart::seriesName(int pointIndex, qint64 effectiveBatch) const
{
    const QString batch = count(effectiveBatch);
    return LanguageManager::natural(pointIndex == kTeachingSeries ? tr("Play/Step, batch %1").arg(batch)
                                                                  : tr("batch %1").arg(batch));
}

void LossChart::appendTeachingStep(const StepBatchUpdate &u)
{
    seriesFor(kTeachingSeries, u.effectiveBatch);
    m_points[kTeachingSeries].append(u.losses);
    m_logged[kTeachingSeries].append(u.logged);
    m_dirty.insert(kTeachingSeries);
    scheduleRedraw();
}

void LossChart::clearTeaching()
{
    if (auto *s = m_series.take(kTeachingSeries)) {
        chart()->removeSeries(s);
        delete s;
    }
    if (auto *s = m_loggedSeries.take(kTeachingSeries)) {
        chart()->removeSeries(s);
        delete s;
    }
    m_effective.remove(kTeachingSeries);
    m_points.remove(kTeachingSeries);
    m_logged.remove(kTeachingSeries);
    m_dirty.remove(kTeachingSeries);
    nameLoggedSeries();
    scheduleRedraw();
}

void LossChart::startSeries(int pointIndex, qint64 effectiveBatch)
{
    seriesFor(pointIndex, effectiveBatch);
    m_points[pointIndex].clear();
    m_logged[pointIndex].clear();
    m_dirty.insert(pointIndex);
    scheduleRedraw();
}

void LossChart::appendLosses(const StepBatchUpdate &u)
{
    seriesFor(u.pointIndex, u.effectiveBatch);
    m_points[u.pointIndex].append(u.losses);
    m_logged[u.pointIndex].append(u.logged);
    m_dirty.insert(u.pointIndex);
    scheduleRedraw();
}

void LossChart::finishSeries(int pointIndex, const SweepPoint &p)
{
    seriesFor(pointIndex, p.effectiveBatch);
    QList<QPointF> pts;
    for (size_t i = 0; i < p.losses.size(); ++i)
        pts << QPointF(samplesSeenAfterStep(static_cast<qint64>(i), p.effectiveBatch), p.losses[i]);
    m_points[pointIndex] = pts;
    m_dirty.insert(pointIndex);
    scheduleRedraw();
}

void LossChart::scheduleRedraw()
{
    if (!m_redrawTimer->isActive())
        m_redrawTimer->start();
}

void LossChart::redraw()
{
    for (int i : std::as_const(m_dirty)) {
        if (auto *s = m_series.value(i))
            s->replace(thinned(m_points.value(i)));
        if (auto *s = m_loggedSeries.value(i))
            s->replace(thinned(m_logged.value(i)));
    }
    m_dirty.clear();
    double xMax = 1, yMin = INFINITY, yMax = -INFINITY;
    QList<QList<QPointF>> curves = m_points.values();
    curves += m_logged.values();
    for (const auto &pts : std::as_const(curves)) {
        for (const QPointF &p : pts) {
            if (!std::isfinite(p.y()))
                continue;
            xMax = std::max(xMax, p.x());
            yMin = std::min(yMin, p.y());
            yMax = std::max(yMax, p.y());
        }
    }
    showScale(m_yAxis, yMin <= yMax); // before the ranges, which lay the axes out again
    m_xAxis->setRange(0, wholeStepRange(xMax));
    if (yMin <= yMax) {
        // A flat loss gets a hundredth of its size each side, so its round ticks stay short.
        const double pad = std::max({1e-6, (yMax - yMin) * 0.05, std::abs(yMax) * 0.01});
        // A loss that cannot go below zero (cross-entropy) keeps the axis at zero or above.
        m_yAxis->setRange(yMin >= 0 ? std::max(0.0, yMin - pad) : yMin - pad, yMax + pad);
        // Round ticks (1, 2 or 5 times a power of ten) with as many decimals as their step has:
        // a diverging point's loss of 100,044.8 drew ticks like "100,044.804".
        m_yAxis->applyNiceNumbers();
        const double step = (m_yAxis->max() - m_yAxis->min()) / std::max(1, m_yAxis->tickCount() - 1);
        const int decimals = step > 0 ? std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 6) : 3;
        setScaleFormat(m_yAxis, QStringLiteral("%.%1f").arg(decimals));
    }
}

} // namespace accumlab::ui
