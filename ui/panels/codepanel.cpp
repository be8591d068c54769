// The Lab's code panel (ui/panels/codepanel.h): core's listing in a read-only, left-to-right text view,
// lines lit by the engine's statements, the planted line marked.
#include "ui/panels/codepanel.h"

#include "ui/colors.h"
#include "core/content/content.h"
#include "ui/localizedtext.h"
#include "ui/layout/steadylabel.h"

#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTextBrowser>
#include <QTextFrame>
#include <QTextTable>
#include <QPushButton>
#include <QVBoxLayout>

namespace accumlab::ui {

CodePanel::CodePanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("codePanel"));
    m_caption = new QLabel;
    m_caption->setWordWrap(true);
    m_caveat = new QLabel;
    m_caveat->setWordWrap(true);
    m_caveat->setObjectName(QStringLiteral("codeCaveat"));
    m_caveat->hide();
    m_copy = new QPushButton;
    m_copy->setObjectName(QStringLiteral("copyCode"));
    connect(m_copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(source()); });
    m_view = new QTextBrowser;
    m_view->setObjectName(QStringLiteral("codeView"));
    m_view->setOpenLinks(false);
    m_view->setLineWrapMode(QTextEdit::WidgetWidth); // the comments wrap; the code does not (white-space: pre)
    // Code reads left to right in every language; each comment sits in a column of its own, in
    // the reader's direction and the window's font.
    m_view->setLayoutDirection(Qt::LeftToRight);

    auto *head = new QHBoxLayout;
    head->addWidget(m_caption, 1);
    head->addWidget(m_copy, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(head);
    layout->addWidget(m_caveat);
    layout->addWidget(m_view, 1);
    keepRoomForWrappedText(this); // the caption and caveat keep their lines
    retranslateUi();
}

void CodePanel::setEngine(const EngineInfo &info)
{
    m_config = info.config;
    m_ran.clear();
    rebuild();
}

void CodePanel::showMicroBatch(const MicroBatchUpdate &update)
{
    m_ran.clear();
    for (LoopStatement s : update.event.ran)
        m_ran.append(static_cast<quint8>(s));
    if (m_paintedLit != litLines())
        paintLines();
}

void CodePanel::clearLit()
{
    m_ran.clear();
    paintLines();
}

QString CodePanel::source() const { return QString::fromStdString(loopSource(m_listing)); }

QList<int> CodePanel::litLines() const
{
    QList<int> out;
    for (int i = 0; i < int(m_listing.lines.size()); ++i)
        for (LoopStatement s : m_listing.lines[i].lit)
            if (m_ran.contains(quint8(s))) {
                out.append(i);
                break;
            }
    return out;
}

QList<int> CodePanel::plantedLines() const
{
    QList<int> out;
    for (int i = 0; i < int(m_listing.lines.size()); ++i)
        if (m_listing.lines[i].planted)
            out.append(i);
    return out;
}

void CodePanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    else if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        paintLines(); // zoom and classroom mode: the code follows the window's size; the colours, its palette
    QWidget::changeEvent(event);
}

void CodePanel::retranslateUi()
{
    m_caption->setText(tr("The loop as you write it in PyTorch, for the settings the engine runs. Highlighted: what the last "
                          "micro-batch ran (Step walks it). Red: a planted bug's line."));
    m_copy->setText(tr("Copy code"));
    m_copy->setToolTip(tr("Put this code on the clipboard"));
    m_view->setAccessibleName(tr("The loop in PyTorch"));
    rebuild(); // the comments are in the reader's language
}

void CodePanel::rebuild()
{
    m_listing = m_config ? loopListing(*m_config, contentStyle()) : LoopListing{};
    m_caveat->setText(QString::fromStdString(m_listing.caveat));
    m_caveat->setVisible(!m_listing.shownAsRun());
    paintLines();
}

// One table row per line of code, in a fixed-width face, and one above it for its comment in
// the window's font (a Persian comment is shaped as Persian and reads right to left, from the
// code's indent); lit lines in
// the measured colour, the planted bug's line in the warning colour.
void CodePanel::paintLines()
{
    const QList<int> lit = litLines();
    m_paintedLit = lit;
    const QList<int> planted = plantedLines();
    const bool rtl = languageInfo(contentStyle().language).rightToLeft;
    const QFont fixedFont = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    QFont sized = fixedFont;
    sized.setPointSizeF(font().pointSizeF());
    const double space = QFontMetricsF(sized).horizontalAdvance(QLatin1Char(' '));
    QColor litColour = colors::kMeasured;
    litColour.setAlpha(60);
    QColor plantedColour = colors::kWarning;
    plantedColour.setAlpha(45);
    const QString plantedText = colors::kWarning.darker(130).name();
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='0' width='100%'>");
    QList<int> rowOfLine;
    int rows = 0;
    for (int i = 0; i < int(m_listing.lines.size()); ++i) {
        const CodeLine &l = m_listing.lines[i];
        QString background;
        if (lit.contains(i))
            background = QStringLiteral(" style='background-color: %1; font-weight: bold'").arg(litColour.name(QColor::HexArgb));
        else if (planted.contains(i))
            background = QStringLiteral(" style='background-color: %1'").arg(plantedColour.name(QColor::HexArgb));
        const QString code = QString::fromStdString(l.code);
        const int indent = int(code.size() - QStringView(code).trimmed().size());
        if (!l.note.empty()) {
            html += QStringLiteral("<tr%1><td><p dir='%5' align='left' style='margin-left: %2px; color: %3'>%4</p></td></tr>")
                        .arg(background)
                        .arg(qRound(indent * space))
                        .arg(l.planted ? plantedText : palette().placeholderText().color().name(),
                             QString::fromStdString("# " + l.note).toHtmlEscaped(), rtl ? QStringLiteral("rtl") : QStringLiteral("ltr"));
            ++rows;
        }
        rowOfLine.append(rows++);
        html += QStringLiteral("<tr%1><td style='white-space: pre; font-family: \"%2\"; color: %3'>%4</td></tr>")
                    .arg(background, sized.family(), l.planted ? plantedText : palette().text().color().name(),
                         code.toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
    const int scroll = m_view->verticalScrollBar()->value();
    m_view->setHtml(html);
    m_view->verticalScrollBar()->setValue(scroll);
    // Keep the last lit line in sight, the code's start at the left edge.
    const auto frames = m_view->document()->rootFrame()->childFrames();
    auto *table = frames.isEmpty() ? nullptr : qobject_cast<QTextTable *>(frames.first());
    if (table && !lit.isEmpty() && rowOfLine[lit.last()] < table->rows()) {
        m_view->setTextCursor(table->cellAt(rowOfLine[lit.last()], 0).firstCursorPosition());
        m_view->ensureCursorVisible();
    }
    m_view->horizontalScrollBar()->setValue(0);
}

} // namespace accumlab::ui
