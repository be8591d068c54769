// The one place that decides which language core's bilingual texts are shown in.
#include "ui/localizedtext.h"

#include "core/content/errors.h"
#include "ui/language.h"
#include "ui/worker/updates.h"

#include <QCoreApplication>

namespace accumlab::ui {

NumberStyle contentStyle()
{
    const auto *manager = LanguageManager::instance();
    return NumberStyle{manager->language().toStdString(), manager->latinDigits()};
}

QString localized(const std::string &rendered)
{
    const QString text = QString::fromStdString(rendered);
    if (!languageInfo(contentStyle().language).rightToLeft)
        return text;
    // A right-to-left mark first: a Persian sentence that opens with code ("clip_grad_norm_
    // rescales ...") would otherwise be laid out as a left-to-right paragraph.
    return QChar(0x200F) + text;
}

QString localized(const LocalizedText &text, const TextArgs &args)
{
    return localized(renderLocalized(text, args, contentStyle()));
}

QString figure(double value, const char *spec)
{
    return QString::fromStdString(formatNumber(value, spec, contentStyle()));
}

QString count(qint64 value) { return figure(static_cast<double>(value), "d"); }

QString errorSentence(const std::exception &e) { return EngineError::from(e).localized(); }

QString deviceInWords(const QString &device)
{
    if (device.startsWith(QLatin1String("cuda")))
        return QCoreApplication::translate("LocalizedText", "graphics card %1").arg(LanguageManager::ltr(device));
    return QCoreApplication::translate("LocalizedText", "processor (CPU)");
}

QString leftToRight(const QString &text)
{
    const QChar mark(0x200E); // LEFT-TO-RIGHT MARK
    return mark + text + mark;
}

} // namespace accumlab::ui
