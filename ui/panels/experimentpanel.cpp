// The guided-experiments panel and the run each experiment hands the lab.
#include "ui/panels/experimentpanel.h"

#include "ui/layout/adaptivesplitter.h"
#include "ui/worker/enginecontroller.h"
#include "ui/layout/fontscale.h"
#include "ui/localizedtext.h"
#include "ui/layout/steadylabel.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace accumlab::ui {

namespace {

// Ticks in plain numbers with as many decimals as the tick step needs ("30000", "0.25"), never
// in exponent form: "%.3g" wrote 16000 as «۱٫۶×۱۰^+۰۴» in Persian and "1.6E+04" in English.
QString plainFormat(const QValueAxis *axis)
{
    const double step = axis->tickCount() > 1 ? (axis->max() - axis->min()) / (axis->tickCount() - 1) : 0.0;
    int decimals = 0; // the fewest that write every tick (min + k step) exactly
    while (decimals < 6 && step > 0.0) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            break;
        ++decimals;
    }
    return QStringLiteral("%.%1f").arg(decimals);
}

// Rows and columns of the claims table.
constexpr int kVerdictColumn = 0;
constexpr int kStatementColumn = 1;
constexpr int kClaimIdRole = Qt::UserRole;

// Smallest heights that still show a few rows, lines or a readable plot, in lines of the
// widget's font (fontscale.h), so that they grow with the zoom.
constexpr double kMinTableLines = 3.2;
constexpr double kMinChartLines = 15;
// The verdict marks (✓ ✗ ? ·) against the claims' text.
constexpr double kVerdictMarkScale = 1.5;
// Room for the curves box's title and curve picker above its chart.
constexpr double kCurvesBoxExtraLines = 3.2;
// The curves and the values side by side from this width of the page up (820 pixels at the
// normal size).
constexpr double kSideBySideLines = 43.7;
// Characters of an experiment's title the picker shows at least.
constexpr int kPickerMinChars = 24;
// Initial splitter sizes are given in these units and scaled to the space there is.
constexpr int kSplitUnit = 100;

const QString kHolds = QStringLiteral("✓");
const QString kFails = QStringLiteral("✗");
const QString kInconclusive = QStringLiteral("?");
const QString kObservation = QStringLiteral("·"); // no verdict: true by construction

} // namespace

void ExperimentSettings::applyTo(Preset &preset) const
{
    if (!run)
        return;
    const int64_t accumSteps = preset.run.accumSteps;
    preset.run = *run;
    if (accumGrid) {
        preset.run.accumSteps = accumSteps;
        preset.accumGrid = *accumGrid;
    }
    if (numSteps)
        preset.numSteps = *numSteps;
}

ExperimentSettings experimentSettings(const QString &id, const ExperimentOptions &options)
{
    ExperimentSettings s;
    const std::string key = id.toStdString();
    if (!findExperiment(key))
        return s;
    // Core states each experiment's settings beside its runner; nothing for an experiment with a
    // model of its own (variable-length).
    const std::optional<ExperimentLabSettings> lab = experimentLabSettings(key, options);
    if (!lab)
        return s;
    s.run = lab->config;
    if (!lab->accumGrid.empty()) {
        QStringList grid;
        for (int64_t a : lab->accumGrid)
            grid << QString::number(a);
        s.accumGrid = grid.join(QLatin1Char(','));
        s.numSteps = static_cast<int>(lab->sweepSteps);
    }
    return s;
}

