// The settings' keys and their types in QSettings (the same as AccumLab has always written, so
// an existing settings file keeps working).
#include "ui/session/settingsstore.h"

#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace accumlab::ui {

namespace {
const char *const kPresetKey = "session/preset";       // preset JSON, as text
const char *const kGeometryKey = "session/geometry";   // QWidget::saveGeometry()
const char *const kFolderKey = "exports/lastFolder";   // an absolute folder
const char *const kZoomKey = "view/zoom";              // a double, 1 = normal size
} // namespace

SettingsStore::SettingsStore(bool persist) : m_persist(persist) {}

QVariant SettingsStore::value(const char *key) const
{
    const QString name = QLatin1String(key);
    return m_persist ? QSettings().value(name) : m_session.value(name);
}

void SettingsStore::setValue(const char *key, const QVariant &value)
{
    const QString name = QLatin1String(key);
    if (m_persist)
        QSettings().setValue(name, value);
    else
        m_session.insert(name, value);
}

std::optional<Preset> SettingsStore::preset() const
{
    const QByteArray json = value(kPresetKey).toString().toUtf8();
    if (json.isEmpty())
        return std::nullopt;
    return presetFromJson(json, nullptr);
}

void SettingsStore::setPreset(const Preset &preset) { setValue(kPresetKey, QString::fromUtf8(presetToJson(preset))); }

QByteArray SettingsStore::geometry() const { return value(kGeometryKey).toByteArray(); }

void SettingsStore::setGeometry(const QByteArray &geometry) { setValue(kGeometryKey, geometry); }

double SettingsStore::zoom() const
{
    bool ok = false;
    const double zoom = value(kZoomKey).toDouble(&ok);
    return ok && zoom > 0 ? zoom : 1.0;
}

void SettingsStore::setZoom(double zoom) { setValue(kZoomKey, zoom); }

QString SettingsStore::lastFolder() const
{
    const QString stored = value(kFolderKey).toString();
    return stored.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) : stored;
}

void SettingsStore::setLastFolder(const QString &folder) { setValue(kFolderKey, folder); }

void SettingsStore::rememberFolderOf(const QString &file) { setLastFolder(QFileInfo(file).absolutePath()); }

} // namespace accumlab::ui
