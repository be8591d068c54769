// A header whose titles wrap at a word onto two lines (ui/layout/wrappingheader.h).
#include "ui/layout/wrappingheader.h"

#include <QFontMetrics>
#include <QStringList>

#include <algorithm>

namespace accumlab::ui {

WrappingHeader::WrappingHeader(Qt::Orientation orientation, QWidget *parent) : QHeaderView(orientation, parent)
{
    setDefaultAlignment(Qt::Alignment::fromInt(Qt::AlignCenter | Qt::TextWordWrap)); // the style wraps at a word
    setTextElideMode(Qt::ElideNone); // a wrapped title is drawn whole, never cut to "..."
    setSectionResizeMode(QHeaderView::ResizeToContents);
    setStretchLastSection(true);
}

void WrappingHeader::setModel(QAbstractItemModel *model)
{
    if (this->model())
        disconnect(this->model(), nullptr, this, nullptr);
    QHeaderView::setModel(model);
    if (!model)
        return;
    // ResizeToContents measures the cells when the header lays out; figures that arrive later
    // (a sweep's points, one by one) are measured again here, once per burst of changes.
    const auto remeasure = [this] { QMetaObject::invokeMethod(this, [this] { resizeSections(); }, Qt::QueuedConnection); };
    connect(model, &QAbstractItemModel::dataChanged, this, remeasure);
    connect(model, &QAbstractItemModel::rowsInserted, this, remeasure);
    connect(model, &QAbstractItemModel::modelReset, this, remeasure);
}

QSize WrappingHeader::sectionSizeFromContents(int logicalIndex) const
{
    QSize size = QHeaderView::sectionSizeFromContents(logicalIndex); // one line, with the style's margins
    if (!model() || orientation() != Qt::Horizontal)
        return size;
    const QString title = model()->headerData(logicalIndex, orientation(), Qt::DisplayRole).toString();
    const QStringList words = title.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QFontMetrics metrics(font());
    const int oneLine = metrics.horizontalAdvance(title);
    // Two lines, broken after word i: the wider line is the title's width at that break.
    int narrowest = oneLine;
    for (qsizetype i = 1; i < words.size(); ++i)
        narrowest = std::min(narrowest, std::max(metrics.horizontalAdvance(words.mid(0, i).join(QLatin1Char(' '))),
                                                 metrics.horizontalAdvance(words.mid(i).join(QLatin1Char(' ')))));
    // A little slack: the style lays the wrapped text out in a rectangle a few pixels narrower.
    size.setWidth(size.width() - oneLine + narrowest + metrics.averageCharWidth());
    size.setHeight(size.height() + metrics.lineSpacing()); // room for the second line
    return size;
}

} // namespace accumlab::ui
