// The quiz's questions, read from the content (resources/content/quiz.json), and its scoring.
#include "core/content/quiz.h"

#include <algorithm>

namespace accumlab {

namespace {

const char *const kQuizFile = "quiz.json";

const std::vector<QuizQuestion> &table()
{
    // The content's quiz.json, read once. Its questions are grouped by stage in the order
    // pre-lesson, check, post-lesson; tst_quiz checks that and every other invariant.
    static const std::vector<QuizQuestion> questions = [] {
        std::vector<QuizQuestion> out;
        for (const auto &q : contentJson(kQuizFile).at("questions")) {
            QuizQuestion question;
            question.id = q.at("id").get<std::string>();
            question.stage = quizStageFromString(q.at("stage").get<std::string>());
            question.prompt = localizedText(q.at("prompt"));
            for (const auto &c : q.at("choices"))
                question.choices.push_back({c.at("id").get<std::string>(), localizedText(c.at("text"))});
            question.correct = q.at("correct").get<std::string>();
            question.explanation = localizedText(q.at("explanation"));
            question.experiment = q.value("experiment", "");
            out.push_back(std::move(question));
        }
        return out;
    }();
    return questions;
}

} // namespace

std::string toString(QuizStage stage)
{
    switch (stage) {
    case QuizStage::PreLesson: return "pre-lesson";
    case QuizStage::Check: return "check";
    case QuizStage::PostLesson: return "post-lesson";
    }
    return "?";
}

QuizStage quizStageFromString(const std::string &text)
{
    for (QuizStage s : {QuizStage::PreLesson, QuizStage::Check, QuizStage::PostLesson})
        if (toString(s) == text)
            return s;
    throw ConfigError("quiz/unknown-stage", TextArgs{{}, {{"stage", text}}});
}

const std::vector<QuizQuestion> &quizQuestions() { return table(); }

std::vector<QuizQuestion> quizQuestions(QuizStage stage)
{
    std::vector<QuizQuestion> out;
    std::copy_if(table().begin(), table().end(), std::back_inserter(out),
                 [stage](const QuizQuestion &q) { return q.stage == stage; });
    return out;
}

QuizScore scoreQuiz(QuizStage stage, const std::map<std::string, std::string> &answers)
{
    QuizScore score;
    for (const auto &q : table()) {
        if (q.stage != stage)
            continue;
        ++score.total;
        const auto it = answers.find(q.id);
        if (it == answers.end())
            continue;
        ++score.answered;
        if (it->second == q.correct)
            ++score.correct;
        else
            score.wrong.push_back(q.id);
    }
    return score;
}

} // namespace accumlab
