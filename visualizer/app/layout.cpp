#include "visualizer/app/layout.h"
#include <imgui.h>
#include <vector>
#include "visualizer/panels/panels.h"

namespace tklab::view {

const char* panel_title(Panel p) {
    switch (p) {
    case Panel::timeline: return "Timeline";
    case Panel::transport: return "Transport";
    case Panel::source: return "Source";
    case Panel::shared_memory: return "Shared memory";
    case Panel::registers: return "Registers";
    case Panel::barriers: return "Barriers";
    case Panel::tile_inspector: return "Tile inspector";
    case Panel::statistics: return "Statistics";
    case Panel::compare: return "Compare";
    case Panel::count_: break;
    }
    return "?";
}

namespace {
struct Placed { float w = 0, h = 0; unsigned shown = 0; bool valid = false; };
Placed g_last;

void place(Panel p, float x, float y, float w, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    // Begin() is what applies it; an empty Begin/End here keeps the panels
    // free of layout code.
    ImGui::Begin(panel_title(p));
    ImGui::End();
}
} // namespace

void reset_layout() { g_last.valid = false; }

void apply_layout(const ViewState& v, float width, float height, float menu) {
    unsigned shown = 0;
    for (size_t i = 0; i < size_t(Panel::count_); ++i) shown |= unsigned(v.shown[i]) << i;
    if (g_last.valid && g_last.w == width && g_last.h == height && g_last.shown == shown) return;
    g_last = {width, height, shown, true};

    auto on = [&](Panel p) { return v.shown[size_t(p)]; };
    const float gap = 2;
    float left = 0, top = menu;
    if (on(Panel::source)) {
        const float sw = width * 0.28f;
        place(Panel::source, 0, top, sw - gap, height - top);
        left = sw;
    }
    const float rw = width - left;
    if (on(Panel::transport)) {
        // Five rows of controls under the title bar.
        const float th = ImGui::GetFrameHeightWithSpacing() * 5 + ImGui::GetFrameHeight() + 12;
        place(Panel::transport, left, top, rw, th - gap);
        top += th;
    }
    std::vector<Panel> details;
    for (Panel p : {Panel::shared_memory, Panel::registers, Panel::barriers, Panel::tile_inspector,
                    Panel::statistics, Panel::compare})
        if (on(p)) details.push_back(p);
    const float rest = height - top;
    float th = details.empty() ? rest : rest * 0.45f;
    if (!on(Panel::timeline)) th = 0;
    if (on(Panel::timeline)) place(Panel::timeline, left, top, rw, th - gap);
    top += th;
    if (details.empty()) return;
    // Up to three columns, as many rows as needed.
    const size_t cols = details.size() < 3 ? details.size() : 3;
    const size_t rows = (details.size() + cols - 1) / cols;
    const float ch = (height - top) / float(rows);
    for (size_t i = 0; i < details.size(); ++i) {
        const size_t r = i / cols, c = i % cols;
        // The last row's panels share its width.
        const size_t in_row = r + 1 == rows ? details.size() - r * cols : cols;
        const float w = rw / float(in_row);
        place(details[i], left + float(c) * w, top + float(r) * ch, w - gap, ch - gap);
    }
}

} // namespace tklab::view
