// The window's file dialogs in the lesson's language (ui/session/filedialogs.h).
#include "ui/session/filedialogs.h"

#include "ui/language.h"

#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemModel>
#include <QHeaderView>
#include <QLineEdit>
#include <QLocale>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QTreeView>

namespace accumlab::ui {

QVariant LocalizedFileModel::data(const QModelIndex &index, int role) const
{
    const auto *files = qobject_cast<const QFileSystemModel *>(sourceModel());
    if (role != Qt::DisplayRole || !files || index.column() < 1 || index.column() > 3)
        return QIdentityProxyModel::data(index, role);
    const QFileInfo info = files->fileInfo(mapToSource(index));
    switch (index.column()) {
    case 1: // size
        return info.isDir() ? QString() : LanguageManager::formatBytes(info.size());
    case 2: // type: a folder, or the file's suffix
        if (info.isDir())
            return tr("Folder");
        if (info.suffix().isEmpty())
            return tr("File");
        return tr("%1 file").arg(LanguageManager::instance()->rightToLeft() ? LanguageManager::ltr(info.suffix())
                                                                            : info.suffix());
    case 3: // date modified, in the window's digits
        return LanguageManager::instance()->numberLocale().toString(info.lastModified(), QLocale::ShortFormat);
    }
    return QIdentityProxyModel::data(index, role);
}

namespace {

// Paints the dialog's "look in" box with its path left to right. Qt's combo box lays its text
// out in the application's direction whatever its own, so "/tmp/lesson" read "tmp/lesson/" in
// Persian; the path is drawn here inside a left-to-right isolate, as QFileDialog's own box draws
// it otherwise (its text elided in the middle to the box's width).
class LeftToRightPath : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *box = qobject_cast<QComboBox *>(watched);
        if (!box || event->type() != QEvent::Paint)
            return false;
        QStylePainter painter(box);
        QStyleOptionComboBox option;
        option.initFrom(box);
        option.editable = box->isEditable();
        option.frame = box->hasFrame();
        option.currentIcon = box->itemIcon(box->currentIndex());
        option.iconSize = box->iconSize();
        painter.drawComplexControl(QStyle::CC_ComboBox, option);
        const QRect text = box->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, box);
        const int width = text.width() - option.iconSize.width() - 4;
        option.currentText = LanguageManager::ltr(option.fontMetrics.elidedText(box->currentText(), Qt::ElideMiddle, width));
        painter.drawControl(QStyle::CE_ComboBoxLabel, option);
        return true;
    }
};

// Runs `dialog` as the window's: Qt's own when the window's language is not the system's, the
// columns localized, the path fields left to right. Returns the chosen path or empty.
QString run(QFileDialog &dialog)
{
    if (QLocale().language() != QLocale::system().language())
        dialog.setOption(QFileDialog::DontUseNativeDialog);
    dialog.setProxyModel(new LocalizedFileModel(&dialog)); // only Qt's own dialog shows it
    if (auto *name = dialog.findChild<QLineEdit *>(QStringLiteral("fileNameEdit")))
        name->setLayoutDirection(Qt::LeftToRight); // file names are typed left to right
    if (auto *path = dialog.findChild<QComboBox *>(QStringLiteral("lookInCombo"))) {
        path->setLayoutDirection(Qt::LeftToRight);
        if (LanguageManager::instance()->rightToLeft())
            path->installEventFilter(new LeftToRightPath(path)); // "/tmp/lesson", not "tmp/lesson/"
    }
    // Size, type and date as wide as their words, so none is elided ("safe…file", "۲٫۳…ایت").
    if (auto *view = dialog.findChild<QTreeView *>(QStringLiteral("treeView")))
        for (int column = 1; column <= 3; ++column)
            view->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return {};
    return dialog.selectedFiles().constFirst();
}

} // namespace

namespace fileDialogs {

QString openFile(QWidget *parent, const QString &title, const QString &folder, const QString &filter)
{
    QFileDialog dialog(parent, title, folder, filter);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setFileMode(QFileDialog::ExistingFile);
    return run(dialog);
}

QString saveFile(QWidget *parent, const QString &title, const QString &path, const QString &filter)
{
    QFileDialog dialog(parent, title, QFileInfo(path).absolutePath(), filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.selectFile(QFileInfo(path).fileName());
    return run(dialog);
}

QString existingFolder(QWidget *parent, const QString &title, const QString &folder)
{
    QFileDialog dialog(parent, title, folder);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setFileMode(QFileDialog::Directory);
    dialog.setOption(QFileDialog::ShowDirsOnly);
    return run(dialog);
}

} // namespace fileDialogs

} // namespace accumlab::ui
