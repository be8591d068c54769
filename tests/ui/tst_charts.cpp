// The two chart views' axes say only what was measured: before any point or loss arrives the
// value axes show no scale (whole-number labels on a placeholder range would read "0 0 1 1 1"),
// and the loss chart's step axis always ends on a multiple of its four tick intervals so that
// every tick is a whole optimizer step. The memory timeline draws the allocator's own figures.
// The buffer chart keeps its height while the sentences under it change with each micro-batch.
// The throughput chart draws the cost model's curve through the costs its run measured.
#include "common.h"

#include "ui/charts/memorytimelinechart.h"

#include "core/memory/memory_lab.h"

#include "ui/panels/accumulationpanel.h"
#include "ui/charts/chartscale.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/language.h"
#include "ui/charts/losschart.h"
#include "ui/charts/throughputchart.h"
#include "ui/worker/updates.h"

#include <QAreaSeries>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

QList<QValueAxis *> valueAxes(QChartView &view, Qt::Orientation orientation)
{
    QList<QValueAxis *> out;
    for (QAbstractAxis *a : view.chart()->axes(orientation))
        if (auto *v = qobject_cast<QValueAxis *>(a))
            out << v;
    return out;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT
private slots:
    void throughputAxesShowAScaleOnlyOnceMeasured();
    void throughputBestLineIsNamedForWhatItIs();
    void lossStepAxisEndsOnWholeSteps_data();
    void lossStepAxisEndsOnWholeSteps();
    void spreadBarHoldsItsPoint();
    void lossAxisTicksAreRound_data();
    void lossAxisTicksAreRound();
    void lossCurvesKeepDistinctColours_data();
    void lossCurvesKeepDistinctColours();
    void memoryTimelineDrawsTheAllocatorsFigures();
    void bufferChartKeepsItsHeight_data();
    void bufferChartKeepsItsHeight();
    void throughputPointSettles();
    void liveWindowByMicroBatch();
    void throughputDrawsTheCostModel_data();
    void throughputDrawsTheCostModel();
};

void TestCharts::throughputAxesShowAScaleOnlyOnceMeasured()
{
    ThroughputChart chart;
    const auto vertical = valueAxes(chart, Qt::Vertical); // samples/sec and ms per step
    QCOMPARE(vertical.size(), 2);
    for (QValueAxis *a : vertical)
        QVERIFY2(!scaleShown(a), "an empty chart must not show a scale");

    SweepPoint p;
    p.effectiveBatch = 16;
    p.accumSteps = 4;
    p.microBatch = 4;
    p.samplesPerSec = 23456.0;
    p.medianStepMs = 0.61;
    chart.addPoint(p);
    for (QValueAxis *a : vertical) {
        QVERIFY(scaleShown(a));
        QVERIFY(a->max() > 0);
    }
    // Whichever axis carries samples/sec covers the measured value.
    const double top = std::max(vertical[0]->max(), vertical[1]->max());
    QVERIFY2(top >= p.samplesPerSec, qPrintable(QString::number(top)));

    chart.startRun(); // a new run keeps the scale of the faded one on screen
    for (QValueAxis *a : vertical)
        QVERIFY(scaleShown(a));
}

// Issue 62: the dashed line at the best samples/sec was called "plateau" while it sat on the
// last point of a curve still rising; it is named for what it is.
void TestCharts::throughputBestLineIsNamedForWhatItIs()
{
    ThroughputChart chart;
    for (const int accum : {1, 2, 4}) {
        SweepPoint p;
        p.accumSteps = accum;
        p.microBatch = 4;
        p.effectiveBatch = 4 * accum;
        p.samplesPerSec = 10000.0 * accum; // still rising at the last point
        p.medianStepMs = 0.4;
        chart.addPoint(p);
    }
    QStringList names;
    for (const QAbstractSeries *s : chart.chart()->series())
        names << s->name();
    const QString joined = names.join(QStringLiteral(" | "));
    QVERIFY2(!joined.contains(QStringLiteral("plateau"), Qt::CaseInsensitive), qPrintable(joined));
    QVERIFY2(joined.contains(QStringLiteral("best 40000")) || joined.contains(QStringLiteral("best 40,000")),
             qPrintable(joined));
}

