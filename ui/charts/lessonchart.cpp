// The charts' shared translation frame (ui/charts/lessonchart.h).
#include "ui/charts/lessonchart.h"

#include "ui/language.h"

#include <QEvent>

namespace accumlab::ui {

void LessonChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QChartView::changeEvent(event);
}

void LessonChart::retranslateFrame(const QString &accessibleName, const QString &title)
{
    setAccessibleName(accessibleName);
    chart()->setLocale(locale());
    chart()->setLocalizeNumbers(true);
    chart()->setTitle(LanguageManager::natural(title));
}

} // namespace accumlab::ui
