// Tile inspector: the values tk::snapshot(tile, "label") recorded, as a
// heatmap (blue negative, red positive, scaled by the largest magnitude), for
// the chosen label at or before the cursor's cycle, of the selected warp (or
// any). Hover an element for its value and, for register tiles, the lane and
// register pair holding it; "lanes" colours the grid by owning lane, which
// shows the mma fragment layout. Prev/next jump the cursor between snapshots.
#include <imgui.h>
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "visualizer/model/derived_cache.h"
#include "visualizer/model/fragment_layout.h"
#include "visualizer/panels/cell_text.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {


// One block's snapshots grouped by label (in order of first appearance), each
// group's indices ordered by cycle. Computed once per block.
struct Labels {
    std::vector<std::string> names;
    std::vector<std::vector<size_t>> by_label;
};

Labels make_labels(const trace::Block& b) {
    Labels c;
    const auto& snaps = b.snapshots;
    for (size_t i = 0; i < snaps.size(); ++i) {
        auto it = std::find(c.names.begin(), c.names.end(), snaps[i].label);
        if (it == c.names.end()) {
            c.names.push_back(snaps[i].label);
            c.by_label.emplace_back();
            it = c.names.end() - 1;
        }
        c.by_label[size_t(it - c.names.begin())].push_back(i);
    }
    for (auto& v : c.by_label)
        std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return snaps[a].cycle < snaps[b].cycle; });
    return c;
}

const Labels& labels_for(const Document& d, const Replay& r) {
    static DerivedCache<Labels, uint32_t, uint32_t> cache;
    return cache.get(d.trace, r.launch_index(), r.block_index(), [&] { return make_labels(r.block()); });
}

bool warp_matches(const trace::Snapshot& s, int warp) { return warp < 0 || s.warp == warp; }

// Positions (in `list`) of the warp's snapshots at or before / after `cycle`.
long at_or_before(const std::vector<trace::Snapshot>& snaps, const std::vector<size_t>& list, int warp, uint64_t cycle) {
    long found = -1;
    for (size_t k = 0; k < list.size() && snaps[list[k]].cycle <= cycle; ++k)
        if (warp_matches(snaps[list[k]], warp)) found = long(k);
    return found;
}
long after(const std::vector<trace::Snapshot>& snaps, const std::vector<size_t>& list, int warp, long from) {
    for (size_t k = size_t(from + 1); k < list.size(); ++k)
        if (warp_matches(snaps[list[k]], warp)) return long(k);
    return -1;
}
// The latest matching snapshot earlier in cycles than list[from] (several
// warps may snapshot at one cycle; stepping must not stick among them).
long before(const std::vector<trace::Snapshot>& snaps, const std::vector<size_t>& list, int warp, long from) {
    for (long k = from - 1; k >= 0; --k)
        if (warp_matches(snaps[list[size_t(k)]], warp) && snaps[list[size_t(k)]].cycle < snaps[list[size_t(from)]].cycle)
            return k;
    return -1;
}

// "1.25", "-0.031", "1.2e+04": fits a small cell.
void short_number(char* buf, size_t n, float x) {
    if (std::isnan(x)) std::snprintf(buf, n, "NaN");
    else if (std::isinf(x)) std::snprintf(buf, n, x > 0 ? "inf" : "-inf");
    else if (x == 0) std::snprintf(buf, n, "0");
    else if (std::fabs(x) >= 1000 || std::fabs(x) < 0.01f) std::snprintf(buf, n, "%.1e", double(x));
    else std::snprintf(buf, n, "%.3g", double(x));
}

