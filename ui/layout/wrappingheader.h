// A table's column header whose titles wrap onto two lines, at a word, rather than being cut
// or elided: "میانگین زیان" and "all-reduce ms" stay whole in a table as wide as the lab's at
// 1024x768 and zoomed. Each column is as wide as the wider of its cells and the narrowest
// two-line break of its title (the whole title when it is one word); the header is as tall as
// its tallest title. Used by the sweep table. GUI thread only.
#pragma once

#include <QHeaderView>

namespace accumlab::ui {

class WrappingHeader : public QHeaderView {
    Q_OBJECT
public:
    explicit WrappingHeader(Qt::Orientation orientation, QWidget *parent = nullptr);
    // Also follows the model's cells: a column grows when a new figure is wider than it was.
    void setModel(QAbstractItemModel *model) override;

protected:
    QSize sectionSizeFromContents(int logicalIndex) const override;
};

} // namespace accumlab::ui
