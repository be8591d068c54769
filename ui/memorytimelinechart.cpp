// The memory timeline chart.
#include "ui/memorytimelinechart.h"
#include "ui/colors.h"

#include "ui/chartscale.h"
#include "ui/language.h"

#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace accumlab::ui {

namespace {

const QColor kFullColor(0xc2, 0x6a, 0x00);
const QColor kFloorColor(0x6b, 0x6b, 0x6b);

// One run as steps: before and after each event, at its place in the window (0 to 100 %).
QList<QPointF> steps(const MemoryTimeline &t, double unit)
{
    QList<QPointF> points;
    const auto n = static_cast<double>(std::max<size_t>(t.events.size(), 1));
    double live = static_cast<double>(t.startBytes);
    points << QPointF(0.0, live / unit);
    for (size_t i = 0; i < t.events.size(); ++i) {
        const MemoryEvent &e = t.events[i];
        if (e.refused)
            break; // nothing was allocated: the run ended there
        const double x = 100.0 * static_cast<double>(i + 1) / n;
        points << QPointF(x, live / unit);
        live = static_cast<double>(e.liveBytes);
        points << QPointF(x, live / unit);
    }
    return points;
}

// The first of the highest points of a drawn run, where its peak is annotated: its figure to
// one decimal of the axis's unit (the label prints the point's y as it is).
QPointF peakOf(const QList<QPointF> &points)
{
    QPointF top = points.value(0);
    for (const QPointF &p : points)
        if (p.y() > top.y())
            top = p;
    return {top.x(), std::round(top.y() * 10.0) / 10.0};
}

// A window as steps over its micro-batches: micro-batch k's events spread evenly over k to
// k + 1 in their order, the window's opening (its samples, zero_grad) at 0, its sync and step at
// `accumSteps`, and any other event outside a micro-batch where the last one ended.
QList<QPointF> stepsByMicroBatch(const MemoryTimeline &t, double unit)
{
    std::vector<size_t> perMicro;
    for (const MemoryEvent &e : t.events)
        if (e.micro >= 0) {
            if (perMicro.size() <= static_cast<size_t>(e.micro))
                perMicro.resize(static_cast<size_t>(e.micro) + 1, 0);
            ++perMicro[static_cast<size_t>(e.micro)];
        }
    std::vector<size_t> seen(perMicro.size(), 0);
    QList<QPointF> points;
    double live = static_cast<double>(t.startBytes);
    points << QPointF(0.0, live / unit);
    const auto end = static_cast<double>(std::max<int64_t>(t.accumSteps, static_cast<int64_t>(perMicro.size())));
    double ended = 0.0; // where the last micro-batch ended
    for (const MemoryEvent &e : t.events) {
        double x = ended;
        if (e.micro >= 0) {
            const auto m = static_cast<size_t>(e.micro);
            x = static_cast<double>(m) + static_cast<double>(++seen[m]) / static_cast<double>(perMicro[m]);
            ended = static_cast<double>(m + 1);
        } else if (e.phase == MemoryPhase::Sync || e.phase == MemoryPhase::Step) {
            x = end;
        }
        points << QPointF(x, live / unit);
        live = static_cast<double>(e.liveBytes);
        points << QPointF(x, live / unit);
    }
    return points;
}

} // namespace

