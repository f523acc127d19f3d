// Registers: the live registers per thread that a warp's register tiles and
// vectors hold, over the block's cycles (a step plot), against the hardware's
// limit of 255 per thread; the peak marked; the cursor as a vertical line
// (click the plot to move it); the tiles live at the cursor with their
// declaration lines; and the occupancy the peak allows.
#include <imgui.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "visualizer/model/derived_cache.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

constexpr int kLimit = 255;  // registers per thread the hardware can give


// RegChange gains the declarations live after each change (`live`); until
// then this finds nothing and the panel falls back on the summary's peak.
template <class Change>
const std::vector<trace::LiveTile>* live_of(const Change& c) {
    if constexpr (requires { { c.live } -> std::convertible_to<const std::vector<trace::LiveTile>&>; })
        return &c.live;
    else
        return nullptr;
}

// One block's register changes, split by warp, computed once per block.
struct WarpSteps {
    std::vector<size_t> changes;  // Block::regs indices of this warp, in cycle order
    int peak = 0;
    size_t peak_change = SIZE_MAX;
};
struct BlockRegs {
    std::vector<WarpSteps> warps;
    bool any_live_lists = false;
};

BlockRegs make_block_regs(const Replay& r) {
    BlockRegs c;
    const trace::Block& b = r.block();
    c.warps.resize(size_t(std::max(r.warps(), 1)));
    for (size_t i = 0; i < b.regs.size(); ++i) {
        const trace::RegChange& ch = b.regs[i];
        if (ch.warp >= c.warps.size()) c.warps.resize(size_t(ch.warp) + 1);
        WarpSteps& w = c.warps[ch.warp];
        w.changes.push_back(i);
        if (ch.regs > w.peak || w.peak_change == SIZE_MAX) { w.peak = ch.regs; w.peak_change = i; }
        if (const auto* live = live_of(ch); live && !live->empty()) c.any_live_lists = true;
    }
    for (WarpSteps& w : c.warps)
        std::stable_sort(w.changes.begin(), w.changes.end(),
                         [&](size_t x, size_t y) { return b.regs[x].cycle < b.regs[y].cycle; });
    return c;
}

const BlockRegs& block_regs(const Document& d, const Replay& r) {
    static DerivedCache<BlockRegs, uint32_t, uint32_t> cache;
    return cache.get(d.trace, r.launch_index(), r.block_index(), [&] { return make_block_regs(r); });
}

// The warp's last change at or before `cycle`, SIZE_MAX if none.
size_t change_at(const trace::Block& b, const WarpSteps& w, uint64_t cycle) {
    auto it = std::upper_bound(w.changes.begin(), w.changes.end(), cycle,
                               [&](uint64_t c, size_t i) { return c < b.regs[i].cycle; });
    return it == w.changes.begin() ? SIZE_MAX : *(it - 1);
}

// 1, 2 or 5 times a power of ten, so that ticks are at least `min_px` apart.
double nice_step(double range, float px, float min_px) {
    const double raw = range * min_px / std::max(1.0f, px);
    const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (p * m >= raw) return p * m;
    return p * 10;
}

ImU32 warp_color(int w) { return palette::lane_color(w * 5 + 1); }

