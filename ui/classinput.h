// The mouse in front of a class, so that it never takes the lab's keys or values by accident:
// - the wheel over a slider, combo box or spin box changes the value only once the control
//   has focus (a click, or Tab); otherwise the wheel scrolls what holds the control (the
//   controls dock, the experiments page), and a value the pointer merely passes over stays;
// - a click on a check box or button toggles or presses it without taking the focus, so Space
//   still plays and Right still steps afterwards (Tab still reaches it: a keyboard user who
//   Tabs to it operates it with Space).
// GUI thread only.
#pragma once

class QWidget;

namespace accumlab::ui {

// Applies both to the controls under `root` (and `root` itself): sliders (scroll bars
// excepted), combo boxes and spin boxes take focus by click or Tab, not by wheel, and pass an
// unfocused wheel to their parents; buttons and check boxes take focus by Tab only. Widgets
// made later under `root` are not covered.
void guardClassInput(QWidget *root);

} // namespace accumlab::ui
