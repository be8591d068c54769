// The one place that decides which language core's bilingual texts are shown in.
#include "ui/localizedtext.h"

#include "ui/language.h"

namespace accumlab::ui {

bool persianUi() { return LanguageManager::instance()->language() == UiLanguage::Persian; }

QString localized(const LocalizedText &text)
{
    if (!persianUi() || text.fa.empty())
        return QString::fromStdString(text.en);
    // A right-to-left mark first: a Persian sentence that opens with code ("clip_grad_norm_
    // rescales ...") would otherwise be laid out as a left-to-right paragraph.
    return QChar(0x200F) + QString::fromStdString(text.fa);
}

QString leftToRight(const QString &text)
{
    const QChar mark(0x200E); // LEFT-TO-RIGHT MARK
    return mark + text + mark;
}

} // namespace accumlab::ui