void TestCharts::lossStepAxisEndsOnWholeSteps_data()
{
    QTest::addColumn<int>("lastStep");
    QTest::addColumn<double>("expectedMax");
    // Steps of effective batch 6 at the samples seen once each is taken: step k at 6 (k + 1).
    QTest::newRow("one step") << 0 << 8.0;
    QTest::newRow("two steps") << 1 << 12.0;
    QTest::newRow("five") << 4 << 32.0;
    QTest::newRow("six") << 5 << 36.0;
    QTest::newRow("twenty-four") << 23 << 144.0;
    QTest::newRow("twenty-five") << 24 << 152.0;
    QTest::newRow("a long point") << 397 << 2388.0;
}

void TestCharts::lossStepAxisEndsOnWholeSteps()
{
    QFETCH(int, lastStep);
    QFETCH(double, expectedMax);
    LossChart chart;
    const auto horizontal = valueAxes(chart, Qt::Horizontal);
    const auto vertical = valueAxes(chart, Qt::Vertical);
    QCOMPARE(horizontal.size(), 1);
    QCOMPARE(vertical.size(), 1);
    QValueAxis *steps = horizontal[0];
    QValueAxis *loss = vertical[0];
    QCOMPARE(steps->tickCount(), 5);
    QCOMPARE(steps->max(), 4.0);
    QVERIFY2(!scaleShown(loss), "no loss measured yet");

    StepBatchUpdate u;
    u.pointIndex = 0;
    u.effectiveBatch = 6;
    for (int i = 0; i <= lastStep; ++i)
        u.losses << QPointF(6.0 * (i + 1), 2.0 - 0.001 * i); // the worker places step i at the samples seen
    chart.startSeries(0, 6);
    chart.appendLosses(u);
    // The chart redraws on its throttle timer; the loss axis gains its labels in that redraw.
    QTRY_VERIFY_WITH_TIMEOUT(scaleShown(loss), 2000);
    QCOMPARE(steps->max(), expectedMax);
    QCOMPARE(steps->min(), 0.0);
    // Five ticks over [0, max]: each tick is a whole number of samples.
    const double interval = steps->max() / (steps->tickCount() - 1);
    QCOMPARE(interval, std::round(interval));
    QVERIFY(loss->min() <= 2.0 - 0.001 * lastStep && loss->max() >= 2.0);
    // The curve draws a stride of its points past 300 (a long equal-work point stalled the GUI
    // thread at each redraw), its last one always.
    auto *curve = qobject_cast<QLineSeries *>(chart.chart()->series().value(0));
    QVERIFY(curve);
    if (lastStep + 1 <= 300)
        QCOMPARE(curve->count(), qsizetype(lastStep + 1));
    else
        QVERIFY2(curve->count() <= 300 && curve->count() >= 150, qPrintable(QString::number(curve->count())));
    QCOMPARE(curve->at(curve->count() - 1), QPointF(6.0 * (lastStep + 1), 2.0 - 0.001 * lastStep));

    chart.clear();
    QCOMPARE(steps->max(), 4.0);
    QVERIFY(!scaleShown(loss));
}

