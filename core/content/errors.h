// Errors as codes with arguments: core says what went wrong as a code of the content
// (resources/content/errors/<group>.json, "<group>/<key>") and its figures; what() is the
// English sentence (the CLI prints it), and errorText() words it for any reader, so the
// window shows it in its own language and digits. Core writes no error prose in C++.
// Not here: errors the window words itself (tr()), LibTorch's own messages (shown as they came).
#pragma once

#include "core/content/content.h"

#include <stdexcept>
#include <string>

namespace accumlab {

class CodedError : public std::runtime_error {
public:
    // The content's sentence `code` filled with `args` in English. A code the content lacks is a
    // ContentError (tests render every code in every language).
    CodedError(std::string code, TextArgs args);
    const std::string &code() const { return m_code; }
    const TextArgs &args() const { return m_args; }
    // The sentence for one reader.
    std::string text(const NumberStyle &style) const;

private:
    std::string m_code;
    TextArgs m_args;
};

// Where a code's sentence lives: "config/grid-trailing-comma" -> errors/config.json at
// /grid-trailing-comma. Throws ContentError for a code without a group.
std::string errorContentPath(const std::string &code);
std::string errorContentPointer(const std::string &code);
// The sentence of `code` with `args` for one reader.
std::string errorSentence(const std::string &code, const TextArgs &args, const NumberStyle &style);

// An exception's sentence for one reader: a CodedError's in the reader's language, any other
// exception's what() as it is (its first line: LibTorch appends a C++ backtrace).
std::string errorText(const std::exception &e, const NumberStyle &style);

} // namespace accumlab
