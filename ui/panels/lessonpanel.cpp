// The lesson panel. Its words are data: resources/content/lesson.json holds the title, the
// introduction and the sections in every language side by side (checked by validateContent,
// like the rest of the teaching content), and this file only turns them into HTML. Texts go
// through the content path (ui/localizedtext.h), so they follow the window's language and
// digit setting; `code` spans in them read left to right, *words* are emphasis, and everything
// else is escaped. Formulas and code blocks are the same in every language and are shown in
// left-to-right isolates and <pre> blocks.
#include "ui/panels/lessonpanel.h"

#include "core/content/content.h"
#include "ui/language.h"
#include "ui/localizedtext.h"

#include <QEvent>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextOption>
#include <QUrl>
#include <QVBoxLayout>

namespace accumlab::ui {

namespace {

const char *const kLinkScheme = "accumlab";
const char *const kLessonFile = "lesson.json";

// A text of the lesson for the window's reader, as HTML: escaped, with *emphasis* in italics.
QString inlineHtml(const nlohmann::json &text)
{
    static const QRegularExpression emphasis(QStringLiteral("\\*([^*\\n]+)\\*"));
    QString html = localized(localizedText(text)).toHtmlEscaped();
    return html.replace(emphasis, QStringLiteral("<i>\\1</i>"));
}

QString verbatim(const nlohmann::json &block)
{
    return QString::fromStdString(block.at("text").get<std::string>()).toHtmlEscaped();
}

// Code stays code in every language: an HTML <pre> block, left to right, wrapped at the panel's
// width rather than widening the whole document.
QString codeHtml(const nlohmann::json &block)
{
    return QStringLiteral("<pre dir=\"ltr\" style=\"white-space: pre-wrap\">%1</pre>").arg(verbatim(block));
}

QString formulaHtml(const nlohmann::json &block)
{
    return QStringLiteral("<p align=\"center\"><b>%1</b></p>").arg(LanguageManager::ltr(verbatim(block)));
}

QString blockHtml(const nlohmann::json &block)
{
    const std::string type = block.at("type").get<std::string>();
    if (type == "paragraph")
        return QStringLiteral("<p>%1</p>").arg(inlineHtml(block.at("text")));
    if (type == "code")
        return codeHtml(block);
    if (type == "formula")
        return formulaHtml(block);
    if (type == "list") {
        QString items;
        for (const auto &item : block.at("items"))
            items += QStringLiteral("<li>%1</li>").arg(inlineHtml(item));
        return QStringLiteral("<ul>%1</ul>").arg(items);
    }
    throw ContentError(std::string(kLessonFile) + ": unknown block type \"" + type + "\"");
}

// The whole lesson as HTML, in the window's language and digits.
QString lessonHtml()
{
    const nlohmann::json &lesson = contentJson(kLessonFile);
    const QString showMe = inlineHtml(lesson.at("show_me"));
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p>")
                       .arg(inlineHtml(lesson.at("title")), inlineHtml(lesson.at("intro")));
    for (const auto &section : lesson.at("sections")) {
        html += QStringLiteral("<h3>%1</h3>").arg(inlineHtml(section.at("title")));
        for (const auto &block : section.at("blocks"))
            html += blockHtml(block);
        QStringList anchors;
        for (const auto &link : section.at("links")) {
            const QString target = QString::fromStdString(link.at("target").get<std::string>());
            anchors << QStringLiteral("<a href=\"%1:%2\">%3</a>")
                           .arg(QLatin1String(kLinkScheme), target.toHtmlEscaped(), inlineHtml(link.at("text")));
        }
        html += QStringLiteral("<p>%1 %2</p>").arg(showMe, anchors.join(QStringLiteral(" · ")));
    }
    return html;
}

} // namespace

LessonPanel::LessonPanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("lessonPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_browser = new QTextBrowser;
    m_browser->setObjectName(QStringLiteral("lessonBrowser"));
    m_browser->setOpenLinks(false);
    m_browser->setOpenExternalLinks(false);
    layout->addWidget(m_browser);
    connect(m_browser, &QTextBrowser::anchorClicked, this, &LessonPanel::onAnchorClicked);
    retranslateUi();
}

void LessonPanel::changeEvent(QEvent *event)
{
    // LanguageChange also comes when only the digit setting changed (LanguageManager).
    if (event->type() == QEvent::LanguageChange || event->type() == QEvent::LayoutDirectionChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void LessonPanel::onAnchorClicked(const QUrl &url)
{
    if (url.scheme() == QLatin1String(kLinkScheme))
        activate(url.path());
}

void LessonPanel::activate(const QString &target) { emit targetActivated(target); }

QStringList LessonPanel::linkTargets() const
{
    QStringList targets;
    static const QRegularExpression href(QStringLiteral("href=\"%1:([^\"]+)\"").arg(QLatin1String(kLinkScheme)));
    // The HTML as written, before QTextDocument normalises it.
    const QString html = m_browser->property("lessonHtml").toString();
    for (auto it = href.globalMatch(html); it.hasNext();)
        targets << it.next().captured(1);
    return targets;
}

void LessonPanel::retranslateUi()
{
    const QString html = lessonHtml();
    // Paragraphs take the UI's direction, even one that opens with `backward()`; code blocks
    // say dir="ltr" themselves.
    QTextOption option = m_browser->document()->defaultTextOption();
    option.setTextDirection(layoutDirection());
    m_browser->document()->setDefaultTextOption(option);
    m_browser->setProperty("lessonHtml", html);
    m_browser->setHtml(html);
}

} // namespace accumlab::ui
