// The Statistics panel: where the time went, for the whole launch (its
// Summary) or for a span of cycles selected on the timeline (the cursor
// block's events in that span, model/range_stats.h): stall cycles by reason,
// shared-memory wavefronts and conflicts by instruction kind, barrier waits,
// instructions by kind.
#include <imgui.h>
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>
#include "visualizer/model/derived_cache.h"
#include "visualizer/model/range_stats.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

using ull = unsigned long long;

// The quantities both scopes share, so one set of drawing code shows either.
struct Figures {
    uint64_t instructions = 0;
    const std::vector<uint64_t>* by_op = nullptr;
    const std::vector<uint64_t>* stall_cycles = nullptr;
    const trace::SmemTotals* smem[4] = {};
    uint64_t barrier_wait_cycles = 0;
    uint64_t warp_cycles = 0;  // the time warps existed: the denominator of every share
    bool main_reasons = false;  // a range: each instruction's wait under the reason that cost it most
};
const char* const kSmemKinds[4] = {"ld.shared", "st.shared", "ldmatrix", "stmatrix"};

// The figures of a whole run (trace::Summary) or of a range (RangeStats):
// both keep the same per-op, per-stall and shared-memory totals.
template <typename Totals>
Figures figures_of(const Totals& s, uint64_t instructions, uint64_t warp_cycles) {
    Figures f;
    f.instructions = instructions;
    f.by_op = &s.by_op;
    f.stall_cycles = &s.stall_cycles;
    f.smem[0] = &s.ld_shared;
    f.smem[1] = &s.st_shared;
    f.smem[2] = &s.ldmatrix;
    f.smem[3] = &s.stmatrix;
    f.barrier_wait_cycles = s.barrier_wait_cycles;
    f.warp_cycles = warp_cycles;
    return f;
}

std::string share(uint64_t part, uint64_t whole) {
    if (!whole) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * double(part) / double(whole));
    return buf;
}

// The cursor block's figures over the selected range, worked out once per range.
const RangeStats& range_of(const ViewState& v, uint64_t begin, uint64_t end) {
    static DerivedCache<RangeStats, uint32_t, uint32_t, uint64_t, uint64_t> cache;
    const Replay& r = *v.replay;
    return cache.get(v.docs[0].trace, r.launch_index(), r.block_index(), begin, end,
                     [&] { return range_stats(r.trace(), r.block(), r.warps(), begin, end); });
}

// Rows of "name | bar | numbers", bars scaled to the largest value.
struct BarRow {
    std::string name;
    uint64_t value;
    ImU32 color;
    std::string note;
};

void bar_table(const char* id, std::vector<BarRow> rows, const char* empty) {
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const BarRow& r) { return r.value == 0; }), rows.end());
    if (rows.empty()) {
        dim_wrapped(empty);
        return;
    }
    std::stable_sort(rows.begin(), rows.end(), [](const BarRow& a, const BarRow& b) { return a.value > b.value; });
    const uint64_t most = rows.front().value;
    float name_w = 0, note_w = 0;
    for (const BarRow& r : rows) {
        name_w = std::max(name_w, ImGui::CalcTextSize(r.name.c_str()).x);
        note_w = std::max(note_w, ImGui::CalcTextSize(r.note.c_str()).x);
    }
    if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthFixed, name_w);
    ImGui::TableSetupColumn("bar", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed, note_w);
    for (const BarRow& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(r.name.c_str());
        ImGui::TableSetColumnIndex(1);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetTextLineHeight();
        const float len = std::max(2.0f, w * float(double(r.value) / double(most)));
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + len, p.y + h - 1), r.color);
        ImGui::Dummy(ImVec2(w, h));
        ImGui::TableSetColumnIndex(2);
        ImGui::TextUnformatted(r.note.c_str());
    }
    ImGui::EndTable();
}

bool begin_key_table() {
    if (!ImGui::BeginTable("##key", 2, ImGuiTableFlags_SizingFixedFit)) return false;
    ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    return true;
}