MemoryTimelineChart::MemoryTimelineChart(QWidget *parent) : QChartView(parent)
{
    setObjectName(QStringLiteral("memoryTimelineChart"));
    QChart *chart = installChart(this, Qt::AlignBottom);
    // Its five legend entries side by side under the plot need 30 lines (563 pixels at the normal
    // size); its height is 300 pixels there.
    setMinimumLines(this, 30, 16);
    m_xAxis = new QValueAxis;
    m_xAxis->setRange(0, 100);
    m_xAxis->setTickCount(6);
    m_xAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_yAxis = new QValueAxis;
    m_yAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_yAxis->setRange(0, 1);
    chart->addAxis(m_xAxis, Qt::AlignBottom);
    chart->addAxis(m_yAxis, Qt::AlignLeft);
    m_full = new QLineSeries;
    m_full->setObjectName(QStringLiteral("fullBatchTimeline"));
    m_full->setPen(QPen(kFullColor, 2));
    m_accumulation = new QLineSeries;
    m_accumulation->setObjectName(QStringLiteral("accumulationTimeline"));
    m_accumulation->setPen(QPen(colors::kGood, 2));
    m_floor = new QLineSeries;
    m_floor->setPen(QPen(kFloorColor, 1.5, Qt::DotLine));
    m_budget = new QLineSeries;
    m_budget->setPen(QPen(colors::kWarning, 2, Qt::DashLine));
    m_crossing = new QScatterSeries;
    m_crossing->setMarkerShape(QScatterSeries::MarkerShapeStar);
    m_crossing->setMarkerSize(16);
    m_crossing->setColor(colors::kOutOfMemory);
    m_crossing->setBorderColor(colors::kOutOfMemory);
    m_peaks = new QScatterSeries;
    m_peaks->setObjectName(QStringLiteral("peakMarks"));
    m_peaks->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_peaks->setMarkerSize(8);
    m_peaks->setColor(kFloorColor);
    m_peaks->setBorderColor(kFloorColor);
    m_peaks->setPointLabelsVisible(true);
    m_peaks->setPointLabelsFormat(QStringLiteral("@yPoint")); // in the y axis's unit
    m_peaks->setPointLabelsClipping(false);
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_full), static_cast<QAbstractSeries *>(m_accumulation),
                               static_cast<QAbstractSeries *>(m_floor), static_cast<QAbstractSeries *>(m_budget),
                               static_cast<QAbstractSeries *>(m_crossing), static_cast<QAbstractSeries *>(m_peaks)}) {
        chart->addSeries(s);
        s->attachAxis(m_xAxis);
        s->attachAxis(m_yAxis);
    }
    showScale(m_yAxis, false);
    retranslateUi();
}

void MemoryTimelineChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QChartView::changeEvent(event);
}

void MemoryTimelineChart::setResult(const OomDemoResult &result)
{
    if (result.fullBatchTimeline.events.empty() || result.accumulationTimeline.events.empty()) {
        m_result.reset();
        m_live = false;
        for (QXYSeries *s : {static_cast<QXYSeries *>(m_full), static_cast<QXYSeries *>(m_accumulation),
                             static_cast<QXYSeries *>(m_floor), static_cast<QXYSeries *>(m_budget),
                             static_cast<QXYSeries *>(m_crossing), static_cast<QXYSeries *>(m_peaks)})
            s->clear();
        showScale(m_yAxis, false);
        retranslateUi();
        return;
    }
    m_result = result;
    m_live = false;
    m_xAxis->setRange(0, 100);
    m_xAxis->setTickCount(6);
    const MemoryTimeline &full = result.fullBatchTimeline;
    const MemoryTimeline &acc = result.accumulationTimeline;
    const double top = static_cast<double>(std::max({full.peakBytes(), acc.peakBytes(), result.budgetBytes}));
    m_unit = top >= 8.0 * 1024 * 1024 ? 1024.0 * 1024.0 : 1024.0;
    m_full->replace(steps(full, m_unit));
    m_accumulation->replace(steps(acc, m_unit));
    m_peaks->replace({peakOf(m_full->points()), peakOf(m_accumulation->points())});
    const double floor = static_cast<double>(acc.floor.total()) / m_unit;
    m_floor->replace({QPointF(0, floor), QPointF(100, floor)});
    const double budget = static_cast<double>(result.budgetBytes) / m_unit;
    m_budget->replace({QPointF(0, budget), QPointF(100, budget)});
    m_crossing->clear();
    if (const auto x = crossingPercent())
        m_crossing->append(*x, budget);
    m_yAxis->setRange(0, top / m_unit * 1.1);
    m_yAxis->applyNiceNumbers();
    showScale(m_yAxis, true);
    retranslateUi();
}

