// The quiz data: every question complete in both languages with one correct answer and an
// explanation, ids unique, linked experiments real; scoring.
#include "core/experiments/experiments.h"
#include "core/content/quiz.h"

#include "support.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

using namespace accumlab;
namespace test = accumlab::test;

namespace accumlab {
// A stage in GoogleTest's messages by name ("check"), found by argument-dependent lookup.
inline void PrintTo(QuizStage v, std::ostream *os) { *os << toString(v); }
} // namespace accumlab

namespace {

using accumlab::test::PrintTo; // a table row prints as its label (support.h)

// The code points of UTF-8 text, or nothing when it is not valid UTF-8 (a stray continuation
// byte, a truncated or overlong sequence, a surrogate, a code point past U+10FFFF).
std::optional<std::u32string> decodeUtf8(const std::string &text)
{
    bool valid = true;
    std::u32string points = test::codePoints(text, &valid);
    if (!valid)
        return std::nullopt;
    return points;
}

// True when the UTF-8 text holds at least one letter of the Arabic script block (U+0600-U+06FF),
// i.e. the Persian side was really written in Persian, not left in English.
bool hasPersianLetter(const std::string &text)
{
    const auto codePoints = decodeUtf8(text);
    if (!codePoints)
        return false;
    for (const char32_t c : *codePoints)
        if (c >= 0x0600 && c <= 0x06FF)
            return true;
    return false;
}

bool validUtf8(const std::string &text) { return decodeUtf8(text).has_value(); }

void verifyLocalized(const LocalizedText &t, const std::string &where, bool persianLetters = true)
{
    const auto en = t.byLanguage.find("en");
    const auto fa = t.byLanguage.find("fa");
    ASSERT_TRUE(en != t.byLanguage.end() && !en->second.empty()) << where << ": English missing";
    ASSERT_TRUE(fa != t.byLanguage.end() && !fa->second.empty()) << where << ": Persian missing";
    EXPECT_TRUE(validUtf8(en->second) && validUtf8(fa->second)) << where << ": invalid UTF-8";
    if (persianLetters) {
        EXPECT_TRUE(hasPersianLetter(fa->second)) << where << ": Persian text has no Persian letter";
    }
}

struct StageRow {
    const char *name;
    QuizStage stage;
};

const std::vector<StageRow> &stageRows()
{
    static const std::vector<StageRow> rows{
        {"pre-lesson", QuizStage::PreLesson},
        {"check", QuizStage::Check},
        {"post-lesson", QuizStage::PostLesson},
    };
    return rows;
}

} // namespace

class EveryStageHasQuestions : public testing::TestWithParam<StageRow> {};

TEST_P(EveryStageHasQuestions, Row)
{
    const QuizStage stage = GetParam().stage;
    const auto questions = quizQuestions(stage);
    EXPECT_GE(questions.size(), 4u);
    for (const auto &q : questions)
        EXPECT_EQ(q.stage, stage) << q.id;
    EXPECT_EQ(quizStageFromString(toString(stage)), stage);
}

INSTANTIATE_TEST_SUITE_P(Rows, EveryStageHasQuestions, testing::ValuesIn(stageRows()), test::ByName());

TEST(Quiz, StagesAreInOrder)
{
    int last = 0;
    for (const auto &q : quizQuestions()) {
        EXPECT_GE(int(q.stage), last) << q.id;
        last = int(q.stage);
    }
    EXPECT_THROW(quizStageFromString("final"), ConfigError);
}

TEST(Quiz, EveryQuestionIsComplete)
{
    std::set<std::string> ids;
    for (const auto &q : quizQuestions()) {
        SCOPED_TRACE(q.id);
        EXPECT_FALSE(q.id.empty());
        EXPECT_TRUE(ids.insert(q.id).second) << "duplicate question id " << q.id;
        verifyLocalized(q.prompt, q.id + " prompt");
        verifyLocalized(q.explanation, q.id + " explanation");
        EXPECT_TRUE(q.choices.size() >= 3 && q.choices.size() <= 5) << q.id;
        std::set<std::string> choiceIds, en, fa;
        int correct = 0;
        for (const auto &c : q.choices) {
            EXPECT_TRUE(!c.id.empty() && choiceIds.insert(c.id).second) << q.id << ": choice ids";
            // Numbers and layer names may read the same in both languages; text must not be empty.
            verifyLocalized(c.text, q.id + " choice " + c.id, /*persianLetters=*/false);
            EXPECT_TRUE(en.insert(c.text.in("en")).second) << q.id << ": two choices read the same (en)";
            EXPECT_TRUE(fa.insert(c.text.in("fa")).second) << q.id << ": two choices read the same (fa)";
            correct += c.id == q.correct ? 1 : 0;
        }
        EXPECT_EQ(correct, 1) << q.id << ": needs exactly one correct choice";
        if (!q.experiment.empty()) {
            EXPECT_NE(findExperiment(q.experiment), nullptr) << q.id << ": unknown experiment " << q.experiment;
        }
    }
}

// The right answer is not always in the same place.
TEST(Quiz, CorrectAnswersAreSpread)
{
    std::set<std::string> positions;
    for (const auto &q : quizQuestions())
        positions.insert(q.correct);
    EXPECT_GE(positions.size(), 3u);
}

TEST(Quiz, EveryExperimentHasAQuestion)
{
    std::set<std::string> linked;
    for (const auto &q : quizQuestions())
        linked.insert(q.experiment);
    for (const auto &info : experimentCatalog())
        EXPECT_TRUE(linked.count(info.id)) << info.id;
}

TEST(Quiz, Scoring)
{
    const auto check = quizQuestions(QuizStage::Check);
    ASSERT_GE(check.size(), 2u); // check[0] and check[1] are read below
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
    EXPECT_EQ(all.total, int(check.size()));
    EXPECT_EQ(all.answered, all.total);
    EXPECT_EQ(all.correct, all.total);
    EXPECT_TRUE(all.wrong.empty());

    const QuizScore none = scoreQuiz(QuizStage::Check, wrong);
    EXPECT_EQ(none.correct, 0);
    ASSERT_EQ(int(none.wrong.size()), none.total);
    ASSERT_FALSE(none.wrong.empty());
    EXPECT_EQ(none.wrong.front(), check.front().id);

    // One right, one wrong, the rest unanswered; answers to other stages are ignored.
    std::map<std::string, std::string> some{{check[0].id, check[0].correct}, {check[1].id, wrong[check[1].id]}};
    const auto pre = quizQuestions(QuizStage::PreLesson);
    ASSERT_FALSE(pre.empty());
    some[pre[0].id] = pre[0].correct;
    const QuizScore partial = scoreQuiz(QuizStage::Check, some);
    EXPECT_EQ(partial.answered, 2);
    EXPECT_EQ(partial.correct, 1);
    EXPECT_EQ(partial.wrong, std::vector<std::string>{check[1].id});
}
