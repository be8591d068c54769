// The quiz: pre-lesson, check and post-lesson questions on gradient accumulation, each with
// its choices, the one correct answer and an explanation in every language of the content
// (resources/content/quiz.json, our own wording). The desktop app renders it (through
// renderLocalized) and scores the answers with scoreQuiz(); nothing here draws widgets.
// Plain C++ (no torch, no Qt).
#pragma once

#include "core/config.h"
#include "core/content/content.h"

#include <map>
#include <string>
#include <vector>

namespace accumlab {

enum class QuizStage { PreLesson, Check, PostLesson };
std::string toString(QuizStage);               // "pre-lesson", "check", "post-lesson"
QuizStage quizStageFromString(const std::string &); // throws ConfigError

struct QuizChoice {
    std::string id; // "a", "b", ... unique within its question
    LocalizedText text;
};

struct QuizQuestion {
    std::string id; // unique over the whole quiz, e.g. "pre-why-accumulate"
    QuizStage stage = QuizStage::PreLesson;
    LocalizedText prompt;
    std::vector<QuizChoice> choices;
    std::string correct;        // id of the one correct choice
    LocalizedText explanation;  // shown after answering
    std::string experiment;     // id of the experiment that demonstrates it ("" = none)
};

// Every question, grouped by stage in the order pre-lesson, check, post-lesson.
const std::vector<QuizQuestion> &quizQuestions();
std::vector<QuizQuestion> quizQuestions(QuizStage stage);

struct QuizScore {
    int total = 0;    // questions in the scored set
    int answered = 0;
    int correct = 0;
    std::vector<std::string> wrong; // ids of questions answered wrongly, in quiz order
};

// answers: question id -> chosen choice id. Questions of other stages are ignored.
QuizScore scoreQuiz(QuizStage stage, const std::map<std::string, std::string> &answers);

} // namespace accumlab