void key_value(const char* key, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::text_dim), "%s", key);
    ImGui::TableSetColumnIndex(1);
    ImGui::TextWrapped("%s", value.c_str());
}

void draw_figures(const trace::Trace& t, const Figures& f) {
    if (ImGui::CollapsingHeader("Stall cycles by reason", ImGuiTreeNodeFlags_DefaultOpen)) {
        dim_wrapped("cycles warps waited before they could issue (barrier waits included); % of the time warps existed");
        if (f.main_reasons)
            dim_wrapped("a range counts each instruction's wait under the reason that cost it most (the events'); the whole "
                        "run's figures and the report count each cycle under its own");
        std::vector<BarRow> rows;
        for (size_t i = 1; f.stall_cycles && i < f.stall_cycles->size(); ++i) {
            const std::string name = i < t.stalls.size() ? t.stalls[i] : "?";
            const uint64_t c = (*f.stall_cycles)[i];
            rows.push_back({name, c, palette::stall_color(name), with_commas(c) + " cycles  " + share(c, f.warp_cycles)});
        }
        bar_table("##stalls", rows, "no stalls");
        uint64_t stalled = 0;
        for (const BarRow& r : rows) stalled += r.value;
        if (stalled) dim_wrapped("in all: " + with_commas(stalled) + " stall cycles, " + share(stalled, f.warp_cycles) +
                         " of the time warps existed; the rest they were issuing or had finished");
    }
    if (ImGui::CollapsingHeader("Shared memory", ImGuiTreeNodeFlags_DefaultOpen)) {
        dim_wrapped("wavefronts as Nsight Compute counts them; conflicts = wavefronts - ideal (extra shared-memory cycles)");
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
        if (ImGui::BeginTable("##smem", 6, flags)) {
            for (const char* h : {"instruction", "count", "wavefronts", "ideal", "conflicts", "worst"})
                ImGui::TableSetupColumn(h);
            ImGui::TableHeadersRow();
            trace::SmemTotals all;
            int kinds = 0;
            for (int k = 0; k < 4; ++k) kinds += f.smem[k] && f.smem[k]->instructions > 0;
            for (int k = 0; k < (kinds > 1 ? 5 : 4); ++k) {
                const trace::SmemTotals* s = k < 4 ? f.smem[k] : &all;
                if (!s) continue;
                if (k < 4) {
                    if (s->instructions == 0) continue;
                    all.instructions += s->instructions;
                    all.wavefronts += s->wavefronts;
                    all.ideal += s->ideal;
                    all.max_way = std::max(all.max_way, s->max_way);
                }
                ImGui::TableNextRow();
                ImGui::TableSetColumnIndex(0);
                ImGui::TextUnformatted(k < 4 ? kSmemKinds[k] : "all");
                ImGui::TableSetColumnIndex(1);
                ImGui::TextUnformatted(with_commas(s->instructions).c_str());
                ImGui::TableSetColumnIndex(2);
                ImGui::TextUnformatted(with_commas(s->wavefronts).c_str());
                ImGui::TableSetColumnIndex(3);
                ImGui::TextUnformatted(with_commas(s->ideal).c_str());
                ImGui::TableSetColumnIndex(4);
                const uint64_t conflicts = s->wavefronts > s->ideal ? s->wavefronts - s->ideal : 0;
                ImGui::Text("%s (%s of wavefronts)", with_commas(conflicts).c_str(), share(conflicts, s->wavefronts).c_str());
                ImGui::TableSetColumnIndex(5);
                if (s->instructions) {
                    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::conflict_color(s->max_way)),
                                       s->max_way <= 1 ? "no conflict" : "%d-way", s->max_way);
                }
            }
            if (all.instructions == 0) {
                ImGui::TableNextRow();
                ImGui::TableSetColumnIndex(0);
                dim_wrapped("none");
            }
            ImGui::EndTable();
        }
    }
    if (ImGui::CollapsingHeader("Instructions by kind", ImGuiTreeNodeFlags_DefaultOpen)) {
        std::vector<BarRow> rows;
        for (size_t i = 0; f.by_op && i < f.by_op->size(); ++i) {
            const std::string name = i < t.ops.size() ? t.ops[i] : "?";
            const uint64_t n = (*f.by_op)[i];
            rows.push_back({name, n, palette::op_color(name), with_commas(n) + "  " + share(n, f.instructions)});
        }
        bar_table("##ops", rows, "no instructions");
    }
}

