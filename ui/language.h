// The user-interface language, switched at run time without a restart. The languages are
// data: resources/content/languages.json lists each one's code, name, direction and locale,
// and translations/accumlab_<code>.ts holds the window's own words; nothing here names one.
// Installs AccumLab's and Qt's own translators, sets the layout direction (right-to-left for
// Persian; plots set themselves left-to-right), the number locale (the language's digits, or
// Latin digits when the teacher asks for them) and the bundled Vazirmatn font. The choice is
// kept in QSettings. It does not translate anything itself: widgets retranslate in
// changeEvent(). GUI thread only.
#pragma once

#include <QLocale>
#include <QObject>
#include <QString>
#include <QStringList>

class QTranslator;

namespace accumlab::ui {

// A language of the window: its code in languages.json ("fa", "en").
using UiLanguage = QString;

class LanguageManager : public QObject {
    Q_OBJECT
public:
    // The one manager of the application, created on first use as a child of qApp.
    static LanguageManager *instance();

    // The languages the window speaks, in languages.json's order (English first).
    static QStringList languages();
    // The language named by `code` (case and spaces ignored); anything else is English with
    // *ok set to false.
    static UiLanguage fromCode(const QString &code, bool *ok = nullptr);
    // The language whose locale speaks the system locale's language, English otherwise.
    static UiLanguage systemDefault();
    // The language's name in its own words ("فارسی"), for the language menu.
    static QString nativeName(const UiLanguage &language);
    static bool isRightToLeft(const UiLanguage &language);
    // True when the language writes digits other than 0-9 (the Latin-digits setting applies).
    static bool hasOwnDigits(const UiLanguage &language);
    // Left-to-right isolate (LRI ... PDI): keeps a formula such as `micro × accum = effective`
    // in reading order inside right-to-left text.
    static QString ltr(const QString &text);
    // First-strong isolate (FSI ... PDI): text inside a plot, which is laid out left to right in
    // every language, still reads in its own direction (a Persian title right to left).
    static QString natural(const QString &text);
    // Persian (U+06F0..9) and Arabic-Indic (U+0660..9) digits as Latin ones, and the Arabic
    // comma (U+060C) as ',': what a Persian keyboard types into a numeric field, as the parser reads it.
    static QString toLatinDigits(const QString &text);
    // Its inverse for what the window writes into a field the reader edits: Latin digits and
    // commas ("1,2,4") in the window's digits and list separator ("۱،۲،۴"), or as they are
    // with Latin digits chosen.
    QString toReadersDigits(const QString &latin) const;
    // A byte count in binary units, one decimal, in the window's digits and its words for the
    // unit: "485.8 KiB", "۴۸۵٫۸ کیلوبایت" (core's formatNumber with "B", as core's own texts).
    static QString formatBytes(qint64 bytes);

    // Start-up choice: `override` (from --lang, may be empty), else the stored choice, else the
    // system locale. With `persist`, an override is stored as the new choice.
    void initialize(const QString &override, bool persist);
    // Whether initialize() was given a language (--lang): it then wins over the language a
    // saved session closed in, too.
    bool overridden() const { return m_overridden; }

    UiLanguage language() const { return m_language; }
    bool rightToLeft() const { return isRightToLeft(m_language); }
    bool latinDigits() const { return m_latinDigits; }
    // The locale numbers are written in: the language's own (Persian digits), or English for
    // Latin digits.
    QLocale numberLocale() const;
    // The bundled font's family, empty when it could not be loaded.
    QString fontFamily() const { return m_fontFamily; }
    bool qtTranslationLoaded() const { return m_qtTranslationLoaded; }

public slots:
    void setLanguage(const QString &language);
    void setLatinDigits(bool latin);

signals:
    void languageChanged(const QString &language);
    void latinDigitsChanged(bool latin);

private:
    explicit LanguageManager(QObject *parent);
    void loadFont();
    void apply();
    void applyLocale();
    void store() const;

    UiLanguage m_language = QStringLiteral("en");
    bool m_latinDigits = false;
    bool m_persist = false;
    bool m_overridden = false;
    bool m_applied = false;
    bool m_qtTranslationLoaded = false;
    QString m_fontFamily;
    QTranslator *m_appTranslator = nullptr;
    QTranslator *m_qtTranslator = nullptr;
};

} // namespace accumlab::ui
