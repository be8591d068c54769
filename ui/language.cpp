// The language manager.
#include "ui/language.h"

#include "core/content/content.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFont>
#include <QFontDatabase>
#include <QLibraryInfo>
#include <QPointer>
#include <QSettings>
#include <QTranslator>
#include <QWidget>

namespace accumlab::ui {

namespace {

const char *const kSettingsLanguage = "ui/language";
const char *const kSettingsLatinDigits = "ui/latinDigits";
// Compiled translations, embedded by qt_add_translations under this prefix.
const char *const kTranslationsPrefix = ":/i18n";
// The bundled font (resources/fonts, SIL Open Font License 1.1).
const char *const kFontFiles[] = {":/fonts/Vazirmatn-Regular.ttf", ":/fonts/Vazirmatn-Bold.ttf"};
// The keys the menus name (QKeySequence::NativeText asks Qt's "QShortcut" context), named as a
// class calls them: Qt's own Persian reads Return and Enter as «بازگشت» ("back"), and the
// class says «اینتر». Our translator is asked before Qt's, so these win; the rest stay Qt's.
[[maybe_unused]] const char *const kKeyNames[] = {QT_TRANSLATE_NOOP("QShortcut", "Return"),
                                                  QT_TRANSLATE_NOOP("QShortcut", "Enter")};

} // namespace

LanguageManager *LanguageManager::instance()
{
    static QPointer<LanguageManager> manager;
    if (!manager)
        manager = new LanguageManager(qApp);
    return manager;
}

LanguageManager::LanguageManager(QObject *parent) : QObject(parent)
{
    m_appTranslator = new QTranslator(this);
    m_qtTranslator = new QTranslator(this);
    loadFont();
}

QStringList LanguageManager::languages()
{
    QStringList codes;
    for (const LanguageInfo &info : contentLanguages())
        codes << QString::fromStdString(info.code);
    return codes;
}

UiLanguage LanguageManager::fromCode(const QString &code, bool *ok)
{
    const QString c = code.trimmed().toLower();
    const bool known = languages().contains(c);
    if (ok)
        *ok = known;
    return known ? c : QStringLiteral("en");
}

UiLanguage LanguageManager::systemDefault()
{
    const QLocale::Language system = QLocale::system().language();
    for (const LanguageInfo &info : contentLanguages())
        if (QLocale(QString::fromStdString(info.locale)).language() == system)
            return QString::fromStdString(info.code);
    return QStringLiteral("en");
}

QString LanguageManager::nativeName(const UiLanguage &language)
{
    return QString::fromStdString(languageInfo(fromCode(language).toStdString()).name);
}

bool LanguageManager::isRightToLeft(const UiLanguage &language)
{
    return languageInfo(fromCode(language).toStdString()).rightToLeft;
}

bool LanguageManager::hasOwnDigits(const UiLanguage &language)
{
    return languageInfo(fromCode(language).toStdString()).digits.front() != "0";
}

QString LanguageManager::ltr(const QString &text) { return QChar(0x2066) + text + QChar(0x2069); }

QString LanguageManager::natural(const QString &text) { return QChar(0x2068) + text + QChar(0x2069); }

QString LanguageManager::toLatinDigits(const QString &text)
{
    QString out = text;
    for (QChar &c : out) {
        const char16_t u = c.unicode();
        if (u >= 0x06F0 && u <= 0x06F9)
            c = QChar(u'0' + (u - 0x06F0));
        else if (u >= 0x0660 && u <= 0x0669)
            c = QChar(u'0' + (u - 0x0660));
        else if (u == 0x060C)
            c = QLatin1Char(',');
    }
    return out;
}

QString LanguageManager::toReadersDigits(const QString &latin) const
{
    if (m_latinDigits || !hasOwnDigits(m_language))
        return latin;
    const LanguageInfo &info = languageInfo(m_language.toStdString());
    QString out;
    for (const QChar c : latin) {
        if (c >= QLatin1Char('0') && c <= QLatin1Char('9'))
            out += QString::fromStdString(info.digits[static_cast<size_t>(c.unicode() - u'0')]);
        else if (c == QLatin1Char(','))
            out += QString::fromStdString(info.list);
        else
            out += c;
    }
    return out;
}

QString LanguageManager::formatBytes(qint64 bytes)
{
    const LanguageManager *manager = instance();
    const NumberStyle style{manager->language().toStdString(), manager->latinDigits()};
    return QString::fromStdString(formatNumber(static_cast<double>(bytes), "B", style));
}

void LanguageManager::loadFont()
{
    for (const char *file : kFontFiles) {
        const int id = QFontDatabase::addApplicationFont(QLatin1String(file));
        if (id < 0) {
            qWarning("accumlab: could not load the bundled font %s; using the system font", file);
            continue;
        }
        const QStringList families = QFontDatabase::applicationFontFamilies(id);
        if (m_fontFamily.isEmpty() && !families.isEmpty())
            m_fontFamily = families.first();
    }
    if (m_fontFamily.isEmpty())
        return;
    // Vazirmatn carries Latin glyphs too, so both languages share it and the layout does not
    // jump on a switch. Without it Qt's default font (with fontconfig's fallbacks) stays.
    QFont font = QApplication::font();
    font.setFamilies({m_fontFamily});
    QApplication::setFont(font);
}

void LanguageManager::initialize(const QString &override, bool persist)
{
    m_persist = persist;
    QSettings settings;
    bool ok = false;
    UiLanguage language = systemDefault();
    const QString stored = settings.value(QLatin1String(kSettingsLanguage)).toString();
    const UiLanguage storedLanguage = fromCode(stored, &ok);
    if (ok)
        language = storedLanguage;
    const UiLanguage overridden = fromCode(override, &ok);
    m_overridden = ok;
    if (ok)
        language = overridden;
    m_latinDigits = settings.value(QLatin1String(kSettingsLatinDigits), false).toBool();
    m_language = language;
    m_applied = false;
    apply();
    store();
}

QLocale LanguageManager::numberLocale() const
{
    if (!m_latinDigits || !hasOwnDigits(m_language))
        return QLocale(QString::fromStdString(languageInfo(m_language.toStdString()).locale));
    return QLocale(QLocale::English, QLocale::UnitedStates);
}

void LanguageManager::setLanguage(const QString &requested)
{
    const UiLanguage language = fromCode(requested);
    if (m_applied && language == m_language)
        return;
    m_language = language;
    apply();
    store();
    emit languageChanged(language);
}

void LanguageManager::setLatinDigits(bool latin)
{
    if (latin == m_latinDigits)
        return;
    m_latinDigits = latin;
    applyLocale();
    // The translators are unchanged; a LanguageChange makes every widget rewrite its numbers.
    QEvent event(QEvent::LanguageChange);
    QCoreApplication::sendEvent(qApp, &event);
    store();
    emit latinDigitsChanged(latin);
}

void LanguageManager::applyLocale()
{
    QLocale::setDefault(numberLocale());
    // Windows resolve their locale when created; this hands the new one down to every widget.
    for (QWidget *w : QApplication::topLevelWidgets())
        w->unsetLocale();
    // Qt keeps sizes it measured in the old words: a combo box its items' width from its first
    // show, a spin box its digits' width. Both are measured again, or a window switched to
    // Persian kept English widths (a bug combo 31 pixels narrower than its Persian names, a
    // controls' column 56 pixels wider than a window opened in Persian).
    for (QWidget *top : QApplication::topLevelWidgets()) {
        for (QComboBox *combo : top->findChildren<QComboBox *>())
            if (combo->sizeAdjustPolicy() == QComboBox::AdjustToContentsOnFirstShow)
                combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        for (QAbstractSpinBox *spin : top->findChildren<QAbstractSpinBox *>()) {
            QEvent measureAgain(QEvent::StyleChange); // what drops a spin box's measured sizes
            QCoreApplication::sendEvent(spin, &measureAgain);
        }
    }
}

void LanguageManager::apply()
{
    m_applied = true;
    applyLocale();
    QGuiApplication::setLayoutDirection(rightToLeft() ? Qt::RightToLeft : Qt::LeftToRight);
    QCoreApplication::removeTranslator(m_appTranslator);
    QCoreApplication::removeTranslator(m_qtTranslator);
    const QString &lang = m_language;
    // Qt's own strings (the buttons of standard dialogs, context menus) when Qt ships them.
    // Installed first: the translator installed last is asked first, and ours names some keys
    // (kKeyNames) in Qt's own context.
    const QLocale locale(QString::fromStdString(languageInfo(lang.toStdString()).locale));
    m_qtTranslationLoaded = locale.language() != QLocale::English &&
                            m_qtTranslator->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                                                 QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (m_qtTranslationLoaded)
        QCoreApplication::installTranslator(m_qtTranslator);
    if (m_appTranslator->load(QStringLiteral("accumlab_%1").arg(lang), QLatin1String(kTranslationsPrefix)))
        QCoreApplication::installTranslator(m_appTranslator);
    else
        qWarning("accumlab: no compiled translation for %s", qPrintable(lang));
    // Removing and installing translators already sent LanguageChange; send one more in case
    // neither happened (English without any file), so numbers follow the new locale.
    QEvent event(QEvent::LanguageChange);
    QCoreApplication::sendEvent(qApp, &event);
}

void LanguageManager::store() const
{
    if (!m_persist)
        return;
    QSettings settings;
    settings.setValue(QLatin1String(kSettingsLanguage), m_language);
    settings.setValue(QLatin1String(kSettingsLatinDigits), m_latinDigits);
}

} // namespace accumlab::ui
