// The Lab's code panel: the lesson's loop as the PyTorch code a student writes for the
// settings the engine runs (core/content/loop_code.h), each line lit as the engine runs it. The
// lighting follows the engine's own report of the statements a micro-batch ran
// (MicroBatchUpdate::ran), so Step walks it like a debugger and Play animates it; no timer.
// A planted bug's line is marked in place. Code stays left to right in every language, its
// comments in the reader's. Copy puts the shown code on the clipboard.
// GUI thread only.
#pragma once

#include "core/content/loop_code.h"
#include "ui/worker/updates.h"

#include <QWidget>

#include <optional>

class QLabel;
class QTextBrowser;
class QPushButton;

namespace accumlab::ui {

class CodePanel : public QWidget {
    Q_OBJECT
public:
    explicit CodePanel(QWidget *parent = nullptr);

    // The engine the worker built: its settings choose the code; nothing is lit.
    void setEngine(const EngineInfo &info);
    // Lights the lines of the statements this micro-batch ran.
    void showMicroBatch(const MicroBatchUpdate &update);
    void clearLit();

    QTextBrowser *view() const { return m_view; }
    QPushButton *copyButton() const { return m_copy; }
    // The shown code as Python source, each note a comment above its line (what Copy puts on
    // the clipboard).
    QString source() const;
    QList<int> litLines() const;     // lines lit now (indices into listing().lines)
    QList<int> plantedLines() const; // the planted bug's lines
    const LoopListing &listing() const { return m_listing; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void paintLines();
    void retranslateUi();

    std::optional<AccumConfig> m_config;
    LoopListing m_listing;
    QVector<quint8> m_ran; // the last micro-batch's statements (LoopStatement)
    // The lines lit when the code was last drawn: a micro-batch that lights the same ones (the
    // window's middle micro-batches) leaves the document as it is.
    std::optional<QList<int>> m_paintedLit;
    QLabel *m_caption = nullptr;
    QLabel *m_caveat = nullptr;
    QTextBrowser *m_view = nullptr;
    QPushButton *m_copy = nullptr;
};

} // namespace accumlab::ui
