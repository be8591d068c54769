// The window's file dialogs (open, save, choose a folder), in the lesson's language end to end.
// Qt's own dialog takes Qt's Persian strings for its buttons and headers, but its list of files
// writes sizes and dates in the system's locale ("2.33 KiB", "4 Dec 2026 14:50" on an English
// desktop, reordered by right-to-left layout), the type column in English ("Folder",
// "plain text document": strings Qt 6 moved to a context its Persian file lacks), and the
// folder's path right to left ("tmp/lesson/"). LocalizedFileModel, a proxy over the dialog's
// QFileSystemModel, writes those columns in the window's language and digits
// (LanguageManager's locale and formatBytes), and the path and file-name fields are left to
// right. When the window's language is not the system's, Qt's own dialog is used rather than
// the desktop's, which would speak the system's language. GUI thread only.
#pragma once

#include <QIdentityProxyModel>
#include <QString>

class QWidget;

namespace accumlab::ui {

// Columns 1-3 of QFileSystemModel (size, type, date modified) in the window's language.
class LocalizedFileModel : public QIdentityProxyModel {
    Q_OBJECT
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

namespace fileDialogs {
// Each returns the chosen path, empty when cancelled. `filter` as QFileDialog's.
QString openFile(QWidget *parent, const QString &title, const QString &folder, const QString &filter);
QString saveFile(QWidget *parent, const QString &title, const QString &path, const QString &filter);
QString existingFolder(QWidget *parent, const QString &title, const QString &folder);
} // namespace fileDialogs

} // namespace accumlab::ui
