// The memory view. The budget slider moves in quarter powers of two of bytes.
#include "ui/panels/memoryview.h"
#include "ui/colors.h"

#include "core/memory/cpu_memory.h"
#include "core/memory/memory.h"
#include "core/memory/memory_sentences.h"
#include "core/io/export.h"
#include "ui/layout/fontscale.h"
#include "ui/language.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/localizedtext.h"
#include "ui/charts/memorytimelinechart.h"
#include "ui/charts/tradeoffchart.h"

#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace accumlab::ui {

namespace {

constexpr int kStepsPerDoubling = 4;
constexpr int kMinBudgetLog2 = 10; // 1 KiB
constexpr int kMaxBudgetLog2 = 36; // 64 GiB
constexpr int kDefaultEffective = 512; // the lesson's effective batch
constexpr int kDefaultFailsAfter = static_cast<int>(kLessonFailsAfterSamples);

constexpr int kWordsMargin = 4; // pixels of the budget line left out beside a row's words

int sliderFor(double bytes) { return static_cast<int>(std::ceil(std::log2(std::max(bytes, 1.0)) * kStepsPerDoubling)); }

QString formatBytes(qint64 bytes) { return LanguageManager::formatBytes(bytes); }

} // namespace

// Bars against the budget line, estimate and measurement one above the other; painted left
// to right in every direction.
class MemoryBars : public QWidget {
public:
    explicit MemoryBars(QWidget *parent = nullptr) : QWidget(parent)
    {
        setLayoutDirection(Qt::LeftToRight);
        setMinimumLines(this, 0, 6.4);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }
    struct Row {
        std::optional<qint64> bytes; // empty: not measured yet (a hatched outline)
        QString text;
        bool measured = false;
    };
    qint64 m_budget = 1;
    QList<Row> m_rows;
    QString m_budgetText;

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.setLayoutDirection(Qt::LeftToRight); // a painter starts in the application's direction
        p.setRenderHint(QPainter::Antialiasing);
        const QFontMetrics fm(font());
        double top = std::max<double>(static_cast<double>(m_budget), 1.0);
        for (const Row &r : m_rows)
            top = std::max(top, static_cast<double>(r.bytes.value_or(0)));
        top *= 1.1;
        const QRectF area(8, fm.height() + 6, width() - 16, height() - fm.height() - 12);
        const double rowH = area.height() / std::max<qsizetype>(1, m_rows.size());
        QList<QRectF> words(m_rows.size()); // where each row's text was drawn
        auto xOf = [&](double b) { return area.left() + area.width() * std::min(b, top) / top; };
        for (int i = 0; i < m_rows.size(); ++i) {
            const Row &r = m_rows[i];
            const QRectF slot(area.left(), area.top() + i * rowH + rowH * 0.12, area.width(), rowH * 0.76);
            if (r.bytes) {
                const bool fits = *r.bytes <= m_budget;
                QColor c = fits ? colors::kGood : colors::kWarning;
                const QRectF bar(slot.left(), slot.top(), xOf(static_cast<double>(*r.bytes)) - slot.left(), slot.height());
                if (r.measured) {
                    p.fillRect(bar, c);
                } else {
                    c.setAlpha(110); // the estimate: a lighter bar
                    p.fillRect(bar, c);
                }
            } else {
                p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DotLine));
                p.drawRect(slot.adjusted(0, 0, -1, -1));
            }
            p.setPen(palette().color(QPalette::Text));
            const QString text = LanguageManager::natural(r.text);
            p.drawText(slot.adjusted(6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, text, &words[i]);
        }
        // The budget line stops at the rows' words (it struck through them in Persian, whose
        // texts run longer): it is drawn outside their rectangles only.
        QRegion around(rect());
        for (const QRectF &w : std::as_const(words))
            around -= w.adjusted(-kWordsMargin, 0, kWordsMargin, 0).toAlignedRect();
        p.setClipRegion(around);
        p.setPen(QPen(palette().color(QPalette::Text), 2, Qt::DashLine));
        const double xb = xOf(static_cast<double>(m_budget));
        p.drawLine(QPointF(xb, area.top() - 2), QPointF(xb, area.bottom()));
        p.setClipping(false);
        const double labelW = std::min(width() - 4.0, fm.horizontalAdvance(m_budgetText) + 12.0);
        p.drawText(QRectF(std::clamp(xb - labelW / 2, 2.0, width() - labelW - 2), 2, labelW, fm.height()), Qt::AlignHCenter,
                   LanguageManager::natural(m_budgetText));
    }
};