// Each point of the throughput chart lies on its spread bar: the point is the whole timed
// region's samples/sec, the blocks' harmonic mean, which one slow block pulls below the middle
// half of the blocks (at effective batch 8 the bar floated above its point).
void TestCharts::spreadBarHoldsItsPoint()
{
    ThroughputChart chart;
    SweepPoint p;
    p.effectiveBatch = 8;
    p.accumSteps = 2;
    p.microBatch = 4;
    p.blockSamplesPerSec = {1000, 1000, 1000, 200}; // one slow block
    p.samplesPerSec = 4.0 / (3 / 1000.0 + 1 / 200.0); // 500: equal samples per block
    p.steps = 8;
    p.medianStepMs = 8.0;
    chart.showPoint(0, p);
    QList<QLineSeries *> bars;
    for (QAbstractSeries *s : chart.chart()->series())
        if (auto *line = qobject_cast<QLineSeries *>(s); line && line->count() == 2 && line->at(0).x() == 8.0 && line->at(1).x() == 8.0)
            bars << line;
    QCOMPARE(bars.size(), 1);
    const double lo = std::min(bars[0]->at(0).y(), bars[0]->at(1).y());
    const double hi = std::max(bars[0]->at(0).y(), bars[0]->at(1).y());
    QVERIFY2(lo <= p.samplesPerSec && p.samplesPerSec <= hi,
             qPrintable(QStringLiteral("the bar spans %1 to %2, its point is at %3").arg(lo).arg(hi).arg(p.samplesPerSec)));
}

// The loss axis's ticks are round numbers (1, 2 or 5 times a power of ten) with as many
// decimals as their step needs, for a lesson's loss and for a diverging point's: after a
// diverging run the axis read "100,044.804".
void TestCharts::lossAxisTicksAreRound_data()
{
    QTest::addColumn<double>("first");
    QTest::addColumn<double>("last");
    QTest::newRow("learning") << 2.6 << 1.9;
    QTest::newRow("diverging") << 2.6 << 100044.804;
    QTest::newRow("flat") << 2.0 << 2.0;
}

void TestCharts::lossAxisTicksAreRound()
{
    QFETCH(double, first);
    QFETCH(double, last);
    LossChart chart;
    QValueAxis *loss = valueAxes(chart, Qt::Vertical).value(0);
    QVERIFY(loss);
    StepBatchUpdate u;
    u.pointIndex = 0;
    u.effectiveBatch = 8;
    for (int i = 0; i < 25; ++i)
        u.losses << QPointF(8.0 * (i + 1), first + (last - first) * i * i / (24.0 * 24.0));
    chart.startSeries(0, 8);
    chart.appendLosses(u);
    QTRY_VERIFY_WITH_TIMEOUT(scaleShown(loss), 2000);
    const double step = (loss->max() - loss->min()) / (loss->tickCount() - 1);
    const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double mantissa = step / decade;
    QVERIFY2(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6,
             qPrintable(QStringLiteral("a tick step of %1").arg(step)));
    for (int k = 0; k < loss->tickCount(); ++k) {
        const double tick = loss->min() + k * step;
        QVERIFY2(std::abs(tick / step - std::round(tick / step)) < 1e-6, qPrintable(QStringLiteral("a tick at %1").arg(tick)));
        // Its label shows it whole, with no digit past the step's.
        const QString label = QString::asprintf(qPrintable(loss->labelFormat()), tick);
        QCOMPARE(label.toDouble(), std::round(tick / step) * step);
        QVERIFY2(!label.contains(QLatin1Char('.')) || step < 1, qPrintable(label));
    }
    QVERIFY(loss->min() <= std::min(first, last) && loss->max() >= std::max(first, last));
}

// A long sweep's loss curves are told apart: every pair of curve colours lies at least
// kMinDistance apart in RGB (Qt's default theme repeats its five colours from the sixth curve:
// a distance of 0). Each curve's dashed logged loss takes its curve's colour.
void TestCharts::lossCurvesKeepDistinctColours_data()
{
    QTest::addColumn<int>("curves");
    QTest::newRow("six, past Qt's five") << 6;
    QTest::newRow("ten") << 10;
    QTest::newRow("sixteen") << 16;
}

