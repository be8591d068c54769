// The user-interface language: Persian or English, switched at run time without a restart.
// Installs AccumLab's and Qt's own translators, sets the layout direction (right-to-left for
// Persian; plots set themselves left-to-right), the number locale (Persian digits, or Latin
// digits when the teacher asks for them) and the bundled Vazirmatn font. The choice is kept
// in QSettings. It does not translate anything itself: widgets retranslate in changeEvent().
// GUI thread only.
#pragma once

#include <QLocale>
#include <QObject>
#include <QString>

class QTranslator;

namespace accumlab::ui {

enum class UiLanguage { English, Persian };

class LanguageManager : public QObject {
    Q_OBJECT
public:
    // The one manager of the application, created on first use as a child of qApp.
    static LanguageManager *instance();

    // "fa" or "en"; anything else is English with *ok set to false.
    static UiLanguage fromCode(const QString &code, bool *ok = nullptr);
    static QString code(UiLanguage language);
    // Persian when the system locale's language is Persian, English otherwise.
    static UiLanguage systemDefault();
    // Left-to-right isolate (LRI ... PDI): keeps a formula such as `micro × accum = effective`
    // in reading order inside right-to-left text.
    static QString ltr(const QString &text);
    // First-strong isolate (FSI ... PDI): text inside a plot, which is laid out left to right in
    // every language, still reads in its own direction (a Persian title right to left).
    static QString natural(const QString &text);
    // Persian (U+06F0..9) and Arabic-Indic (U+0660..9) digits as Latin ones, and the Arabic
    // comma (U+060C) as ',': what a Persian keyboard types into a numeric field, as the parser reads it.
    static QString toLatinDigits(const QString &text);
    // A byte count in binary units, one decimal, in `loc`'s digits and the window's words for
    // the unit: "485.8 KiB", "۴۸۵٫۸ کیلوبایت". The one byte formatter of the window.
    static QString formatBytes(const QLocale &loc, qint64 bytes);

    // Start-up choice: `override` (from --lang, may be empty), else the stored choice, else the
    // system locale. With `persist`, an override is stored as the new choice.
    void initialize(const QString &override, bool persist);

    UiLanguage language() const { return m_language; }
    bool latinDigits() const { return m_latinDigits; }
    // The locale numbers are written in: Persian (Persian digits), or English in the English
    // UI and for Latin digits.
    QLocale numberLocale() const;
    // The bundled font's family, empty when it could not be loaded.
    QString fontFamily() const { return m_fontFamily; }
    bool qtTranslationLoaded() const { return m_qtTranslationLoaded; }

public slots:
    void setLanguage(accumlab::ui::UiLanguage language);
    void setLatinDigits(bool latin);

signals:
    void languageChanged(accumlab::ui::UiLanguage language);
    void latinDigitsChanged(bool latin);

private:
    explicit LanguageManager(QObject *parent);
    void loadFont();
    void apply();
    void applyLocale();
    void store() const;

    UiLanguage m_language = UiLanguage::English;
    bool m_latinDigits = false;
    bool m_persist = false;
    bool m_applied = false;
    bool m_qtTranslationLoaded = false;
    QString m_fontFamily;
    QTranslator *m_appTranslator = nullptr;
    QTranslator *m_qtTranslator = nullptr;
};

} // namespace accumlab::ui