MemoryView::MemoryView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("memoryView"));
    // The view scrolls rather than making the window taller than its default size.
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("memoryScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto *content = new QWidget;
    scroll->setWidget(content);
    auto *layout = new QVBoxLayout(content);
    m_title = new QLabel;
    m_title->setWordWrap(true);
    layout->addWidget(m_title);

    auto *settings = new QGridLayout;
    m_effectiveCaption = new QLabel;
    m_effectiveSpin = new QSpinBox;
    m_effectiveSpin->setObjectName(QStringLiteral("memoryEffectiveBatch"));
    m_effectiveSpin->setRange(2, static_cast<int>(kMaxMicroBatch));
    m_effectiveSpin->setValue(kDefaultEffective);
    m_failsCaption = new QLabel;
    m_failsSpin = new QSpinBox;
    m_failsSpin->setObjectName(QStringLiteral("memoryFailsAfter"));
    m_failsSpin->setRange(1, static_cast<int>(kMaxMicroBatch));
    m_failsSpin->setValue(kDefaultFailsAfter);
    m_budgetCaption = new QLabel;
    m_budgetSlider = new QSlider(Qt::Horizontal);
    m_budgetSlider->setObjectName(QStringLiteral("memoryBudgetSlider"));
    m_budgetSlider->setRange(kMinBudgetLog2 * kStepsPerDoubling, kMaxBudgetLog2 * kStepsPerDoubling);
    m_budgetLabel = new QLabel;
    m_budgetLabel->setObjectName(QStringLiteral("memoryBudgetLabel"));
    settings->addWidget(m_effectiveCaption, 0, 0);
    settings->addWidget(m_effectiveSpin, 0, 1);
    settings->addWidget(m_failsCaption, 0, 2);
    settings->addWidget(m_failsSpin, 0, 3);
    settings->addWidget(m_budgetCaption, 1, 0);
    settings->addWidget(m_budgetSlider, 1, 1, 1, 3);
    settings->addWidget(m_budgetLabel, 1, 4);
    settings->setColumnStretch(1, 1);
    settings->setColumnStretch(3, 1);
    layout->addLayout(settings);

    // The actions and their answer first: on a projector they stay in view above the bars.
    auto *buttons = new QHBoxLayout;
    m_oomButton = new QPushButton;
    m_oomButton->setObjectName(QStringLiteral("oomDemoButton"));
    m_tradeoffButton = new QPushButton;
    m_tradeoffButton->setObjectName(QStringLiteral("tradeoffButton"));
    m_finderButton = new QPushButton;
    m_finderButton->setObjectName(QStringLiteral("finderButton"));
    buttons->addWidget(m_oomButton);
    buttons->addWidget(m_tradeoffButton);
    buttons->addWidget(m_finderButton);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("memoryLabStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_result = new QLabel;
    m_result->setObjectName(QStringLiteral("memoryLabResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);
    m_bars = new MemoryBars;
    m_bars->setObjectName(QStringLiteral("memoryBars"));
    layout->addWidget(m_bars, 1);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("memoryVerdict"));
    m_verdict->setWordWrap(true);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    layout->addWidget(m_verdict);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    layout->addWidget(m_note);

    m_timeline = new MemoryTimelineChart;
    m_timeline->setVisible(false);
    layout->addWidget(m_timeline, 2);
    m_chart = new TradeoffChart;
    m_chart->setVisible(false);
    layout->addWidget(m_chart, 2);

    connect(m_oomButton, &QPushButton::clicked, this, [this] { start(MemoryLabKind::OomDemo); });
    connect(m_tradeoffButton, &QPushButton::clicked, this, [this] { start(MemoryLabKind::Tradeoff); });
    connect(m_finderButton, &QPushButton::clicked, this, [this] { start(MemoryLabKind::Finder); });
    connect(m_budgetSlider, &QSlider::valueChanged, this, [this] {
        m_budgetChosen = true;
        refresh();
    });
    connect(m_effectiveSpin, &QSpinBox::valueChanged, this, [this] { settingsChanged(); });
    connect(m_failsSpin, &QSpinBox::valueChanged, this, [this] {
        m_budgetChosen = false; // back to "fails after N samples"
        settingsChanged();
    });
    settingsChanged();
    retranslateUi();
}

void MemoryView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void MemoryView::retranslateUi()
{
    m_title->setText(tr("Memory of one training pass: the micro-batch vs the whole effective batch, estimated and measured"));
    m_effectiveCaption->setText(tr("Effective batch"));
    m_failsCaption->setText(tr("Memory fails after (samples)"));
    m_budgetCaption->setText(tr("Memory budget"));
    // What a screen reader says on each control: its caption.
    m_effectiveSpin->setAccessibleName(m_effectiveCaption->text());
    m_failsSpin->setAccessibleName(m_failsCaption->text());
    m_budgetSlider->setAccessibleName(m_budgetCaption->text());
    findChild<QScrollArea *>(QStringLiteral("memoryScroll"))->setAccessibleName(tr("Memory lab"));
    m_note->setText(tr("Light bars: the estimate from the model shape, dtype and optimizer (weights, gradient buffers, "
                       "optimizer state, the window's samples, one pass's activations). Solid bars: measured on this "
                       "device by the out-of-memory demo, temporaries of the backward and the step included."));
    m_oomButton->setText(tr("Run the out-of-memory demo"));
    m_oomButton->setToolTip(tr("Runs the whole effective batch in one pass under the budget, where it fails with "
                               "LibTorch's out-of-memory error, then the same samples by accumulation under the same "
                               "budget, and compares the parameters with the full batch's."));
    m_tradeoffButton->setText(tr("Trade-off sweep"));
    m_tradeoffButton->setToolTip(tr("At the effective batch, every micro-batch from 1 up: time per optimizer step and "
                                    "measured peak memory; the points beyond the budget fail."));
    m_finderButton->setText(tr("Find the micro-batch"));
    m_finderButton->setToolTip(tr("Doubles the micro-batch, then bisects, until the largest that fits the budget is "
                                  "found; accum_steps makes up the effective batch."));
    refresh();
}

void MemoryView::setConfig(const AccumConfig &config)
{
    m_config = config;
    settingsChanged();
}

void MemoryView::settingsChanged()
{
    m_measuredBudget.reset();
    m_measuredMicroPeak.reset();
    m_measuredFullPeak.reset();
    if (!m_budgetChosen) {
        // Until it is measured, the budget the estimate says holds the "fails after" micro-batch.
        const QSignalBlocker block(m_budgetSlider);
        m_budgetSlider->setValue(sliderFor(static_cast<double>(microBatchBytes()) * 1.02));
    }
    refresh();
}

void MemoryView::setEffectiveBatch(int samples) { m_effectiveSpin->setValue(samples); }
void MemoryView::setFailsAfterSamples(int samples)
{
    m_failsSpin->setValue(samples);
    m_budgetChosen = false;
    settingsChanged();
}

qint64 MemoryView::budgetBytes() const
{
    if (!m_budgetChosen && m_measuredBudget)
        return *m_measuredBudget;
    return static_cast<qint64>(std::pow(2.0, static_cast<double>(m_budgetSlider->value()) / kStepsPerDoubling));
}

void MemoryView::setBudgetBytes(qint64 bytes) { m_budgetSlider->setValue(sliderFor(static_cast<double>(bytes))); }

qint64 MemoryView::microBatchBytes() const
{
    const int64_t share = m_effectiveSpin->value() / std::max<int64_t>(1, m_config.worldSize);
    return estimateTrainingMemory(m_config, m_failsSpin->value(), share).totalBytes();
}

qint64 MemoryView::effectiveBatchBytes() const
{
    // What one rank would need to run its share of the effective batch in a single pass.
    const int64_t share = m_effectiveSpin->value() / std::max<int64_t>(1, m_config.worldSize);
    return estimateTrainingMemory(m_config, share, share).totalBytes();
}

MemoryLabRequest MemoryView::request(MemoryLabKind kind) const
{
    MemoryLabRequest r;
    r.kind = kind;
    MemoryLabConfig &lab = r.tradeoff.lab;
    lab.base = m_config;
    lab.base.microBatch = m_failsSpin->value();
    lab.base.accumSteps = 1;
    lab.base.stepEveryMicro = false;
    lab.base.bug = AccumBug::None;
    lab.base.scaling = Scaling::Divide;
    lab.effectiveBatch = m_effectiveSpin->value();
    if (m_budgetChosen)
        lab.budgetBytes = budgetBytes();
    else
        lab.failsAfterSamples = m_failsSpin->value();
    return r;
}

void MemoryView::registerLessonTargets(LessonNavigator &navigator)
{
    navigator.add(QStringLiteral("view/memory"), this);
    navigator.add(QStringLiteral("view/memoryBudget"), m_budgetSlider, m_budgetSlider);
}

void MemoryView::showLiveWindow(const MemoryTimeline &window)
{
    m_timeline->setLiveWindow(window);
    m_timeline->setVisible(true);
}

void MemoryView::start(MemoryLabKind kind)
{
    m_running = kind;
    refreshButtons();
    emit memoryLabRequested(request(kind));
}

void MemoryView::refresh()
{
    const qint64 budget = budgetBytes();
    const qint64 effective = m_effectiveSpin->value();
    const qint64 micro = m_failsSpin->value();
    const int64_t share = effective / std::max<int64_t>(1, m_config.worldSize);
    const int64_t estimateFits = largestBatchWithin(m_config, share, budget);
    if (m_budgetChosen)
        m_budgetLabel->setText(formatBytes(budget));
    else
        m_budgetLabel->setText(m_measuredBudget ? tr("%1, measured").arg(formatBytes(budget))
                                                : tr("%1, estimated").arg(formatBytes(budget)));
    m_bars->m_budget = budget;
    m_bars->m_rows = {
        {microBatchBytes(), tr("micro-batch of %1, estimate: %2").arg(count(micro), formatBytes(microBatchBytes())), false},
        {m_measuredMicroPeak,
         m_measuredMicroPeak ? tr("micro-batch of %1, measured: %2").arg(count(micro), formatBytes(*m_measuredMicroPeak))
                             : tr("micro-batch of %1, measured: run the demo").arg(count(micro)),
         true},
        {effectiveBatchBytes(),
         tr("effective batch of %1 in one pass, estimate: %2").arg(count(effective), formatBytes(effectiveBatchBytes())),
         false},
        {m_measuredFullPeak,
         m_measuredFullPeak
             ? tr("effective batch of %1 in one pass, measured: %2").arg(count(effective), formatBytes(*m_measuredFullPeak))
             : tr("effective batch of %1 in one pass, measured: run the demo").arg(count(effective)),
         true}};
    m_bars->m_budgetText = m_budgetChosen ? tr("budget: the estimate fits %1 samples per pass").arg(count(estimateFits))
                                          : tr("budget: fails after %1 samples").arg(count(micro));
    m_bars->update();
    const qint64 microBytes = m_measuredMicroPeak.value_or(microBatchBytes());
    const qint64 fullBytes = m_measuredFullPeak.value_or(effectiveBatchBytes());
    QString verdict;
    if (share % micro != 0)
        verdict = tr("A micro-batch of %1 does not divide the effective batch of %2.").arg(count(micro), count(effective));
    else if (microBytes > budget)
        verdict = tr("Out of memory even for the micro-batch: lower the micro-batch.");
    else if (fullBytes > budget)
        verdict = tr("The effective batch in one pass is out of memory; %1 micro-batches of %2 fit and give the same update.")
                      .arg(count(share / micro), count(micro));
    else
        verdict = tr("Both fit: with this budget accumulation is not needed for memory.");
    m_verdict->setText(verdict);
    refreshButtons();
}

void MemoryView::refreshButtons()
{
    for (QPushButton *b : {m_oomButton, m_tradeoffButton, m_finderButton})
        b->setEnabled(!m_running);
    if (!m_running)
        m_status->clear();
    else if (*m_running == MemoryLabKind::OomDemo)
        m_status->setText(tr("Running the out-of-memory demo…"));
    else if (*m_running == MemoryLabKind::Tradeoff)
        m_status->setText(tr("Running the trade-off sweep…"));
    else
        m_status->setText(tr("Finding the largest micro-batch that fits…"));
    m_result->setText(resultText());
    m_result->setVisible(!m_result->text().isEmpty());
}

void MemoryView::showMemoryLabResult(const MemoryLabUpdate &update)
{
    m_running.reset();
    m_last = update;
    if (update.ok) {
        const bool measuredBudget = update.request.tradeoff.lab.failsAfterSamples > 0;
        qint64 budget = 0;
        switch (update.request.kind) {
        case MemoryLabKind::OomDemo:
            budget = update.demo.budgetBytes;
            m_measuredFullPeak = update.demo.fullBatch.peakBytes;
            if (update.demo.accumulationSucceeded)
                m_measuredMicroPeak = update.demo.accumulation.peakBytes;
            m_timeline->setResult(update.demo);
            m_timeline->setVisible(m_timeline->hasTimeline());
            if (m_timeline->hasTimeline())
                m_lastDemo = update.demo;
            break;
        case MemoryLabKind::Tradeoff:
            budget = update.tradeoff.budgetBytes;
            m_chart->setResult(update.tradeoff);
            m_chart->setVisible(true);
            break;
        case MemoryLabKind::Finder: budget = update.finding.budgetBytes; break;
        }
        if (measuredBudget && budget > 0 && !m_budgetChosen) {
            m_measuredBudget = budget;
            const QSignalBlocker block(m_budgetSlider);
            m_budgetSlider->setValue(sliderFor(static_cast<double>(budget)));
        }
    }
    m_lastShownWith = request(update.request.kind).tradeoff.lab;
    refresh();
}

bool MemoryView::sameLab(const MemoryLabConfig &a, const MemoryLabConfig &b)
{
    return a.effectiveBatch == b.effectiveBatch && a.budgetBytes == b.budgetBytes &&
           a.failsAfterSamples == b.failsAfterSamples && toJson(a.base) == toJson(b.base);
}

QString MemoryView::resultText() const
{
    if (!m_last)
        return {};
    const MemoryLabUpdate &u = *m_last;
    if (u.cancelled)
        return tr("The memory run was cancelled.");
    if (!u.ok)
        return tr("The memory run failed: %1").arg(u.error.localized());
    if (m_lastShownWith && !sameLab(*m_lastShownWith, request(u.request.kind).tradeoff.lab))
        return tr("The settings changed after the last memory run, and its figures were for the old ones: run it "
                  "again for these.");
    // The run in words: core's sentences (resources/content/memory_lab.json), the ones the CLI
    // prints in English, here in the window's language and digits and with the device in its
    // words. LibTorch's own message comes last, left to right.
    const NumberStyle style = contentStyle();
    const auto device = [](const std::string &name) {
        return MemorySentenceWords{deviceInWords(QString::fromStdString(name)).toStdString()};
    };
    std::vector<std::string> sentences;
    switch (u.request.kind) {
    case MemoryLabKind::OomDemo: sentences = oomDemoSentences(u.demo, style, device(u.demo.device)); break;
    case MemoryLabKind::Tradeoff: sentences = tradeoffSentences(u.tradeoff, style, device(u.tradeoff.device)); break;
    case MemoryLabKind::Finder: sentences = finderSentences(u.finding, style); break;
    }
    QStringList lines;
    for (const std::string &sentence : sentences)
        lines << localized(sentence);
    return lines.join(QLatin1Char('\n'));
}

} // namespace accumlab::ui
