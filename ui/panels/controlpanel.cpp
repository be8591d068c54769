// The control panel.
#include "ui/panels/controlpanel.h"

#include "core/content/loop_code.h"

#include "ui/panels/classinput.h"

#include "ui/layout/fontscale.h"

#include "core/device.h"
#include "ui/language.h"
#include "ui/panels/lessonnavigator.h"
#include "ui/localizedtext.h"

#include <QLocale>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QEvent>
#include <QResizeEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace accumlab::ui {

namespace {

// Learning rates the slider offers, in the 1-2-5 series a class can read aloud.
constexpr std::array kLearningRates{1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0};
constexpr int kMaxMicroBatchSlider = 128; // keeps the equivalence check's full batch small on a CPU
constexpr int kMaxAccumSlider = 64;
constexpr int kMaxWorldSlider = 4; // local ranks a classroom machine can host
constexpr double kClassroomIdentityScale = 1.5; // the identity's enlargement in classroom mode
constexpr int kMaxPace = 60;              // micro-batches per second, the worker's emit bound
constexpr int kMaxSeed = 1'000'000;       // the seed box's top; a class reads seeds aloud
constexpr int kMaxNumSteps = 10'000;      // timed optimizer steps per sweep point

// A first-strong isolate (FSI ... PDI) keeps the identity in one piece: left to right in
// English, right to left in Persian (whose translation names the factors in Persian words),
// never reordered with the text around it.
const QChar kFsi(0x2068);
const QChar kPdi(0x2069);

// The identity wraps between whole terms only, before a "×" or the "=": each term's words and
// figure, and "= effective 64", are joined by no-break spaces (in classroom mode it wrapped a
// lone "64", and at 1366 zoomed thrice left a dangling "=" at a line's end).
QString wholeTerms(QString text)
{
    const QChar nbsp(0x00A0);
    text.replace(QLatin1Char(' '), nbsp);
    for (const QChar op : {QChar(0x00D7), QChar(QLatin1Char('='))})
        text.replace(QString(nbsp) + op, QString(QLatin1Char(' ')) + op);
    return text;
}

QSlider *makeSlider(int min, int max)
{
    auto *s = new QSlider(Qt::Horizontal);
    s->setRange(min, max);
    s->setMinimumWidth(90);
    return s;
}

QWidget *sliderWithValue(QSlider *slider, QLabel *value)
{
    auto *w = new QWidget;
    auto *h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(slider, 1);
    value->setMinimumWidth(value->fontMetrics().horizontalAdvance(QStringLiteral("00000")));
    h->addWidget(value);
    return w;
}

template <typename E>
void addItem(QComboBox *combo, E value)
{
    combo->addItem(QString(), QString::fromStdString(toString(value)));
}

template <typename E, typename F>
E comboValue(const QComboBox *combo, F fromString)
{
    return fromString(combo->currentData().toString().toStdString());
}

template <typename E>
void selectValue(QComboBox *combo, E value)
{
    const int i = combo->findData(QString::fromStdString(toString(value)));
    if (i >= 0)
        combo->setCurrentIndex(i);
}

} // namespace

