// The quiz widget, driven by clicks: every stage answered right scores full marks; a wrong
// answer shows the verdict, the correct choice and the explanation, and counts in the score;
// a question tied to an experiment offers to open it; the texts follow the language.
#include "common.h"

#include "ui/language.h"
#include "ui/panels/quizwidget.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleOptionButton>
#include <QtTest>

using namespace accumlab;
using namespace accumlab::ui;

namespace {

void switchLanguage(UiLanguage language)
{
    LanguageManager::instance()->setLanguage(language);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
}

template <typename T> T *child(QWidget &w, const QString &name)
{
    auto *c = w.findChild<T *>(name);
    if (!c)
        qFatal("no child %s", qPrintable(name));
    return c;
}

// Picks `choice` for the question on screen and checks it.
void answer(QuizWidget &quiz, const std::string &choice)
{
    auto *button = child<QRadioButton>(quiz, QStringLiteral("choice_%1").arg(QString::fromStdString(choice)));
    QTest::mouseClick(button, Qt::LeftButton, {}, QPoint(4, button->height() / 2));
    QVERIFY(button->isChecked());
    auto *check = child<QPushButton>(quiz, QStringLiteral("quizCheckButton"));
    QVERIFY(check->isEnabled());
    QTest::mouseClick(check, Qt::LeftButton);
}

void next(QuizWidget &quiz)
{
    auto *nextButton = child<QPushButton>(quiz, QStringLiteral("quizNextButton"));
    QVERIFY(nextButton->isEnabled());
    QTest::mouseClick(nextButton, Qt::LeftButton);
}

// A core text as a label shows it: rich text (escaped), Persian after a right-to-left mark.
QString shown(const std::string &text, QChar prefix = QChar())
{
    const QString s = QString::fromStdString(text);
    return (prefix.isNull() ? s : prefix + s).toHtmlEscaped();
}

std::string wrongChoice(const QuizQuestion &q)
{
    for (const auto &c : q.choices)
        if (c.id != q.correct)
            return c.id;
    return {};
}

} // namespace

class TestQuizWidget : public QObject {
    Q_OBJECT
private slots:
    void init() { switchLanguage(QStringLiteral("en")); }

    void allCorrectGivesFullScore_data()
    {
        QTest::addColumn<QuizStage>("stage");
        QTest::newRow("pre-lesson") << QuizStage::PreLesson;
        QTest::newRow("check") << QuizStage::Check;
        QTest::newRow("post-lesson") << QuizStage::PostLesson;
    }
    void allCorrectGivesFullScore()
    {
        QFETCH(QuizStage, stage);
        QuizWidget quiz;
        quiz.resize(800, 600);
        quiz.show();
        QSignalSpy finished(&quiz, &QuizWidget::finished);
        auto *picker = child<QComboBox>(quiz, QStringLiteral("quizStagePicker"));
        picker->setCurrentIndex(picker->findData(static_cast<int>(stage)));
        QVERIFY(quiz.stage() == stage);
        const auto questions = quizQuestions(stage);
        QVERIFY(!questions.empty());
        QCOMPARE(quiz.questionCount(), int(questions.size()));
        for (size_t i = 0; i < questions.size(); ++i) {
            const QuizQuestion &q = questions[i];
            QCOMPARE(quiz.currentQuestion(), int(i));
            QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizPrompt"))->text(), shown(renderLocalized(q.prompt, {}, {"en", false})));
            for (const auto &c : q.choices)
                QCOMPARE(child<QLabel>(quiz, QStringLiteral("choiceText_%1").arg(QString::fromStdString(c.id)))->text(),
                         shown(renderLocalized(c.text, {}, {"en", false})));
            answer(quiz, q.correct);
            auto *verdict = child<QLabel>(quiz, QStringLiteral("quizVerdict"));
            QVERIFY(verdict->isVisible());
            QCOMPARE(verdict->text(), QuizWidget::tr("✓ Correct."));
            QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizExplanation"))->text(), shown(renderLocalized(q.explanation, {}, {"en", false})));
            next(quiz);
        }
        QVERIFY(quiz.showingResult());
        const int n = int(questions.size());
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizScore"))->text(), QStringLiteral("%1 of %1 correct").arg(n));
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizReview"))->text(), QuizWidget::tr("Every answer is right."));
        QCOMPARE(finished.size(), 1);
        QVERIFY(finished.first().at(0).value<QuizStage>() == stage);
        QCOMPARE(finished.first().at(1).toInt(), n);
        QCOMPARE(finished.first().at(2).toInt(), n);
    }

