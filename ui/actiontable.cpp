// The table's actions: built once from the rows, retranslated from their source texts.
#include "ui/actiontable.h"

#include <QAction>
#include <QCoreApplication>

#include <algorithm>
#include <utility>

namespace accumlab::ui {

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
        if (row.toolTip)
            a->setToolTip(QCoreApplication::translate(m_context, row.toolTip));
    }
}

} // namespace accumlab::ui