ControlPanel::ControlPanel(QWidget *parent) : QWidget(parent)
{
    m_cudaAvailable = cudaAvailable();
    auto *layout = new QVBoxLayout(this);

    m_batchBox = new QGroupBox;
    const int batchForm = addForm(m_batchBox);
    m_microSlider = makeSlider(1, kMaxMicroBatchSlider);
    m_microSlider->setObjectName(QStringLiteral("microBatchSlider"));
    stepInDoublings(m_microSlider);
    m_microValue = new QLabel;
    addRow(batchForm, QStringLiteral("microBatch"), sliderWithValue(m_microSlider, m_microValue));
    m_accumSlider = makeSlider(1, kMaxAccumSlider);
    m_accumSlider->setObjectName(QStringLiteral("accumStepsSlider"));
    stepInDoublings(m_accumSlider); // 4 -> 8 -> 16 in one press each, as the lesson's splits go
    m_accumValue = new QLabel;
    addRow(batchForm, QStringLiteral("accumSteps"), sliderWithValue(m_accumSlider, m_accumValue));
    m_worldSlider = makeSlider(1, kMaxWorldSlider);
    m_worldSlider->setObjectName(QStringLiteral("worldSizeSlider"));
    m_worldValue = new QLabel;
    addRow(batchForm, QStringLiteral("worldSize"), sliderWithValue(m_worldSlider, m_worldValue));
    m_identityLabel = new QLabel;
    m_identityLabel->setObjectName(QStringLiteral("identityLabel"));
    QFont big = m_identityLabel->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.15);
    m_identityLabel->setFont(big);
    m_identityLabel->setWordWrap(true);
    m_forms[batchForm].rows.append(FormRow{nullptr, m_identityLabel}); // across the box
    layout->addWidget(m_batchBox);

    m_trainingBox = new QGroupBox;
    const int trainForm = addForm(m_trainingBox);
    m_lrSlider = makeSlider(0, static_cast<int>(kLearningRates.size()) - 1);
    m_lrSlider->setObjectName(QStringLiteral("lrSlider"));
    m_lrValue = new QLabel;
    addRow(trainForm, QStringLiteral("lr"), sliderWithValue(m_lrSlider, m_lrValue));
    m_optimizerCombo = new QComboBox;
    m_optimizerCombo->setObjectName(QStringLiteral("optimizerCombo"));
    addItem(m_optimizerCombo, OptimizerKind::Sgd);
    addItem(m_optimizerCombo, OptimizerKind::Momentum);
    addItem(m_optimizerCombo, OptimizerKind::AdamW);
    addRow(trainForm, QStringLiteral("optimizer"), m_optimizerCombo);
    m_noDivisionCheck = new QCheckBox;
    m_noDivisionCheck->setObjectName(QStringLiteral("noDivisionCheck"));
    addRow(trainForm, QStringLiteral("noDivision"), m_noDivisionCheck);
    m_stepEveryMicroCheck = new QCheckBox;
    m_stepEveryMicroCheck->setObjectName(QStringLiteral("stepEveryMicroCheck"));
    addRow(trainForm, QStringLiteral("stepEveryMicro"), m_stepEveryMicroCheck);
    // The classic bugs of real trainers, planted in the engine's one window (core/config.h).
    m_bugCombo = new QComboBox;
    m_bugCombo->setObjectName(QStringLiteral("bugCombo"));
    for (const std::string &name : accumBugNames())
        addItem(m_bugCombo, accumBugFromString(name));
    addRow(trainForm, QStringLiteral("bug"), m_bugCombo);
    m_noSyncCheck = new QCheckBox;
    m_noSyncCheck->setObjectName(QStringLiteral("noSyncCheck"));
    addRow(trainForm, QStringLiteral("noSync"), m_noSyncCheck);
    m_dtypeCombo = new QComboBox;
    m_dtypeCombo->setObjectName(QStringLiteral("dtypeCombo"));
    addItem(m_dtypeCombo, DType::Float32);
    addItem(m_dtypeCombo, DType::Float64);
    addItem(m_dtypeCombo, DType::BFloat16);
    addItem(m_dtypeCombo, DType::Float16);
    addRow(trainForm, QStringLiteral("dtype"), m_dtypeCombo);
    m_lossScalingCheck = new QCheckBox;
    m_lossScalingCheck->setObjectName(QStringLiteral("lossScalingCheck"));
    addRow(trainForm, QStringLiteral("lossScaling"), m_lossScalingCheck);
    // The scaler's pitfalls (core/loss_scaler.h), planted in the same window; they misuse the
    // scaler, so the list is live only while it is on.
    m_scalerBugCombo = new QComboBox;
    m_scalerBugCombo->setObjectName(QStringLiteral("scalerBugCombo"));
    for (const std::string &name : scalerBugNames())
        addItem(m_scalerBugCombo, scalerBugFromString(name));
    addRow(trainForm, QStringLiteral("scalerBug"), m_scalerBugCombo);
    m_deviceCombo = new QComboBox;
    m_deviceCombo->setObjectName(QStringLiteral("deviceCombo"));
    addItem(m_deviceCombo, DeviceRequest::Auto);
    addItem(m_deviceCombo, DeviceRequest::Cpu);
    addItem(m_deviceCombo, DeviceRequest::Cuda);
    if (!m_cudaAvailable) {
        if (auto *model = qobject_cast<QStandardItemModel *>(m_deviceCombo->model()))
            model->item(2)->setEnabled(false);
    }
    addRow(trainForm, QStringLiteral("device"), m_deviceCombo);
    m_modelCombo = new QComboBox;
    m_modelCombo->setObjectName(QStringLiteral("modelCombo"));
    addItem(m_modelCombo, ModelPreset::Lesson);
    addItem(m_modelCombo, ModelPreset::Wide);
    addItem(m_modelCombo, ModelPreset::Fixture);
    addRow(trainForm, QStringLiteral("model"), m_modelCombo);
    m_seedSpin = new QSpinBox;
    m_seedSpin->setObjectName(QStringLiteral("seedSpin"));
    m_seedSpin->setRange(0, kMaxSeed);
    addRow(trainForm, QStringLiteral("seed"), m_seedSpin);
    layout->addWidget(m_trainingBox);

    m_teachingBox = new QGroupBox;
    const int teachForm = addForm(m_teachingBox);
    m_paceSlider = makeSlider(1, kMaxPace);
    m_paceSlider->setObjectName(QStringLiteral("paceSlider"));
    m_paceValue = new QLabel;
    addRow(teachForm, QStringLiteral("pace"), sliderWithValue(m_paceSlider, m_paceValue));
    layout->addWidget(m_teachingBox);

    m_sweepBox = new QGroupBox;
    m_sweepBox->setObjectName(QStringLiteral("sweepBox"));
    const int sweepForm = addForm(m_sweepBox);
    m_gridEdit = new QLineEdit;
    m_gridEdit->setObjectName(QStringLiteral("accumGridEdit"));
    // Latin, Persian and Arabic-Indic digits, the comma and the Arabic comma: a Persian
    // keyboard types the grid as ۱،۲،۴ (read as 1,2,4 by toLatinDigits).
    m_gridEdit->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[0-9\\x{06F0}-\\x{06F9}\\x{0660}-\\x{0669},\\x{060C} ]*")), m_gridEdit));
    addRow(sweepForm, QStringLiteral("accumGrid"), m_gridEdit);
    m_stepsSpin = new QSpinBox;
    m_stepsSpin->setObjectName(QStringLiteral("numStepsSpin"));
    m_stepsSpin->setRange(1, kMaxNumSteps);
    addRow(sweepForm, QStringLiteral("numSteps"), m_stepsSpin);
    layout->addWidget(m_sweepBox);
    layout->addStretch(1);
    // The panel's least width is minimumSizeHint's (the names above their controls), not its
    // layout's, which is that of the arrangement in place: the column may be narrower than
    // the names beside their controls need, and then they stand above (chooseArrangement).
    layout->setSizeConstraint(QLayout::SetNoConstraint);
    arrangeRows(false);

    setPreset(Preset{});

    for (QSlider *s : {m_microSlider, m_accumSlider, m_worldSlider, m_lrSlider}) {
        connect(s, &QSlider::valueChanged, this, &ControlPanel::updateValueLabels);
        connect(s, &QSlider::valueChanged, this, &ControlPanel::configChanged);
    }
    for (QComboBox *c : {m_optimizerCombo, m_bugCombo, m_scalerBugCombo, m_dtypeCombo, m_deviceCombo, m_modelCombo})
        connect(c, &QComboBox::currentIndexChanged, this, &ControlPanel::configChanged);
    connect(m_lossScalingCheck, &QCheckBox::toggled, m_scalerBugCombo, &QWidget::setEnabled);
    for (QCheckBox *c : {m_noDivisionCheck, m_stepEveryMicroCheck, m_noSyncCheck, m_lossScalingCheck})
        connect(c, &QCheckBox::toggled, this, &ControlPanel::configChanged);
    connect(m_seedSpin, &QSpinBox::valueChanged, this, &ControlPanel::configChanged);
    connect(m_paceSlider, &QSlider::valueChanged, this, &ControlPanel::updateValueLabels);
    connect(m_paceSlider, &QSlider::valueChanged, this, &ControlPanel::paceChanged);
    connect(m_gridEdit, &QLineEdit::textChanged, this, &ControlPanel::sweepSettingsChanged);
    connect(m_stepsSpin, &QSpinBox::valueChanged, this, &ControlPanel::sweepSettingsChanged);

    retranslateUi();
}