void TestCharts::lossCurvesKeepDistinctColours()
{
    QFETCH(int, curves);
    constexpr double kMinDistance = 40.0;
    LossChart chart;
    for (int i = 0; i < curves; ++i)
        chart.startSeries(i, qint64(1) << i);
    QCOMPARE(chart.seriesCount(), curves);
    for (int i = 0; i < curves; ++i) {
        const QColor a = chart.seriesColor(i);
        for (int j = i + 1; j < curves; ++j) {
            const QColor b = chart.seriesColor(j);
            const double d = std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
            QVERIFY2(d >= kMinDistance, qPrintable(QStringLiteral("curves %1 (%2) and %3 (%4) are %5 apart")
                                                       .arg(i)
                                                       .arg(a.name())
                                                       .arg(j)
                                                       .arg(b.name())
                                                       .arg(d)));
        }
        QCOMPARE(a, LossChart::curveColor(i));
    }
}

void TestCharts::bufferChartKeepsItsHeight_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<int>("width");
    QTest::addColumn<qint64>("world");
    for (const char *language : {"en", "fa"})
        for (int width : {240, 420})
            for (qint64 world : {1, 2})
                QTest::addRow("%s, %d px, world %lld", language, width, static_cast<long long>(world))
                    << QString::fromLatin1(language) << width << world;
}

// A window of four micro-batches, then the tenth thousandth window: the sentences under the bars
// grow ("so far" to "after all 4 micro-batches", "— optimizer stepped", five-digit windows), and
// with the plain labels they had the bars lost a line to each wrap.
void TestCharts::bufferChartKeepsItsHeight()
{
    QFETCH(QString, language);
    QFETCH(int, width);
    QFETCH(qint64, world);
    LanguageManager::instance()->initialize(QStringLiteral("en"), /*persist=*/false);
    LanguageManager::instance()->setLanguage(language);
    AccumulationPanel panel;
    EngineInfo info;
    info.config.accumSteps = 4;
    info.config.worldSize = world;
    info.parameterNames = {QStringLiteral("fc1.weight"), QStringLiteral("fc1.bias")};
    panel.setEngine(info);
    panel.resize(width, 520);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCoreApplication::processEvents();
    panel.layout()->activate();
    const int before = panel.bufferView()->height();
    QVERIFY(before > 0);
    QList<int> heights;
    for (qint64 window : {qint64(0), qint64(12345)})
        for (qint64 k = 0; k < 4; ++k) {
            MicroBatchUpdate u;
            u.event.step = window;
            u.event.microIndex = k;
            u.event.accumSteps = 4;
            u.event.microBatches = window * 4 + k + 1;
            u.event.optimizerStepped = k == 3;
            u.event.optimizerSteps = window + (k == 3);
            u.event.gradNorms = u.event.fills = {0.25 * double(k + 1), 0.25 * double(k + 1)};
            u.referenceNorms = {0.25 * double(k + 1), 0.25 * double(k + 1)};
            u.event.fillTotal = 0.25 * double(k + 1);
            panel.showMicroBatch(u);
            QCoreApplication::processEvents(); // the layout's pass
            panel.layout()->activate();
            heights << panel.bufferView()->height();
        }
    for (int h : heights)
        QVERIFY2(h == before, qPrintable(QStringLiteral("the bars' heights: %1, then %2").arg(before).arg(
                                  [&] { QStringList l; for (int x : heights) l << QString::number(x); return l.join(u' '); }())));
    LanguageManager::instance()->setLanguage(QStringLiteral("en"));
}