void draw_whole_run(const trace::Trace& t, const trace::Launch& l) {
    if (!l.summary) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::warning),
                           "no summary: the trace was cut short before the launch ended");
        dim_wrapped("select a range on the timeline to see statistics of the cursor's block");
        return;
    }
    const trace::Summary& s = *l.summary;
    if (begin_key_table()) {
        key_value("kernel", l.kernel + "   grid " + std::to_string(l.grid.x) + "x" + std::to_string(l.grid.y) + "x" +
                                std::to_string(l.grid.z) + ", " + std::to_string(l.warps_per_block()) + " warps per block");
        key_value("blocks that ran", with_commas(s.blocks));
        key_value("warp instructions", with_commas(s.warp_instructions));
        key_value("slowest block", with_commas(s.max_block_cycles) + " cycles");
        key_value("mean block", with_commas(s.blocks ? s.sum_block_cycles / s.blocks : 0) + " cycles");
        // Older traces hold only the waves; newer ones say which bound the time is (sim/README.md, "Global memory").
        // Newer still: the busiest SM, its blocks simulated together (sim/README.md, "The SM").
        const std::string occupancy = std::to_string(s.blocks_per_sm) + " blocks per SM, limited by " +
                                      (s.occupancy_limit.empty() ? "?" : s.occupancy_limit);
        std::string why = s.blocks_together > 1 ? "the busiest SM, its blocks simulated " + std::to_string(s.blocks_together) +
                                                      " at a time; " + occupancy
                                                : "slowest block x waves of " + occupancy;
        if (s.time_limit == "L2 bandwidth" || s.time_limit == "DRAM bandwidth") {
            const uint64_t bytes = s.time_limit == "DRAM bandwidth" ? s.dram_bytes : s.global_bytes;
            why = "limited by " + s.time_limit + ": " + with_commas(bytes) + " bytes; its blocks " + with_commas(s.wave_cycles) + " cycles";
        }
        if (s.launch_overhead_cycles) why += ", + " + with_commas(s.launch_overhead_cycles) + " launch overhead";
        key_value("estimated kernel", with_commas(s.est_kernel_cycles) + " cycles (" + why + ")");
        key_value("warp time", with_commas(s.warp_cycles) + " warp-cycles (block cycles x warps, summed over blocks)");
        key_value("barrier waits", with_commas(s.barrier_wait_cycles) + " warp-cycles  " + share(s.barrier_wait_cycles, s.warp_cycles) +
                                       " of warp time (arrive to release, every waiting warp)");
        key_value("peak registers", std::to_string(s.peak_regs) + " per thread held by tiles, at " + t.where(s.peak_regs_loc));
        if (s.compiler)
            key_value("registers (ptxas)", std::to_string(s.compiler->registers) + " per thread, " + std::to_string(s.compiler->stack_bytes) +
                                               " B stack frame, " + std::to_string(s.compiler->spill_store_bytes) + " B spilled (" +
                                               s.compiler->tool + ", " + s.compiler->arch + ")");
        ImGui::EndTable();
    }
    draw_figures(t, figures_of(s, s.warp_instructions, s.warp_cycles));
}