QStringList ControlPanel::controlKeys()
{
    return {QStringLiteral("microBatch"), QStringLiteral("accumSteps"), QStringLiteral("worldSize"), QStringLiteral("lr"),
            QStringLiteral("optimizer"),  QStringLiteral("noDivision"), QStringLiteral("stepEveryMicro"),
            QStringLiteral("bug"),
            QStringLiteral("noSync"),     QStringLiteral("dtype"),      QStringLiteral("lossScaling"),
            QStringLiteral("scalerBug"),  QStringLiteral("device"),
            QStringLiteral("model"),      QStringLiteral("seed"),       QStringLiteral("pace"),
            QStringLiteral("accumGrid"),  QStringLiteral("numSteps")};
}

QString ControlPanel::bugTitle(AccumBug bug) { return localized(accumlab::bugTitle(bug, contentStyle())); }

QString ControlPanel::controlTitle(const QString &key) const
{
    if (key == QLatin1String("microBatch"))
        return tr("Micro-batch");
    if (key == QLatin1String("accumSteps"))
        return tr("Accumulation steps");
    if (key == QLatin1String("worldSize"))
        return tr("Ranks (world size)");
    if (key == QLatin1String("lr"))
        return tr("Learning rate");
    if (key == QLatin1String("optimizer"))
        return tr("Optimizer");
    if (key == QLatin1String("noDivision"))
        return tr("Bug: no division");
    if (key == QLatin1String("stepEveryMicro"))
        return tr("Bug: step every micro-batch");
    if (key == QLatin1String("bug"))
        return tr("Bug: classic");
    if (key == QLatin1String("noSync"))
        return tr("No-sync");
    if (key == QLatin1String("dtype"))
        return tr("Dtype");
    if (key == QLatin1String("lossScaling"))
        return tr("Loss scaler");
    if (key == QLatin1String("scalerBug"))
        return tr("Bug: loss scaler");
    if (key == QLatin1String("device"))
        return tr("Device");
    if (key == QLatin1String("model"))
        return tr("Model");
    if (key == QLatin1String("seed"))
        return tr("Seed");
    if (key == QLatin1String("pace"))
        return tr("Pace");
    if (key == QLatin1String("accumGrid"))
        return tr("Sweep grid");
    if (key == QLatin1String("numSteps"))
        return tr("Steps at largest N");
    return key;
}