void plot(ViewState& v, const Replay& r, const BlockRegs& br, int warp, float height) {
    const trace::Block& b = r.block();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float axis_w = std::max(ImGui::CalcTextSize("255 ").x + lh, ImGui::CalcTextSize("cycle ").x);
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 a(o.x + axis_w, o.y + lh), z(o.x + width - 8, o.y + height - lh - 4);  // the plot area
    if (z.x - a.x < 40 || z.y - a.y < 30) { ImGui::Dummy(ImVec2(width, height)); return; }
    const double end = double(std::max<uint64_t>(r.end_cycle(), 1));
    int top = kLimit;
    for (const WarpSteps& w : br.warps) top = std::max(top, w.peak);
    const double y_max = double(top) * 1.08;
    auto X = [&](double c) { return a.x + float(c / end) * (z.x - a.x); };
    auto Y = [&](double regs) { return z.y - float(regs / y_max) * (z.y - a.y); };

    dl->AddRect(a, z, IM_COL32(70, 70, 80, 255));  // an outline: a software renderer pays for filled area
    dl->AddText(ImVec2(o.x, o.y), palette::text_dim, "registers per thread");
    // Y ticks.
    for (int t : {0, 64, 128, 192}) {
        char s[8];
        std::snprintf(s, sizeof s, "%d", t);
        dl->AddLine(ImVec2(a.x, Y(t)), ImVec2(z.x, Y(t)), IM_COL32(60, 60, 68, 255));
        dl->AddText(ImVec2(a.x - ImGui::CalcTextSize(s).x - 4, Y(t) - lh / 2), palette::text_dim, s);
    }
    // X ticks.
    const double step = nice_step(end, z.x - a.x, ImGui::CalcTextSize("000000").x + 12);
    for (double c = 0; c <= end + 1e-9; c += step) {
        char s[24];
        std::snprintf(s, sizeof s, "%.0f", c);
        const float x = X(c), tw = ImGui::CalcTextSize(s).x;
        dl->AddLine(ImVec2(x, z.y), ImVec2(x, z.y + 3), palette::text_dim);
        dl->AddText(ImVec2(std::min(x - tw / 2, z.x - tw), z.y + 3), palette::text_dim, s);
    }
    // The x axis's unit, in the corner under the y axis's labels.
    dl->AddText(ImVec2(o.x, z.y + 3), palette::text_dim, "cycle");

    // The limit.
    dl->AddLine(ImVec2(a.x, Y(kLimit)), ImVec2(z.x, Y(kLimit)), palette::error, 1.5f);
    // Its label just under the line, inside the plot, clear of the title above.
    const char* limit_text = "255: the hardware's limit per thread";
    const ImVec2 lts = ImGui::CalcTextSize(limit_text);
    dl->AddText(ImVec2(std::max(a.x + 2, z.x - lts.x - 4), Y(kLimit) + 2), palette::error, limit_text);
    dl->AddText(ImVec2(a.x - ImGui::CalcTextSize("255").x - 4, Y(kLimit) - lh / 2), palette::error, "255");

    // The steps: each warp drawn (the selected one on top and thicker).
    dl->PushClipRect(a, ImVec2(z.x + 1, z.y + 1), true);
    auto draw_warp = [&](size_t w, ImU32 col, float thick) {
        const WarpSteps& ws = br.warps[w];
        float px = X(0), py = Y(0);
        for (size_t i : ws.changes) {
            const float x = X(double(b.regs[i].cycle)), y = Y(b.regs[i].regs);
            dl->AddLine(ImVec2(px, py), ImVec2(x, py), col, thick);
            dl->AddLine(ImVec2(x, py), ImVec2(x, y), col, thick);
            px = x;
            py = y;
        }
        dl->AddLine(ImVec2(px, py), ImVec2(X(end), py), col, thick);
    };
    for (size_t w = 0; w < br.warps.size(); ++w)
        if (warp < 0 || int(w) != warp) draw_warp(w, warp < 0 ? warp_color(int(w)) : IM_COL32(110, 110, 120, 160), 1.0f);
    if (warp >= 0 && size_t(warp) < br.warps.size()) draw_warp(size_t(warp), IM_COL32(120, 200, 255, 255), 2.0f);

    // The peak of the shown warp (or the block's highest).
    size_t pw = warp >= 0 ? size_t(warp) : 0;
    if (warp < 0)
        for (size_t w = 0; w < br.warps.size(); ++w)
            if (br.warps[w].peak > br.warps[pw].peak) pw = w;
    if (pw < br.warps.size() && br.warps[pw].peak_change != SIZE_MAX) {
        const trace::RegChange& pc = b.regs[br.warps[pw].peak_change];
        const ImVec2 p(X(double(pc.cycle)), Y(pc.regs));
        dl->AddCircleFilled(p, 4, palette::warning);
        char s[48];
        std::snprintf(s, sizeof s, "peak %d (warp %u)", int(pc.regs), unsigned(pc.warp));
        const float tw = ImGui::CalcTextSize(s).x;
        dl->AddText(ImVec2(std::min(p.x + 6, z.x - tw - 2), p.y - lh - 2), palette::warning, s);
    }
    // The cursor.
    const float cx = X(double(v.cursor_cycle()));
    dl->AddLine(ImVec2(cx, a.y), ImVec2(cx, z.y), palette::cursor, 1.0f);
    dl->PopClipRect();

    ImGui::SetCursorScreenPos(a);
    ImGui::InvisibleButton("##regplot", ImVec2(z.x - a.x, z.y - a.y));
    if (ImGui::IsItemHovered()) {
        const double c = std::clamp(double(ImGui::GetIO().MousePos.x - a.x) / double(z.x - a.x), 0.0, 1.0) * end;
        ImGui::BeginTooltip();
        ImGui::Text("cycle %.0f (click to move the cursor here)", c);
        for (size_t w = 0; w < br.warps.size(); ++w) {
            if (warp >= 0 && int(w) != warp) continue;
            const size_t i = change_at(b, br.warps[w], uint64_t(c));
            ImGui::TextColored(ImColor(warp >= 0 ? IM_COL32(120, 200, 255, 255) : warp_color(int(w))),
                               "warp %zu: %d registers per thread", w, i == SIZE_MAX ? 0 : int(b.regs[i].regs));
        }
        ImGui::EndTooltip();
        if (ImGui::IsItemClicked()) v.seek_cycle(uint64_t(c));
    }
    ImGui::SetCursorScreenPos(o);
    ImGui::Dummy(ImVec2(width, height));
    if (warp < 0) {
        for (size_t w = 0; w < br.warps.size(); ++w) {
            if (w) ImGui::SameLine();
            ImGui::TextColored(ImColor(warp_color(int(w))), "warp %zu", w);
        }
    }
}

