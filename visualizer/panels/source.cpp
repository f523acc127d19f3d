// The Source panel: the kernel's source with the cursor's line highlighted and
// three heat columns of per-line costs over the whole launch (shared-memory
// conflict wavefronts, barrier wait cycles, stall cycles). Clicking a line
// selects its events (the timeline highlights them) and offers stepping
// between them.
#include <imgui.h>
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <vector>
#include "visualizer/model/derived_cache.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

// ---- what is computed once per trace and launch ----

// The costs of one kernel line, summed over every block of the launch.
struct LineCost {
    uint64_t wavefronts = 0, ideal = 0;
    uint64_t wait_cycles = 0, waits = 0;
    uint64_t stall_cycles = 0, instructions = 0;
    std::vector<uint32_t> smem_sites, barrier_sites;  // Summary indices
    long line_stalls = -1;                             // Summary::line_stalls index
    uint64_t conflicts() const { return wavefronts > ideal ? wavefronts - ideal : 0; }
};

// One source file as the panel lists it: a row per line of its text, or,
// without text, a row per line that has instructions.
struct FileRows {
    bool has_text = false;
    std::vector<std::string> text;       // by line - 1, tabs expanded
    std::vector<int> lines;              // the line number of each row
    std::vector<uint32_t> loc_of_line;   // by line number: Trace::locations index, 0 = none
    size_t widest = 0;                   // characters in the longest line
    uint64_t max_conflicts = 0, max_wait = 0, max_stall = 0;
    int row_of(int line) const {
        auto it = std::lower_bound(lines.begin(), lines.end(), line);
        return it != lines.end() && *it == line ? int(it - lines.begin()) : -1;
    }
    uint32_t loc(int line) const { return line > 0 && size_t(line) < loc_of_line.size() ? loc_of_line[size_t(line)] : 0; }
};

struct LaunchCosts {
    bool has_summary = false;
    uint64_t blocks = 0;
    std::vector<LineCost> by_loc;  // by Trace::locations index
    std::vector<FileRows> files;   // by Trace::files index
};

std::vector<std::string> split_lines(const std::string& text, size_t& widest) {
    std::vector<std::string> out;
    std::string line;
    auto flush = [&] {
        widest = std::max(widest, line.size());
        out.push_back(std::move(line));
        line.clear();
    };
    for (char c : text) {
        if (c == '\n') flush();
        else if (c == '\t') line.append(4 - line.size() % 4, ' ');  // ImGui draws no tabs
        else if (c != '\r') line.push_back(c);
    }
    if (!line.empty()) flush();
    return out;
}

