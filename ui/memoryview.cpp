// The memory view. The budget slider moves in quarter powers of two of bytes.
#include "ui/memoryview.h"

#include "core/memory.h"
#include "ui/engineworker.h"
#include "ui/language.h"

#include <QLocale>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

namespace accumlab::ui {

namespace {

constexpr int kStepsPerDoubling = 4;
constexpr int kMinBudgetLog2 = 10; // 1 KiB
constexpr int kMaxBudgetLog2 = 36; // 64 GiB
constexpr int64_t kDefaultBudgetSamples = 32; // the default budget fits this many samples

int sliderFor(double bytes) { return static_cast<int>(std::ceil(std::log2(std::max(bytes, 1.0)) * kStepsPerDoubling)); }

QString formatBytes(const QLocale &loc, qint64 bytes) { return loc.formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }

} // namespace

// Two horizontal bars against the budget line; painted left to right in every direction.
class MemoryBars : public QWidget {
public:
    explicit MemoryBars(QWidget *parent = nullptr) : QWidget(parent)
    {
        setLayoutDirection(Qt::LeftToRight);
        setMinimumHeight(90);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }
    qint64 m_budget = 1;
    qint64 m_micro = 0;
    qint64 m_effective = 0;
    QString m_microText;
    QString m_effectiveText;
    QString m_budgetText;

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.setLayoutDirection(Qt::LeftToRight); // a painter starts in the application's direction
        p.setRenderHint(QPainter::Antialiasing);
        const QFontMetrics fm(font());
        const double top = std::max<double>({static_cast<double>(m_budget), static_cast<double>(m_effective), 1.0}) * 1.1;
        const QRectF area(8, fm.height() + 6, width() - 16, height() - fm.height() - 12);
        const double rowH = area.height() / 2.0;
        auto xOf = [&](double b) { return area.left() + area.width() * std::min(b, top) / top; };
        const QList<std::pair<qint64, QString>> rows{{m_micro, m_microText}, {m_effective, m_effectiveText}};
        for (int i = 0; i < rows.size(); ++i) {
            const bool fits = rows[i].first <= m_budget;
            const QRectF bar(area.left(), area.top() + i * rowH + rowH * 0.15, xOf(rows[i].first) - area.left(), rowH * 0.7);
            p.fillRect(bar, fits ? QColor(0x2e, 0x9e, 0x55) : QColor(0xd9, 0x48, 0x2b));
            p.setPen(palette().color(QPalette::Text));
            QRectF textRect = bar.adjusted(6, 0, 0, 0);
            textRect.setWidth(area.width());
            p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, LanguageManager::natural(rows[i].second));
        }
        QPen pen(palette().color(QPalette::Text), 2, Qt::DashLine);
        p.setPen(pen);
        const double xb = xOf(static_cast<double>(m_budget));
        p.drawLine(QPointF(xb, area.top() - 2), QPointF(xb, area.bottom()));
        p.drawText(QRectF(std::min(xb - 150.0, width() - 300.0), 2, 300, fm.height()), Qt::AlignHCenter, LanguageManager::natural(m_budgetText));
    }
};

