// A word-wrapped label as tall as the tallest of the sentences it will show, at its width: the
// lab's "accumulated / full batch = 1.00× so far" and "micro-batch 3 of 4 in optimizer window 2"
// change on every micro-batch, and a sentence that wraps onto one more line used to take that
// line from the buffer chart above it, which jumped while the class watched. The owner names
// the longest forms (setReservedTexts, again on a language change); the label reserves the
// height of the tallest at whatever width the layout gives it, its own text included.
// GUI thread only.
#pragma once

#include <QLabel>
#include <QStringList>

class QTableView;

namespace accumlab::ui {

class SteadyLabel : public QLabel {
    Q_OBJECT
public:
    explicit SteadyLabel(QWidget *parent = nullptr);
    void setReservedTexts(const QStringList &texts);
    // Always height-for-width, empty too: an empty QLabel is not, and its layout then gives it
    // its (empty) size hint until the first sentence arrives.
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

private:
    int reservedHeight(int width) const;
    QStringList m_reserved;
};

// Keeps `w`'s least height at what its layout needs at the width `w` has, where that layout
// holds wrapped text (height for width), again whenever that width or the layout's contents
// change. A splitter or a tab widget asks only for least sizes, and would otherwise take the
// wrapped lines' room from what else the layout holds (the buffer chart's rows, a caption's
// last lines).
void keepRoomForWrappedText(QWidget *w);

// Keeps `table`'s least height at all its rows (their heights at the width the table has), its
// header and its frame, again whenever that width or its rows change: inside a page that
// scrolls, a table that scrolled too would be a scroll box inside a scroll box, showing three
// of eight claims.
void keepRoomForEveryRow(QTableView *table);

} // namespace accumlab::ui