void ControlPanel::registerLessonTargets(LessonNavigator &navigator) const
{
    for (auto it = m_rowFields.cbegin(); it != m_rowFields.cend(); ++it)
        navigator.add(QStringLiteral("control/") + it.key(), it.value(), rowFocusWidget(it.key()));
    navigator.add(QStringLiteral("view/identity"), m_identityLabel);
}

QWidget *ControlPanel::rowFocusWidget(const QString &key) const
{
    QWidget *field = m_rowFields.value(key);
    if (!field || field->focusPolicy() != Qt::NoFocus)
        return field;
    // A slider with its value label: the slider takes the focus.
    return field->findChild<QSlider *>();
}

int ControlPanel::addForm(QGroupBox *box)
{
    m_forms.append(Form{box, {}});
    return static_cast<int>(m_forms.size()) - 1;
}

void ControlPanel::addRow(int form, const QString &key, QWidget *field)
{
    auto *label = new QLabel;
    m_forms[form].rows.append(FormRow{label, field});
    m_rowLabels.insert(key, label);
    m_rowFields.insert(key, field);
    // The label names the control that takes the focus (a slider inside its row).
    label->setBuddy(rowFocusWidget(key));
}

void ControlPanel::arrangeRows(bool namesAbove)
{
    // Each box gets a new grid: beside, the names in the first column and the controls in the
    // second, every control starting at the same edge; above, each name on its own line over
    // its control. A row classroom mode hides is two hidden widgets, which a grid folds away
    // (spacing included). The old grid goes; the widgets stay the box's children.
    m_namesAbove = namesAbove;
    for (const Form &form : std::as_const(m_forms)) {
        delete form.box->layout();
        auto *grid = new QGridLayout(form.box);
        if (namesAbove) // a name close over its control, a wider gap before the next name
            grid->setVerticalSpacing(std::max(1, grid->verticalSpacing() / 3));
        int line = 0;
        for (const FormRow &row : form.rows) {
            if (row.name)
                row.name->setContentsMargins(0, namesAbove && line > 0 ? row.name->fontMetrics().height() / 2 : 0, 0, 0);
            if (!row.name) {
                grid->addWidget(row.field, line++, 0, 1, 2);
            } else if (namesAbove) {
                grid->addWidget(row.name, line++, 0, 1, 2);
                grid->addWidget(row.field, line++, 0, 1, 2);
            } else {
                grid->addWidget(row.name, line, 0);
                grid->addWidget(row.field, line++, 1);
            }
        }
        grid->setColumnStretch(1, 1);
    }
    updateGeometry();
}

