// The quiz (core/content/quiz.h) in the window: before the lesson, during it (check) and after it. One
// question at a time; an answer is locked once checked, then the verdict and the explanation
// show; after the last question the score, with the questions to review. Questions that an
// experiment demonstrates offer to open it (openExperiment). Scoring is core's scoreQuiz().
// GUI thread only.
#pragma once

#include "core/content/quiz.h"

#include <QMap>
#include <QMetaType>
#include <QString>
#include <QVector>
#include <QWidget>

#include <map>

class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QRadioButton;
class QStackedWidget;
class QVBoxLayout;

namespace accumlab::ui {

class QuizWidget : public QWidget {
    Q_OBJECT
public:
    explicit QuizWidget(QWidget *parent = nullptr);

    QuizStage stage() const { return m_stage; }
    int currentQuestion() const { return m_index; }
    int questionCount() const { return static_cast<int>(m_questions.size()); }
    // The score of the current stage over the answers checked so far.
    QuizScore score() const;
    bool showingResult() const;

public slots:
    // Shows `stage`, at its first unanswered question (or its result when all are answered).
    void setStage(accumlab::QuizStage stage);
    // Forgets the current stage's answers and starts it again.
    void restart();

signals:
    void openExperiment(const QString &id);
    // The last question of a stage was answered.
    void finished(accumlab::QuizStage stage, int correct, int total);

protected:
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void retranslateUi();
    void showQuestion(int index);
    void showResult();
    void checkAnswer();
    void next();
    void previous();
    void updateFeedback();
    QString choiceText(const QuizQuestion &q, const std::string &choiceId) const;
    const std::map<std::string, std::string> &answers() const;

    QuizStage m_stage = QuizStage::PreLesson;
    std::vector<QuizQuestion> m_questions;
    int m_index = 0;
    QMap<int, std::map<std::string, std::string>> m_answers; // stage -> question id -> choice id

    QLabel *m_stageLabel = nullptr;
    QComboBox *m_stagePicker = nullptr;
    QLabel *m_progressLabel = nullptr;
    QStackedWidget *m_pages = nullptr;
    // The question page.
    QLabel *m_promptLabel = nullptr;
    QVBoxLayout *m_choicesLayout = nullptr;
    QButtonGroup *m_choiceGroup = nullptr;
    QVector<QRadioButton *> m_choiceButtons;
    QVector<QLabel *> m_choiceLabels;
    QPushButton *m_checkButton = nullptr;
    QLabel *m_verdictLabel = nullptr;
    QLabel *m_explanationLabel = nullptr;
    QPushButton *m_experimentButton = nullptr;
    QPushButton *m_previousButton = nullptr;
    QPushButton *m_nextButton = nullptr;
    // The result page.
    QLabel *m_scoreLabel = nullptr;
    QLabel *m_reviewLabel = nullptr;
    QPushButton *m_restartButton = nullptr;
};

} // namespace accumlab::ui

Q_DECLARE_METATYPE(accumlab::QuizStage)
