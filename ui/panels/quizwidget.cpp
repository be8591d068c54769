// The quiz widget.
#include "ui/panels/quizwidget.h"

#include "ui/localizedtext.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace accumlab::ui {

namespace {

constexpr int kQuestionPage = 0;
constexpr int kResultPage = 1;

const QuizStage kStages[] = {QuizStage::PreLesson, QuizStage::Check, QuizStage::PostLesson};

// A choice's radio button, as tall as the first line of the choice's words beside it: the style
// centres the circle in the button, so the circle stands on that line's middle. Aligned to the
// top of a taller line (Vazirmatn's, zoomed in) it sat above the words.
class ChoiceButton : public QRadioButton {
public:
    ChoiceButton(const QLabel *text, QWidget *parent) : QRadioButton(parent), m_text(text) {}
    QSize sizeHint() const override { return firstLineTall(QRadioButton::sizeHint()); }
    QSize minimumSizeHint() const override { return firstLineTall(QRadioButton::minimumSizeHint()); }

private:
    QSize firstLineTall(QSize size) const { return {size.width(), std::max(size.height(), m_text->fontMetrics().height())}; }
    const QLabel *m_text;
};

} // namespace

QuizWidget::QuizWidget(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("quizWidget"));

    m_stageLabel = new QLabel(this);
    m_stagePicker = new QComboBox(this);
    m_stagePicker->setObjectName(QStringLiteral("quizStagePicker"));
    for (QuizStage s : kStages)
        m_stagePicker->addItem(QString(), static_cast<int>(s));
    m_stageLabel->setBuddy(m_stagePicker);
    m_progressLabel = new QLabel(this);
    m_progressLabel->setObjectName(QStringLiteral("quizProgress"));
    auto *top = new QHBoxLayout;
    top->addWidget(m_stageLabel);
    top->addWidget(m_stagePicker);
    top->addStretch(1);
    top->addWidget(m_progressLabel);

    // The question page.
    auto *questionPage = new QWidget(this);
    m_promptLabel = new QLabel(questionPage);
    m_promptLabel->setObjectName(QStringLiteral("quizPrompt"));
    m_promptLabel->setWordWrap(true);
    // Rich text: QTextDocument wraps shaped Persian text within the label; plain-text
    // wrapping can measure a line a little too wide and cut it off.
    m_promptLabel->setTextFormat(Qt::RichText);
    QFont promptFont = m_promptLabel->font();
    promptFont.setBold(true);
    promptFont.setPointSizeF(promptFont.pointSizeF() * 1.1);
    m_promptLabel->setFont(promptFont);
    m_choiceGroup = new QButtonGroup(this);
    m_choiceGroup->setExclusive(true);
    m_choicesLayout = new QVBoxLayout;
    m_checkButton = new QPushButton(questionPage);
    m_checkButton->setObjectName(QStringLiteral("quizCheckButton"));
    m_verdictLabel = new QLabel(questionPage);
    m_verdictLabel->setObjectName(QStringLiteral("quizVerdict"));
    m_verdictLabel->setWordWrap(true);
    m_explanationLabel = new QLabel(questionPage);
    m_explanationLabel->setObjectName(QStringLiteral("quizExplanation"));
    m_explanationLabel->setWordWrap(true);
    m_explanationLabel->setTextFormat(Qt::RichText);
    m_experimentButton = new QPushButton(questionPage);
    m_experimentButton->setObjectName(QStringLiteral("quizExperimentButton"));
    m_previousButton = new QPushButton(questionPage);
    m_previousButton->setObjectName(QStringLiteral("quizPreviousButton"));
    m_nextButton = new QPushButton(questionPage);
    m_nextButton->setObjectName(QStringLiteral("quizNextButton"));
    // Check, then Next in the same place right under the choices (Check hides once answered),
    // Previous at the row's far end: the page is as tall as the lab beside it, and a Next at its
    // foot was two screens below the question at 1024x768.
    auto *checkRow = new QHBoxLayout;
    checkRow->addWidget(m_checkButton);
    checkRow->addWidget(m_nextButton);
    checkRow->addStretch(1);
    checkRow->addWidget(m_previousButton);
    auto *experimentRow = new QHBoxLayout;
    experimentRow->addWidget(m_experimentButton);
    experimentRow->addStretch(1);
    auto *questionLayout = new QVBoxLayout(questionPage);
    questionLayout->addWidget(m_promptLabel);
    questionLayout->addLayout(m_choicesLayout);
    questionLayout->addLayout(checkRow);
    questionLayout->addWidget(m_verdictLabel);
    questionLayout->addWidget(m_explanationLabel);
    questionLayout->addLayout(experimentRow);
    questionLayout->addStretch(1);

    // The result page.
    auto *resultPage = new QWidget(this);
    m_scoreLabel = new QLabel(resultPage);
    m_scoreLabel->setObjectName(QStringLiteral("quizScore"));
    QFont scoreFont = m_scoreLabel->font();
    scoreFont.setBold(true);
    scoreFont.setPointSizeF(scoreFont.pointSizeF() * 1.5);
    m_scoreLabel->setFont(scoreFont);
    m_reviewLabel = new QLabel(resultPage);
    m_reviewLabel->setObjectName(QStringLiteral("quizReview"));
    m_reviewLabel->setWordWrap(true);
    m_restartButton = new QPushButton(resultPage);
    m_restartButton->setObjectName(QStringLiteral("quizRestartButton"));
    auto *restartRow = new QHBoxLayout;
    restartRow->addWidget(m_restartButton);
    restartRow->addStretch(1);
    auto *resultLayout = new QVBoxLayout(resultPage);
    resultLayout->addWidget(m_scoreLabel);
    resultLayout->addWidget(m_reviewLabel);
    resultLayout->addLayout(restartRow);
    resultLayout->addStretch(1);

    m_pages = new QStackedWidget(this);
    m_pages->insertWidget(kQuestionPage, questionPage);
    m_pages->insertWidget(kResultPage, resultPage);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_pages, 1);

    connect(m_stagePicker, &QComboBox::currentIndexChanged, this,
            [this](int index) { setStage(static_cast<QuizStage>(m_stagePicker->itemData(index).toInt())); });
    connect(m_checkButton, &QPushButton::clicked, this, &QuizWidget::checkAnswer);
    connect(m_nextButton, &QPushButton::clicked, this, &QuizWidget::next);
    connect(m_previousButton, &QPushButton::clicked, this, &QuizWidget::previous);
    connect(m_restartButton, &QPushButton::clicked, this, &QuizWidget::restart);
    connect(m_experimentButton, &QPushButton::clicked, this, [this] {
        if (m_index < questionCount() && !m_questions[size_t(m_index)].experiment.empty())
            emit openExperiment(QString::fromStdString(m_questions[size_t(m_index)].experiment));
    });
    connect(m_choiceGroup, &QButtonGroup::idToggled, this, [this](int, bool) {
        m_checkButton->setEnabled(m_choiceGroup->checkedButton() != nullptr && !m_checkButton->isHidden());
    });

    setStage(QuizStage::PreLesson);
    retranslateUi();
}