    void wrongAnswerShowsTheExplanation()
    {
        QuizWidget quiz;
        quiz.show();
        quiz.setStage(QuizStage::Check);
        const auto questions = quizQuestions(QuizStage::Check);
        const QuizQuestion &q = questions.front();
        QVERIFY(!q.experiment.empty()); // the first check question is demonstrated by an experiment
        const std::string wrong = wrongChoice(q);
        answer(quiz, wrong);

        auto *verdict = child<QLabel>(quiz, QStringLiteral("quizVerdict"));
        auto *explanation = child<QLabel>(quiz, QStringLiteral("quizExplanation"));
        QVERIFY(verdict->isVisible());
        QVERIFY(explanation->isVisible());
        std::string correctText;
        for (const auto &c : q.choices)
            if (c.id == q.correct)
                correctText = renderLocalized(c.text, {}, {"en", false});
        QCOMPARE(verdict->text(),
                 QuizWidget::tr("✗ Not quite. The answer is: %1").arg(QString::fromStdString(correctText)));
        QCOMPARE(explanation->text(), shown(renderLocalized(q.explanation, {}, {"en", false})));
        // The answer is locked once checked.
        for (const auto &c : q.choices)
            QVERIFY(!child<QRadioButton>(quiz, QStringLiteral("choice_%1").arg(QString::fromStdString(c.id)))->isEnabled());
        QVERIFY(!child<QPushButton>(quiz, QStringLiteral("quizCheckButton"))->isVisible());

        QSignalSpy open(&quiz, &QuizWidget::openExperiment);
        auto *experiment = child<QPushButton>(quiz, QStringLiteral("quizExperimentButton"));
        QVERIFY(experiment->isVisible());
        QTest::mouseClick(experiment, Qt::LeftButton);
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toString(), QString::fromStdString(q.experiment));

