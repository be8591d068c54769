// The mouse in front of a class, so that it never takes the lab's keys or values by accident:
// - the wheel over a slider, combo box or spin box changes the value only once the control
//   has focus (a click, or Tab); otherwise the wheel scrolls what holds the control (the
//   controls dock, the experiments page), and a value the pointer merely passes over stays;
// - a click on a check box or button toggles or presses it without taking the focus, so Space
//   still plays and Right still steps afterwards (Tab still reaches it: a keyboard user who
//   Tabs to it operates it with Space).
// And a slider whose values the lesson takes in powers of two (accum_steps, the micro-batch)
// moves in doublings: a key, a click on the groove or a focused wheel doubles or halves it, a
// drag lands on the nearest power of two.
// GUI thread only.
#pragma once

class QAbstractSlider;
class QWidget;

namespace accumlab::ui {

// Applies both to the controls under `root` (and `root` itself): sliders (scroll bars
// excepted), combo boxes and spin boxes take focus by click or Tab, not by wheel, and pass an
// unfocused wheel to their parents; buttons and check boxes take focus by Tab only. Widgets
// made later under `root` are not covered.
void guardClassInput(QWidget *root);

// `slider` (a range from 1) steps to the next power of two up or down: Right, Up and a wheel
// step double or halve it, Page Up and Page Down and a click on the groove go two doublings,
// Home and End reach the ends, a drag snaps to the nearest power of two (the nearer by ratio,
// so 5 goes to 4 and 6 to 8). A value set by code (a preset's accum_steps of 3) stays as set;
// the next step from it goes to a power of two (3 -> 4 or 2).
void stepInDoublings(QAbstractSlider *slider);

} // namespace accumlab::ui
