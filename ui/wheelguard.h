// The mouse wheel in front of a class: over a slider, combo box or spin box it changes the
// value only once the control has focus (a click, or Tab from the keyboard); otherwise the
// wheel scrolls what holds the control (the controls dock, the experiments page), and a value
// the pointer merely passes over stays as it was. GUI thread only.
#pragma once

class QWidget;

namespace accumlab::ui {

// Guards every slider (scroll bars excepted), combo box and spin box under `root` (and `root`
// itself, if it is one):
// a wheel gives them no focus (Qt::StrongFocus), and an unfocused one passes the wheel to its
// parents. Widgets made later under `root` are not guarded.
void guardWheel(QWidget *root);

} // namespace accumlab::ui
