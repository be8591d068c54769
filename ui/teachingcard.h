// The teaching card (Help → Teaching card, F1): one screen in the window's language with the
// keys, classroom mode, zoom, tabs at full height, restoring settings and the 45-minute plan.
// Its text is docs/teaching-card.<language>.md, embedded under :/docs and shown as Markdown; the
// teacher's guides (docs/teachers-guide.*.md) hold the same text (scripts/fill-docs.py copies it
// there and checks it). It holds no state of the run and computes nothing. GUI thread only.
#pragma once

#include <QDialog>

class QTextBrowser;

namespace accumlab::ui {

class TeachingCard : public QDialog {
    Q_OBJECT
public:
    explicit TeachingCard(QWidget *parent = nullptr);

    // The card's Markdown in `language` (a code of languages.json), English where that language
    // has none.
    static QString markdown(const QString &language);
    QTextBrowser *browser() const { return m_browser; }
    // Loads the current language's card, sized to its text within the screen, and shows it.
    void showCard();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void fitToText();

    QTextBrowser *m_browser = nullptr;
};

} // namespace accumlab::ui