ExperimentPanel::ExperimentPanel(EngineController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller)
{
    setObjectName(QStringLiteral("experimentPanel"));

    m_pickLabel = new QLabel(this);
    m_picker = new QComboBox(this);
    m_picker->setObjectName(QStringLiteral("experimentPicker"));
    // Long titles must not widen the page past the window: the popup shows them whole.
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setMinimumContentsLength(kPickerMinChars);
    m_picker->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_pickLabel->setBuddy(m_picker);
    m_kindLabel = new QLabel(this);
    m_kindLabel->setObjectName(QStringLiteral("experimentKind"));
    m_summaryLabel = new QLabel(this);
    m_summaryLabel->setObjectName(QStringLiteral("experimentSummary"));
    m_summaryLabel->setWordWrap(true);
    // Rich text: QTextDocument wraps shaped Persian text within the label; plain-text
    // wrapping measured the first line a little too wide and cut it off.
    m_summaryLabel->setTextFormat(Qt::RichText);

    m_runButton = new QPushButton(this);
    m_runButton->setObjectName(QStringLiteral("runExperimentButton"));
    m_runButton->setDefault(true);
    m_cancelButton = new QPushButton(this);
    m_cancelButton->setObjectName(QStringLiteral("cancelExperimentButton"));
    m_quickCheck = new QCheckBox(this);
    m_quickCheck->setObjectName(QStringLiteral("quickRunCheck"));
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0); // busy indicator: the engine reports no progress for one experiment
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("experimentStatus"));
    m_statusLabel->setWordWrap(true);

    auto *pickRow = new QHBoxLayout;
    pickRow->addWidget(m_pickLabel);
    pickRow->addWidget(m_picker, 1);
    pickRow->addWidget(m_kindLabel);
    auto *runRow = new QHBoxLayout;
    runRow->addWidget(m_runButton);
    runRow->addWidget(m_cancelButton);
    runRow->addWidget(m_quickCheck);
    runRow->addWidget(m_busy);
    runRow->addWidget(m_statusLabel, 1);

    m_claimsBox = new QGroupBox(this);
    m_claimsTable = new QTableWidget(0, 2, m_claimsBox);
    m_claimsTable->setTabKeyNavigation(false); // Tab leaves the table; arrows move inside it
    m_claimsTable->setObjectName(QStringLiteral("claimsTable"));
    m_claimsTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_claimsTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_claimsTable->setWordWrap(true);
    m_claimsTable->verticalHeader()->hide();
    m_claimsTable->horizontalHeader()->setSectionResizeMode(kVerdictColumn, QHeaderView::ResizeToContents);
    m_claimsTable->horizontalHeader()->setSectionResizeMode(kStatementColumn, QHeaderView::Stretch);
    m_claimsTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_claimsTable->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_claimsTable->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // every row shows: the page scrolls
    keepRoomForEveryRow(m_claimsTable);
    m_timingNote = new QLabel(m_claimsBox);
    m_timingNote->setObjectName(QStringLiteral("timingNote"));
    m_timingNote->setWordWrap(true);
    auto *claimsLayout = new QVBoxLayout(m_claimsBox);
    claimsLayout->addWidget(m_claimsTable);
    claimsLayout->addWidget(m_timingNote);

    m_explanationBox = new QGroupBox(this);
    m_explanationLabel = new QLabel;
    m_explanationLabel->setObjectName(QStringLiteral("experimentExplanation"));
    m_explanationLabel->setWordWrap(true);
    m_explanationLabel->setTextFormat(Qt::RichText); // see m_summaryLabel
    m_explanationLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_explanationLabel->setAlignment(Qt::AlignTop | Qt::AlignLeading);
    // Whole, at the box's width: the page scrolls, not a box inside it.
    auto *explanationLayout = new QVBoxLayout(m_explanationBox);
    explanationLayout->addWidget(m_explanationLabel);
    keepRoomForWrappedText(m_explanationBox);

    m_valuesBox = new QGroupBox(this);
    m_valuesTable = new QTableWidget(0, 2, m_valuesBox);
    m_valuesTable->setTabKeyNavigation(false);
    m_valuesTable->setObjectName(QStringLiteral("valuesTable"));
    m_valuesTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_valuesTable->verticalHeader()->hide();
    // A long label wraps onto a second line in a narrow window rather than being elided.
    m_valuesTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_valuesTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    setMinimumLines(m_valuesTable, 0, kMinTableLines);
    m_valuesTable->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto *valuesLayout = new QVBoxLayout(m_valuesBox);
    valuesLayout->addWidget(m_valuesTable);

    m_curvesBox = new QGroupBox(this);
    m_curvePicker = new QComboBox(m_curvesBox);
    m_curvePicker->setObjectName(QStringLiteral("curvePicker"));
    m_chart = new QChart;
    m_chart->setLayoutDirection(Qt::LeftToRight);
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    QFont legendFont = m_chart->legend()->font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    m_chart->legend()->setFont(legendFont);
    m_chartView = new QChartView(m_chart, m_curvesBox);
    m_chartView->setObjectName(QStringLiteral("experimentChart"));
    m_chartView->setLayoutDirection(Qt::LeftToRight); // plots are not mirrored
    m_chartView->setRenderHint(QPainter::Antialiasing);
    setMinimumLines(m_chartView, 0, kMinChartLines);
    auto *curvesLayout = new QVBoxLayout(m_curvesBox);
    curvesLayout->addWidget(m_curvePicker);
    curvesLayout->addWidget(m_chartView, 1);

    // The curves get the larger share; the values table scrolls. Where the page is too narrow
    // for both side by side (a projector's 1024 pixels), the values go below the curves and the
    // results scroll.
    auto *bottom = new AdaptiveSplitter;
    bottom->addWidget(m_curvesBox);
    bottom->addWidget(m_valuesBox);
    bottom->setStretchFactor(0, 2);
    bottom->setStretchFactor(1, 1);
    bottom->setSizes({2 * kSplitUnit, 1 * kSplitUnit});
    bottom->setWideWidth(kSideBySideLines, kMinChartLines + kCurvesBoxExtraLines);
    auto *results = new QSplitter(Qt::Vertical);
    results->addWidget(m_claimsBox);
    results->addWidget(m_explanationBox);
    results->addWidget(bottom);
    results->setStretchFactor(0, 0);
    results->setStretchFactor(1, 1);
    results->setStretchFactor(2, 3);
    results->setSizes({2 * kSplitUnit, 2 * kSplitUnit, 5 * kSplitUnit});
    results->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(pickRow);
    layout->addWidget(m_summaryLabel);
    layout->addLayout(runRow);
    auto *resultsScroll = m_resultsScroll = new QScrollArea(this);
    resultsScroll->setObjectName(QStringLiteral("experimentResultsScroll"));
    resultsScroll->setWidget(results);
    resultsScroll->setWidgetResizable(true);
    resultsScroll->setFrameShape(QFrame::NoFrame);
    resultsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(resultsScroll, 1);

    connect(m_picker, &QComboBox::currentIndexChanged, this, &ExperimentPanel::showChosen);
    connect(m_runButton, &QPushButton::clicked, this, &ExperimentPanel::runCurrent);
    connect(m_cancelButton, &QPushButton::clicked, this, &ExperimentPanel::cancel);
    connect(m_curvePicker, &QComboBox::currentIndexChanged, this, &ExperimentPanel::showCurves);
    connect(m_controller, &EngineController::experimentFinished, this, &ExperimentPanel::onFinished);

    fillCatalog();
    setRunning(false);
    retranslateUi();
}

void ExperimentPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void ExperimentPanel::retranslateUi()
{
    m_pickLabel->setText(tr("&Experiment:"));
    m_runButton->setText(tr("Ru&n experiment"));
    m_runButton->setToolTip(tr("Sets the controls to the experiment's settings where they apply, then runs "
                               "it on real tensors in the background."));
    m_cancelButton->setText(tr("Cancel"));
    m_quickCheck->setText(tr("Quick run"));
    m_quickCheck->setToolTip(tr("Fewer steps for the sweep and the training curves; every claim is still "
                                "measured."));
    m_resultsScroll->setAccessibleName(tr("Experiment results"));
    m_claimsBox->setTitle(tr("Claims"));
    m_claimsTable->setAccessibleName(m_claimsBox->title());
    m_claimsTable->setHorizontalHeaderLabels({tr("Verdict"), tr("Claim")});
    m_timingNote->setText(timingMark() + QLatin1Char(' ') +
                          tr("Timing-based claims depend on the machine and its load: they are reported, "
                             "not guaranteed."));
    m_explanationBox->setTitle(tr("Explanation"));
    m_valuesBox->setTitle(tr("Measured values"));
    m_valuesTable->setAccessibleName(m_valuesBox->title());
    m_valuesTable->setHorizontalHeaderLabels({tr("Value"), tr("Measured")});
    m_curvesBox->setTitle(tr("Measured curves"));
    const QString current = currentExperiment();
    fillCatalog();
    setCurrentExperiment(current);
    showSummary();
    showResult();
}

void ExperimentPanel::fillCatalog()
{
    const QSignalBlocker block(m_picker);
    m_picker->clear();
    bool lessonPart = true;
    for (const auto &info : experimentCatalog()) {
        if (lessonPart && !info.lessonExercise && m_picker->count() > 0)
            m_picker->insertSeparator(m_picker->count()); // the lesson's exercises, then the pitfalls
        lessonPart = info.lessonExercise;
        m_picker->addItem(tr("%1. %2").arg(count(info.number), localized(info.title, info.settings)),
                          QString::fromStdString(info.id));
    }
}

QString ExperimentPanel::currentExperiment() const { return m_picker->currentData().toString(); }

