// The table's actions: built once from the rows, retranslated from their source texts.
#include "ui/actiontable.h"

#include <QAction>
#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>
#include <utility>

namespace accumlab::ui {

namespace {

// A tool tip and its action's key: "Run one micro-batch (Right)". The key is named as the
// menus name it (QKeySequence's native text, through the "QShortcut" translations), so a
// Persian tip reads «کنترل+R» like the Run menu beside it, not a Latin "Ctrl+R".
const char *const kTipWithKey = QT_TRANSLATE_NOOP("accumlab::ui::ActionTable", "%1 (%2)");

// The text a tool bar shows: the menu text without its mnemonic, Latin ("&Play" -> "Play") or
// the translations' "(&P)" after the word (Qt strips the '&' only, leaving "(P)" on the button).
QString withoutMnemonic(QString text)
{
    static const QRegularExpression parenthesised(QStringLiteral("\\s*\\(&[^&\\s]\\)\\x{200E}?"));
    text.remove(parenthesised);
    for (qsizetype i = 0; i < text.size(); ++i)
        if (text[i] == QLatin1Char('&'))
            text.remove(i, 1); // "&&" keeps one '&'
    return text.trimmed();
}

} // namespace

ActionTable::ActionTable(const char *context, std::vector<ActionRow> rows, QObject *owner)
    : m_context(context), m_rows(std::move(rows))
{
    int ids = 0;
    for (const ActionRow &row : m_rows)
        ids = std::max(ids, row.id + 1);
    m_actions.assign(ids, nullptr);
    for (const ActionRow &row : m_rows) {
        Q_ASSERT_X(!m_actions[row.id], "ActionTable", row.name); // one row per id
        auto *a = new QAction(owner);
        a->setObjectName(QLatin1String(row.name));
        a->setCheckable(row.checkable);
        a->setShortcuts(row.keys);
        if (row.slot)
            QObject::connect(a, &QAction::triggered, owner, row.slot);
        m_actions[row.id] = a;
    }
}

void ActionTable::retranslate() const
{
    for (const ActionRow &row : m_rows) {
        QAction *a = m_actions[row.id];
        a->setText(QCoreApplication::translate(m_context, row.text));
        a->setIconText(withoutMnemonic(a->text()));
        // Without a tip of its own, Qt's would be the text with only its '&' taken out.
        QString tip = row.toolTip ? QCoreApplication::translate(m_context, row.toolTip) : a->iconText();
        if (!row.keys.isEmpty())
            tip = QCoreApplication::translate("accumlab::ui::ActionTable", kTipWithKey)
                      .arg(tip, row.keys.first().toString(QKeySequence::NativeText));
        a->setToolTip(tip);
    }
}

} // namespace accumlab::ui