// The throughput chart draws the cost model's curve through the run's measured costs (the
// SweepCostModel the sweep-flattening experiment judges by), at the grid's points and between
// them, and names it in the legend; a run without phase timing (a GPU sweep) draws none.
// Teaching mode's open window on the memory timeline: micro-batch k's events spread over k to
// k + 1 in their order, the window's opening at 0, its step at accum_steps, each micro-batch's
// forward and backward shaded; the demo's entries (full batch, budget, where it fails) leave the
// legend, and the demo's picture comes back with it.
void TestCharts::liveWindowByMicroBatch()
{
    MemoryTimeline t;
    t.accumSteps = 2;
    t.startBytes = 1000;
    t.floor.weights = 1000;
    const auto event = [&](int64_t delta, MemoryPhase phase, int64_t micro) {
        const int64_t live = (t.events.empty() ? t.startBytes : t.events.back().liveBytes) + delta;
        t.events.push_back(MemoryEvent{delta, live, phase, micro, false, 0});
    };
    event(+100, MemoryPhase::OpenWindow, -1);
    event(+400, MemoryPhase::Forward, 0);
    event(-400, MemoryPhase::Backward, 0);
    event(+10, MemoryPhase::Outside, -1); // between micro-batches: where micro-batch 0 ended
    event(+400, MemoryPhase::Forward, 1);
    event(-400, MemoryPhase::Backward, 1);
    event(+50, MemoryPhase::Step, -1); // at accum_steps: it names no micro-batch
    MemoryTimelineChart chart;
    chart.resize(900, 500);
    chart.show(); // a legend marker of a hidden view is never visible
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setLiveWindow(t);
    QVERIFY(chart.showsLiveWindow() && chart.hasTimeline());
    auto *line = chart.chart()->findChild<QLineSeries *>(QStringLiteral("accumulationTimeline"));
    QVERIFY(line);
    // A step of two points per event after the start.
    QCOMPARE(line->count(), 1 + 2 * 7);
    const QList<double> xs{0, 0, 0, 0.5, 0.5, 1, 1, 1, 1, 1.5, 1.5, 2, 2, 2, 2};
    for (int i = 0; i < line->count(); ++i)
        QCOMPARE(line->at(i).x(), xs[i]);
    QCOMPARE(chart.drawnPeakBytes(1), qint64(1510));
    // The peak annotated with its figure, in the axis's unit (KiB) to one decimal.
    auto *peaks = chart.chart()->findChild<QScatterSeries *>(QStringLiteral("peakMarks"));
    QVERIFY(peaks && peaks->pointLabelsVisible());
    QCOMPARE(peaks->count(), 1);
    QCOMPARE(peaks->at(0), QPointF(1.5, 1.5)); // 1,510 bytes, first reached in micro-batch 1
    const auto horizontal = valueAxes(chart, Qt::Horizontal);
    QCOMPARE(horizontal.size(), 1);
    QCOMPARE(horizontal[0]->max(), 2.0);
    // Each micro-batch's forward and backward shaded over the stretch its events take, up to
    // the value axis's top; the events between micro-batches and the step are in no band.
    const auto bands = [&](const char *name) {
        auto *area = chart.chart()->findChild<QAreaSeries *>(QLatin1String(name));
        QList<QPair<double, double>> stretches;
        const auto top = valueAxes(chart, Qt::Vertical).first()->max();
        const QList<QPointF> outline = area ? area->upperSeries()->points() : QList<QPointF>{};
        for (qsizetype i = 0; i + 3 < outline.size(); i += 4) {
            const bool shaped = outline[i].y() == 0 && outline[i + 1].y() == top && outline[i + 2].y() == top &&
                                outline[i + 3].y() == 0 && outline[i].x() == outline[i + 1].x() &&
                                outline[i + 2].x() == outline[i + 3].x();
            stretches << (shaped ? qMakePair(outline[i].x(), outline[i + 2].x()) : qMakePair(-1.0, -1.0));
        }
        return stretches;
    };
    using Stretches = QList<QPair<double, double>>;
    QCOMPARE(bands("forwardBand"), (Stretches{{0.0, 0.5}, {1.0, 1.5}}));
    QCOMPARE(bands("backwardBand"), (Stretches{{0.5, 1.0}, {1.5, 2.0}}));
    QCOMPARE(bands("stepBand"), Stretches{}); // it took no room on the axis
    for (const char *band : {"forwardBand", "backwardBand", "stepBand"})
        QVERIFY(chart.chart()->legend()->markers(chart.chart()->findChild<QAreaSeries *>(QLatin1String(band))).first()->isVisible());
    for (const char *demoOnly : {"fullBatchTimeline"}) {
        auto *s = chart.chart()->findChild<QLineSeries *>(QLatin1String(demoOnly));
        QCOMPARE(s->count(), 0);
        QVERIFY(!chart.chart()->legend()->markers(s).first()->isVisible());
    }
    // The demo replaces the live window.
    MemoryLabConfig lab;
    lab.effectiveBatch = 64;
    lab.failsAfterSamples = 32;
    chart.setResult(runOomDemo(lab));
    QVERIFY(!chart.showsLiveWindow());
    QCOMPARE(horizontal[0]->max(), 100.0);
    QCOMPARE(peaks->count(), 2); // the full batch's and the micro-batches'
    // The demo shades no phase (its two runs' phases fall at different places on its axis),
    // and the phases leave the legend.
    QVERIFY(bands("forwardBand").isEmpty() && bands("backwardBand").isEmpty() && bands("stepBand").isEmpty());
    for (const char *band : {"forwardBand", "backwardBand", "stepBand"})
        QVERIFY(!chart.chart()->legend()->markers(chart.chart()->findChild<QAreaSeries *>(QLatin1String(band))).first()->isVisible());
    QVERIFY(chart.chart()->legend()->markers(chart.chart()->findChild<QLineSeries *>(QStringLiteral("fullBatchTimeline"))).first()->isVisible());
}