MemoryView::MemoryView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("memoryView"));
    // The view scrolls rather than making the window taller than its default size: the tab
    // holds the bars, four lines of words and the out-of-memory demo.
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea;
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto *content = new QWidget;
    scroll->setWidget(content);
    auto *layout = new QVBoxLayout(content);
    m_title = new QLabel;
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    auto *row = new QHBoxLayout;
    m_budgetCaption = new QLabel;
    m_budgetSlider = new QSlider(Qt::Horizontal);
    m_budgetSlider->setObjectName(QStringLiteral("memoryBudgetSlider"));
    m_budgetSlider->setRange(kMinBudgetLog2 * kStepsPerDoubling, kMaxBudgetLog2 * kStepsPerDoubling);
    m_budgetLabel = new QLabel;
    row->addWidget(m_budgetCaption);
    row->addWidget(m_budgetSlider, 1);
    row->addWidget(m_budgetLabel);
    layout->addLayout(row);
    m_bars = new MemoryBars;
    layout->addWidget(m_bars, 1);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("memoryVerdict"));
    m_verdict->setWordWrap(true);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    layout->addWidget(m_verdict);
    m_measured = new QLabel;
    layout->addWidget(m_measured);
    m_note = new QLabel;
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    auto *oomRow = new QHBoxLayout;
    m_oomButton = new QPushButton;
    m_oomButton->setObjectName(QStringLiteral("oomDemoButton"));
    m_oomStatus = new QLabel;
    m_oomStatus->setObjectName(QStringLiteral("oomDemoStatus"));
    m_oomStatus->setWordWrap(true);
    oomRow->addWidget(m_oomButton);
    oomRow->addWidget(m_oomStatus, 1);
    layout->addLayout(oomRow);
    m_oomResult = new QLabel;
    m_oomResult->setObjectName(QStringLiteral("oomDemoResult"));
    m_oomResult->setWordWrap(true);
    m_oomResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_oomResult);
    connect(m_oomButton, &QPushButton::clicked, this, [this] {
        m_oomRunning = true;
        refreshOomDemo();
        emit oomDemoRequested();
    });
    connect(m_budgetSlider, &QSlider::valueChanged, this, [this] {
        m_budgetChosen = true;
        refresh();
    });
    setConfig(m_config);
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
    m_title->setText(tr("Memory of one training pass: the micro-batch vs the whole effective batch"));
    m_budgetCaption->setText(tr("Accelerator memory budget"));
    m_note->setText(tr("Estimate from the model shape and dtype: activations kept for backward plus the "
                       "gradient buffers; allocator overhead and workspaces are not included."));
    m_oomButton->setText(tr("Run the out-of-memory demo"));
    // Asked again on a language change only: a LibTorch query, cached by CUDA itself.
    m_oomUnavailable = EngineWorker::oomDemoUnavailableReason();
    m_oomButton->setToolTip(m_oomUnavailable.isEmpty()
                                ? tr("Caps the GPU's allocator so the whole effective batch in one pass runs out of "
                                     "memory, then runs the same effective batch by accumulation under the same cap.")
                                : m_oomUnavailable);
    refresh();
}

void MemoryView::setConfig(const AccumConfig &config)
{
    m_config = config;
    if (!m_budgetChosen) {
        // Until the class moves the slider, the budget fits the default number of samples.
        const auto e = estimateTrainingMemory(config.modelShape(), kDefaultBudgetSamples, config.dtype);
        const QSignalBlocker block(m_budgetSlider);
        m_budgetSlider->setValue(sliderFor(static_cast<double>(e.totalBytes())));
    }
    refresh();
}

void MemoryView::setMeasuredPeakBytes(std::optional<qint64> bytes)
{
    m_measuredPeak = bytes;
    refresh();
}

qint64 MemoryView::budgetBytes() const
{
    return static_cast<qint64>(std::pow(2.0, static_cast<double>(m_budgetSlider->value()) / kStepsPerDoubling));
}

void MemoryView::setBudgetBytes(qint64 bytes) { m_budgetSlider->setValue(sliderFor(static_cast<double>(bytes))); }

qint64 MemoryView::microBatchBytes() const
{
    return estimateTrainingMemory(m_config.modelShape(), m_config.microBatch, m_config.dtype).totalBytes();
}

qint64 MemoryView::effectiveBatchBytes() const
{
    // What one rank would need to run its share of the effective batch in a single pass.
    return estimateTrainingMemory(m_config.modelShape(), m_config.microBatch * m_config.accumSteps, m_config.dtype)
        .totalBytes();
}

