// One function per panel; each draws one ImGui window from the ViewState and
// changes it in response to the user. app/layout.cpp places the windows.
#pragma once
#include "visualizer/model/view_state.h"

struct ImFont;

namespace tklab::view {

void draw_timeline(ViewState& v);        // panels/timeline.cpp
void draw_transport(ViewState& v);       // panels/transport.cpp
void draw_source(ViewState& v);          // panels/source.cpp
void draw_shared_memory(ViewState& v);   // panels/shared_memory.cpp
void draw_registers(ViewState& v);       // panels/registers.cpp
void draw_barriers(ViewState& v);        // panels/barriers.cpp
void draw_tile_inspector(ViewState& v);  // panels/tile_inspector.cpp
void draw_statistics(ViewState& v);      // panels/statistics.cpp
void draw_compare(ViewState& v);         // panels/compare.cpp

// The window title each panel uses (the layout positions windows by it).
const char* panel_title(Panel p);

// DejaVu Sans Mono at the UI's size, for source text; null when the font is
// not installed (then the default font is used).
ImFont* monospace_font();

} // namespace tklab::view
