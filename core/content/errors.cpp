// Coded errors rendered from the content (core/content/errors.h).
#include "core/content/errors.h"

namespace accumlab {

std::string errorContentPath(const std::string &code)
{
    const auto slash = code.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == code.size())
        throw ContentError("error code \"" + code + "\" is not <group>/<key>");
    return "errors/" + code.substr(0, slash) + ".json";
}

std::string errorContentPointer(const std::string &code)
{
    errorContentPath(code); // refuses a code without a group
    return code.substr(code.find('/'));
}

std::string errorSentence(const std::string &code, const TextArgs &args, const NumberStyle &style)
{
    return renderText(errorContentPath(code), errorContentPointer(code), args, style);
}

CodedError::CodedError(std::string code, TextArgs args)
    : std::runtime_error(errorSentence(code, args, NumberStyle{"en", false})), m_code(std::move(code)),
      m_args(std::move(args))
{
}

std::string CodedError::text(const NumberStyle &style) const { return errorSentence(m_code, m_args, style); }

std::string errorText(const std::exception &e, const NumberStyle &style)
{
    if (const auto *coded = dynamic_cast<const CodedError *>(&e))
        return coded->text(style);
    const std::string what = e.what();
    return what.substr(0, what.find('\n'));
}

} // namespace accumlab
