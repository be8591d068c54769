// The quiz data: every question complete in both languages with one correct answer and an
// explanation, ids unique, linked experiments real; scoring.
#include "core/experiments.h"
#include "core/quiz.h"

#include <QtTest>

#include <set>

using namespace accumlab;

namespace {

// True when the UTF-8 text holds at least one letter of the Arabic script block (U+0600-U+06FF),
// i.e. the Persian side was really written in Persian, not left in English.
bool hasPersianLetter(const std::string &text)
{
    const QString s = QString::fromUtf8(text.c_str());
    for (const QChar c : s)
        if (c.unicode() >= 0x0600 && c.unicode() <= 0x06FF)
            return true;
    return false;
}

bool validUtf8(const std::string &text)
{
    return QString::fromUtf8(text.c_str()).toUtf8() == QByteArray(text.c_str());
}

void verifyLocalized(const LocalizedText &t, const std::string &where, bool persianLetters = true)
{
    const auto en = t.byLanguage.find("en");
    const auto fa = t.byLanguage.find("fa");
    QVERIFY2(en != t.byLanguage.end() && !en->second.empty(), (where + ": English missing").c_str());
    QVERIFY2(fa != t.byLanguage.end() && !fa->second.empty(), (where + ": Persian missing").c_str());
    QVERIFY2(validUtf8(en->second) && validUtf8(fa->second), (where + ": invalid UTF-8").c_str());
    if (persianLetters)
        QVERIFY2(hasPersianLetter(fa->second), (where + ": Persian text has no Persian letter").c_str());
}

} // namespace

class TestQuiz : public QObject {
    Q_OBJECT
private slots:
    void everyStageHasQuestions_data()
    {
        QTest::addColumn<int>("stage");
        QTest::newRow("pre-lesson") << int(QuizStage::PreLesson);
        QTest::newRow("check") << int(QuizStage::Check);
        QTest::newRow("post-lesson") << int(QuizStage::PostLesson);
    }
    void everyStageHasQuestions()
    {
        QFETCH(int, stage);
        const auto questions = quizQuestions(QuizStage(stage));
        QVERIFY(questions.size() >= 4);
        for (const auto &q : questions)
            QCOMPARE(int(q.stage), stage);
        QCOMPARE(int(quizStageFromString(toString(QuizStage(stage)))), stage);
    }

    void stagesAreInOrder()
    {
        int last = 0;
        for (const auto &q : quizQuestions()) {
            QVERIFY2(int(q.stage) >= last, q.id.c_str());
            last = int(q.stage);
        }
        QVERIFY_THROWS_EXCEPTION(ConfigError, quizStageFromString("final"));
    }

    void everyQuestionIsComplete()
    {
        std::set<std::string> ids;
        for (const auto &q : quizQuestions()) {
            QVERIFY(!q.id.empty());
            QVERIFY2(ids.insert(q.id).second, ("duplicate question id " + q.id).c_str());
            verifyLocalized(q.prompt, q.id + " prompt");
            verifyLocalized(q.explanation, q.id + " explanation");
            QVERIFY2(q.choices.size() >= 3 && q.choices.size() <= 5, q.id.c_str());
            std::set<std::string> choiceIds, en, fa;
            int correct = 0;
            for (const auto &c : q.choices) {
                QVERIFY2(!c.id.empty() && choiceIds.insert(c.id).second, (q.id + ": choice ids").c_str());
                // Numbers and layer names may read the same in both languages; text must not be empty.
                verifyLocalized(c.text, q.id + " choice " + c.id, /*persianLetters=*/false);
                QVERIFY2(en.insert(c.text.in("en")).second, (q.id + ": two choices read the same (en)").c_str());
                QVERIFY2(fa.insert(c.text.in("fa")).second, (q.id + ": two choices read the same (fa)").c_str());
                correct += c.id == q.correct ? 1 : 0;
            }
            QVERIFY2(correct == 1, (q.id + ": needs exactly one correct choice").c_str());
            if (!q.experiment.empty())
                QVERIFY2(findExperiment(q.experiment) != nullptr, (q.id + ": unknown experiment " + q.experiment).c_str());
        }
    }

    // The right answer is not always in the same place.
    void correctAnswersAreSpread()
    {
        std::set<std::string> positions;
        for (const auto &q : quizQuestions())
            positions.insert(q.correct);
        QVERIFY(positions.size() >= 3);
    }

    void everyExperimentHasAQuestion()
    {
        std::set<std::string> linked;
        for (const auto &q : quizQuestions())
            linked.insert(q.experiment);
        for (const auto &info : experimentCatalog())
            QVERIFY2(linked.count(info.id), info.id.c_str());
    }

    void scoring()
    {
        const auto check = quizQuestions(QuizStage::Check);
        std::map<std::string, std::string> right, wrong;
        for (const auto &q : check) {
            right[q.id] = q.correct;
            for (const auto &c : q.choices)
                if (c.id != q.correct) {
                    wrong[q.id] = c.id;
                    break;
                }
        }
        const QuizScore all = scoreQuiz(QuizStage::Check, right);
        QCOMPARE(all.total, int(check.size()));
        QCOMPARE(all.answered, all.total);
        QCOMPARE(all.correct, all.total);
        QVERIFY(all.wrong.empty());

        const QuizScore none = scoreQuiz(QuizStage::Check, wrong);
        QCOMPARE(none.correct, 0);
        QCOMPARE(int(none.wrong.size()), none.total);
        QCOMPARE(none.wrong.front(), check.front().id);

        // One right, one wrong, the rest unanswered; answers to other stages are ignored.
        std::map<std::string, std::string> some{{check[0].id, check[0].correct}, {check[1].id, wrong[check[1].id]}};
        const auto pre = quizQuestions(QuizStage::PreLesson);
        some[pre[0].id] = pre[0].correct;
        const QuizScore partial = scoreQuiz(QuizStage::Check, some);
        QCOMPARE(partial.answered, 2);
        QCOMPARE(partial.correct, 1);
        QCOMPARE(partial.wrong, std::vector<std::string>{check[1].id});
    }
};

QTEST_GUILESS_MAIN(TestQuiz)
#include "tst_quiz.moc"
