// The equivalence panel.
#include "ui/equivalencepanel.h"

#include "ui/fontscale.h"

#include "ui/language.h"
#include "ui/localizedtext.h"
#include "ui/steadylabel.h"

#include <QLocale>
#include <QEvent>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace accumlab::ui {

namespace {

// Every figure of the panel goes through core's one number formatter, in the window's digits:
// scientific notation as a person writes it (1.23×10⁻⁹, ۱٫۲۳×۱۰⁻⁹: no caret, no leading zero,
// reading left to right), fixed decimals and counts.
QString sci(double v) { return figure(v, ".2e"); }

} // namespace

EquivalencePanel::EquivalencePanel(QWidget *parent) : QGroupBox(parent)
{
    setObjectName(QStringLiteral("equivalencePanel"));
    auto *layout = new QVBoxLayout(this);
    m_splitLabel = new QLabel;
    m_splitLabel->setObjectName(QStringLiteral("equivalenceSplit"));
    m_splitLabel->setWordWrap(true);
    layout->addWidget(m_splitLabel);
    m_verdictLabel = new QLabel;
    m_verdictLabel->setObjectName(QStringLiteral("equivalenceVerdict"));
    QFont big = m_verdictLabel->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.3);
    m_verdictLabel->setFont(big);
    layout->addWidget(m_verdictLabel);
    auto *grid = new QGridLayout;
    m_gradCaption = new QLabel;
    m_gradLabel = new QLabel;
    m_gradLabel->setObjectName(QStringLiteral("equivalenceGradDiff"));
    m_paramCaption = new QLabel;
    m_paramLabel = new QLabel;
    m_toleranceCaption = new QLabel;
    m_toleranceLabel = new QLabel;
    m_toleranceLabel->setWordWrap(true);
    m_ratioCaption = new QLabel;
    m_ratioLabel = new QLabel;
    grid->addWidget(m_gradCaption, 0, 0);
    grid->addWidget(m_gradLabel, 0, 1);
    grid->addWidget(m_paramCaption, 1, 0);
    grid->addWidget(m_paramLabel, 1, 1);
    grid->addWidget(m_toleranceCaption, 2, 0);
    grid->addWidget(m_toleranceLabel, 2, 1);
    grid->addWidget(m_ratioCaption, 3, 0);
    grid->addWidget(m_ratioLabel, 3, 1);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);
    m_causeLabel = new QLabel;
    m_causeLabel->setWordWrap(true);
    m_causeLabel->setVisible(false);
    layout->addWidget(m_causeLabel);
    m_layerTable = new QTableWidget(0, 3);
    m_layerTable->setTabKeyNavigation(false); // Tab leaves the table; arrows move inside it
    m_layerTable->setObjectName(QStringLiteral("equivalenceLayers"));
    m_layerTable->verticalHeader()->setVisible(false);
    m_layerTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_layerTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Compact rows, so a small window still shows every tensor of the lesson model.
    QFont tableFont = m_layerTable->font();
    tableFont.setPointSizeF(tableFont.pointSizeF() * 0.9);
    m_layerTable->setFont(tableFont);
    m_layerTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_layerTable->verticalHeader()->setDefaultSectionSize(m_layerTable->fontMetrics().height() + 2);
    setMinimumLines(m_layerTable, 0, 4.3);
    layout->addWidget(m_layerTable, 1);
    keepRoomForWrappedText(this); // the wrapped rows keep their lines
    retranslateUi();
}

void EquivalencePanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QGroupBox::changeEvent(event);
}

void EquivalencePanel::retranslateUi()
{
    setTitle(tr("Equivalence: full batch vs accumulated"));
    m_layerTable->setAccessibleName(tr("Differences per parameter tensor"));
    m_gradCaption->setText(tr("max |grad diff|"));
    m_paramCaption->setText(tr("max |param diff|"));
    m_toleranceCaption->setText(tr("tolerance"));
    m_ratioCaption->setText(tr("update ratio"));
    m_layerTable->setHorizontalHeaderLabels({tr("tensor"), tr("|grad diff|"), tr("|param diff|")});
    showResult();
}

void EquivalencePanel::setPending(const EquivalenceConfig &config)
{
    m_pending = true;
    m_pendingConfig = config;
    showResult();
}

void EquivalencePanel::setResult(const EquivalenceUpdate &update)
{
    m_pending = false;
    m_update = update;
    showResult();
}

QString EquivalencePanel::verdictText() const { return m_verdictLabel->text(); }
QString EquivalencePanel::causeText() const { return m_causeLabel->text(); }

// Core's sentence for the cause (one source for the CLI and the window), in the reader's
// language and digits, as a sentence: a capital first letter where the language has them (an
// identifier keeps its case), a full stop.
QString EquivalencePanel::describeCause(const EquivalenceResult &r) const
{
    const std::string cause = r.cause(contentStyle());
    if (cause.empty()) // it holds (localized() would still give a right-to-left mark)
        return {};
    QString text = localized(cause);
    // An identifier keeps its case: "zero_grad() ran ...", "scheduler.step() ran ...".
    const QString first = text.section(QLatin1Char(' '), 0, 0);
    if (text.at(0).isLower() && !first.contains(QRegularExpression(QStringLiteral("[_().]"))))
        text[0] = text.at(0).toUpper();
    return text + QLatin1Char('.');
}