void ExperimentPanel::setCurrentExperiment(const QString &id)
{
    const int index = m_picker->findData(id);
    if (index >= 0)
        m_picker->setCurrentIndex(index);
}

bool ExperimentPanel::quickRun() const { return m_quickCheck->isChecked(); }

void ExperimentPanel::setQuickRun(bool quick) { m_quickCheck->setChecked(quick); }

void ExperimentPanel::showSummary()
{
    const ExperimentInfo *info = findExperiment(currentExperiment().toStdString());
    if (!info) {
        m_kindLabel->clear();
        m_summaryLabel->clear();
        return;
    }
    m_kindLabel->setText(info->lessonExercise ? tr("Lesson exercise") : tr("Pitfall beyond the lesson"));
    m_summaryLabel->setText(localized(experimentSummary(*info, contentStyle())).toHtmlEscaped());
}

void ExperimentPanel::setRunning(bool running)
{
    m_runButton->setEnabled(!running);
    m_picker->setEnabled(!running);
    m_quickCheck->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_busy->setVisible(running);
}

void ExperimentPanel::runCurrent()
{
    const QString id = currentExperiment();
    if (id.isEmpty() || isRunning())
        return;
    ExperimentOptions options;
    options.fast = quickRun();
    const ExperimentSettings settings = experimentSettings(id, options);
    if (!settings.isEmpty())
        emit requestSettings(settings);
    m_result.reset();
    m_results.remove(id);
    m_error = EngineError();
    m_lastRunId = id;
    m_serial = m_controller->runExperiment(id, options);
    setRunning(true);
    showResult();
    emit experimentStarted(id);
}

void ExperimentPanel::cancel()
{
    if (isRunning())
        m_controller->cancel();
}

void ExperimentPanel::onFinished(const ExperimentUpdate &update)
{
    if (update.serial != m_serial)
        return; // another panel's run, or one this panel has given up on
    m_serial = 0;
    setRunning(false);
    if (update.ok)
        m_results.insert(update.id, update.result);
    m_error = update.ok || update.cancelled ? EngineError() : update.error;
    m_state = update.ok ? RunState::Done : update.cancelled ? RunState::Cancelled : RunState::Failed;
    showChosen();
    emit experimentFinished(update.id, update.ok);
}

void ExperimentPanel::showChosen()
{
    const auto it = m_results.constFind(currentExperiment());
    m_result = it != m_results.cend() ? std::optional<ExperimentResult>(*it) : std::nullopt;
    showSummary();
    showResult();
}