LaunchCosts make_launch_costs(const trace::Trace& t, uint32_t launch) {
    LaunchCosts c;
    c.by_loc.assign(t.locations.size(), {});
    const trace::Summary* s = launch < t.launches.size() && t.launches[launch].summary ? &*t.launches[launch].summary : nullptr;
    c.has_summary = s != nullptr;
    if (s) {
        c.blocks = s->blocks;
        auto cost = [&](uint32_t loc) -> LineCost* { return loc < c.by_loc.size() ? &c.by_loc[loc] : nullptr; };
        for (size_t i = 0; i < s->smem_sites.size(); ++i)
            if (LineCost* lc = cost(s->smem_sites[i].loc)) {
                lc->wavefronts += s->smem_sites[i].wavefronts;
                lc->ideal += s->smem_sites[i].ideal;
                lc->smem_sites.push_back(uint32_t(i));
            }
        for (size_t i = 0; i < s->barrier_sites.size(); ++i)
            if (LineCost* lc = cost(s->barrier_sites[i].loc)) {
                for (const trace::BarrierWarpStats& w : s->barrier_sites[i].warps) {
                    lc->wait_cycles += w.total;
                    lc->waits += w.waits;
                }
                lc->barrier_sites.push_back(uint32_t(i));
            }
        for (size_t i = 0; i < s->line_stalls.size(); ++i)
            if (LineCost* lc = cost(s->line_stalls[i].loc)) {
                const trace::LineStalls& ls = s->line_stalls[i];
                for (size_t r = 1; r < ls.cycles.size(); ++r) lc->stall_cycles += ls.cycles[r];  // 0 is "none"
                lc->instructions += ls.instructions;
                lc->line_stalls = long(i);
            }
    }
    c.files.assign(t.files.size(), {});
    for (size_t f = 0; f < t.files.size(); ++f) {
        FileRows& fr = c.files[f];
        if (t.files[f].text) {
            fr.has_text = true;
            fr.text = split_lines(*t.files[f].text, fr.widest);
        }
        int last_line = int(fr.text.size());
        for (const trace::Location& l : t.locations)
            if (l.file == f) last_line = std::max(last_line, l.line);
        fr.loc_of_line.assign(size_t(last_line) + 1, 0);
        for (uint32_t i = 1; i < t.locations.size(); ++i) {
            const trace::Location& l = t.locations[i];
            if (l.file == f && l.line > 0 && fr.loc_of_line[size_t(l.line)] == 0) fr.loc_of_line[size_t(l.line)] = i;
        }
        for (int line = 1; line <= last_line; ++line)
            if (fr.has_text || fr.loc_of_line[size_t(line)] != 0) fr.lines.push_back(line);
        for (int line : fr.lines) {
            const uint32_t loc = fr.loc(line);
            if (!loc) continue;
            const LineCost& lc = c.by_loc[loc];
            fr.max_conflicts = std::max(fr.max_conflicts, lc.conflicts());
            fr.max_wait = std::max(fr.max_wait, lc.wait_cycles);
            fr.max_stall = std::max(fr.max_stall, lc.stall_cycles);
        }
    }
    return c;
}

const LaunchCosts& launch_costs(const ViewState& v) {
    static DerivedCache<LaunchCosts, uint32_t> cache;
    return cache.get(v.docs[0].trace, v.launch, [&] { return make_launch_costs(*v.trace(), v.launch); });
}

// The cursor block's events by line, computed once per block.
struct BlockLines {
    std::vector<std::vector<uint32_t>> events;  // by Trace::locations index, in execution order
};

const BlockLines& block_lines(const ViewState& v) {
    static DerivedCache<BlockLines, uint32_t, uint32_t> cache;
    const Replay& r = *v.replay;
    return cache.get(v.docs[0].trace, r.launch_index(), r.block_index(), [&] {
        BlockLines b;
        b.events.assign(r.trace().locations.size(), {});
        const auto& ev = r.block().events;
        for (size_t i = 0; i < ev.size(); ++i)
            if (ev[i].loc < b.events.size()) b.events[ev[i].loc].push_back(uint32_t(i));
        return b;
    });
}

// ---- drawing helpers ----

// At most five characters, to keep the cost columns narrow: 9999, 12.3k, 456k, 7.8M.
std::string compact(uint64_t n) {
    char buf[32];
    const double x = double(n);
    if (n < 10'000) std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    else if (n < 100'000) std::snprintf(buf, sizeof buf, "%.1fk", x / 1e3);
    else if (n < 1'000'000) std::snprintf(buf, sizeof buf, "%.0fk", x / 1e3);
    else if (n < 100'000'000) std::snprintf(buf, sizeof buf, "%.1fM", x / 1e6);
    else if (n < 1'000'000'000) std::snprintf(buf, sizeof buf, "%.0fM", x / 1e6);
    else std::snprintf(buf, sizeof buf, "%.1fG", x / 1e9);
    return buf;
}


void warn_wrapped(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette::warning);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// A heat cell: the value on a background whose colour says how it compares
// with the file's largest; nothing for zero.
void heat_cell(uint64_t value, uint64_t max) {
    if (value == 0) return;
    // Lifted off the darkest colour so a small but non-zero cost still shows.
    const float t = 0.2f + 0.8f * float(double(value) / double(std::max<uint64_t>(max, 1)));
    ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, palette::heat(t));
    const std::string s = compact(value);
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, ImGui::GetContentRegionAvail().x - w));
    const ImU32 ink = t > 0.55f ? IM_COL32(20, 20, 20, 255) : IM_COL32(235, 235, 235, 255);
    ImGui::PushStyleColor(ImGuiCol_Text, ink);
    ImGui::TextUnformatted(s.c_str());
    ImGui::PopStyleColor();
}

