// Registration of the cross-thread value structs, and the wording of engine errors.
#include "ui/worker/updates.h"

#include "core/content/errors.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

namespace accumlab::ui {

void registerUpdateTypes()
{
    qRegisterMetaType<EngineError>();
    qRegisterMetaType<EngineInfo>();
    qRegisterMetaType<MicroBatchUpdate>();
    qRegisterMetaType<StepBatchUpdate>();
    qRegisterMetaType<SweepPointUpdate>();
    qRegisterMetaType<SweepDoneUpdate>();
    qRegisterMetaType<EquivalenceUpdate>();
    qRegisterMetaType<ExperimentUpdate>();
    qRegisterMetaType<MemoryLabUpdate>();
    qRegisterMetaType<EngineJob>();
    qRegisterMetaType<SessionUpdate>();
}

QString EngineError::localized() const
{
    if (!code.empty())
        return ui::localized(errorSentence(code, args, contentStyle()));
    if (own)
        return message;
    return LanguageManager::instance()->rightToLeft() ? LanguageManager::ltr(message) : message;
}

QString EngineError::english() const
{
    return code.empty() ? message : QString::fromStdString(errorSentence(code, args, NumberStyle{"en", false}));
}

EngineError EngineError::from(const std::exception &e)
{
    EngineError error;
    if (const auto *coded = dynamic_cast<const CodedError *>(&e)) {
        error.code = coded->code();
        error.args = coded->args();
    } else {
        error.message = QString::fromStdString(errorText(e, NumberStyle{}));
    }
    return error;
}

EngineError EngineError::said(const QString &sentence)
{
    EngineError error;
    error.message = sentence;
    error.own = true;
    return error;
}

} // namespace accumlab::ui
