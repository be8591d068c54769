// The memory timeline chart.
#include "ui/charts/memorytimelinechart.h"
#include "ui/colors.h"

#include "ui/charts/chartscale.h"
#include "ui/language.h"

#include <QAreaSeries>
#include <QEvent>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <optional>

namespace accumlab::ui {

namespace {

const QColor kFullColor(0xc2, 0x6a, 0x00);
const QColor kFloorColor(0x6b, 0x6b, 0x6b);
// The phases shaded behind the live window's line, light: forward in the measured blue,
// backward in grey, the optimizer step in amber.
struct BandStyle {
    MemoryPhase phase;
    const char *objectName;
    QColor color;
};
const BandStyle kBands[] = {
    {MemoryPhase::Forward, "forwardBand", QColor(0x3b, 0x82, 0xc4, 56)},
    {MemoryPhase::Backward, "backwardBand", QColor(0x6b, 0x6b, 0x6b, 26)},
    {MemoryPhase::Step, "stepBand", QColor(0xe0, 0xa8, 0x00, 56)},
};

// Where each event of a run is drawn, on one axis of "how far through the window": the
// demo's runs by their events, event i of n at 100 (i + 1) / n percent, up to a refused one.
std::vector<double> percentThrough(const MemoryTimeline &t)
{
    const auto n = static_cast<double>(std::max<size_t>(t.events.size(), 1));
    std::vector<double> xs;
    for (size_t i = 0; i < t.events.size() && !t.events[i].refused; ++i)
        xs.push_back(100.0 * static_cast<double>(i + 1) / n);
    return xs;
}

// A window by its micro-batches: micro-batch k's events (the engine marks the sync and step
// with the micro-batch that runs them) spread evenly over k to k + 1 in their order, the
// window's opening (its samples, zero_grad) at 0, a sync or step of no micro-batch at
// `accumSteps`, and any other event outside a micro-batch where the last one ended.
std::vector<double> byMicroBatch(const MemoryTimeline &t)
{
    std::vector<size_t> perMicro;
    for (const MemoryEvent &e : t.events)
        if (e.micro >= 0) {
            if (perMicro.size() <= static_cast<size_t>(e.micro))
                perMicro.resize(static_cast<size_t>(e.micro) + 1, 0);
            ++perMicro[static_cast<size_t>(e.micro)];
        }
    std::vector<size_t> seen(perMicro.size(), 0);
    const auto end = static_cast<double>(std::max<int64_t>(t.accumSteps, static_cast<int64_t>(perMicro.size())));
    double ended = 0.0; // where the last micro-batch ended
    std::vector<double> xs;
    for (size_t i = 0; i < t.events.size() && !t.events[i].refused; ++i) {
        const MemoryEvent &e = t.events[i];
        double x = ended;
        if (e.micro >= 0) {
            const auto m = static_cast<size_t>(e.micro);
            x = static_cast<double>(m) + static_cast<double>(++seen[m]) / static_cast<double>(perMicro[m]);
            ended = static_cast<double>(m + 1);
        } else if (e.phase == MemoryPhase::Sync || e.phase == MemoryPhase::Step) {
            x = end;
        }
        xs.push_back(x);
    }
    return xs;
}

// A run as steps at its events' places: before and after each drawn event.
QList<QPointF> steps(const MemoryTimeline &t, const std::vector<double> &xs, double unit)
{
    QList<QPointF> points;
    double live = static_cast<double>(t.startBytes);
    points << QPointF(0.0, live / unit);
    for (size_t i = 0; i < xs.size(); ++i) {
        points << QPointF(xs[i], live / unit);
        live = static_cast<double>(t.events[i].liveBytes);
        points << QPointF(xs[i], live / unit);
    }
    return points;
}

// The stretches of the axis a run spent in `phase`, as the outline of bands from 0 to `top`:
// event i covers xs[i - 1] to xs[i] (the first from 0), and touching stretches join.
QList<QPointF> phaseBands(const MemoryTimeline &t, const std::vector<double> &xs, MemoryPhase phase, double top)
{
    QList<QPointF> outline;
    std::optional<double> from;
    double to = 0.0;
    const auto close = [&] {
        if (from && to > *from)
            outline << QPointF(*from, 0.0) << QPointF(*from, top) << QPointF(to, top) << QPointF(to, 0.0);
        from.reset();
    };
    double previous = 0.0;
    for (size_t i = 0; i < xs.size(); ++i) {
        if (t.events[i].phase == phase) {
            if (!from)
                from = previous;
            to = xs[i];
        } else if (xs[i] > previous) {
            close(); // another phase took room on the axis
        }
        previous = xs[i];
    }
    close();
    return outline;
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

} // namespace

MemoryTimelineChart::MemoryTimelineChart(QWidget *parent) : LessonChart(parent)
{
    setObjectName(QStringLiteral("memoryTimelineChart"));
    QChart *chart = installChart(this, Qt::AlignBottom);
    // Its five legend entries side by side under the plot need more than 30 lines (at 563 pixels,
    // 30 lines at the normal size, "full batch in one pass" was elided; 575 held it); its height
    // is 300 pixels there.
    setMinimumLines(this, 31, 16);
    m_xAxis = new QValueAxis;
    m_xAxis->setRange(0, 100);
    m_xAxis->setTickCount(6);
    m_xAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_yAxis = new QValueAxis;
    m_yAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_yAxis->setRange(0, 1);
    chart->addAxis(m_xAxis, Qt::AlignBottom);
    chart->addAxis(m_yAxis, Qt::AlignLeft);
    // The bands first, so that the lines are drawn over them.
    for (size_t i = 0; i < m_bands.size(); ++i) {
        auto *band = new QAreaSeries(new QLineSeries(this));
        band->setObjectName(QLatin1String(kBands[i].objectName));
        band->setColor(kBands[i].color);
        band->setPen(Qt::NoPen);
        chart->addSeries(band);
        band->attachAxis(m_xAxis);
        band->attachAxis(m_yAxis);
        m_bands[i] = band;
        // A swatch of the band's colour, stronger: the band's own is too light at legend size.
        if (const auto markers = chart->legend()->markers(band); !markers.isEmpty()) {
            QColor swatch = kBands[i].color;
            swatch.setAlpha(150);
            markers.first()->setShape(QLegend::MarkerShapeRectangle); // draws its own brush
            markers.first()->setBrush(swatch);
            markers.first()->setPen(QPen(swatch));
        }
    }
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

void MemoryTimelineChart::setResult(const OomDemoResult &result)
{
    if (result.fullBatchTimeline.events.empty() || result.accumulationTimeline.events.empty()) {
        m_result.reset();
        m_live = false;
        for (QXYSeries *s : {static_cast<QXYSeries *>(m_full), static_cast<QXYSeries *>(m_accumulation),
                             static_cast<QXYSeries *>(m_floor), static_cast<QXYSeries *>(m_budget),
                             static_cast<QXYSeries *>(m_crossing), static_cast<QXYSeries *>(m_peaks)})
            s->clear();
        for (QAreaSeries *band : m_bands)
            band->upperSeries()->clear();
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
    m_full->replace(steps(full, percentThrough(full), m_unit));
    m_accumulation->replace(steps(acc, percentThrough(acc), m_unit));
    // No phases: the two runs' forward and backward fall at different places on this axis.
    for (QAreaSeries *band : m_bands)
        band->upperSeries()->clear();
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
    const std::vector<double> xs = byMicroBatch(window);
    m_accumulation->replace(steps(window, xs, m_unit));
    m_peaks->replace({peakOf(m_accumulation->points())});
    const auto n = static_cast<double>(m_liveMicroBatches);
    m_floor->replace({QPointF(0, floorBytes / m_unit), QPointF(n, floorBytes / m_unit)});
    m_xAxis->setRange(0, n);
    // A tick per micro-batch up to eight of them, whole numbers beyond.
    m_xAxis->setTickCount(static_cast<int>(m_liveMicroBatches <= 8 ? m_liveMicroBatches + 1 : 5));
    m_yAxis->setRange(0, top / m_unit * 1.1);
    m_yAxis->applyNiceNumbers();
    // Where each micro-batch ran forward and backward, and where the window stepped.
    for (size_t i = 0; i < m_bands.size(); ++i)
        m_bands[i]->upperSeries()->replace(phaseBands(window, xs, kBands[i].phase, m_yAxis->max()));
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
    return m_result ? m_result->fullBatchCrossingPercent() : std::nullopt;
}

void MemoryTimelineChart::retranslateUi()
{
    retranslateFrame(tr("Memory timeline chart"), m_live ? tr("Live memory of the window running now (Play/Step)")
                                                         : tr("Live memory through one window, allocation by allocation"));
    m_xAxis->setTitleText(LanguageManager::natural(m_live ? tr("micro-batch of the window") : tr("through the window, %")));
    m_yAxis->setTitleText(LanguageManager::natural(m_unit > 1024.0 ? tr("live, MiB") : tr("live, KiB")));
    // Short names, so that the legend is never elided; the figures are in the memory lab's
    // answer beside the chart.
    m_full->setName(LanguageManager::natural(tr("full batch in one pass")));
    m_accumulation->setName(LanguageManager::natural(m_live ? tr("this window") : tr("micro-batches")));
    // Only the entries the picture has: the demo's run, budget and failure, or the live
    // window's phases.
    for (QAbstractSeries *s : {static_cast<QAbstractSeries *>(m_full), static_cast<QAbstractSeries *>(m_budget),
                               static_cast<QAbstractSeries *>(m_crossing)})
        if (const auto markers = chart()->legend()->markers(s); !markers.isEmpty())
            markers.first()->setVisible(!m_live);
    for (QAreaSeries *band : m_bands)
        if (const auto markers = chart()->legend()->markers(band); !markers.isEmpty())
            markers.first()->setVisible(m_live);
    m_floor->setName(LanguageManager::natural(tr("resident floor")));
    m_budget->setName(LanguageManager::natural(tr("budget")));
    m_crossing->setName(LanguageManager::natural(tr("fails here")));
    m_bands[0]->setName(LanguageManager::natural(tr("forward")));
    m_bands[1]->setName(LanguageManager::natural(tr("backward")));
    m_bands[2]->setName(LanguageManager::natural(tr("optimizer step")));
    m_peaks->setName(QString());
    if (const auto markers = chart()->legend()->markers(m_peaks); !markers.isEmpty())
        markers.first()->setVisible(false); // each peak carries its figure
}

} // namespace accumlab::ui