void live_table(const trace::Trace& t, const std::vector<trace::LiveTile>& live) {
    if (live.empty()) { dim("  none"); return; }
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("live", 3, flags)) return;
    ImGui::TableSetupColumn("registers", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("declared at", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    std::vector<trace::LiveTile> sorted = live;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.regs > y.regs; });
    int sum = 0;
    for (const trace::LiveTile& lt : sorted) {
        sum += lt.regs;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", lt.regs);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(t.where(lt.loc).c_str());
        ImGui::TableNextColumn();
        const std::string text = t.line_text(lt.loc);
        const size_t indent = std::min(text.find_first_not_of(" \t"), text.size());
        ImGui::TextColored(ImColor(palette::text_dim), "%s", text.empty() ? "(source not in the trace)" : text.c_str() + indent);
    }
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", sum);
    ImGui::TableNextColumn();
    dim("in all");
    ImGui::EndTable();
}

void occupancy(const trace::Trace& t, const trace::Launch& l) {
    if (!l.summary) {
        dim("Occupancy: unknown (no summary: the trace was cut short).");
        return;
    }
    const trace::Summary& s = *l.summary;
    say(kText, "Launch peak: %d registers per thread in tiles, at %s", s.peak_regs, t.where(s.peak_regs_loc).c_str());
    if (s.blocks_per_sm > 0)
        say(kText, "Occupancy: %d block%s per SM, limited by %s", s.blocks_per_sm, s.blocks_per_sm == 1 ? "" : "s",
                    s.occupancy_limit.empty() ? "?" : s.occupancy_limit.c_str());
    else
        say(palette::error, "Occupancy: a block does not fit on an SM (limited by %s)",
                           s.occupancy_limit.empty() ? "?" : s.occupancy_limit.c_str());
    if (s.compiler) {  // the build compiled the kernel with nvcc: ptxas's figures, which occupancy used
        const trace::CompilerFigures& c = *s.compiler;
        say(kText, "  per thread: %d registers (%s, %s)", c.registers, c.tool.c_str(), c.arch.c_str());
        if (c.stack_bytes || c.spill_store_bytes || c.spill_load_bytes)
        {
            say(palette::error, "  local memory: %llu B stack frame, %llu B spilled, %llu B reloaded per thread",
                (unsigned long long)c.stack_bytes, (unsigned long long)c.spill_store_bytes, (unsigned long long)c.spill_load_bytes);
            if (!c.spill_store_bytes && !c.spill_load_bytes)  // as the report explains it (trace/report.cpp)
                dim("  no spills: an array indexed at run time (*a_s[cur]); stages as one array of tiles (al.allocate<tile[2]>()) avoid it");
        } else
            dim("  no local memory: nothing spilled");
        return;
    }
    // The simulator's estimate, as the report gives it (trace::register_estimate).
    const trace::RegisterEstimate e = trace::register_estimate(t, s);
    char line[420], addresses[120] = "";
    if (e.addresses)
        std::snprintf(addresses, sizeof addresses, " + %lld (addresses of the hottest loop's %d global-memory instructions)",
                      e.addresses, s.loop_addresses);
    char from_shared[120] = "";
    if (e.from_shared)
        std::snprintf(from_shared, sizeof from_shared, " - %lld (of operands from shared memory, loaded as the mma reads them)", e.from_shared);
    if (e.from == trace::RegisterEstimate::From::tiles)
        std::snprintf(line, sizeof line,
                      "  per thread: about %lld (tiles at the peak)%s%s + %lld (the cost model's base for indices and loop "
                      "counters) = %lld registers",
                      (long long)s.peak_regs, from_shared, addresses, e.base, e.total);
    else if (e.from == trace::RegisterEstimate::From::loaded)
        std::snprintf(line, sizeof line,
                      "  per thread: about %d (registers loaded before use, more than the tiles hold)%s + %lld (the cost "
                      "model's base for indices and loop counters) = %lld registers",
                      s.peak_loaded_regs, addresses, e.base, e.total);
    else if (e.from == trace::RegisterEstimate::From::run)
        std::snprintf(line, sizeof line,
                      "  per thread: about %lld registers while the addresses of a straight run of %d global-memory "
                      "instructions (one tile op) are computed before its first: %lld + %lld each%s",
                      e.total, s.run_addresses, e.run_base, e.run_per_address,
                      e.run_capped ? ", held to full occupancy's registers per thread" : "");
    else if (e.from == trace::RegisterEstimate::From::idle)
        std::snprintf(line, sizeof line, "  per thread: about %lld registers (the kernel issued nothing)", e.total);
    else
        std::snprintf(line, sizeof line,
                      "  per thread: about %lld registers, the most the launch allows each thread (the kernel "
                      "reallocates registers with setmaxnreg)",
                      e.total);
    dim_wrapped(line);
}

} // namespace