        // The rest answered right: the score is one short, and the wrong question is listed.
        next(quiz);
        for (size_t i = 1; i < questions.size(); ++i) {
            answer(quiz, questions[i].correct);
            next(quiz);
        }
        QVERIFY(quiz.showingResult());
        const int n = int(questions.size());
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizScore"))->text(),
                 QStringLiteral("%1 of %2 correct").arg(n - 1).arg(n));
        QCOMPARE(quiz.score().wrong, std::vector<std::string>{q.id});
        QVERIFY(child<QLabel>(quiz, QStringLiteral("quizReview"))->text().contains(
            QString::fromStdString(renderLocalized(q.prompt, {}, {"en", false})).toHtmlEscaped()));

        // Start again forgets the answers.
        QTest::mouseClick(child<QPushButton>(quiz, QStringLiteral("quizRestartButton")), Qt::LeftButton);
        QVERIFY(!quiz.showingResult());
        QCOMPARE(quiz.currentQuestion(), 0);
        QCOMPARE(quiz.score().answered, 0);
        QVERIFY(!child<QLabel>(quiz, QStringLiteral("quizVerdict"))->isVisible());
    }

    void stagesKeepTheirAnswers()
    {
        QuizWidget quiz;
        quiz.show();
        const auto pre = quizQuestions(QuizStage::PreLesson);
        answer(quiz, pre.front().correct);
        quiz.setStage(QuizStage::PostLesson);
        QCOMPARE(quiz.score().answered, 0);
        quiz.setStage(QuizStage::PreLesson);
        QCOMPARE(quiz.score().answered, 1);
        QCOMPARE(quiz.score().correct, 1);
        QCOMPARE(quiz.currentQuestion(), 1); // resumes at the first unanswered question
    }

    void textsFollowTheLanguage()
    {
        QuizWidget quiz;
        quiz.show();
        const QuizQuestion q = quizQuestions(QuizStage::PreLesson).front();
        answer(quiz, wrongChoice(q));
        quiz.setStage(QuizStage::PreLesson);
        QCOMPARE(quiz.currentQuestion(), 1);
        QTest::mouseClick(child<QPushButton>(quiz, QStringLiteral("quizPreviousButton")), Qt::LeftButton);
        QCOMPARE(quiz.currentQuestion(), 0);
        switchLanguage(QStringLiteral("fa"));
        const QChar rlm(0x200F); // Persian paragraphs start with a right-to-left mark
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizPrompt"))->text(), shown(renderLocalized(q.prompt, {}, {"fa", false}), rlm));
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizExplanation"))->text(), shown(renderLocalized(q.explanation, {}, {"fa", false}), rlm));
        for (const auto &c : q.choices)
            QCOMPARE(child<QLabel>(quiz, QStringLiteral("choiceText_%1").arg(QString::fromStdString(c.id)))->text(),
                     shown(renderLocalized(c.text, {}, {"fa", false}), rlm));
        switchLanguage(QStringLiteral("en"));
        QCOMPARE(child<QLabel>(quiz, QStringLiteral("quizPrompt"))->text(), shown(renderLocalized(q.prompt, {}, {"en", false})));
    }

    // Each choice's circle stands on the middle of the first line of its words, in both
    // languages, at the normal size and with the font zoomed as Ctrl+= thrice does (it was
    // aligned to the top of the line, and sat above the Persian words).
    void circlesStandOnTheirLine_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<double>("zoom");
        for (const char *language : {"en", "fa"})
            for (double zoom : {1.0, 1.15 * 1.15 * 1.15})
                QTest::addRow("%s x%.2f", language, zoom) << QString::fromLatin1(language) << zoom;
    }
    void circlesStandOnTheirLine()
    {
        QFETCH(QString, language);
        QFETCH(double, zoom);
        switchLanguage(language);
        QuizWidget quiz;
        QFont font = quiz.font();
        font.setPointSizeF(font.pointSizeF() * zoom);
        quiz.setFont(font);
        quiz.resize(600, 500);
        quiz.show();
        QVERIFY(QTest::qWaitForWindowExposed(&quiz));
        const QuizQuestion q = quizQuestions(QuizStage::PreLesson).front();
        for (const auto &c : q.choices) {
            const QString id = QString::fromStdString(c.id);
            auto *button = child<QRadioButton>(quiz, QStringLiteral("choice_%1").arg(id));
            auto *text = child<QLabel>(quiz, QStringLiteral("choiceText_%1").arg(id));
            QStyleOptionButton option;
            option.initFrom(button);
            const QRect circle = button->style()->subElementRect(QStyle::SE_RadioButtonIndicator, &option, button);
            const int circleMiddle = button->mapTo(&quiz, circle.center()).y();
            const int lineMiddle = text->mapTo(&quiz, QPoint(0, text->fontMetrics().height() / 2)).y();
            QVERIFY2(std::abs(circleMiddle - lineMiddle) <= 2,
                     qPrintable(QStringLiteral("choice %1: the circle's middle at %2, its line's at %3").arg(id).arg(circleMiddle).arg(lineMiddle)));
        }
        switchLanguage(QStringLiteral("en"));
    }
};

QTEST_MAIN(TestQuizWidget)
#include "tst_quizwidget.moc"