int ControlPanel::formsWidth(bool namesAbove, bool preferred) const
{
    const auto width = [preferred](QWidget *w) {
        const QWidgetItem item(w); // the layout's view: hidden is 0, a set minimum counts
        return preferred ? item.sizeHint().width() : item.minimumSize().width();
    };
    const QMargins panel = layout()->contentsMargins();
    int widest = 0;
    for (const Form &form : m_forms) {
        if (form.box->isHidden())
            continue; // every row hidden in classroom mode
        const QMargins box = form.box->contentsMargins(); // its frame and title
        const auto *boxGrid = static_cast<const QGridLayout *>(form.box->layout()); // arrangeRows' grid
        const QMargins grid = boxGrid->contentsMargins();
        const int spacing = std::max(0, boxGrid->horizontalSpacing());
        int name = 0, field = 0, across = 0;
        for (const FormRow &row : form.rows) {
            if (!row.name) {
                across = std::max(across, width(row.field));
                continue;
            }
            const int n = QWidgetItem(row.name).sizeHint().width(); // a name is never cut
            const int f = width(row.field);
            if (n == 0 && f == 0)
                continue; // hidden in classroom mode
            name = std::max(name, n);
            field = std::max(field, f);
        }
        const int rows = namesAbove ? std::max(name, field) : name + spacing + field;
        widest = std::max(widest, std::max(rows, across) + box.left() + box.right() + grid.left() + grid.right());
    }
    return widest + panel.left() + panel.right();
}

QSize ControlPanel::minimumSizeHint() const
{
    return {formsWidth(/*namesAbove=*/true, /*preferred=*/false), QWidget::minimumSizeHint().height()};
}

QSize ControlPanel::sizeHint() const
{
    return {formsWidth(/*namesAbove=*/false, /*preferred=*/true), QWidget::sizeHint().height()};
}

void ControlPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    chooseArrangement();
}

bool ControlPanel::event(QEvent *event)
{
    const bool done = QWidget::event(event);
    // A name or a control changed its size (a language switch, a zoom, a new text): the width
    // the names beside their controls need changed with it, the panel's own width did not.
    if (event->type() == QEvent::LayoutRequest)
        chooseArrangement();
    return done;
}

void ControlPanel::chooseArrangement()
{
    // Names beside their controls where they fit, above them where the panel is narrower
    // (zoomed, or a small screen): the column never scrolls sideways, and no control is cut.
    const bool above = width() < formsWidth(/*namesAbove=*/false, /*preferred=*/false);
    if (above != m_namesAbove)
        arrangeRows(above);
}