void MemoryView::refresh()
{
    const QLocale loc = locale();
    const qint64 budget = budgetBytes();
    const int64_t fitsSamples = largestBatchWithin(m_config.modelShape(), m_config.dtype, budget);
    const qint64 effective = m_config.microBatch * m_config.accumSteps;
    m_budgetLabel->setText(formatBytes(loc, budget));
    m_bars->m_budget = budget;
    m_bars->m_micro = microBatchBytes();
    m_bars->m_effective = effectiveBatchBytes();
    m_bars->m_microText = tr("micro-batch (%1 samples): %2").arg(loc.toString(static_cast<qint64>(m_config.microBatch)),
                                                                 formatBytes(loc, m_bars->m_micro));
    m_bars->m_effectiveText =
        tr("effective batch in one pass (%1 samples): %2").arg(loc.toString(effective), formatBytes(loc, m_bars->m_effective));
    m_bars->m_budgetText = tr("budget: fails after %1 samples").arg(loc.toString(static_cast<qint64>(fitsSamples)));
    m_bars->update();
    QString verdict;
    if (!microBatchFits())
        verdict = tr("Out of memory even for the micro-batch: lower the micro-batch.");
    else if (!effectiveBatchFits())
        verdict = tr("The effective batch in one pass is out of memory; %1 micro-batches of %2 fit and give the same update.")
                      .arg(loc.toString(static_cast<qint64>(m_config.accumSteps)),
                           loc.toString(static_cast<qint64>(m_config.microBatch)));
    else
        verdict = tr("Both fit: with this budget accumulation is not needed for memory.");
    m_verdict->setText(verdict);
    m_measured->setText(m_measuredPeak ? tr("Measured peak (CUDA): %1").arg(formatBytes(loc, *m_measuredPeak))
                                       : tr("Measured peak: not measured on this device."));
    refreshOomDemo();
}

void MemoryView::showOomDemoResult(const OomDemoUpdate &update)
{
    m_oomRunning = false;
    m_oomUpdate = update;
    refreshOomDemo();
}

void MemoryView::refreshOomDemo()
{
    m_oomButton->setEnabled(oomDemoAvailable() && !m_oomRunning);
    if (!oomDemoAvailable())
        m_oomStatus->setText(tr("Out-of-memory demo unavailable: %1").arg(m_oomUnavailable));
    else if (m_oomRunning)
        m_oomStatus->setText(tr("Running the out-of-memory demo on the GPU…"));
    else
        m_oomStatus->clear();
    m_oomResult->setText(oomDemoText());
    m_oomResult->setVisible(!m_oomResult->text().isEmpty());
}

QString MemoryView::oomDemoText() const
{
    if (!m_oomUpdate)
        return {};
    const OomDemoUpdate &u = *m_oomUpdate;
    if (u.cancelled)
        return tr("The out-of-memory demo was cancelled.");
    if (!u.ok)
        return tr("The out-of-memory demo failed: %1").arg(u.error);
    const QLocale loc = locale();
    const OomDemoResult &r = u.result;
    QStringList lines;
    lines << tr("On %1 the allocator was capped at %2: twice the measured peak of one micro-batch of %3 samples, %4.")
                 .arg(QString::fromStdString(r.device), formatBytes(loc, r.capBytes), loc.toString(qint64(u.config.microBatch)),
                      formatBytes(loc, r.microPeakBytes));
    // The allocator's own line is English and full of figures: kept left to right.
    if (r.fullBatchOutOfMemory)
        lines << tr("The full effective batch of %1 samples in one pass failed with CUDA out of memory: %2")
                     .arg(loc.toString(qint64(r.effectiveBatch)), LanguageManager::ltr(QString::fromStdString(r.fullBatchError)));
    else
        lines << tr("The full effective batch of %1 samples in one pass fitted under the cap this time; no out-of-memory "
                    "error was raised.")
                     .arg(loc.toString(qint64(r.effectiveBatch)));
    if (r.accumulationSucceeded)
        lines << tr("The same effective batch by accumulation of %1 micro-batches of %2 samples succeeded, with a measured "
                    "peak of %3.")
                     .arg(loc.toString(qint64(u.config.accumSteps)), loc.toString(qint64(u.config.microBatch)),
                          formatBytes(loc, r.accumulationPeakBytes));
    else
        lines << tr("The same effective batch by accumulation did not complete.");
    return lines.join(QLatin1Char('\n'));
}

} // namespace accumlab::ui
