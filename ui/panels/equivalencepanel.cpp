// The equivalence panel.
#include "ui/panels/equivalencepanel.h"

#include "ui/layout/fontscale.h"

#include "ui/language.h"
#include "ui/localizedtext.h"
#include "ui/layout/steadylabel.h"

#include <QLocale>
#include <QEvent>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

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
    m_criterionCaption = new QLabel;
    m_criterionLabel = new QLabel;
    m_criterionLabel->setObjectName(QStringLiteral("equivalenceCriterion"));
    m_criterionLabel->setWordWrap(true);
    grid->addWidget(m_gradCaption, 0, 0);
    grid->addWidget(m_gradLabel, 0, 1);
    grid->addWidget(m_paramCaption, 1, 0);
    grid->addWidget(m_paramLabel, 1, 1);
    grid->addWidget(m_toleranceCaption, 2, 0);
    grid->addWidget(m_toleranceLabel, 2, 1);
    grid->addWidget(m_ratioCaption, 3, 0);
    grid->addWidget(m_ratioLabel, 3, 1);
    grid->addWidget(m_criterionCaption, 4, 0, Qt::AlignTop);
    grid->addWidget(m_criterionLabel, 4, 1);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);
    m_causeLabel = new QLabel;
    m_causeLabel->setObjectName(QStringLiteral("equivalenceCause"));
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
    if (event->type() == QEvent::FontChange)
        keepRoomForTheHeaders();
}

// The table's least width holds every column's title whole (a zoom or a language changes
// them): the columns stretch, and a table given less cut "|grad diff|" at its edges.
void EquivalencePanel::keepRoomForTheHeaders()
{
    // The columns share the width equally: each is as wide as the widest title needs, and the
    // vertical scroll bar keeps its room.
    const QHeaderView *header = m_layerTable->horizontalHeader();
    int widest = 0;
    for (int col = 0; col < m_layerTable->columnCount(); ++col)
        widest = std::max(widest, header->sectionSizeHint(col));
    m_layerTable->setMinimumWidth(2 * m_layerTable->frameWidth() + m_layerTable->columnCount() * widest +
                                  m_layerTable->verticalScrollBar()->sizeHint().width());
}

void EquivalencePanel::retranslateUi()
{
    setTitle(tr("Equivalence: full batch vs accumulated"));
    m_layerTable->setAccessibleName(tr("Differences per parameter tensor"));
    m_gradCaption->setText(tr("max |grad diff|"));
    m_paramCaption->setText(tr("max |param diff|"));
    m_toleranceCaption->setText(tr("lesson's bound"));
    m_ratioCaption->setText(tr("update ratio"));
    m_criterionCaption->setText(tr("decided by"));
    m_layerTable->setHorizontalHeaderLabels({tr("tensor"), tr("|grad diff|"), tr("|param diff|")});
    keepRoomForTheHeaders();
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
QString EquivalencePanel::criterionText() const { return m_criterionLabel->text(); }

namespace {

// Core's sentence in the reader's language and digits, as a sentence: a capital first letter
// where the language has them (an identifier keeps its case), a full stop.
QString asSentence(const std::string &sentence)
{
    if (sentence.empty()) // localized() would still give a right-to-left mark
        return {};
    QString text = localized(sentence);
    // An identifier keeps its case: "zero_grad() ran ...", "scheduler.step() ran ...".
    const QString first = text.section(QLatin1Char(' '), 0, 0);
    if (text.at(0).isLower() && !first.contains(QRegularExpression(QStringLiteral("[_().]"))))
        text[0] = text.at(0).toUpper();
    return text.endsWith(QLatin1Char('.')) ? text : text + QLatin1Char('.');
}

} // namespace

QString EquivalencePanel::describeCause(const EquivalenceResult &r) const { return asSentence(r.cause(contentStyle())); }

QString EquivalencePanel::describeExplanation(const EquivalenceResult &r) const
{
    return asSentence(r.explanation(contentStyle()));
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
    const Verdict verdict = r.verdict();
    if (!m_pending) {
        switch (verdict) {
        case Verdict::Holds:
            m_verdictLabel->setText(tr("PASS: equivalent"));
            m_verdictLabel->setStyleSheet(QStringLiteral("color: #2e9e55;"));
            break;
        case Verdict::Fails:
            m_verdictLabel->setText(tr("FAIL: not equivalent"));
            m_verdictLabel->setStyleSheet(QStringLiteral("color: #d9482b;"));
            break;
        case Verdict::NoEffect:
            m_verdictLabel->setText(tr("NO EFFECT: the planted bug changed nothing here"));
            m_verdictLabel->setStyleSheet(QStringLiteral("color: #b7791f;"));
            break;
        }
    }
    m_gradLabel->setText(sci(r.maxGradDiff));
    m_paramLabel->setText(sci(r.maxParamDiff));
    // The lesson's 1e-4 under its own label: a figure of the lesson, not the verdict's bound.
    m_toleranceLabel->setText(r.withinLessonBound ? tr("both under %1").arg(sci(r.config.fixedTolerance))
                                                  : tr("above %1").arg(sci(r.config.fixedTolerance)));
    m_ratioLabel->setText(tr("%1 (accumulated / full)").arg(figure(r.updateRatio, ".4f")));
    m_criterionLabel->setText(asSentence(r.criterion(contentStyle())));
    QStringList sentences;
    for (const QString &t : {describeCause(r), describeExplanation(r)})
        if (!t.isEmpty())
            sentences << t;
    m_causeLabel->setText(sentences.join(QLatin1Char(' ')));
    m_causeLabel->setVisible(!m_causeLabel->text().isEmpty());
    m_layerTable->setRowCount(static_cast<int>(r.layers.size()));
    for (int i = 0; i < static_cast<int>(r.layers.size()); ++i) {
        const LayerDiff &l = r.layers[static_cast<size_t>(i)];
        const QStringList cells{QString::fromStdString(l.name), sci(l.gradDiff), sci(l.paramDiff)};
        // The verdict, per tensor: the rows where the float64 twin's sides differ.
        const QBrush ink = l.differs ? QBrush(QColor(0xd9, 0x48, 0x2b)) : QBrush();
        for (int col = 0; col < cells.size(); ++col) {
            auto *item = m_layerTable->item(i, col);
            if (!item) {
                item = new QTableWidgetItem;
                m_layerTable->setItem(i, col, item);
            }
            item->setText(cells[col]);
            item->setForeground(ink);
            item->setToolTip(l.differs ? tr("the float64 twin's sides differ in this tensor") : QString());
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