void ControlPanel::retranslateUi()
{
    {
        // The grid in the reader's digits: ۱،۲،۴ in Persian, 1,2,4 with Latin digits.
        const QSignalBlocker block(m_gridEdit);
        m_gridEdit->setText(LanguageManager::instance()->toReadersDigits(LanguageManager::toLatinDigits(m_gridEdit->text())));
    }
    m_batchBox->setTitle(tr("Batch"));
    m_trainingBox->setTitle(tr("Training"));
    m_teachingBox->setTitle(tr("Teaching mode"));
    m_sweepBox->setTitle(tr("Throughput sweep"));
    for (auto it = m_rowLabels.begin(); it != m_rowLabels.end(); ++it) {
        it.value()->setText(controlTitle(it.key()));
        // A screen reader says the row's title on the control itself (a buddy names only a
        // sibling, and the sliders sit inside their rows).
        if (QWidget *focus = rowFocusWidget(it.key()))
            focus->setAccessibleName(controlTitle(it.key()));
    }
    m_optimizerCombo->setItemText(0, tr("SGD"));
    m_optimizerCombo->setItemText(1, tr("SGD + momentum"));
    m_optimizerCombo->setItemText(2, tr("AdamW"));
    m_noDivisionCheck->setText(tr("loss not divided by N"));
    m_noDivisionCheck->setToolTip(tr("Each micro-batch's loss goes to backward() undivided: the summed gradient is N times too large."));
    m_stepEveryMicroCheck->setText(tr("optimizer.step() inside the window"));
    m_stepEveryMicroCheck->setToolTip(tr("The optimizer steps after every micro-batch instead of once per effective batch."));
    for (int i = 0; i < m_bugCombo->count(); ++i) {
        const AccumBug bug = accumBugFromString(m_bugCombo->itemData(i).toString().toStdString());
        m_bugCombo->setItemText(i, bugTitle(bug));
        m_bugCombo->setItemData(i, localized(bugStory(bug, contentStyle())), Qt::ToolTipRole);
    }
    m_bugCombo->setToolTip(tr("A bug that real training loops have shipped with, planted in the engine's window: "
                              "the equivalence panel, teaching mode and the sweep all run it."));
    m_noSyncCheck->setText(tr("sync only on the last micro-batch"));
    m_noSyncCheck->setToolTip(tr("Like DDP's no_sync(): non-final micro-batches skip the gradient all-reduce."));
    m_worldSlider->setToolTip(tr("Run sweep starts this many real rank processes on this machine, which all-reduce "
                                 "their gradients over c10d (Gloo); the equivalence panel and teaching mode run as many ranks as threads of "
                                 "the app, and teaching mode's bars show rank 0's buffers."));
    m_dtypeCombo->setItemText(0, tr("float32"));
    m_dtypeCombo->setItemText(1, tr("float64"));
    m_dtypeCombo->setItemText(2, tr("bfloat16"));
    m_dtypeCombo->setItemText(3, tr("float16"));
    m_lossScalingCheck->setText(tr("dynamic loss scaling"));
    m_lossScalingCheck->setToolTip(tr("Like PyTorch's GradScaler: the loss is multiplied by a scale before backward, the "
                                      "buffers are unscaled once per window, and a window with an Inf or NaN is skipped "
                                      "and the scale halved."));
    for (int i = 0; i < m_scalerBugCombo->count(); ++i) {
        const ScalerBug bug = scalerBugFromString(m_scalerBugCombo->itemData(i).toString().toStdString());
        m_scalerBugCombo->setItemText(i, localized(scalerBugTitle(bug, contentStyle())));
        m_scalerBugCombo->setItemData(i, localized(scalerBugStory(bug, contentStyle())), Qt::ToolTipRole);
    }
    m_scalerBugCombo->setToolTip(tr("A pitfall of loss scaling under accumulation, planted in the engine's window with "
                                    "the loss scaler on; where PyTorch refuses it, the engine refuses it in PyTorch's words."));
    m_deviceCombo->setItemText(0, tr("Auto"));
    m_deviceCombo->setItemText(1, tr("CPU"));
    m_deviceCombo->setItemText(2, m_cudaAvailable ? tr("CUDA") : tr("CUDA (not available)"));
    m_deviceCombo->setToolTip(m_cudaAvailable ? tr("Available: CPU and CUDA") : tr("Available: CPU only"));
    // Each model's layer widths are core's (shapeOf), in the reader's digits, from input to
    // classes (64-128-128-16 has two hidden layers of 128), isolated left to right: Persian
    // digits after Persian words would otherwise read 16-128-128-64.
    const auto widths = [](ModelPreset preset) {
        const ModelShape s = shapeOf(preset);
        return LanguageManager::ltr(
            QStringList{count(s.inFeatures), count(s.hidden), count(s.hidden), count(s.classes)}.join(QLatin1Char('-')));
    };
    m_modelCombo->setItemText(0, tr("Lesson MLP (%1)").arg(widths(ModelPreset::Lesson)));
    m_modelCombo->setItemText(1, tr("Wide MLP (%1)").arg(widths(ModelPreset::Wide)));
    m_modelCombo->setItemText(2, tr("Fixture MLP (%1)").arg(widths(ModelPreset::Fixture)));
    m_gridEdit->setToolTip(tr("Accumulation steps to sweep, comma-separated"));
    m_paceSlider->setToolTip(tr("Micro-batches per second while playing"));
    m_stepsSpin->setToolTip(tr("Timed optimizer steps of the grid's largest accum_steps; each smaller one runs as many "
                               "micro-batches (more steps), so every point does the same work"));
    updateValueLabels();
}

void ControlPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void ControlPanel::updateValueLabels()
{
    const qint64 micro = m_microSlider->value();
    const qint64 accum = m_accumSlider->value();
    m_microValue->setText(count(micro));
    m_accumValue->setText(count(accum));
    const qint64 world = m_worldSlider->value();
    m_worldValue->setText(count(world));
    m_lrValue->setText(figure(kLearningRates[static_cast<size_t>(m_lrSlider->value())], ".3g"));
    m_paceValue->setText(tr("%1/s").arg(count(m_paceSlider->value())));
    m_identityLabel->setText(kFsi +
                             wholeTerms(tr("micro %1 × accum %2 × world %3 = effective %4")
                                            .arg(count(micro), count(accum), count(world),
                                                 count(micro * accum * world))) +
                             kPdi);
}

