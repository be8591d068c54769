// The accumulation panel (see accumulationpanel.h).
#include "ui/panels/accumulationpanel.h"

#include "ui/layout/fontscale.h"
#include "ui/charts/gradientbufferview.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/localizedtext.h"
#include "ui/layout/steadylabel.h"

#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

namespace accumlab::ui {

namespace {
constexpr double kRatioScale = 1.3; // the ratio reads larger than the counters
const char *const kCounterNames[AccumulationPanel::CounterCount] = {
    "microBatchesValue", "optimizerStepsValue", "stateStepValue", "syncCallsValue", "microLossValue"};
} // namespace

AccumulationPanel::AccumulationPanel(QWidget *parent) : QGroupBox(parent)
{
    setObjectName(QStringLiteral("buffersBox"));
    auto *layout = new QVBoxLayout(this);
    m_title = new QLabel;
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_bufferView = new GradientBufferView;
    layout->addWidget(m_bufferView, 1);
    m_ratioLabel = new SteadyLabel;
    m_ratioLabel->setObjectName(QStringLiteral("ratioLabel"));
    QFont big = m_ratioLabel->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * kRatioScale);
    m_ratioLabel->setFont(big);
    m_ratioLabel->setWordWrap(true);
    layout->addWidget(m_ratioLabel);
    m_progressLabel = new SteadyLabel;
    m_progressLabel->setObjectName(QStringLiteral("progressLabel"));
    m_progressLabel->setWordWrap(true); // with ranks it names them and whose bars show
    layout->addWidget(m_progressLabel);
    m_countersWidget = new QWidget;
    m_countersWidget->setObjectName(QStringLiteral("countersWidget"));
    auto *counters = new QGridLayout(m_countersWidget);
    counters->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < CounterCount; ++i) {
        m_counterCaptions[i] = new QLabel;
        m_counterValues[i] = new QLabel(QStringLiteral("–"));
        m_counterValues[i]->setObjectName(QLatin1String(kCounterNames[i]));
        // A screen reader names each value by its caption.
        m_counterCaptions[i]->setBuddy(m_counterValues[i]);
        QFont f = m_counterValues[i]->font();
        f.setBold(true);
        m_counterValues[i]->setFont(f);
        // Caption and value as one pair, side by side in the reading direction: the value can
        // never drift next to the other column's caption (in Persian a grid of four columns
        // read «۴ گام‌های بهینه‌ساز», "4 optimizer steps", after one step).
        auto *pair = new QWidget;
        auto *pairLayout = new QHBoxLayout(pair);
        pairLayout->setContentsMargins(0, 0, 0, 0);
        pairLayout->addWidget(m_counterCaptions[i]);
        pairLayout->addWidget(m_counterValues[i]);
        pairLayout->addStretch(1);
        counters->addWidget(pair, i / 2, i % 2);
    }
    for (int col = 0; col < 2; ++col)
        counters->setColumnStretch(col, 1);
    // float16 only: which path ran and the loss scaler's counters, one line under the others.
    m_float16Counters = new QLabel;
    m_float16Counters->setObjectName(QStringLiteral("float16Counters"));
    m_float16Counters->setWordWrap(true);
    m_float16Counters->setVisible(false);
    counters->addWidget(m_float16Counters, (CounterCount + 1) / 2, 0, 1, 2);
    layout->addWidget(m_countersWidget);
    keepRoomForWrappedText(this); // the wrapped sentences keep their lines, the bars their rows
    retranslateUi();
}

void AccumulationPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QGroupBox::changeEvent(event);
}

void AccumulationPanel::retranslateUi()
{
    m_title->setText(tr("Gradient buffers: one bar per parameter tensor, the buffer's projection onto the window's full-batch gradient (%1× at the marker)")
                         .arg(figure(1, "d")));
    m_bufferView->setAccessibleName(tr("Gradient buffers"));
    m_bufferView->setAccessibleDescription(m_title->text());
    m_counterCaptions[MicroBatches]->setText(tr("micro-batches seen"));
    m_counterCaptions[OptimizerSteps]->setText(tr("optimizer steps"));
    m_counterCaptions[StateStep]->setText(tr("optimizer state step"));
    m_counterCaptions[SyncCalls]->setText(tr("sync_calls"));
    m_counterCaptions[MicroLoss]->setText(tr("micro-batch loss"));
    for (int i = 0; i < CounterCount; ++i)
        m_counterValues[i]->setAccessibleName(m_counterCaptions[i]->text());
    reserveSentences();
    showLast();
}

