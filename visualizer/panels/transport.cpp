// Transport: play/pause, the scrubber, stepping by instruction, tile op or
// barrier for one warp or all, and breakpoints. Keyboard: Space play/pause,
// Right/Left step, Shift+Right/Left run to the next/previous breakpoint,
// Home/End, U changes the unit, W cycles the warp.
#include <algorithm>
#include <cmath>
#include <string>
#include <imgui.h>
#include "visualizer/panels/palette.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

std::string block_label(const trace::Trace& t, uint32_t l, uint32_t b) {
    const trace::Block& blk = t.launches[l].blocks[b];
    std::string s = "block " + std::to_string(blk.index) + " (" + std::to_string(blk.coord.x) + "," +
                    std::to_string(blk.coord.y) + "," + std::to_string(blk.coord.z) + ")";
    if (t.launches.size() > 1) s = "launch " + std::to_string(l) + " " + s;
    return s;
}

void keyboard(ViewState& v) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || !v.replay) return;
    auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
    if (pressed(ImGuiKey_Space)) v.playing = !v.playing;
    if (pressed(ImGuiKey_RightArrow)) io.KeyShift ? v.run(+1) : v.step(+1);
    if (pressed(ImGuiKey_LeftArrow)) io.KeyShift ? v.run(-1) : v.step(-1);
    if (pressed(ImGuiKey_Home)) v.replay->seek(0);
    if (pressed(ImGuiKey_End)) v.replay->seek(v.replay->size());
    if (ImGui::IsKeyPressed('U')) v.unit = StepUnit((int(v.unit) + 1) % 3);
    if (ImGui::IsKeyPressed('W')) v.sel.warp = v.sel.warp + 1 >= v.replay->warps() ? -1 : v.sel.warp + 1;
}

// "warp 2 · ldmatrix.x4 · gemm_kernel.cuh:61 · load (tile op 3)"
void current_event_line(const ViewState& v) {
    const Replay& r = *v.replay;
    const trace::Trace& t = r.trace();
    const long e = r.current(v.sel.warp);
    if (e < 0) {
        ImGui::TextColored(ImColor(palette::text_dim), "before the first instruction%s",
                           v.sel.warp >= 0 ? " of this warp" : "");
        return;
    }
    const trace::Event& ev = r.block().events[size_t(e)];
    std::string s = "warp " + std::to_string(ev.warp) + "  " + (ev.op < t.ops.size() ? t.ops[ev.op] : "?");
    if (ev.smem >= 0 && size_t(ev.smem) < r.block().smem.size()) {
        const trace::SmemAccess& a = r.block().smem[size_t(ev.smem)];
        s += "  " + std::to_string(a.wavefronts) + " wavefronts (ideal " + std::to_string(a.ideal) + ")";
    }
    s += "  at " + t.where(ev.loc);
    if (ev.op_name && ev.op_name < t.op_names.size()) s += "  in " + t.op_names[ev.op_name];
    s += "  issued at cycle " + std::to_string(ev.issue);
    if (ev.stall_cycles) {
        s += " after " + std::to_string(ev.stall_cycles) + " cycles of " +
             (ev.stall < t.stalls.size() ? t.stalls[ev.stall] : "?");
    }
    ImGui::TextUnformatted(s.c_str());
    const std::string text = t.line_text(ev.loc);
    if (!text.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImColor(palette::text_dim), "  %s", text.c_str() + std::min(text.find_first_not_of(" \t"), text.size()));
    }
}

} // namespace

