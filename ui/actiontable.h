// A window's actions as one table of data: each row names an action (the object name tests and
// lesson links find it by), its text and tool tip (source texts marked with QT_TR_NOOP in the
// owner's translation context), its keys, whether it is checkable, and what it does. The
// actions are built once from the rows and retranslated in one loop; menus and tool bars take
// them by the owner's id. It places no action anywhere and holds no state of the run. GUI thread
// only.
#pragma once

#include <QKeySequence>
#include <QList>

#include <functional>
#include <vector>

class QAction;
class QObject;

namespace accumlab::ui {

struct ActionRow {
    int id = 0;                      // the owner's enumerator for the action
    const char *name = nullptr;      // the action's object name
    const char *text = nullptr;      // QT_TR_NOOP in the owner's class
    const char *toolTip = nullptr;   // likewise, without the key (added in the window's words); none: Qt shows the text
    QList<QKeySequence> keys = {};   // the first is the one menus show
    bool checkable = false;
    std::function<void(bool checked)> slot = {}; // what `triggered` does
};

class ActionTable {
public:
    // One QAction per row, a child of `owner`, whose `triggered` calls the row's slot while
    // `owner` lives. `context`: the translation context of the rows' texts (the owner's class
    // name as its metaobject spells it). Each id names one row.
    ActionTable(const char *context, std::vector<ActionRow> rows, QObject *owner);

    QAction *operator[](int id) const { return m_actions.at(id); }
    // Every action's text and tool tip in the current language.
    void retranslate() const;

private:
    const char *m_context;
    std::vector<ActionRow> m_rows;
    std::vector<QAction *> m_actions; // by id
};

} // namespace accumlab::ui