void MemoryTimelineChart::setLiveWindow(const MemoryTimeline &window)
{
    m_result.reset();
    m_live = true;
    m_liveWindow = window;
    m_liveMicroBatches = std::max<qint64>(window.accumSteps, 1);
    const double floorBytes = static_cast<double>(window.floor.total());
    const double top = std::max(static_cast<double>(window.peakBytes()), floorBytes);
    m_unit = top >= 8.0 * 1024 * 1024 ? 1024.0 * 1024.0 : 1024.0;
    m_full->clear();
    m_budget->clear();
    m_crossing->clear();
    m_accumulation->replace(stepsByMicroBatch(window, m_unit));
    m_peaks->replace({peakOf(m_accumulation->points())});
    const auto n = static_cast<double>(m_liveMicroBatches);
    m_floor->replace({QPointF(0, floorBytes / m_unit), QPointF(n, floorBytes / m_unit)});
    m_xAxis->setRange(0, n);
    // A tick per micro-batch up to eight of them, whole numbers beyond.
    m_xAxis->setTickCount(static_cast<int>(m_liveMicroBatches <= 8 ? m_liveMicroBatches + 1 : 5));
    m_yAxis->setRange(0, top / m_unit * 1.1);
    m_yAxis->applyNiceNumbers();
    showScale(m_yAxis, top > 0);
    retranslateUi();
}

qint64 MemoryTimelineChart::drawnPeakBytes(int run) const
{
    const QLineSeries *s = run == 0 ? m_full : m_accumulation;
    double top = 0.0;
    for (const QPointF &p : s->points())
        top = std::max(top, p.y());
    return static_cast<qint64>(std::llround(top * m_unit));
}

std::optional<double> MemoryTimelineChart::crossingPercent() const
{
    if (!m_result)
        return std::nullopt;
    const MemoryTimeline &full = m_result->fullBatchTimeline;
    const auto i = full.firstAbove(m_result->budgetBytes);
    if (!i)
        return std::nullopt;
    return 100.0 * static_cast<double>(*i + 1) / static_cast<double>(full.events.size());
}

void MemoryTimelineChart::retranslateUi()
{
    setAccessibleName(tr("Memory timeline chart"));
    chart()->setLocale(locale());
    chart()->setLocalizeNumbers(true);
    chart()->setTitle(LanguageManager::natural(m_live ? tr("Live memory of the window running now (Play/Step)")
                                                      : tr("Live memory through one window, allocation by allocation")));
    m_xAxis->setTitleText(LanguageManager::natural(m_live ? tr("micro-batch of the window") : tr("through the window, %")));
    m_yAxis->setTitleText(LanguageManager::natural(m_unit > 1024.0 ? tr("live, MiB") : tr("live, KiB")));
    // Short names, so that the legend is never elided; the figures are in the memory lab's
    // answer beside the chart.
    m_full->setName(LanguageManager::natural(tr("full batch in one pass")));
    m_accumulation->setName(LanguageManager::natural(m_live ? tr("this window") : tr("micro-batches")));
    // Only the entries the picture has.
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_full), static_cast<QAbstractSeries *>(m_budget),
                               static_cast<QAbstractSeries *>(m_crossing)})
        if (const auto markers = chart()->legend()->markers(s); !markers.isEmpty())
            markers.first()->setVisible(!m_live);
    m_floor->setName(LanguageManager::natural(tr("resident floor")));
    m_budget->setName(LanguageManager::natural(tr("budget")));
    m_crossing->setName(LanguageManager::natural(tr("fails here")));
    m_peaks->setName(QString());
    if (const auto markers = chart()->legend()->markers(m_peaks); !markers.isEmpty())
        markers.first()->setVisible(false); // each peak carries its figure
}

} // namespace accumlab::ui