void draw_transport(ViewState& v) {
    const bool open = ImGui::Begin(panel_title(Panel::transport));
    keyboard(v);
    if (!open) { ImGui::End(); return; }
    const Document* d = v.main();
    if (!d || !d->trace) {
        ImGui::TextColored(ImColor(palette::warning), "No trace loaded.");
        ImGui::End();
        return;
    }
    if (!v.replay) {
        ImGui::TextWrapped("%s", v.status.empty() ? "Nothing to step through." : v.status.c_str());
        ImGui::End();
        return;
    }
    Replay& r = *v.replay;
    const trace::Trace& t = *d->trace;

    // ---- buttons ----
    if (ImGui::Button("|<")) r.seek(0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("to the start (Home)");
    ImGui::SameLine();
    if (ImGui::Button("<<")) v.run(-1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("back to the previous breakpoint (Shift+Left)");
    ImGui::SameLine();
    if (ImGui::Button(" < ")) v.step(-1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step back one %s (Left)", step_unit_name(v.unit));
    ImGui::SameLine();
    if (ImGui::Button(v.playing ? "pause" : "play ", ImVec2(ImGui::GetFontSize() * 3.5f, 0))) {
        v.playing = !v.playing;
        if (v.playing && r.pos() >= r.size()) r.seek(0);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("play or pause (Space)");
    ImGui::SameLine();
    if (ImGui::Button(" > ")) v.step(+1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step forward one %s (Right)", step_unit_name(v.unit));
    ImGui::SameLine();
    if (ImGui::Button(">>")) v.run(+1);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("run to the next breakpoint (Shift+Right)");
    ImGui::SameLine();
    if (ImGui::Button(">|")) r.seek(r.size());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("to the end (End)");

    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    int unit = int(v.unit);
    ImGui::Combo("##unit", &unit, "instruction\0tile op\0barrier\0");
    v.unit = StepUnit(unit);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("what one step moves over (U)");

    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    const std::string warp_label = v.sel.warp < 0 ? "all warps" : "warp " + std::to_string(v.sel.warp);
    if (ImGui::BeginCombo("##warp", warp_label.c_str())) {
        if (ImGui::Selectable("all warps", v.sel.warp < 0)) v.sel.warp = -1;
        for (int w = 0; w < r.warps(); ++w)
            if (ImGui::Selectable(("warp " + std::to_string(w)).c_str(), v.sel.warp == w)) v.sel.warp = w;
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("step and run for this warp only (W)");

    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    const auto blocks = d->timeline_blocks();
    if (ImGui::BeginCombo("##block", block_label(t, v.launch, v.block).c_str())) {
        for (const auto& tb : blocks)
            if (ImGui::Selectable(block_label(t, tb.launch, tb.block).c_str(), tb.launch == v.launch && tb.block == v.block))
                v.select_block(tb.launch, tb.block);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the block the cursor walks (%zu have timelines)", blocks.size());

    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    float speed = float(v.speed);
    if (ImGui::SliderFloat("##speed", &speed, 10.0f, 1e6f, "%.0f cycles/s", ImGuiSliderFlags_Logarithmic)) v.speed = speed;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("playback speed, in simulated cycles per second");

    // ---- scrubber ----
    const uint64_t end = std::max<uint64_t>(r.end_cycle(), 1);
    int64_t cycle = int64_t(r.cycle());
    const int64_t lo = 0, hi = int64_t(end);
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 14);
    const std::string fmt = "cycle %lld of " + std::to_string(end);
    if (ImGui::SliderScalar("##scrub", ImGuiDataType_S64, &cycle, &lo, &hi, fmt.c_str())) v.seek_cycle(uint64_t(cycle));
    ImGui::SameLine();
    ImGui::Text("event %zu / %zu", r.pos(), r.size());

    // ---- breakpoints ----
    ImGui::TextUnformatted("break at:");
    ImGui::SameLine();
    bool on = v.breakpoints.conflict_way > 0;
    if (ImGui::Checkbox("conflict >=", &on)) v.breakpoints.conflict_way = on ? 2 : 0;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    int way = std::max(v.breakpoints.conflict_way, 2);
    if (ImGui::InputInt("-way##way", &way) && on) v.breakpoints.conflict_way = std::clamp(way, 2, 32);
    ImGui::SameLine();
    on = v.breakpoints.wait_cycles > 0;
    if (ImGui::Checkbox("wait >=", &on)) v.breakpoints.wait_cycles = on ? 100 : 0;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    int wait = int(std::max<uint64_t>(v.breakpoints.wait_cycles, 1));
    if (ImGui::InputInt("cycles##wait", &wait, 10, 100) && on) v.breakpoints.wait_cycles = uint64_t(std::max(wait, 1));
    ImGui::SameLine();
    ImGui::Checkbox("fault", &v.breakpoints.fault);
    if (v.sel.loc &&
        std::find(v.breakpoints.locs.begin(), v.breakpoints.locs.end(), v.sel.loc) == v.breakpoints.locs.end()) {
        ImGui::SameLine();
        if (ImGui::SmallButton(("+ line " + t.where(v.sel.loc)).c_str())) v.breakpoints.locs.push_back(v.sel.loc);
    }
    if (!v.breakpoints.locs.empty()) {
        ImGui::SameLine();
        ImGui::Text("%zu line%s", v.breakpoints.locs.size(), v.breakpoints.locs.size() == 1 ? "" : "s");
        if (ImGui::IsItemHovered()) {
            std::string tip;
            for (uint32_t l : v.breakpoints.locs) tip += t.where(l) + "\n";
            ImGui::SetTooltip("%s", tip.c_str());
        }
        ImGui::SameLine();
        if (ImGui::SmallButton("clear")) v.breakpoints.locs.clear();
    }

    // ---- where the cursor is, and why it stopped ----
    current_event_line(v);
    if (!v.status.empty()) ImGui::TextColored(ImColor(palette::warning), "%s", v.status.c_str());
    ImGui::End();
}

} // namespace tklab::view