void draw_registers(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::registers))) { ImGui::End(); return; }
    const Document* d = v.main();
    if (!d || !d->trace) {
        dim("No trace loaded.");
        ImGui::End();
        return;
    }
    const trace::Trace& t = *d->trace;
    if (!v.replay) {
        dim_wrapped("No timeline block in this trace: register use over time is not recorded.");
        if (v.launch < t.launches.size()) occupancy(t, t.launches[v.launch]);
        ImGui::End();
        return;
    }
    const Replay& r = *v.replay;
    const trace::Block& b = r.block();
    const BlockRegs& br = block_regs(*d, r);
    const int warp = v.sel.warp >= 0 && size_t(v.sel.warp) < br.warps.size() ? v.sel.warp : -1;

    // The tiles live at the cursor.
    const int shown_warp = warp >= 0 ? warp : 0;
    const uint64_t cycle = v.cursor_cycle();
    const std::vector<trace::LiveTile>* live = nullptr;
    int regs_now = 0;
    if (size_t(shown_warp) < br.warps.size()) {
        const size_t i = change_at(b, br.warps[size_t(shown_warp)], cycle);
        if (i != SIZE_MAX) {
            live = live_of(b.regs[i]);
            regs_now = b.regs[i].regs;
        }
    }
    // The plot takes the room the text under it leaves.
    if (b.regs.empty()) {
        dim_wrapped("This block recorded no register changes (the kernel declares no register tiles).");
    } else {
        if (warp >= 0) say(kText, "Warp %d: live registers per thread held by tiles and vectors", warp);
        else say(kText, "All %zu warps: live registers per thread held by tiles and vectors", br.warps.size());
        const size_t rows = br.any_live_lists ? (live ? live->size() : 1)
                                              : (r.launch().summary ? r.launch().summary->peak_live.size() + 1 : 1);
        const float lines_below = float(rows + 9 + (warp < 0 ? 1 : 0)) * ImGui::GetTextLineHeightWithSpacing();
        const float h = std::max(140.0f, ImGui::GetContentRegionAvail().y - lines_below);
        plot(v, r, br, warp, h);
    }
    ImGui::Separator();
    if (br.any_live_lists) {
        say(kText, "Live at the cursor (cycle %llu, warp %d%s): %d registers per thread", (unsigned long long)cycle,
                    shown_warp, warp < 0 ? "; pick a warp in the transport for another" : "", regs_now);
        static const std::vector<trace::LiveTile> none;
        live_table(t, live ? *live : none);
    } else {
        // This trace's register changes carry no lists of live declarations:
        // show what the summary kept, the declarations live at the launch's peak.
        say(kText, "At the cursor (cycle %llu, warp %d): %d registers per thread", (unsigned long long)cycle,
                    shown_warp, regs_now);
        const trace::Launch& l = r.launch();
        if (l.summary) {
            say(palette::warning,
                               "Live at the launch's peak (%d registers at %s), not at the cursor: "
                               "this trace records no live lists per change",
                               l.summary->peak_regs, t.where(l.summary->peak_regs_loc).c_str());
            live_table(t, l.summary->peak_live);
        } else {
            dim("(no summary: what was live is unknown)");
        }
    }
    ImGui::Separator();
    occupancy(t, r.launch());
    ImGui::End();
}

} // namespace tklab::view