void draw_range(const ViewState& v, uint64_t begin, uint64_t end) {
    const Replay& r = *v.replay;
    const trace::Trace& t = r.trace();
    const RangeStats& s = range_of(v, begin, end);
    if (begin_key_table()) {
        const trace::Dim3 c = r.block().coord;
        char block[96];
        std::snprintf(block, sizeof block, "(%u,%u,%u)  the cursor's block: a range counts only its events", c.x, c.y, c.z);
        key_value("block", block);
        key_value("cycles", with_commas(s.begin) + " to " + with_commas(s.end) + "  (" + with_commas(s.cycles()) + " cycles)");
        key_value("warps", std::to_string(s.active_warps) + " of " + std::to_string(s.warps) + " issued in the range");
        char rate[48];
        std::snprintf(rate, sizeof rate, "  (%.2f per cycle, all warps together)",
                      s.cycles() ? double(s.instructions) / double(s.cycles()) : 0.0);
        key_value("warp instructions", with_commas(s.instructions) + rate);
        key_value("barrier waits", std::to_string(s.barrier_waits) + " waits, " + with_commas(s.barrier_wait_cycles) +
                                       " warp-cycles inside the range  " + share(s.barrier_wait_cycles, s.cycles() * uint64_t(s.warps)) +
                                       " of warp time");
        ImGui::EndTable();
    }
    if (s.instructions == 0 && s.stall_total() == 0 && s.barrier_wait_cycles == 0) {
        dim_wrapped("nothing happened in this range");
        return;
    }
    Figures f = figures_of(s, s.instructions, s.cycles() * uint64_t(s.warps));
    f.main_reasons = true;
    draw_figures(t, f);
    if (ImGui::CollapsingHeader("By warp", ImGuiTreeNodeFlags_DefaultOpen)) {
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
        if (ImGui::BeginTable("##warps", 3, flags)) {
            ImGui::TableSetupColumn("warp");
            ImGui::TableSetupColumn("instructions");
            ImGui::TableSetupColumn("stall cycles", ImGuiTableColumnFlags_WidthStretch);
            ImGui::TableHeadersRow();
            for (size_t w = 0; w < s.warp_instructions.size(); ++w) {
                ImGui::TableNextRow();
                ImGui::TableSetColumnIndex(0);
                ImGui::Text("%zu", w);
                ImGui::TableSetColumnIndex(1);
                ImGui::TextUnformatted(with_commas(s.warp_instructions[w]).c_str());
                ImGui::TableSetColumnIndex(2);
                ImGui::Text("%s  (%s of the range)", with_commas(s.warp_stall_cycles[w]).c_str(),
                            share(s.warp_stall_cycles[w], s.cycles()).c_str());
            }
            ImGui::EndTable();
        }
    }
}

} // namespace

void draw_statistics(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::statistics))) { ImGui::End(); return; }
    const trace::Trace* t = v.trace();
    if (!t) {
        dim_wrapped("no trace loaded");
        ImGui::End();
        return;
    }
    if (v.launch >= t->launches.size()) {
        dim_wrapped("the trace has no kernel launch");
        ImGui::End();
        return;
    }
    // Selecting a new range shows it; clearing it goes back to the whole run.
    static bool show_range = false;
    static std::optional<std::pair<uint64_t, uint64_t>> seen;
    const auto& range = v.sel.range;
    const bool usable = range && range->second > range->first;
    if (range != seen) {
        seen = range;
        show_range = usable;
    }
    if (!usable || !v.replay) show_range = false;

    if (ImGui::RadioButton("whole run", !show_range)) show_range = false;
    ImGui::SameLine();
    ImGui::BeginDisabled(!usable || !v.replay);
    const std::string label = usable ? "selected range (" + with_commas(range->second - range->first) + " cycles)" : "selected range";
    if (ImGui::RadioButton(label.c_str(), show_range)) show_range = true;
    ImGui::EndDisabled();
    if (!usable) {
        ImGui::SameLine();
        dim_wrapped("(select a span of cycles on the timeline)");
    } else if (show_range) {
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize("clear the range").x + 8) ImGui::NewLine();
        if (ImGui::SmallButton("clear the range")) v.sel.range.reset();
    }
    ImGui::Separator();

    ImGui::BeginChild("##stats");
    if (show_range && v.replay && usable) draw_range(v, range->first, range->second);
    else draw_whole_run(*t, t->launches[v.launch]);
    ImGui::EndChild();
    ImGui::End();
}

} // namespace tklab::view
