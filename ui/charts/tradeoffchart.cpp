// The trade-off chart.
#include "ui/charts/tradeoffchart.h"
#include "ui/colors.h"

#include "ui/charts/chartscale.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include <QEvent>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>

namespace accumlab::ui {

namespace {


} // namespace

TradeoffChart::TradeoffChart(QWidget *parent) : LessonChart(parent)
{
    setObjectName(QStringLiteral("tradeoffChart"));
    QChart *chart = installChart(this, Qt::AlignBottom);
    setMinimumLines(this, kChartMinWidthLines, 16); // room for its two value axes' titles beside the plot
    m_xAxis = new QLogValueAxis;
    m_xAxis->setBase(2.0);
    m_xAxis->setLabelFormat(QStringLiteral("%.6g"));
    m_msAxis = new QValueAxis;
    m_msAxis->setLabelFormat(QStringLiteral("%.1f"));
    m_msAxis->setLabelsColor(colors::kMeasured);
    m_memAxis = new QValueAxis;
    m_memAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_memAxis->setLabelsColor(colors::kGood);
    chart->addAxis(m_xAxis, Qt::AlignBottom);
    chart->addAxis(m_msAxis, Qt::AlignLeft);
    chart->addAxis(m_memAxis, Qt::AlignRight);
    m_ms = new QLineSeries;
    m_ms->setPen(QPen(colors::kMeasured, 2));
    m_ms->setPointsVisible(true);
    m_mem = new QLineSeries;
    m_mem->setPen(QPen(colors::kGood, 2));
    m_mem->setPointsVisible(true);
    m_budget = new QLineSeries;
    m_budget->setPen(QPen(colors::kWarning, 2, Qt::DashLine));
    m_oom = new QScatterSeries;
    m_oom->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_oom->setMarkerSize(11);
    m_oom->setColor(colors::kOutOfMemory);
    m_oom->setBorderColor(colors::kOutOfMemory);
    // Why a peak has its height: the floor the engine holds (weights, gradients, optimizer state,
    // the window's samples) under the peak line, and a ring on each peak that the optimizer step's
    // temporaries set rather than the activations (a flat stretch of the line).
    m_held = new QLineSeries;
    m_held->setPen(QPen(colors::kGood, 1.5, Qt::DotLine));
    m_stepPeak = new QScatterSeries;
    m_stepPeak->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_stepPeak->setMarkerSize(15);
    m_stepPeak->setColor(Qt::transparent);
    m_stepPeak->setBorderColor(colors::kWarning);
    m_stepPeak->setPen(QPen(colors::kWarning, 2));
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_ms), static_cast<QAbstractSeries *>(m_mem),
                               static_cast<QAbstractSeries *>(m_held), static_cast<QAbstractSeries *>(m_stepPeak),
                               static_cast<QAbstractSeries *>(m_budget), static_cast<QAbstractSeries *>(m_oom)})
        chart->addSeries(s);
    m_ms->attachAxis(m_xAxis);
    m_ms->attachAxis(m_msAxis);
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_mem), static_cast<QAbstractSeries *>(m_budget),
                               static_cast<QAbstractSeries *>(m_oom), static_cast<QAbstractSeries *>(m_held),
                               static_cast<QAbstractSeries *>(m_stepPeak)}) {
        s->attachAxis(m_xAxis);
        s->attachAxis(m_memAxis);
    }
    m_xAxis->setRange(1, 512);
    m_msAxis->setRange(0, 1);
    m_memAxis->setRange(0, 1);
    retranslateUi();
}

int TradeoffChart::fittedPointCount() const { return static_cast<int>(m_ms->count()); }
int TradeoffChart::outOfMemoryPointCount() const { return static_cast<int>(m_oom->count()); }
int TradeoffChart::stepSetPeakCount() const { return static_cast<int>(m_stepPeak->count()); }

void TradeoffChart::setResult(const TradeoffResult &result)
{
    m_result = result;
    double msMax = 0.0, memMax = static_cast<double>(result.budgetBytes);
    for (const TradeoffPoint &p : result.points) {
        msMax = std::max(msMax, p.stepMsMedian);
        if (p.peakMemBytes)
            memMax = std::max(memMax, static_cast<double>(*p.peakMemBytes));
    }
    m_memUnit = memMax >= 8.0 * 1024 * 1024 ? 1024.0 * 1024.0 : 1024.0;
    QList<QPointF> ms, mem, oom, held, stepPeak;
    for (const TradeoffPoint &p : result.points) {
        const auto x = static_cast<double>(p.microBatch);
        if (p.outOfMemory) {
            // On the wall it hit (or at the top of the axis when no wall was drawn).
            oom << QPointF(x, (result.budgetBytes > 0 ? static_cast<double>(result.budgetBytes) : memMax) / m_memUnit);
            continue;
        }
        ms << QPointF(x, p.stepMsMedian);
        if (p.peakMemBytes) {
            mem << QPointF(x, static_cast<double>(*p.peakMemBytes) / m_memUnit);
            held << QPointF(x, static_cast<double>(p.memory.held.total()) / m_memUnit);
            if (p.memory.transient && p.memory.transient->stepSetsPeak())
                stepPeak << QPointF(x, static_cast<double>(*p.peakMemBytes) / m_memUnit);
        }
    }
    m_ms->replace(ms);
    m_mem->replace(mem);
    m_held->replace(held);
    m_stepPeak->replace(stepPeak);
    m_stepPeak->setVisible(!stepPeak.isEmpty()); // no legend entry for what is not there
    m_oom->replace(oom);
    const double xMax = result.points.empty() ? 512.0 : static_cast<double>(result.points.back().microBatch);
    m_xAxis->setRange(0.75, std::max(2.0, xMax * 1.35));
    if (result.budgetBytes > 0)
        m_budget->replace({QPointF(0.75, result.budgetBytes / m_memUnit), QPointF(xMax * 1.35, result.budgetBytes / m_memUnit)});
    else
        m_budget->clear();
    m_msAxis->setRange(0, std::max(1e-3, msMax * 1.1));
    m_memAxis->setRange(0, std::max(1.0, memMax / m_memUnit * 1.1));
    m_msAxis->applyNiceNumbers();
    m_memAxis->applyNiceNumbers();
    retranslateUi();
}

void TradeoffChart::retranslateUi()
{
    const QString effective = m_result ? count(m_result->config.lab.effectiveBatch) : QString();
    retranslateFrame(tr("Memory and time trade-off chart"),
                     m_result ? tr("Trade-off at an effective batch of %1: time per step and peak memory").arg(effective)
                              : tr("Trade-off: time per step and peak memory against the micro-batch"));
    m_xAxis->setTitleText(LanguageManager::natural(tr("micro-batch (log2 axis)")));
    m_msAxis->setTitleText(LanguageManager::natural(tr("ms / step")));
    m_memAxis->setTitleText(LanguageManager::natural(m_memUnit > 1024.0 ? tr("peak, MiB") : tr("peak, KiB")));
    m_ms->setName(LanguageManager::natural(tr("ms per step")));
    m_mem->setName(LanguageManager::natural(tr("measured peak")));
    m_budget->setName(LanguageManager::natural(tr("budget")));
    m_oom->setName(LanguageManager::natural(tr("out of memory")));
    m_held->setName(LanguageManager::natural(tr("resident floor")));
    m_stepPeak->setName(LanguageManager::natural(tr("step's peak")));
}

} // namespace accumlab::ui