QString EquivalencePanel::describeBound(const EquivalenceResult &r) const
{
    if (!r.holds || lowPrecision(r.config.run.dtype) || r.maxParamDiff < r.config.fixedTolerance)
        return {};
    if (r.config.run.optimizer.kind == OptimizerKind::AdamW)
        return tr("Still equivalent: at %1 the gradient is near eps, and AdamW's first step lr·g/(|g|+eps) turns its "
                  "rounding into a parameter difference of up to lr. Each parameter has its own bound.")
            .arg(LanguageManager::ltr(QString::fromStdString(r.worstParam)));
    return tr("Still equivalent: the first step lr·g multiplies the gradients' rounding by the rate. Each parameter "
              "has its own bound.");
}

QString EquivalencePanel::boundDerivation(const EquivalenceResult &r) const
{
    return tr("Each parameter p after the first step: |p_full − p_accum| ≤ %1 + lr·r.\n"
              "SGD and momentum step by lr·g: r = |g_full − g_accum|.\n"
              "AdamW's first step is lr·g/(|g|+eps): r = |g_full − g_accum| / (min(|g_full|, |g_accum|) + eps).\n"
              "Here: |Δp| %2 at %3, where the gradients are %4 and %5; largest |Δp| / bound %6 (it passes below 1).")
        .arg(sci(r.config.fixedTolerance), sci(r.worstParamDiff), LanguageManager::ltr(QString::fromStdString(r.worstParam)),
             sci(r.worstParamGradFull), sci(r.worstParamGradAcc), figure(r.paramExcessFixed, ".2f"));
}

void EquivalencePanel::showResult()
{
    const EquivalenceConfig &c = (m_update && !m_pending) ? m_update->result.config : m_pendingConfig;
    // The big batch is micro x accum x ranks: with several ranks the sentence names them.
    const QString split = c.run.worldSize > 1
                              ? tr("batch %1 in one pass vs %2 micro-batches of %3 on each of %4 ranks")
                                    .arg(count(c.bigBatch()), count(c.run.accumSteps), count(c.run.microBatch),
                                         count(c.run.worldSize))
                              : tr("batch %1 in one pass vs %2 micro-batches of %3")
                                    .arg(count(c.bigBatch()), count(c.run.accumSteps), count(c.run.microBatch));
    m_splitLabel->setText(QChar(0x2068) + split + QChar(0x2069)); // first-strong isolate, as the identity in ControlPanel
    if (m_pending || !m_update) {
        m_verdictLabel->setText(tr("checking…"));
        m_verdictLabel->setStyleSheet(QString());
        if (!m_update)
            return;
    }
    if (!m_pending && !m_update->ok) {
        m_verdictLabel->setText(tr("not checked"));
        m_verdictLabel->setStyleSheet(QString());
        m_causeLabel->setText(m_update->error.localized());
        m_causeLabel->setVisible(true);
        return;
    }
    const EquivalenceResult &r = m_update->result;
    if (!m_pending) {
        m_verdictLabel->setText(r.holds ? tr("PASS: equivalent") : tr("FAIL: not equivalent"));
        m_verdictLabel->setStyleSheet(r.holds ? QStringLiteral("color: #2e9e55;") : QStringLiteral("color: #d9482b;"));
    }
    m_gradLabel->setText(sci(r.maxGradDiff));
    m_paramLabel->setText(sci(r.maxParamDiff));
    const bool dtypeAware = lowPrecision(r.config.run.dtype);
    m_toleranceLabel->setText(dtypeAware ? tr("grad %1, param %2 (dtype-aware)").arg(sci(r.gradBoundDtype), sci(r.paramBoundDtype))
                                         : tr("%1 (fixed)").arg(sci(r.config.fixedTolerance)));
    m_ratioLabel->setText(tr("%1 (accumulated / full)").arg(figure(r.updateRatio, ".4f")));
    const QString bound = describeBound(r);
    m_causeLabel->setText(bound.isEmpty() ? describeCause(r) : bound);
    m_causeLabel->setToolTip(bound.isEmpty() ? QString() : boundDerivation(r));
    m_causeLabel->setVisible(!m_causeLabel->text().isEmpty());
    m_layerTable->setRowCount(static_cast<int>(r.layers.size()));
    for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) {
        const LayerDiff &l = r.layers[static_cast<size_t>(i)];
        const QStringList cells{QString::fromStdString(l.name), sci(l.gradDiff), sci(l.paramDiff)};
        for (int col = 0; col < cells.size(); ++col) {
            auto *item = m_layerTable->item(i, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_layerTable->setItem(i, col, item);
            }
            item->setText(cells[col]);
        }
    }
}

void EquivalencePanel::setClassroomMode(bool on)
{
    constexpr double kClassroomVerdictScale = 1.5;
    if (on == m_classroom)
        return;
    m_classroom = on;
    scaleFonts({m_verdictLabel}, on ? kClassroomVerdictScale : 1.0 / kClassroomVerdictScale);
}

} // namespace accumlab::ui
