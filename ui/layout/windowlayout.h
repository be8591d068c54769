// The main window's room and how the presentation shares it. It builds the frame around the
// panels MainWindow makes: the controls' column in its scroll area, the pages right of it (the
// lab, then the guided experiments and the quiz) in theirs, the lab's buffers and check above
// its tabs (the charts' tab in its own scroll area first), and the lesson's column docked at the
// side. It keeps them fitted: the first start's fit to the screen, the controls' column after a
// zoom, a language switch, a new screen or a resize, the zoom of the whole window, classroom
// mode's share of the lab and the lab's tabs taking its height. It holds no setting of the run
// and builds no menu; MainWindow remembers the zoom and offers the actions. GUI thread only.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>

class QDockWidget;
class QMainWindow;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QWidget;

namespace accumlab::ui {

class AccumulationPanel;
class ControlPanel;
class EquivalencePanel;

class WindowLayout : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow *window = nullptr; // whose central widget the frame becomes
        ControlPanel *controls = nullptr;
        AccumulationPanel *buffers = nullptr; // above the lab's tabs, beside the check
        EquivalencePanel *check = nullptr;
        QWidget *throughputChart = nullptr; // the two charts of the lab's first tab
        QWidget *lossChart = nullptr;
        QList<QWidget *> moreTabs;  // the lab's other tabs, in their order
        QList<QWidget *> morePages; // the pages after the lab, in their order
    };
    // Builds the frame and makes it the window's central widget; the window's show, resize and
    // reading direction are watched from here on.
    explicit WindowLayout(const Parts &parts, QObject *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    QWidget *chartsTab() const; // the charts' scroll area, the lab's first tab
    QWidget *lab() const;       // the lab's page: the buffers and the check above the tabs
    QStackedWidget *pages() const { return m_pages; }
    QScrollArea *controlsScroll() const { return m_controlsScroll; }
    QScrollArea *pagesScroll() const;

    // The lesson's column: `lesson` docked at the side in a readable width, which it takes
    // again each time it is opened. Once.
    QDockWidget *dockLesson(QWidget *lesson);

    // The zoom of the whole window (1 = the application's own font size), clamped; a step in
    // and back out lands on 1 exactly. zoomChanged follows a change.
    double zoom() const { return m_zoom; }
    void setZoom(double zoom);
    // `steps` presses of Ctrl+= (Ctrl+- where negative), each 1.15 times the last.
    void zoomBy(int steps);

    // Classroom mode's room (the controls hold its enlargements and hidden controls): the
    // enlarged buffers and verdict, the hidden controls' room to the pages, once per switch.
    void setClassroomMode(bool on);
    // View → Tabs take the lab's height: the buffers and the check fold away above the tabs (a
    // 768-pixel screen leaves the tabs about 200 pixels, less than one chart's least height,
    // and the buffers cannot give more); off, or the divider dragged down, brings them back.
    // tabsFillTheLabChanged follows every call and the drag.
    void setTabsFillTheLab(bool on);
    // After the window's texts changed language (not watched: the window retranslates first).
    void languageChanged();
    // The first start's size: the default where the screen has room for it, else the screen's
    // available area, maximised, so nothing starts off-screen.
    void fitTheScreen();

signals:
    void zoomChanged(double zoom);
    void tabsFillTheLabChanged(bool on);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildLab(const Parts &parts);
    // Classroom mode's share of the room: the controls' column down to what is left in it, the
    // buffers and the verdict more of the lab's height. Needs the window laid out.
    void shareClassroomRoom();
    // The controls' column: its least width what the controls need, at most a share of the
    // screen, then shareControlsColumn.
    void fitControlsColumn();
    // The column's preferred width on the splitter and the pages the rest (also after a resize,
    // which leaves the least width as it was).
    void shareControlsColumn();
    void windowShown();
    // The lesson's column: the width left beside the controls' column and the page at their
    // least widths; before it opens (before the window lays it out, which had widened a 1024-pixel
    // window past its screen), the layout it finds and whether it floats as a window of its own;
    // closed, that layout back.
    int lessonRoom() const;
    void lessonAboutToOpen();
    void restoreLayoutBeforeLesson();
    QMainWindow *m_window = nullptr;
    ControlPanel *m_controls = nullptr;
    AccumulationPanel *m_buffers = nullptr;
    EquivalencePanel *m_check = nullptr;
    QScrollArea *m_controlsScroll = nullptr;
    QScrollArea *m_chartsScroll = nullptr; // the lab's first tab: the throughput and loss charts
    QScrollArea *m_pagesScroll = nullptr;  // around m_pages: a zoomed page scrolls in the window
    QTabWidget *m_tabs = nullptr;
    QSplitter *m_labSplitter = nullptr; // the buffers and the check above the tabs
    QStackedWidget *m_pages = nullptr;
    QSplitter *m_mainSplitter = nullptr; // the controls' column beside the pages
    QDockWidget *m_lessonDock = nullptr;
    double m_zoom = 1.0;
    bool m_shownOnce = false;
    bool m_classroomShown = false;
    bool m_tabsFillTheLab = false; // the buffers and the check folded away
    QList<int> m_labSizesBeforeClassroom;
    QList<int> m_labSizesBeforeTabsFill;
    // Every shown splitter's orientation and sizes when the lesson opened (the outer ones
    // first), given back as it closes: the columns, the lab's panes and their arrangement (a
    // stacked pair needs the page's scroll bar, whose width kept it stacked once the page was
    // as wide again, so the lab kept another layout).
    struct SplitterState {
        QPointer<QSplitter> splitter;
        Qt::Orientation orientation;
        QList<int> sizes;
    };
    QList<SplitterState> m_layoutBeforeLesson;
    bool m_lessonFloatedForRoom = false; // floated for want of room, docked again once closed
    bool m_switchingFloat = false;       // the dock floated or docked by this class: not opened or closed
};

} // namespace accumlab::ui