// A sweep point is drawn from its first block on and replaced as its blocks come in, not added
// again; its bar spans the middle half of its blocks, so one slow block does not stretch it.
void TestCharts::throughputPointSettles()
{
    ThroughputChart chart;
    const auto pointWith = [](int64_t n, std::vector<double> blocks) {
        SweepPoint p;
        p.accumSteps = n;
        p.microBatch = 4;
        p.effectiveBatch = 4 * n;
        p.blockSamplesPerSec = std::move(blocks);
        p.samplesPerSec = p.blockMedian();
        p.medianStepMs = 0.1 * static_cast<double>(n);
        return p;
    };
    chart.showPoint(0, pointWith(1, {30000}));
    chart.showPoint(1, pointWith(2, {31000}));
    QCOMPARE(chart.currentPointCount(), 2);
    // Block 2 of point 0: the same point, settled.
    chart.showPoint(0, pointWith(1, {30000, 36000}));
    QCOMPARE(chart.currentPointCount(), 2);
    // Its last: one slow block of five stretches the bar down to it, so the point (here the
    // blocks' median; in a sweep the whole region's rate, which a slow block pulls below the
    // middle half) always lies on its bar.
    const SweepPoint final = pointWith(1, {30000, 36000, 35000, 5000, 34000});
    chart.showPoint(0, final);
    QCOMPARE(chart.currentPointCount(), 2);
    QLineSeries *bar = nullptr;
    for (QAbstractSeries *s : chart.chart()->series())
        if (s->name() == LanguageManager::natural(QStringLiteral("block spread")))
            bar = qobject_cast<QLineSeries *>(s);
    QVERIFY(bar);
    QCOMPARE(bar->count(), 2);
    QCOMPARE(bar->at(0), QPointF(4.0, 5000.0));
    QCOMPARE(bar->at(1), QPointF(4.0, 36000.0));
    // Beyond the last point: the next one.
    chart.showPoint(7, pointWith(4, {32000}));
    QCOMPARE(chart.currentPointCount(), 3);
}

void TestCharts::throughputDrawsTheCostModel_data()
{
    QTest::addColumn<bool>("phaseTiming");
    QTest::newRow("costs measured") << true;
    QTest::newRow("no phase timing") << false;
}