QString AccumulationPanel::ratioSentence(double ratio, bool windowClosed, qint64 accumSteps) const
{
    return windowClosed ? tr("accumulated / full batch = %1× after all %2 micro-batches")
                              .arg(figure(ratio, ".2f"), count(accumSteps))
                        : tr("accumulated / full batch = %1× so far").arg(figure(ratio, ".2f"));
}

QString AccumulationPanel::progressSentence(qint64 micro, qint64 accumSteps, qint64 window, bool stepped) const
{
    const QString steppedText = stepped ? tr(" — optimizer stepped") : QString();
    // With several ranks each fills its own buffers; the bars are rank 0's, averaged with the
    // others' at the window's sync.
    return m_worldSize > 1
               ? tr("micro-batch %1 of %2 on each of %3 ranks in optimizer window %4, bars of rank %5%6")
                     .arg(count(micro), count(accumSteps), count(m_worldSize), count(window), count(0), steppedText)
               : tr("micro-batch %1 of %2 in optimizer window %3%4")
                     .arg(count(micro), count(accumSteps), count(window), steppedText);
}

void AccumulationPanel::reserveSentences()
{
    // The longest each sentence gets in a lesson: two-digit figures, a ratio of tens, the
    // window count of a long run, the step's note. The labels keep that height at every width.
    const qint64 most = 64, windows = 99999;
    m_ratioLabel->setReservedTexts({ratioSentence(88.88, true, most), ratioSentence(88.88, false, most),
                                    tr("accumulated / full batch: not measured yet")});
    m_progressLabel->setReservedTexts({progressSentence(most, most, windows, true)});
}

void AccumulationPanel::setEngine(const EngineInfo &info)
{
    m_bufferView->setParameterNames(info.parameterNames);
    m_bufferView->setConfig(info.config);
    m_worldSize = info.config.worldSize;
    reserveSentences();
    m_last.reset();
    showLast();
}

void AccumulationPanel::clear()
{
    m_bufferView->clear();
    m_last.reset();
    showLast();
}

void AccumulationPanel::showMicroBatch(const MicroBatchUpdate &update)
{
    m_bufferView->setUpdate(update);
    m_last = update;
    showLast();
}

void AccumulationPanel::showLast()
{
    if (!m_last) {
        for (QLabel *v : m_counterValues)
            v->setText(QStringLiteral("–"));
        m_progressLabel->clear();
        m_ratioLabel->setText(tr("accumulated / full batch: not measured yet"));
        m_float16Counters->setVisible(false);
        return;
    }
    const MicroBatchEvent &u = m_last->event;
    m_ratioLabel->setText(ratioSentence(m_bufferView->measuredRatio(), u.microIndex + 1 == u.accumSteps, u.accumSteps));
    m_progressLabel->setText(progressSentence(u.microIndex + 1, u.accumSteps, u.step + 1, u.optimizerStepped));
    m_counterValues[MicroBatches]->setText(count(u.microBatches));
    m_counterValues[OptimizerSteps]->setText(count(u.optimizerSteps));
    m_counterValues[StateStep]->setText(count(u.optimizerStateStep));
    m_counterValues[SyncCalls]->setText(count(u.syncCalls));
    // A micro-batch the loop never ran (skip-last-micro) has no loss to show.
    m_counterValues[MicroLoss]->setText(std::isnan(u.microLoss) ? tr("not run") : figure(u.microLoss, ".4f"));
    m_float16Counters->setVisible(!u.float16Path.empty());
    if (!u.float16Path.empty()) {
        const QString path = u.float16Path == "float16" ? tr("float16 on real float16 kernels")
                                                                       : tr("float16, emulated by rounding through float16");
        m_float16Counters->setText(
            u.lossScaling ? tr("%1 · loss scale %2 · skipped windows %3 · unscale calls %4")
                                .arg(path, figure(u.scalerState.scale, ".6g"), count(u.scalerState.skippedWindows),
                                     count(u.scalerState.unscaleCalls))
                          : tr("%1 · no loss scaler").arg(path));
    }
}

void AccumulationPanel::setClassroomMode(bool on)
{
    if (on == m_classroom)
        return;
    m_classroom = on;
    const double ratio = on ? kClassroomScale : 1.0 / kClassroomScale;
    // The bars' labels, the ratio and the counters; the title, read once, gives the bars its room.
    m_title->setVisible(!on);
    scaleFonts({m_bufferView, m_ratioLabel, m_progressLabel, m_countersWidget}, ratio);
}

void AccumulationPanel::registerLessonTargets(LessonNavigator &navigator) const
{
    navigator.add(QStringLiteral("view/buffers"), m_bufferView);
    navigator.add(QStringLiteral("view/counters"), m_countersWidget);
    navigator.add(QStringLiteral("view/syncCalls"), m_counterValues[SyncCalls]);
}

} // namespace accumlab::ui
