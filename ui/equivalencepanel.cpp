// The equivalence panel.
#include "ui/equivalencepanel.h"

#include "ui/language.h"

#include <QLocale>
#include <QEvent>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace accumlab::ui {

namespace {

// Scientific notation reads left to right in every language (Persian writes 1٫23×10^−9).
QString sci(const QLocale &loc, double v) { return LanguageManager::ltr(loc.toString(v, 'e', 2)); }

} // namespace

EquivalencePanel::EquivalencePanel(QWidget *parent) : QGroupBox(parent)
{
    setObjectName(QStringLiteral("equivalencePanel"));
    auto *layout = new QVBoxLayout(this);
    m_splitLabel = new QLabel;
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
    m_layerTable->setMinimumHeight(80);
    layout->addWidget(m_layerTable, 1);
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

void EquivalencePanel::showResult()
{
    const QLocale loc = locale();
    const EquivalenceConfig &c = (m_update && !m_pending) ? m_update->result.config : m_pendingConfig;
    const qint64 micro = c.accumSteps > 0 ? c.bigBatch / c.accumSteps : 0;
    m_splitLabel->setText(QChar(0x2068) + // first-strong isolate, as the identity in ControlPanel
                          tr("batch %1 in one pass vs %2 micro-batches of %3")
                              .arg(loc.toString(static_cast<qint64>(c.bigBatch)), loc.toString(static_cast<qint64>(c.accumSteps)),
                                   loc.toString(micro)) +
                          QChar(0x2069));
    if (m_pending || !m_update) {
        m_verdictLabel->setText(tr("checking…"));
        m_verdictLabel->setStyleSheet(QString());
        if (!m_update)
            return;
    }
    if (!m_pending && !m_update->ok) {
        m_verdictLabel->setText(tr("not checked"));
        m_verdictLabel->setStyleSheet(QString());
        m_causeLabel->setText(m_update->error);
        m_causeLabel->setVisible(true);
        return;
    }
    const EquivalenceResult &r = m_update->result;
    if (!m_pending) {
        m_verdictLabel->setText(r.holds ? tr("PASS: equivalent") : tr("FAIL: not equivalent"));
        m_verdictLabel->setStyleSheet(r.holds ? QStringLiteral("color: #2e9e55;") : QStringLiteral("color: #d9482b;"));
    }
    m_gradLabel->setText(sci(loc, r.maxGradDiff));
    m_paramLabel->setText(sci(loc, r.maxParamDiff));
    const bool dtypeAware = r.config.dtype == DType::BFloat16;
    m_toleranceLabel->setText(dtypeAware ? tr("grad %1, param %2 (dtype-aware)").arg(sci(loc, r.gradBoundDtype), sci(loc, r.paramBoundDtype))
                                         : tr("%1 (fixed)").arg(sci(loc, r.config.fixedTolerance)));
    m_ratioLabel->setText(tr("%1 (accumulated / full)").arg(loc.toString(r.updateRatio, 'f', 4)));
    m_causeLabel->setText(r.holds ? QString() : QString::fromStdString(r.cause()));
    m_causeLabel->setVisible(!m_causeLabel->text().isEmpty());
    m_layerTable->setRowCount(static_cast<int>(r.layers.size()));
    for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) {
        const LayerDiff &l = r.layers[static_cast<size_t>(i)];
        const QStringList cells{QString::fromStdString(l.name), sci(loc, l.gradDiff), sci(loc, l.paramDiff)};
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

} // namespace accumlab::ui