void TestCharts::throughputDrawsTheCostModel()
{
    QFETCH(bool, phaseTiming);
    ThroughputChart chart;
    std::vector<SweepPoint> points;
    for (int64_t n : {1, 2, 4, 8}) {
        SweepPoint p;
        p.accumSteps = n;
        p.microBatch = 4;
        p.effectiveBatch = 4 * n;
        p.samplesPerSec = 1000.0 * 4 * n / (0.1 * n + 0.3);
        p.blockSamplesPerSec = {p.samplesPerSec};
        if (phaseTiming) {
            p.blockMicroMs = {0.1 + 0.01 * n}; // the points' mean: 0.1375 ms
            p.blockWindowMs = {0.3};
        }
        points.push_back(p);
        chart.addPoint(p);
    }
    auto *curve = chart.chart()->findChild<QLineSeries *>(QStringLiteral("predictedSeries"));
    QVERIFY(curve);
    QVERIFY(chart.chart()->series().contains(curve));
    QCOMPARE(curve->name(), LanguageManager::natural(QStringLiteral("cost model")));
    if (!phaseTiming) {
        QCOMPARE(curve->count(), 0);
        return;
    }
    const SweepCostModel model = costModelOf(points);
    QCOMPARE(curve->count(), 13); // 1 to 8 in quarter doublings
    QCOMPARE(curve->at(0).x(), 4.0);
    QCOMPARE(curve->at(12).x(), 32.0);
    for (int i = 0; i < curve->count(); ++i) {
        const double n = curve->at(i).x() / 4;
        QCOMPARE(curve->at(i).y(), model.predictedMedian(n));
        QCOMPARE(curve->at(i).y(), 1000.0 * 4 * n / (n * 0.1375 + 0.3));
    }
    chart.startRun();
    QCOMPARE(curve->count(), 0);
}

QTEST_MAIN(TestCharts)
// The out-of-memory demo's timeline as drawn: each run's highest point is the peak the
// allocator measured (not an estimate), the mark where the full batch fails sits on the
// budget inside its window, the y axis shows a scale only once there is one, and a result
// without timelines (a CUDA run records none) clears the chart rather than keeping the last.
void TestCharts::memoryTimelineDrawsTheAllocatorsFigures()
{
    MemoryLabConfig lab;
    lab.effectiveBatch = 512;
    lab.failsAfterSamples = 32;
    const OomDemoResult r = runOomDemo(lab);
    MemoryTimelineChart chart;
    const auto vertical = valueAxes(chart, Qt::Vertical);
    QCOMPARE(vertical.size(), 1);
    QVERIFY(!scaleShown(vertical.first()));
    chart.setResult(r);
    QVERIFY(chart.hasTimeline());
    QVERIFY(scaleShown(vertical.first()));
    QCOMPARE(chart.drawnPeakBytes(0), qint64(r.fullBatch.peakBytes));
    QCOMPARE(chart.drawnPeakBytes(1), qint64(r.accumulation.peakBytes));
    QVERIFY(r.fullBatch.peakBytes > r.budgetBytes && r.accumulation.peakBytes <= r.budgetBytes);
    const auto crossing = chart.crossingPercent();
    QVERIFY(crossing.has_value());
    QVERIFY2(*crossing > 0.0 && *crossing < 100.0, qPrintable(QString::number(*crossing)));
    QVERIFY(vertical.first()->max() * 1024.0 >= double(r.fullBatch.peakBytes));

    OomDemoResult none = r;
    none.fullBatchTimeline = {};
    none.accumulationTimeline = {};
    chart.setResult(none);
    QVERIFY(!chart.hasTimeline());
    QCOMPARE(chart.drawnPeakBytes(0), qint64(0));
    QVERIFY(!chart.crossingPercent().has_value());
    QVERIFY(!scaleShown(vertical.first()));
}
#include "tst_charts.moc"