void QuizWidget::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

// A click on a choice's text selects its radio button, as a click on a check box's text would.
bool QuizWidget::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        const int i = m_choiceLabels.indexOf(qobject_cast<QLabel *>(watched));
        if (i >= 0 && m_choiceButtons[i]->isEnabled()) {
            m_choiceButtons[i]->click();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void QuizWidget::retranslateUi()
{
    m_stageLabel->setText(tr("&Quiz:"));
    m_stagePicker->setItemText(0, tr("Before the lesson"));
    m_stagePicker->setItemText(1, tr("During the lesson (check)"));
    m_stagePicker->setItemText(2, tr("After the lesson"));
    m_checkButton->setText(tr("&Check answer"));
    m_previousButton->setText(tr("&Previous"));
    m_restartButton->setText(tr("Start &again"));
    if (showingResult())
        showResult();
    else
        showQuestion(m_index);
}

const std::map<std::string, std::string> &QuizWidget::answers() const
{
    static const std::map<std::string, std::string> none;
    const auto it = m_answers.constFind(static_cast<int>(m_stage));
    return it == m_answers.constEnd() ? none : it.value();
}

QuizScore QuizWidget::score() const { return scoreQuiz(m_stage, answers()); }

bool QuizWidget::showingResult() const { return m_pages->currentIndex() == kResultPage; }

void QuizWidget::setStage(QuizStage stage)
{
    m_stage = stage;
    m_questions = quizQuestions(stage);
    {
        const QSignalBlocker block(m_stagePicker);
        m_stagePicker->setCurrentIndex(m_stagePicker->findData(static_cast<int>(stage)));
    }
    const auto &given = answers();
    int first = 0;
    while (first < questionCount() && given.count(m_questions[size_t(first)].id))
        ++first;
    if (first == questionCount() && questionCount() > 0)
        showResult();
    else
        showQuestion(first);
}

void QuizWidget::restart()
{
    m_answers.remove(static_cast<int>(m_stage));
    showQuestion(0);
}

void QuizWidget::showQuestion(int index)
{
    m_pages->setCurrentIndex(kQuestionPage);
    m_index = std::clamp(index, 0, std::max(0, questionCount() - 1));
    // Rebuild the choice rows for this question.
    for (auto *b : m_choiceButtons)
        m_choiceGroup->removeButton(b);
    while (QLayoutItem *item = m_choicesLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_choiceButtons.clear();
    m_choiceLabels.clear();
    if (m_questions.empty())
        return;
    const QuizQuestion &q = m_questions[size_t(m_index)];
    m_progressLabel->setText(
        tr("Question %1 of %2").arg(count(m_index + 1), count(questionCount())));
    m_promptLabel->setText(localized(q.prompt).toHtmlEscaped());
    int id = 0;
    for (const auto &choice : q.choices) {
        auto *row = new QWidget;
        auto *label = new QLabel(localized(choice.text).toHtmlEscaped(), row);
        auto *button = new ChoiceButton(label, row);
        button->setObjectName(QStringLiteral("choice_%1").arg(QString::fromStdString(choice.id)));
        button->setProperty("choiceId", QString::fromStdString(choice.id));
        label->setTextFormat(Qt::RichText);
        label->setObjectName(QStringLiteral("choiceText_%1").arg(QString::fromStdString(choice.id)));
        label->setWordWrap(true);
        label->installEventFilter(this);
        button->setAccessibleName(localized(choice.text));
        auto *rowLayout = new QHBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        rowLayout->addWidget(button, 0, Qt::AlignTop);
        rowLayout->addWidget(label, 1);
        m_choicesLayout->addWidget(row);
        m_choiceGroup->addButton(button, id++);
        m_choiceButtons.append(button);
        m_choiceLabels.append(label);
    }
    const auto it = answers().find(q.id);
    if (it != answers().end())
        for (auto *b : m_choiceButtons)
            if (b->property("choiceId").toString().toStdString() == it->second)
                b->setChecked(true);
    updateFeedback();
}

QString QuizWidget::choiceText(const QuizQuestion &q, const std::string &choiceId) const
{
    for (const auto &c : q.choices)
        if (c.id == choiceId)
            return localized(c.text);
    return QString();
}

void QuizWidget::updateFeedback()
{
    const QuizQuestion &q = m_questions[size_t(m_index)];
    const auto it = answers().find(q.id);
    const bool answered = it != answers().end();
    for (auto *b : m_choiceButtons)
        b->setEnabled(!answered);
    m_checkButton->setVisible(!answered);
    m_checkButton->setEnabled(!answered && m_choiceGroup->checkedButton() != nullptr);
    m_verdictLabel->setVisible(answered);
    m_explanationLabel->setVisible(answered);
    if (answered) {
        const bool right = it->second == q.correct;
        m_verdictLabel->setText(right ? tr("✓ Correct.")
                                      : tr("✗ Not quite. The answer is: %1").arg(choiceText(q, q.correct)));
        m_verdictLabel->setStyleSheet(right ? QStringLiteral("color: #1b7f3b; font-weight: bold;")
                                            : QStringLiteral("color: #b3261e; font-weight: bold;"));
        m_explanationLabel->setText(localized(q.explanation).toHtmlEscaped());
    }
    const ExperimentInfo *experiment = q.experiment.empty() ? nullptr : findExperiment(q.experiment);
    m_experimentButton->setVisible(answered && experiment != nullptr);
    if (experiment)
        m_experimentButton->setText(tr("Open the experiment “%1”").arg(localized(experiment->title)));
    m_previousButton->setEnabled(m_index > 0);
    const bool last = m_index + 1 == questionCount();
    m_nextButton->setText(last ? tr("See the r&esult") : tr("&Next"));
    m_nextButton->setEnabled(answered);
}

void QuizWidget::checkAnswer()
{
    auto *checked = m_choiceGroup->checkedButton();
    if (!checked || m_questions.empty())
        return;
    const QuizQuestion &q = m_questions[size_t(m_index)];
    m_answers[static_cast<int>(m_stage)][q.id] = checked->property("choiceId").toString().toStdString();
    updateFeedback();
    const QuizScore s = score();
    if (s.answered == s.total)
        emit finished(m_stage, s.correct, s.total);
}

void QuizWidget::next()
{
    if (m_index + 1 < questionCount())
        showQuestion(m_index + 1);
    else
        showResult();
}

void QuizWidget::previous()
{
    if (m_index > 0)
        showQuestion(m_index - 1);
}

void QuizWidget::showResult()
{
    m_pages->setCurrentIndex(kResultPage);
    const QuizScore s = score();
    m_progressLabel->setText(tr("Result"));
    m_scoreLabel->setText(
        tr("%1 of %2 correct").arg(count(s.correct), count(s.total)));
    if (s.answered < s.total) {
        m_reviewLabel->setText(tr("Unanswered questions: %1").arg(count(s.total - s.answered)));
    } else if (s.wrong.empty()) {
        m_reviewLabel->setText(tr("Every answer is right."));
    } else {
        QStringList review;
        for (const auto &q : m_questions)
            if (std::find(s.wrong.begin(), s.wrong.end(), q.id) != s.wrong.end())
                review << QStringLiteral("<li>%1</li>").arg(localized(q.prompt).toHtmlEscaped());
        m_reviewLabel->setText(tr("Worth another look:") + QStringLiteral("<ul>") + review.join(QString()) +
                               QStringLiteral("</ul>"));
    }
}

} // namespace accumlab::ui