void legend(float max_abs, bool delta) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight(), w = 140;
    char lo[32], hi[32];
    std::snprintf(lo, sizeof lo, "%s-%.3g ", delta ? "change " : "", double(max_abs));
    std::snprintf(hi, sizeof hi, " +%.3g", double(max_abs));
    dl->AddText(p, palette::text_dim, lo);
    const float x0 = p.x + ImGui::CalcTextSize(lo).x;
    for (int i = 0; i < int(w); ++i)
        dl->AddRectFilled(ImVec2(x0 + float(i), p.y), ImVec2(x0 + float(i) + 1, p.y + lh),
                          palette::diverging(float(i) / w * 2 - 1));
    dl->AddText(ImVec2(x0 + w / 2 - 3, p.y), IM_COL32(0, 0, 0, 255), "0");
    dl->AddText(ImVec2(x0 + w, p.y), palette::text_dim, hi);
    dl->AddRectFilled(ImVec2(x0 + w + ImGui::CalcTextSize(hi).x + 10, p.y),
                      ImVec2(x0 + w + ImGui::CalcTextSize(hi).x + 10 + lh, p.y + lh), IM_COL32(230, 0, 230, 255));
    dl->AddText(ImVec2(x0 + w + ImGui::CalcTextSize(hi).x + 14 + lh, p.y), palette::text_dim, "NaN / inf");
    ImGui::Dummy(ImVec2(w + ImGui::CalcTextSize(lo).x + ImGui::CalcTextSize(hi).x + 90, lh));
}