void cost_tooltip(const trace::Trace& t, const LaunchCosts& lc, uint32_t launch, int line, uint32_t loc,
                  const BlockLines* bl) {
    ImGui::BeginTooltip();
    ImGui::Text("line %d", line);
    if (!loc) {
        dim("no instructions were issued from this line");
        ImGui::EndTooltip();
        return;
    }
    if (!lc.has_summary) {
        dim("no per-line costs: the trace has no summary (it was cut short)");
    } else {
        const trace::Summary& s = *t.launches[launch].summary;
        const LineCost& c = lc.by_loc[loc];
        ImGui::Text("all %llu blocks of the launch:", (unsigned long long)lc.blocks);
        ImGui::Text("  %llu warp instructions", (unsigned long long)c.instructions);
        for (uint32_t i : c.smem_sites) {
            const trace::SmemSite& ss = s.smem_sites[i];
            const char* op = ss.op < t.ops.size() ? t.ops[ss.op].c_str() : "?";
            ImGui::Text("  %s x%llu: %llu wavefronts, ideal %llu -> %llu conflict wavefronts (worst %d-way)", op,
                        (unsigned long long)ss.count, (unsigned long long)ss.wavefronts, (unsigned long long)ss.ideal,
                        (unsigned long long)ss.conflicts(), int(ss.max_way));
        }
        for (uint32_t i : c.barrier_sites) {
            const trace::BarrierSite& bs = s.barrier_sites[i];
            uint64_t waits = 0, total = 0, longest = 0;
            for (const auto& w : bs.warps) { waits += w.waits; total += w.total; longest = std::max(longest, w.longest); }
            if (bs.mbarrier) ImGui::Text("  mbarrier: %llu waits, %llu cycles (longest %llu)", (unsigned long long)waits,
                                         (unsigned long long)total, (unsigned long long)longest);
            else ImGui::Text("  bar.sync %d: %llu waits, %llu cycles (longest %llu)", int(bs.id), (unsigned long long)waits,
                             (unsigned long long)total, (unsigned long long)longest);
        }
        if (c.line_stalls >= 0) {
            const trace::LineStalls& ls = s.line_stalls[size_t(c.line_stalls)];
            ImGui::Text("  stall cycles %llu:", (unsigned long long)c.stall_cycles);
            for (size_t r = 1; r < ls.cycles.size(); ++r)
                if (ls.cycles[r]) {
                    const std::string& name = r < t.stalls.size() ? t.stalls[r] : "?";
                    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::stall_color(name)), "    %-20s %llu",
                                       name.c_str(), (unsigned long long)ls.cycles[r]);
                }
        }
    }
    if (bl && loc < bl->events.size()) ImGui::Text("this block: %zu events; click to select them", bl->events[loc].size());
    ImGui::EndTooltip();
}

// What the panel shows of one document (a new one starts afresh).
struct PanelState {
    size_t file = 0;              // Trace::files index shown
    long followed = -2;           // the cursor event the view last followed
    int scroll_to_line = 0;       // a line to bring into view (0: none)
    int clicked_empty = 0;        // a clicked line without instructions, for a hint
};

// Seeks to the previous (dir < 0) or next event on `loc`, of `warp` or any.
void seek_on_line(ViewState& v, const std::vector<uint32_t>& evs, int dir) {
    Replay& r = *v.replay;
    const auto& events = r.block().events;
    const long cur = r.current(v.sel.warp);
    long target = -1;
    size_t nth = 0, count = 0;
    for (uint32_t e : evs) {
        if (v.sel.warp >= 0 && events[e].warp != v.sel.warp) continue;
        ++count;
        if (dir > 0 && long(e) > cur && target < 0) { target = e; nth = count; }
        if (dir < 0 && long(e) < cur) { target = e; nth = count; }
    }
    if (target < 0) {
        v.status = dir > 0 ? "no later event on this line" : "no earlier event on this line";
        return;
    }
    v.playing = false;
    r.seek(size_t(target) + 1);
    v.status = "event " + std::to_string(nth) + " of " + std::to_string(count) + " on " +
               r.trace().where(events[size_t(target)].loc);
}

} // namespace