ControlLimits ControlPanel::limits()
{
    ControlLimits l;
    l.maxMicroBatch = kMaxMicroBatchSlider;
    l.maxAccumSteps = kMaxAccumSlider;
    l.maxWorldSize = kMaxWorldSlider;
    l.maxSeed = kMaxSeed;
    l.minNumSteps = 1;
    l.maxNumSteps = kMaxNumSteps;
    l.maxPace = kMaxPace;
    for (double lr : kLearningRates)
        l.learningRates.append(lr);
    return l;
}

int ControlPanel::lrIndex(double lr) const
{
    int best = 0;
    for (size_t i = 0; i < kLearningRates.size(); ++i)
        if (std::abs(std::log(kLearningRates[i] / lr)) < std::abs(std::log(kLearningRates[best] / lr)))
            best = static_cast<int>(i);
    return best;
}

Preset ControlPanel::preset() const
{
    Preset p;
    p.run = m_run; // what no control shows stays as the last preset set it
    AccumConfig &c = p.run;
    c.microBatch = m_microSlider->value();
    c.accumSteps = m_accumSlider->value();
    c.worldSize = m_worldSlider->value();
    c.optimizer.lr = kLearningRates[static_cast<size_t>(m_lrSlider->value())];
    c.optimizer.kind = comboValue<OptimizerKind>(m_optimizerCombo, optimizerFromString);
    c.scaling = m_noDivisionCheck->isChecked() ? Scaling::None : Scaling::Divide;
    c.stepEveryMicro = m_stepEveryMicroCheck->isChecked();
    c.bug = comboValue<AccumBug>(m_bugCombo, accumBugFromString);
    c.noSync = m_noSyncCheck->isChecked();
    c.lossScaler.enabled = m_lossScalingCheck->isChecked();
    c.lossScaler.bug = comboValue<ScalerBug>(m_scalerBugCombo, scalerBugFromString);
    c.dtype = comboValue<DType>(m_dtypeCombo, dtypeFromString);
    c.device = comboValue<DeviceRequest>(m_deviceCombo, deviceFromString);
    c.preset = comboValue<ModelPreset>(m_modelCombo, presetFromString);
    if (c.preset != m_run.preset)
        c.shape.reset(); // another model picked: its own widths, not the last run's
    c.seed = static_cast<uint64_t>(m_seedSpin->value());
    p.pace = m_paceSlider->value();
    p.accumGrid = LanguageManager::toLatinDigits(m_gridEdit->text());
    p.numSteps = m_stepsSpin->value();
    p.warmupSteps = m_warmupSteps;
    p.threads = m_threads;
    p.classroomMode = m_classroomMode;
    p.hiddenControls = m_hidden;
    return p;
}