void grid(const trace::Snapshot& s, const trace::Snapshot* prev, const TileOptions& opt) {
    const bool reg = s.space == "register";
    const bool delta = opt.delta && prev;
    auto value = [&](size_t i) { return delta ? s.values[i] - prev->values[i] : s.values[i]; };
    float max_abs = 0;
    for (size_t i = 0; i < s.values.size(); ++i)
        if (std::isfinite(value(i))) max_abs = std::max(max_abs, std::fabs(value(i)));
    if (!(opt.lanes && reg)) legend(max_abs, delta);
    else dim_wrapped("Colour and number: the lane holding the element. Hover for its register pair; the black outlines "
                     "show all elements of the hovered lane.");

    const float lh = ImGui::GetTextLineHeight();
    const float label_w = ImGui::CalcTextSize("000 ").x;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float cell = std::floor(std::clamp(std::min((avail.x - label_w - 4) / float(s.cols),
                                                      (std::max(avail.y, 120.0f) - lh - 4) / float(s.rows)),
                                             3.0f, 44.0f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const ImVec2 o(top.x + label_w, top.y + lh);
    // Column numbers every 16 (a sub-tile), or every 8 when there is room.
    const int every = cell * 8 >= ImGui::CalcTextSize("000").x + 4 ? 8 : 16;
    for (int c = 0; c < s.cols; c += every) {
        char t[16];
        std::snprintf(t, sizeof t, "%d", c);
        dl->AddText(ImVec2(o.x + float(c) * cell, top.y), palette::text_dim, t);
    }
    for (int r = 0; r < s.rows; r += every) {
        char t[16];
        std::snprintf(t, sizeof t, "%d", r);
        dl->AddText(ImVec2(top.x + label_w - ImGui::CalcTextSize(t).x - 4, o.y + float(r) * cell), palette::text_dim, t);
    }
    const ImVec2 m = ImGui::GetIO().MousePos;
    const bool inside = ImGui::IsWindowHovered() && m.x >= o.x && m.y >= o.y && m.x < o.x + float(s.cols) * cell &&
                        m.y < o.y + float(s.rows) * cell;
    const int hr = inside ? int((m.y - o.y) / cell) : -1, hc = inside ? int((m.x - o.x) / cell) : -1;
    const int hover_lane = inside && reg ? fragment_slot(hr, hc, opt.col_layout).lane : -1;
    // Only the rows in view: a big tile at small cells is many rectangles.
    const float clip_top = ImGui::GetWindowPos().y, clip_bottom = clip_top + ImGui::GetWindowHeight();
    const int r_lo = std::clamp(int((clip_top - o.y) / cell), 0, s.rows);
    const int r_hi = std::clamp(int((clip_bottom - o.y) / cell) + 1, 0, s.rows);
    for (int r = r_lo; r < r_hi; ++r)
        for (int c = 0; c < s.cols; ++c) {
            const size_t i = size_t(r) * size_t(s.cols) + size_t(c);
            const float x = value(i);
            const FragmentSlot slot = fragment_slot(r, c, opt.col_layout);
            ImU32 fill;
            if (opt.lanes && reg) fill = palette::lane_color(slot.lane);
            else if (!std::isfinite(x)) fill = IM_COL32(230, 0, 230, 255);
            else fill = palette::diverging(max_abs > 0 ? x / max_abs : 0);
            const float gap = cell > 5 ? 1 : 0;  // a dark seam between cells when they are big enough
            const ImVec2 a(o.x + float(c) * cell, o.y + float(r) * cell), z(a.x + cell - gap, a.y + cell - gap);
            dl->AddRectFilled(a, z, fill);
            char t[16];
            if (opt.lanes && reg) std::snprintf(t, sizeof t, "%d", slot.lane);
            else short_number(t, sizeof t, x);
            if (cell >= 12) fit_text(dl, a, z, t, ink_on(fill));
            // The hovered element's lane: all 8 elements it holds per sub-tile.
            if (reg && slot.lane == hover_lane) dl->AddRect(a, z, IM_COL32(0, 0, 0, 255), 0, 0, cell > 8 ? 2.0f : 1.0f);
        }
    // 16x16 sub-tile borders (the unit of tk's tiles and of mma fragments).
    for (int r = 16; r < s.rows; r += 16)
        dl->AddLine(ImVec2(o.x, o.y + float(r) * cell - 0.5f), ImVec2(o.x + float(s.cols) * cell, o.y + float(r) * cell - 0.5f),
                    IM_COL32(30, 30, 30, 255), 1.5f);
    for (int c = 16; c < s.cols; c += 16)
        dl->AddLine(ImVec2(o.x + float(c) * cell - 0.5f, o.y), ImVec2(o.x + float(c) * cell - 0.5f, o.y + float(s.rows) * cell),
                    IM_COL32(30, 30, 30, 255), 1.5f);
    ImGui::Dummy(ImVec2(label_w + float(s.cols) * cell, lh + float(s.rows) * cell));

    if (inside) {
        const size_t i = size_t(hr) * size_t(s.cols) + size_t(hc);
        ImGui::BeginTooltip();
        ImGui::Text("row %d, col %d: %.6g", hr, hc, double(s.values[i]));
        if (delta) ImGui::Text("change since the previous snapshot: %+.6g", double(value(i)));
        if (reg) {
            const FragmentSlot slot = fragment_slot(hr, hc, opt.col_layout);
            ImGui::Text("held by lane %d: tiles[%d][%d].data[%d].%s", slot.lane, slot.sub_row, slot.sub_col, slot.pair,
                        slot.half ? "y" : "x");
            ImGui::TextColored(ImColor(palette::text_dim), "(register pair %d of its 16x16 sub-tile; %s layout)", slot.pair,
                               opt.col_layout ? "col" : "row");
        } else {
            ImGui::TextColored(ImColor(palette::text_dim),
                               "a shared tile (the snapshot holds values only, not their addresses or swizzle)");
        }
        ImGui::EndTooltip();
    }
}

} // namespace

void draw_tile_inspector(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::tile_inspector))) { ImGui::End(); return; }
    const Document* d = v.main();
    if (!d || !d->trace) {
        dim("No trace loaded.");
        ImGui::End();
        return;
    }
    if (!v.replay) {
        dim_wrapped("No timeline block in this trace, so no value snapshots.");
        ImGui::End();
        return;
    }
    const Replay& r = *v.replay;
    const Labels& L = labels_for(*d, r);
    if (L.names.empty()) {
        dim_wrapped("No value snapshots in this trace: run with --snapshots (tk::snapshot(tile, \"label\") in the kernel).");
        ImGui::End();
        return;
    }
    const auto& snaps = r.block().snapshots;
    size_t li = 0;
    for (size_t i = 0; i < L.names.size(); ++i)
        if (L.names[i] == v.sel.snapshot) li = i;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("tile");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.5f));
    if (ImGui::BeginCombo("##label", L.names[li].c_str())) {
        for (size_t i = 0; i < L.names.size(); ++i) {
            char s[160];
            const trace::Snapshot& f = snaps[L.by_label[i].front()];
            std::snprintf(s, sizeof s, "%s  (%s %dx%d, %zu snapshots)", L.names[i].c_str(), f.space.c_str(), f.rows, f.cols,
                          L.by_label[i].size());
            if (ImGui::Selectable(s, i == li)) v.sel.snapshot = L.names[i];
        }
        ImGui::EndCombo();
    }
    const std::vector<size_t>& list = L.by_label[li];
    const int warp = v.sel.warp;
    const uint64_t cycle = v.cursor_cycle();
    const long k = at_or_before(snaps, list, warp, cycle);
    // Prev / next move the cursor to the snapshot's cycle.
    const long prev_k = k >= 0 ? before(snaps, list, warp, k) : -1;
    const long next_k = after(snaps, list, warp, k);
    ImGui::SameLine();
    if (prev_k < 0) ImGui::BeginDisabled();
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) v.seek_cycle(snaps[list[size_t(prev_k)]].cycle);
    if (prev_k < 0) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the previous snapshot of this tile (moves the cursor to its cycle)");
    ImGui::SameLine();
    if (next_k < 0) ImGui::BeginDisabled();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) v.seek_cycle(snaps[list[size_t(next_k)]].cycle);
    if (next_k < 0) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the next snapshot of this tile (moves the cursor to its cycle)");

    if (k < 0) {
        char s[200];
        if (next_k >= 0)
            std::snprintf(s, sizeof s, "\"%s\" has no snapshot%s at or before cycle %llu yet; the first is at cycle %llu.",
                          L.names[li].c_str(), warp >= 0 ? " of this warp" : "", (unsigned long long)cycle,
                          (unsigned long long)snaps[list[size_t(next_k)]].cycle);
        else
            std::snprintf(s, sizeof s, "\"%s\" has no snapshot of warp %d (pick another warp in the transport).",
                          L.names[li].c_str(), warp);
        dim_wrapped(s);
        ImGui::End();
        return;
    }
    const trace::Snapshot& s = snaps[list[size_t(k)]];
    const trace::Trace& t = r.trace();
    const bool reg = s.space == "register";
    say(kText, "%s: %s tile %dx%d, warp %u, cycle %llu, at %s", s.label.c_str(), reg ? "register" : "shared", s.rows,
        s.cols, unsigned(s.warp), (unsigned long long)s.cycle, t.where(s.loc).c_str());
    if (s.values.size() != size_t(s.rows) * size_t(s.cols) || s.rows <= 0 || s.cols <= 0) {
        say(palette::warning, "This snapshot is damaged: %zu values for %dx%d.", s.values.size(),
                           s.rows, s.cols);
        ImGui::End();
        return;
    }
    // The same warp's previous snapshot of this label, for "change".
    const trace::Snapshot* prev = nullptr;
    for (long j = k - 1; j >= 0 && !prev; --j) {
        const trace::Snapshot& p = snaps[list[size_t(j)]];
        if (p.warp == s.warp && p.rows == s.rows && p.cols == s.cols && p.values.size() == s.values.size()) prev = &p;
    }
    if (reg) {
        ImGui::Checkbox("lanes", &v.tile.lanes);
        ImGui::SameLine();
        ImGui::Checkbox("col layout (tk::col_l)", &v.tile.col_layout);
        ImGui::SameLine();
    }
    if (!prev) ImGui::BeginDisabled();
    ImGui::Checkbox("change since previous", &v.tile.delta);
    if (!prev) ImGui::EndDisabled();
    grid(s, prev, v.tile);
    ImGui::End();
}

} // namespace tklab::view
