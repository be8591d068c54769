// The mouse in front of a class, so that it never takes the lab's keys or values by accident:
// - the wheel over a slider, combo box or spin box changes the value only once the control
//   has focus (a click, or Tab); otherwise the wheel scrolls what holds the control (the
//   controls dock, the experiments page), and a value the pointer merely passes over stays;
// - a click on a check box or button toggles or presses it without taking the focus, so Space
//   still plays and Right still steps afterwards (Tab still reaches it: a keyboard user who
//   Tabs to it operates it with Space).
// And the lab's keys Space and Right come back to the lab after every mouse choice (guardLabKeys).
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

// The lab's plain keys, Space (Play or Pause) and Right (Step), against the focused control in
// `window`: the control keeps them where it uses them (Space presses a button, opens a combo
// box or types; Right moves a slider, a cursor or a selection) only while the teacher works it
// by keyboard: reached by Tab, Shift+Tab, its mnemonic or the program (a lesson link), or typed
// into (a spin box's or a line edit's text). After a mouse choice in any control (a combo
// box's item, a slider's groove, a check box, a button, a spin box's arrow) the keys are the
// lab's, whichever control kept the focus; a click into a text field to type in it keeps them
// with the field. Keyboard-only use is as before: Tab reaches every control, and the one it
// reached takes Space and Right. A slider has no use for Space, so Space plays even then.
// Watches the application's events from a child of `window`. GUI thread only.
void guardLabKeys(QWidget *window);

} // namespace accumlab::ui