void ExperimentPanel::showResult()
{
    // A cancelled or failed run is said on its own experiment's page only.
    const bool lastRunShown = m_lastRunId == currentExperiment();
    if (isRunning()) {
        const ExperimentInfo *info = findExperiment(m_lastRunId.toStdString());
        m_statusLabel->setText(tr("Running “%1”…").arg(info ? localized(info->title) : m_lastRunId));
    } else if (m_result) {
        // Observations carry no verdict; inconclusive timing claims are counted apart.
        const ClaimTally t = m_result->tally();
        QString status = t.holding == t.verdicts ? tr("All %1 claims hold.").arg(count(t.verdicts))
                                                 : tr("%1 of %2 claims hold.")
                                                       .arg(count(t.holding), count(t.verdicts));
        if (t.inconclusive > 0)
            status += QLatin1Char(' ') + tr("%1 inconclusive within the timing spread.").arg(count(t.inconclusive));
        // The rows marked · are counted and the mark explained: "All 2 claims hold" over three
        // rows read as a miscount.
        if (t.observations > 0)
            status += QLatin1Char(' ') +
                      tr("Rows marked %2 (%1) are observations: true by the way they are measured, so they carry no verdict.")
                          .arg(count(t.observations), kObservation);
        m_statusLabel->setText(status);
    } else if (lastRunShown && m_state == RunState::Cancelled) {
        m_statusLabel->setText(tr("The experiment was cancelled."));
    } else if (lastRunShown && m_state == RunState::Failed) {
        m_statusLabel->setText(tr("The experiment failed: %1").arg(m_error.localized()));
    } else {
        m_statusLabel->setText(tr("Pick an experiment and run it."));
    }

    m_claimsTable->setRowCount(0);
    m_valuesTable->setRowCount(0);
    m_explanationLabel->clear();
    bool timing = false;
    if (m_result) {
        const auto &claims = m_result->claims;
        m_claimsTable->setRowCount(static_cast<int>(claims.size()));
        for (int row = 0; row < m_claimsTable->rowCount(); ++row) {
            const ExperimentClaim &c = claims[size_t(row)];
            const QString mark = c.observation ? kObservation : c.inconclusive ? kInconclusive : c.holds ? kHolds : kFails;
            auto *verdict = new QTableWidgetItem(mark);
            verdict->setData(kClaimIdRole, QString::fromStdString(c.id));
            verdict->setTextAlignment(Qt::AlignCenter);
            verdict->setForeground(c.observation || c.inconclusive ? QColor(0x55, 0x55, 0x55)
                                   : c.holds                       ? QColor(0x1b, 0x7f, 0x3b)
                                                                   : QColor(0xb3, 0x26, 0x1e));
            verdict->setToolTip(c.observation ? tr("an observation: true by the way it is measured, so no verdict")
                                : c.inconclusive
                                    ? tr("inconclusive: the difference lies within the measured timing spread")
                                : c.holds ? tr("holds")
                                          : tr("does not hold"));
            // Read from the back of a room: bold and half as large again as the claim's words.
            QFont bold = m_claimsTable->font();
            bold.setBold(true);
            bold.setPointSizeF(bold.pointSizeF() * kVerdictMarkScale);
            verdict->setFont(bold);
            QString statement = localized(claimStatement(*m_result, c, contentStyle()));
            if (c.timing) {
                statement += QLatin1Char(' ') + timingMark();
                timing = true;
            }
            auto *text = new QTableWidgetItem(statement);
            text->setToolTip(tr("Criterion: %1").arg(QString::fromStdString(c.criterion)));
            m_claimsTable->setItem(row, kVerdictColumn, verdict);
            m_claimsTable->setItem(row, kStatementColumn, text);
        }
        m_explanationLabel->setText(localized(explanation(*m_result, contentStyle())).toHtmlEscaped());
        const auto &values = m_result->values;
        m_valuesTable->setRowCount(static_cast<int>(values.size()));
        for (int row = 0; row < m_valuesTable->rowCount(); ++row) {
            const ExperimentValue &v = values[size_t(row)];
            // The value's label in the reader's words; the identifier (the JSON key) in the tooltip.
            const std::string label = valueLabel(m_result->id, v.name, contentStyle());
            auto *name = new QTableWidgetItem(label.empty() ? leftToRight(QString::fromStdString(v.name))
                                                            : localized(label));
            name->setToolTip(QString::fromStdString(v.name));
            name->setData(Qt::UserRole, QString::fromStdString(v.name));
            auto *value = new QTableWidgetItem(figure(v.value, ".6g"));
            value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            value->setData(Qt::UserRole, v.value);
            m_valuesTable->setItem(row, 0, name);
            m_valuesTable->setItem(row, 1, value);
        }
    }
    m_timingNote->setVisible(timing);

    // The curve groups: series that share a y axis are drawn together.
    const QString group = m_curvePicker->currentData().toString();
    {
        const QSignalBlocker block(m_curvePicker);
        m_curvePicker->clear();
        if (m_result)
            for (const auto &s : m_result->series) {
                const QString key = QString::fromStdString(s.yLabel);
                if (m_curvePicker->findData(key) < 0)
                    m_curvePicker->addItem(curveText(s.yLabel), key);
            }
        const int keep = m_curvePicker->findData(group);
        m_curvePicker->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    m_curvePicker->setVisible(m_curvePicker->count() > 1);
    m_curvesBox->setVisible(m_result && !m_result->series.empty());
    showCurves();
}

void ExperimentPanel::showCurves()
{
    m_chart->removeAllSeries(); // deletes the series
    for (auto *axis : m_chart->axes()) {
        m_chart->removeAxis(axis); // hands the axis back to the caller, who deletes it
        delete axis;
    }
    m_chart->setTitle(QString());
    // Axis ticks in the reader's digits, as on the lab's charts (Qt Charts formats them with
    // the chart's locale); redrawn on every language or digit change.
    m_chart->setLocale(locale());
    m_chart->setLocalizeNumbers(true);
    if (!m_result || m_curvePicker->count() == 0)
        return;
    const std::string group = m_curvePicker->currentData().toString().toStdString();
    // Effective batches double from point to point: a log2 axis, as on the lab's throughput
    // chart, spaces them evenly. Rates (samples/sec, a share of the plateau) are read against
    // zero, so their axis starts there: an axis from the lowest point made a 10% rise look
    // like a climb from nothing.
    bool logX = false;
    for (const auto &s : m_result->series)
        logX = logX || (s.yLabel == group && s.xLabel == "effective_batch");
    const bool yFromZero = group == "samples/sec" || group == "share of plateau";
    QAbstractAxis *x = nullptr;
    if (logX) {
        auto *log2 = new QLogValueAxis;
        log2->setBase(2.0);
        log2->setLabelFormat(QStringLiteral("%.0f"));
        x = log2;
    } else {
        x = new QValueAxis;
    }
    auto *y = new QValueAxis;
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    // The view's font (the application's, zoomed) for the new axes: they would start from the
    // theme's fixed sizes, smaller than the zoomed text around them.
    QFont title = m_chartView->font();
    title.setBold(true);
    for (QAbstractAxis *axis : {x, static_cast<QAbstractAxis *>(y)}) {
        axis->setLabelsFont(m_chartView->font());
        axis->setTitleFont(title);
    }
    double xMin = std::numeric_limits<double>::max(), xMax = std::numeric_limits<double>::lowest();
    double yMin = xMin, yMax = xMax;
    for (const auto &s : m_result->series) {
        if (s.yLabel != group)
            continue;
        auto *line = new QLineSeries;
        line->setName(curveText(s.name));
        QList<QPointF> points;
        for (size_t i = 0; i < s.x.size(); ++i) {
            points.append(QPointF(s.x[i], s.y[i]));
            xMin = std::min(xMin, s.x[i]);
            xMax = std::max(xMax, s.x[i]);
            yMin = std::min(yMin, s.y[i]);
            yMax = std::max(yMax, s.y[i]);
        }
        line->replace(points);
        line->setPointsVisible(s.x.size() <= 20);
        m_chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        x->setTitleText(curveText(s.xLabel));
        y->setTitleText(curveText(s.yLabel));
    }
    if (xMin > xMax)
        return;
    const double pad = yMax > yMin ? 0.05 * (yMax - yMin) : std::max(1e-12, 0.05 * std::abs(yMax));
    y->setRange(yFromZero && yMin >= 0.0 ? 0.0 : yMin - pad, yMax + pad);
    y->applyNiceNumbers();
    y->setLabelFormat(plainFormat(y));
    if (auto *log2 = qobject_cast<QLogValueAxis *>(x)) {
        // Half a doubling of room on each side: the ticks fall on the points' own batches.
        log2->setRange(xMin / std::sqrt(2.0), xMax * std::sqrt(2.0));
    } else {
        auto *linear = static_cast<QValueAxis *>(x);
        linear->setRange(xMin, xMax > xMin ? xMax : xMin + 1.0);
        linear->applyNiceNumbers();
        linear->setLabelFormat(plainFormat(linear));
    }
    m_chart->setTitle(curveText(group));
}

QString ExperimentPanel::curveText(const std::string &key) const
{
    // Axis labels and series names that core's experiments use; anything else is shown as is.
    static const struct {
        const char *key;
        const char *text;
    } known[] = {
        {"effective_batch", QT_TR_NOOP("effective batch")},
        {"effective_step", QT_TR_NOOP("effective step")},
        {"samples_seen", QT_TR_NOOP("samples seen")},
        {"samples/sec", QT_TR_NOOP("samples/sec")},
        {"samples_per_sec", QT_TR_NOOP("samples/sec")},
        {"predicted_samples_per_sec", QT_TR_NOOP("predicted: N·micro / (N·t_micro + t_window)")},
        {"share of plateau", QT_TR_NOOP("share of the plateau")},
        {"share_of_plateau", QT_TR_NOOP("share of the plateau")},
        {"learning rate", QT_TR_NOOP("learning rate")},
        {"lr_full_batch", QT_TR_NOOP("full batch")},
        {"lr_per_effective_step", QT_TR_NOOP("per effective step")},
        {"lr_per_micro_batch", QT_TR_NOOP("per micro-batch")},
        {"held-out loss", QT_TR_NOOP("held-out loss")},
        {"eval_loss_small_batch_base_lr", QT_TR_NOOP("small batch")},
        {"eval_loss_4x_batch_scaled_lr", QT_TR_NOOP("4x batch, 4x rate")},
        {"eval_loss_4x_batch_unscaled_lr", QT_TR_NOOP("4x batch only")},
    };
    for (const auto &k : known)
        if (key == k.key)
            return tr(k.text);
    return QString::fromStdString(key);
}

} // namespace accumlab::ui