void ControlPanel::setPreset(const Preset &p)
{
    m_run = p.run;
    const AccumConfig &c = p.run;
    {
        // One configChanged for the whole preset, not one per control.
        const QSignalBlocker blockers[] = {QSignalBlocker(m_microSlider),      QSignalBlocker(m_accumSlider),
                                           QSignalBlocker(m_worldSlider),
                                           QSignalBlocker(m_lrSlider),         QSignalBlocker(m_optimizerCombo),
                                           QSignalBlocker(m_noDivisionCheck),  QSignalBlocker(m_stepEveryMicroCheck),
                                           QSignalBlocker(m_bugCombo),
                                           QSignalBlocker(m_noSyncCheck), QSignalBlocker(m_lossScalingCheck),      QSignalBlocker(m_scalerBugCombo),
                                           QSignalBlocker(m_dtypeCombo),
                                           QSignalBlocker(m_deviceCombo),      QSignalBlocker(m_modelCombo),
                                           QSignalBlocker(m_seedSpin),         QSignalBlocker(m_paceSlider),
                                           QSignalBlocker(m_gridEdit),         QSignalBlocker(m_stepsSpin)};
        m_microSlider->setValue(static_cast<int>(c.microBatch));
        m_accumSlider->setValue(static_cast<int>(c.accumSteps));
        m_worldSlider->setValue(static_cast<int>(std::clamp<int64_t>(c.worldSize, 1, kMaxWorldSlider)));
        m_lrSlider->setValue(lrIndex(c.optimizer.lr));
        selectValue(m_optimizerCombo, c.optimizer.kind);
        m_noDivisionCheck->setChecked(c.scaling == Scaling::None);
        m_stepEveryMicroCheck->setChecked(c.stepEveryMicro);
        selectValue(m_bugCombo, c.bug);
        m_noSyncCheck->setChecked(c.noSync);
        m_lossScalingCheck->setChecked(c.lossScaler.enabled);
        selectValue(m_scalerBugCombo, c.lossScaler.bug);
        m_scalerBugCombo->setEnabled(c.lossScaler.enabled); // toggled() is blocked here
        selectValue(m_dtypeCombo, c.dtype);
        selectValue(m_deviceCombo, (c.device == DeviceRequest::Cuda && !m_cudaAvailable) ? DeviceRequest::Auto : c.device);
        selectValue(m_modelCombo, c.preset);
        m_seedSpin->setValue(static_cast<int>(std::min<uint64_t>(c.seed, kMaxSeed)));
        m_paceSlider->setValue(p.pace);
        m_gridEdit->setText(LanguageManager::instance()->toReadersDigits(p.accumGrid));
        m_stepsSpin->setValue(p.numSteps);
        m_warmupSteps = p.warmupSteps;
        m_threads = p.threads;
    }
    setClassroomMode(p.classroomMode, p.hiddenControls);
    updateValueLabels();
    emit configChanged();
    emit paceChanged(m_paceSlider->value());
    emit sweepSettingsChanged();
}

void ControlPanel::setClassroomMode(bool enabled, const QStringList &hidden)
{
    // The identity reads from the back row while classroom mode is on.
    if (enabled != m_classroomMode)
        scaleFonts({m_identityLabel}, enabled ? kClassroomIdentityScale : 1.0 / kClassroomIdentityScale);
    m_classroomMode = enabled;
    m_hidden = hidden;
    applyVisibility();
}

void ControlPanel::applyVisibility()
{
    // A box whose every row is hidden goes too: an empty titled frame reads as a fault.
    QHash<QWidget *, bool> boxShown;
    for (auto it = m_rowFields.begin(); it != m_rowFields.end(); ++it) {
        const bool visible = !(m_classroomMode && m_hidden.contains(it.key()));
        QWidget *field = it.value();
        m_rowLabels.value(it.key())->setVisible(visible);
        field->setVisible(visible);
        boxShown[field->parentWidget()] |= visible;
    }
    for (auto it = boxShown.cbegin(); it != boxShown.cend(); ++it)
        it.key()->setVisible(it.value());
}

void ControlPanel::setSweepRunning(bool running)
{
    for (QGroupBox *box : {m_batchBox, m_trainingBox, m_sweepBox})
        box->setEnabled(!running);
}

bool ControlPanel::chooseHiddenControls(QWidget *parent)
{
    constexpr int kDialogTitleRoom = 120; // room beside the title in its title bar (buttons, margins)
    QDialog dialog(parent);
    dialog.setWindowTitle(tr("Controls hidden in classroom mode"));
    auto *layout = new QVBoxLayout(&dialog);
    // Never smaller than its contents (it was squeezed below its wrapped introduction and its
    // sixteen rows on a 768-pixel screen), and the choices in two columns to stay short.
    layout->setSizeConstraint(QLayout::SetMinimumSize);
    dialog.setMinimumWidth(dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) + kDialogTitleRoom);
    auto *intro = new QLabel(tr("Checked controls are hidden while classroom mode is on. Save a preset to keep the choice."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *grid = new QGridLayout;
    layout->addLayout(grid);
    QList<QCheckBox *> boxes;
    const QStringList keys = controlKeys();
    const int rows = static_cast<int>((keys.size() + 1) / 2);
    for (const QString &key : keys) {
        auto *box = new QCheckBox(controlTitle(key));
        box->setProperty("key", key);
        box->setChecked(m_hidden.contains(key));
        grid->addWidget(box, static_cast<int>(boxes.size()) % rows, static_cast<int>(boxes.size()) / rows);
        boxes << box;
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    QStringList chosen;
    for (QCheckBox *box : boxes)
        if (box->isChecked())
            chosen << box->property("key").toString();
    setClassroomMode(m_classroomMode, chosen);
    return true;
}

} // namespace accumlab::ui
