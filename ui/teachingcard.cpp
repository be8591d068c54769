#include "ui/teachingcard.h"

#include "ui/language.h"

#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QWindow>
#include <QEvent>
#include <QFile>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextOption>
#include <QTextTable>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace accumlab::ui {

namespace {
// The card's width in average characters of its font: wide enough that the plan's rows stay
// two lines or three, within a 1024-pixel screen at the normal size (zoomed, the screen caps it).
constexpr int kCardWidthChars = 136;
} // namespace

TeachingCard::TeachingCard(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("teachingCard"));
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("teachingCardText"));
    m_browser->setOpenExternalLinks(false);
    m_browser->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_browser->setFrameShape(QFrame::NoFrame);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_browser);
    layout->addWidget(buttons);
    retranslateUi();
}

QString TeachingCard::markdown(const QString &language)
{
    for (const QString &code : {language, QStringLiteral("en")}) {
        QFile file(QStringLiteral(":/docs/teaching-card.%1.md").arg(code));
        if (file.open(QIODevice::ReadOnly))
            return QString::fromUtf8(file.readAll());
    }
    return {};
}

void TeachingCard::showCard()
{
    retranslateUi();
    show();
    raise();
    activateWindow();
    fitToText();
}

void TeachingCard::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void TeachingCard::retranslateUi()
{
    const LanguageManager *languages = LanguageManager::instance();
    setWindowTitle(tr("Teaching card"));
    setLayoutDirection(languages->rightToLeft() ? Qt::RightToLeft : Qt::LeftToRight);
    QString text = markdown(languages->language());
    if (languages->latinDigits())
        text = LanguageManager::toLatinDigits(text);
    m_browser->setMarkdown(text);
    QTextOption option = m_browser->document()->defaultTextOption();
    option.setTextDirection(layoutDirection());
    m_browser->document()->setDefaultTextOption(option);
    // The tables as wide as the card, so that a right-to-left card's tables stand at its right.
    for (QTextFrame *frame : m_browser->document()->rootFrame()->childFrames())
        if (auto *table = qobject_cast<QTextTable *>(frame)) {
            QTextTableFormat format = table->format();
            format.setWidth(QTextLength(QTextLength::PercentageLength, 100));
            table->setFormat(format);
        }
    if (isVisible())
        fitToText();
}

void TeachingCard::fitToText()
{
    // As wide as the card's lines want, then as tall as its text at that width, both within the
    // screen: a card that needs more than the screen scrolls rather than leaving it.
    const QRect screen = (windowHandle() && windowHandle()->screen() ? windowHandle()->screen() : QGuiApplication::primaryScreen())
                             ->availableGeometry();
    const QMargins frame = layout()->contentsMargins();
    const int chrome = frame.top() + frame.bottom() + layout()->spacing() + layout()->itemAt(1)->sizeHint().height();
    const int width = std::min(fontMetrics().averageCharWidth() * kCardWidthChars, screen.width() - 16);
    QTextDocument *doc = m_browser->document();
    doc->setTextWidth(width - frame.left() - frame.right() - 2 * m_browser->frameWidth());
    const int textHeight = int(std::ceil(doc->size().height())) + 2 * m_browser->frameWidth();
    const int height = std::min(textHeight + chrome, screen.height() - 40);
    resize(width, height);
    // Centred over the screen, whole: a card opened from a window near an edge stays on screen.
    QRect placed = frameGeometry();
    placed.moveCenter(screen.center());
    placed.moveTop(std::max(placed.top(), screen.top()));
    placed.moveLeft(std::max(placed.left(), screen.left()));
    move(placed.topLeft());
}

} // namespace accumlab::ui
