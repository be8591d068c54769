// The window's colours with a meaning, in one place: the same blue, green, red and purple say
// the same thing on every chart and view (a budget is red on the memory timeline and on the
// trade-off chart, what fits is green in both memory views and on a buffer at 1x).
#pragma once

#include <QColor>

namespace accumlab::ui::colors {

// Blue: what is being measured or filled (a run's points, the time curve, a filling buffer).
inline const QColor kMeasured(0x3b, 0x82, 0xc4);
// Green: what fits, matches, or accumulates as it should.
inline const QColor kGood(0x2e, 0x9e, 0x55);
// Red: the memory budget, the plateau, and what is over the budget or wrong.
inline const QColor kWarning(0xd9, 0x48, 0x2b);
// Purple: the out-of-memory point, told apart from the budget's red.
inline const QColor kOutOfMemory(0x7b, 0x2c, 0xbf);

} // namespace accumlab::ui::colors
