// The window's persisted settings: the preset it closed with (its controls, and where the
// lesson was: language, memory budget, page, experiment), its geometry, its zoom and the folder
// the file dialogs open in, kept in QSettings. With persist false (autorun, --no-write, tests)
// the store belongs to this session only: it reads nothing, writes nothing, and keeps what is
// set in memory. Not for: the language and digit choice on their own (LanguageManager keeps
// those), preset files (preset.h's JSON; MainWindow opens and saves them). GUI thread only.
#pragma once

#include "ui/session/preset.h"

#include <QByteArray>
#include <QString>
#include <QVariantMap>

#include <optional>

namespace accumlab::ui {

class SettingsStore {
public:
    explicit SettingsStore(bool persist);

    bool persists() const { return m_persist; }

    // The preset the last session closed with; nothing when none was kept or the stored text
    // is no valid preset (an older AccumLab's schema, a damaged file): the window then starts
    // from its defaults.
    std::optional<Preset> preset() const;
    void setPreset(const Preset &preset);
    // QWidget::saveGeometry()'s bytes; empty when none was kept.
    QByteArray geometry() const;
    void setGeometry(const QByteArray &geometry);
    // The window's zoom; 1 when none (or no positive number) was kept.
    double zoom() const;
    void setZoom(double zoom);
    // The folder the file dialogs open in: the last one used, else the Documents folder.
    QString lastFolder() const;
    void setLastFolder(const QString &folder);
    // Remembers the folder that holds `file` (a path chosen in a file dialog).
    void rememberFolderOf(const QString &file);

private:
    QVariant value(const char *key) const;
    void setValue(const char *key, const QVariant &value);

    bool m_persist = true;
    QVariantMap m_session; // a store that does not persist keeps its values here
};

} // namespace accumlab::ui
