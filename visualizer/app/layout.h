// Where each panel's window goes: source on the left, transport and timeline
// across the top right, the detail panels in a grid below. Applied on the
// first frame and whenever the window size or the set of panels changes, so
// the user may move windows in between.
#pragma once
#include "visualizer/model/view_state.h"

namespace tklab::view {

// Call before the panels draw; `menu_height` is the main menu bar's.
void apply_layout(const ViewState& v, float width, float height, float menu_height);
// Forces the next apply_layout() to place every window again.
void reset_layout();

} // namespace tklab::view