void draw_source(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::source))) { ImGui::End(); return; }
    const trace::Trace* t = v.trace();
    if (!t) {
        dim("no trace loaded");
        ImGui::End();
        return;
    }
    static DerivedCache<PanelState> states;
    const LaunchCosts& lc = launch_costs(v);
    PanelState& st = states.get(v.docs[0].trace, [&] {
        PanelState s;  // the first file with text, else the first file
        for (size_t f = 1; f < t->files.size() && !s.file; ++f)
            if (t->files[f].text) s.file = f;
        if (!s.file && t->files.size() > 1) s.file = 1;
        return s;
    });
    if (t->files.size() <= 1) {
        dim("the trace names no source files");
        ImGui::End();
        return;
    }

    // The cursor's line: the last event that ran (of the selected warp), or
    // at the start the first one to run.
    long cur = -1;
    bool upcoming = false;
    const BlockLines* bl = nullptr;
    if (v.replay) {
        bl = &block_lines(v);
        cur = v.replay->current(v.sel.warp);
        if (cur < 0) {
            cur = v.replay->next(v.sel.warp);
            upcoming = cur >= 0;
        }
    }
    const uint32_t cur_loc = cur >= 0 ? v.replay->block().events[size_t(cur)].loc : 0;
    const trace::Location cur_at = cur_loc < t->locations.size() ? t->locations[cur_loc] : trace::Location{};
    if (cur != st.followed) {  // the cursor moved: follow it into its file and line
        st.followed = cur;
        if (cur_loc && cur_at.file < t->files.size()) {
            st.file = cur_at.file;
            st.scroll_to_line = cur_at.line;
        }
    }
    if (st.file >= t->files.size()) st.file = 1;
    const FileRows& fr = lc.files[st.file];

    // ---- header: file, cursor, selection (wrapped: the panel is a narrow column) ----
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string preview = t->files[st.file].path + (t->files[st.file].text ? "" : "  (no text)");
    if (ImGui::BeginCombo("##file", preview.c_str())) {
        for (size_t f = 1; f < t->files.size(); ++f) {
            const std::string label = t->files[f].path + (t->files[f].text ? "" : "  (no text)") + "##" + std::to_string(f);
            if (ImGui::Selectable(label.c_str(), f == st.file)) st.file = f;
        }
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the source file shown; it follows the cursor when the cursor moves");
    if (cur_loc) {
        const trace::Event& e = v.replay->block().events[size_t(cur)];
        const char* op = e.op < t->ops.size() ? t->ops[e.op].c_str() : "?";
        ImGui::TextWrapped("%s line %d (highlighted): warp %d, %s", upcoming ? "Next to run:" : "Cursor:", cur_at.line,
                           int(e.warp), op);
        if (cur_at.file != st.file) {
            ImGui::SameLine();
            if (ImGui::SmallButton("show")) { st.file = cur_at.file; st.scroll_to_line = cur_at.line; }
        }
    } else if (!v.replay) {
        dim_wrapped("no block timeline in this trace: no cursor to follow");
    } else {
        dim_wrapped("the cursor is at the start of the block");
    }

    if (v.sel.loc && v.sel.loc < t->locations.size()) {
        const trace::Location& sl = t->locations[v.sel.loc];
        if (bl) {
            const auto& evs = bl->events[v.sel.loc];
            size_t of_warp = 0;
            if (v.sel.warp >= 0)
                for (uint32_t e : evs) of_warp += v.replay->block().events[e].warp == v.sel.warp;
            if (v.sel.warp >= 0)
                ImGui::TextWrapped("Selected line %d: %zu events in this block, %zu of warp %d", sl.line, evs.size(), of_warp,
                                   v.sel.warp);
            else
                ImGui::TextWrapped("Selected line %d: %zu events in this block", sl.line, evs.size());
            if (evs.empty()) {
                dim_wrapped("no instruction of this block ran this line (a declaration, or another block's code path)");
            } else {
                if (ImGui::SmallButton("< previous")) seek_on_line(v, evs, -1);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("move the cursor to the previous event of this line");
                ImGui::SameLine();
                if (ImGui::SmallButton("next >")) seek_on_line(v, evs, +1);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("move the cursor to the next event of this line");
                ImGui::SameLine();
            }
        } else {
            ImGui::TextWrapped("Selected line %d", sl.line);
        }
        if (ImGui::SmallButton("clear")) v.sel.loc = 0;
        if (sl.file != st.file) {
            ImGui::SameLine();
            if (ImGui::SmallButton("show##sel")) { st.file = sl.file; st.scroll_to_line = sl.line; }
        }
    } else if (st.clicked_empty) {
        ImGui::TextWrapped("line %d issued no instructions", st.clicked_empty);
    } else {
        dim_wrapped("Click a line to select its events (again to clear); right-click: breakpoint.");
    }

    if (!fr.has_text)
        warn_wrapped("source text not in the trace (file " + t->files[st.file].path +
                     "): the trace was written without it. Its costs are listed by line number; "
                     "`tklab view --source-root DIR` reads the file from the project folder DIR.");
    if (lc.has_summary)
        dim_wrapped("Costs over all " + std::to_string(lc.blocks) +
                    " blocks - confl: extra shared-memory wavefronts from bank conflicts; wait: barrier wait cycles; "
                    "stall: stall cycles. Hover a number for details.");
    else
        warn_wrapped("no per-line costs: the trace has no summary (it was cut short)");
    if (fr.lines.empty()) {
        dim_wrapped("no lines of this file issued instructions");
        ImGui::End();
        return;
    }

    // ---- the listing ----
    const float digit = ImGui::CalcTextSize("0").x;
    const float num_w = ImGui::CalcTextSize("00.0k").x + 2;
    const float line_w = digit * float(std::to_string(fr.lines.back()).size() + 2);
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("##listing", 5, flags)) {
        ImGui::TableSetupScrollFreeze(4, 1);
        ImGui::TableSetupColumn("confl", ImGuiTableColumnFlags_WidthFixed, num_w);
        ImGui::TableSetupColumn("wait", ImGuiTableColumnFlags_WidthFixed, num_w);
        ImGui::TableSetupColumn("stall", ImGuiTableColumnFlags_WidthFixed, num_w);
        ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, line_w);
        ImGui::TableSetupColumn(fr.has_text ? "source" : "(no source text)", ImGuiTableColumnFlags_WidthFixed,
                                std::max(digit * float(fr.widest + 2), digit * 40));
        static const char* const header_tips[] = {
            "extra shared-memory wavefronts on this line (wavefronts - ideal), all blocks:\n"
            "each one is a cycle the shared-memory pipe spends on a bank conflict",
            "cycles warps spent waiting at a barrier on this line, all warps of all blocks",
            "cycles warps stalled before issuing this line's instructions, any reason (barrier waits included)",
            "line number; the highlighted row is the cursor's line", "the kernel's source"};
        ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
        for (int c = 0; c < 5; ++c) {
            ImGui::TableSetColumnIndex(c);
            ImGui::TableHeader(ImGui::TableGetColumnName(c));
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", header_tips[c]);
        }

        const int scroll_row = st.scroll_to_line ? fr.row_of(st.scroll_to_line) : -1;
        ImGuiListClipper clip;
        clip.Begin(int(fr.lines.size()));
        if (scroll_row >= 0) clip.ForceDisplayRangeByIndices(scroll_row, scroll_row + 1);
        while (clip.Step()) {
            for (int row = clip.DisplayStart; row < clip.DisplayEnd; ++row) {
                const int line = fr.lines[size_t(row)];
                const uint32_t loc = fr.loc(line);
                const LineCost* cost = loc && lc.has_summary ? &lc.by_loc[loc] : nullptr;
                const bool is_cursor = cur_loc && cur_at.file == st.file && cur_at.line == line;
                const bool is_break = loc && std::find(v.breakpoints.locs.begin(), v.breakpoints.locs.end(), loc) !=
                                                 v.breakpoints.locs.end();
                ImGui::TableNextRow();
                if (is_cursor)
                    ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                                           upcoming ? IM_COL32(255, 210, 80, 35) : IM_COL32(255, 210, 80, 80));
                ImGui::PushID(row);
                ImGui::TableSetColumnIndex(0);
                if (cost) heat_cell(cost->conflicts(), fr.max_conflicts);
                ImGui::TableSetColumnIndex(1);
                if (cost) heat_cell(cost->wait_cycles, fr.max_wait);
                ImGui::TableSetColumnIndex(2);
                if (cost) heat_cell(cost->stall_cycles, fr.max_stall);

                ImGui::TableSetColumnIndex(3);
                const ImVec2 at = ImGui::GetCursorPos();
                const bool selected = loc && loc == v.sel.loc;
                if (ImGui::Selectable("##row", selected,
                                      ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
                    st.clicked_empty = loc ? 0 : line;
                    v.sel.loc = selected ? 0 : loc;
                }
                bool hover_costs = false;
                for (int c = 0; c < 4; ++c) hover_costs |= (ImGui::TableGetColumnFlags(c) & ImGuiTableColumnFlags_IsHovered) != 0;
                if (hover_costs && ImGui::IsItemHovered()) cost_tooltip(*t, lc, v.launch, line, loc, bl);
                if (loc && ImGui::BeginPopupContextItem("##bp")) {
                    auto& locs = v.breakpoints.locs;
                    if (!is_break && ImGui::MenuItem("break at this line")) locs.push_back(loc);
                    if (is_break && ImGui::MenuItem("remove the breakpoint"))
                        locs.erase(std::remove(locs.begin(), locs.end(), loc), locs.end());
                    ImGui::EndPopup();
                }
                if (is_cursor && scroll_row == row) {
                    ImGui::SetScrollHereY(0.4f);
                    st.scroll_to_line = 0;
                }
                ImGui::SetCursorPos(at);
                if (is_break) {  // a red dot left of the number
                    const ImVec2 p = ImGui::GetCursorScreenPos();
                    const float r = ImGui::GetTextLineHeight() * 0.28f;
                    ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r, p.y + ImGui::GetTextLineHeight() * 0.5f), r,
                                                                palette::error);
                }
                const std::string num = std::to_string(line);
                ImGui::SetCursorPosX(at.x + std::max(0.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(num.c_str()).x));
                ImGui::PushStyleColor(ImGuiCol_Text, is_cursor ? IM_COL32(255, 220, 120, 255) : (loc ? IM_COL32(200, 200, 200, 255) : palette::text_dim));
                ImGui::TextUnformatted(num.c_str());
                ImGui::PopStyleColor();

                ImGui::TableSetColumnIndex(4);
                if (fr.has_text && size_t(line) <= fr.text.size()) ImGui::TextUnformatted(fr.text[size_t(line) - 1].c_str());
                else if (fr.has_text) dim("(past the end of the embedded text)");
                ImGui::PopID();
            }
        }
        // A line requested for scrolling that is not the cursor's (a "show" button).
        if (st.scroll_to_line && scroll_row >= 0 && !(cur_loc && cur_at.line == st.scroll_to_line && cur_at.file == st.file)) {
            const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
            ImGui::SetScrollY(std::max(0.0f, row_h * float(scroll_row) - ImGui::GetWindowHeight() * 0.4f));
            st.scroll_to_line = 0;
        } else if (scroll_row < 0) {
            st.scroll_to_line = 0;
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

} // namespace tklab::view
