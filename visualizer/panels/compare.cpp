// Compare: the summaries of two traces side by side (e.g. unswizzled vs
// swizzled, simulator vs GPU) with their difference, coloured by whether B
// is better (green) or worse (red) than A, and as a ratio. The timeline
// panel shows the two traces' blocks on one cycle axis.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <imgui.h>
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

constexpr ImU32 kBetter = IM_COL32(110, 210, 110, 255), kWorse = IM_COL32(240, 100, 90, 255);


std::string signed_commas(double d) {
    const std::string mag = with_commas(uint64_t(std::llround(std::abs(d))));
    return d > 0 ? "+" + mag : d < 0 ? "-" + mag : "0";
}

// One compared quantity; `get` reads it from a launch, absent when the launch lacks it.
struct Metric {
    std::string name;
    std::function<std::optional<double>(const trace::Trace&, const trace::Launch&)> get;
    bool lower_is_better = true;
    bool hide_unused = false;  // left out when neither run has any (stmatrix in a kernel without it)
};

std::optional<double> from_summary(const trace::Launch& l, const std::function<double(const trace::Summary&)>& f) {
    if (!l.summary) return std::nullopt;
    return f(*l.summary);
}

// The rows. A GPU run (the profiler's trace, Trace::from_gpu) measured its
// kernel's and blocks' spans, not what only the simulator counts: those rows
// show "-" for it, not a 0 that would read as "better".
std::vector<Metric> metrics(const trace::Trace& a, const trace::Trace& b) {
    std::vector<Metric> out;
    auto add = [&](std::string name, std::function<double(const trace::Summary&)> f, bool lower = true, bool hide = false,
                   bool gpu_measures = false) {
        out.push_back({std::move(name),
                       [f, gpu_measures](const trace::Trace& t, const trace::Launch& l) -> std::optional<double> {
                           if (!gpu_measures && t.from_gpu()) return std::nullopt;
                           return from_summary(l, f);
                       },
                       lower, hide});
    };
    add("est. kernel cycles", [](const trace::Summary& s) { return double(s.est_kernel_cycles); }, true, false, true);
    add("max block cycles", [](const trace::Summary& s) { return double(s.max_block_cycles); }, true, false, true);
    add("warp instructions", [](const trace::Summary& s) { return double(s.warp_instructions); });
    using Totals = trace::SmemTotals trace::Summary::*;
    const std::pair<const char*, Totals> kinds[] = {{"ld.shared", &trace::Summary::ld_shared},
                                                     {"st.shared", &trace::Summary::st_shared},
                                                     {"ldmatrix", &trace::Summary::ldmatrix},
                                                     {"stmatrix", &trace::Summary::stmatrix}};
    for (const auto& [name, member] : kinds) {
        const Totals m = member;
        add(std::string(name) + " wavefronts", [m](const trace::Summary& s) { return double((s.*m).wavefronts); }, true, true);
        add(std::string(name) + " conflicts", [m](const trace::Summary& s) { return double((s.*m).conflicts()); }, true, true);
    }
    add("barrier wait cycles", [](const trace::Summary& s) { return double(s.barrier_wait_cycles); });
    // Stall reasons by name: the two traces may list them in different orders.
    std::vector<std::string> stalls;
    for (const auto* t : {&a, &b})
        for (size_t i = 1; i < t->stalls.size(); ++i)
            if (std::find(stalls.begin(), stalls.end(), t->stalls[i]) == stalls.end()) stalls.push_back(t->stalls[i]);
    for (const std::string& name : stalls) {
        out.push_back({"stall: " + name, [name](const trace::Trace& t, const trace::Launch& l) -> std::optional<double> {
                           if (!l.summary || t.from_gpu()) return std::nullopt;
                           const auto it = std::find(t.stalls.begin(), t.stalls.end(), name);
                           const size_t i = size_t(it - t.stalls.begin());
                           return it == t.stalls.end() || i >= l.summary->stall_cycles.size() ? 0.0 : double(l.summary->stall_cycles[i]);
                       }, true, true});
    }
    add("peak registers / thread", [](const trace::Summary& s) { return double(s.peak_regs); });
    add("blocks per SM", [](const trace::Summary& s) { return double(s.blocks_per_sm); }, false);
    return out;
}

void header_column(const char* which, const Document& d, const trace::Launch* l) {
    ImGui::TextColored(ImColor(palette::text_dim), "%s", which);
    ImGui::SameLine();
    ImGui::TextUnformatted(d.name.c_str());
    if (!d.trace) { ImGui::TextColored(ImColor(palette::error), "could not be read"); return; }
    const trace::Trace& t = *d.trace;
    ImGui::Text("%s %s", t.program.empty() ? "(no program)" : t.program.c_str(), t.variant.c_str());
    if (!t.problem.empty()) ImGui::TextColored(ImColor(palette::text_dim), "%s", t.problem.dump().c_str());
    if (l) ImGui::TextColored(ImColor(palette::text_dim), "%s  grid (%u,%u,%u) x block (%u,%u,%u)", l->kernel.c_str(), l->grid.x,
                              l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z);
}

void value_cell(const std::optional<double>& x) {
    if (x) ImGui::TextUnformatted(with_commas(uint64_t(std::llround(std::max(0.0, *x)))).c_str());
    else ImGui::TextColored(ImColor(palette::text_dim), "-");
}

} // namespace

void draw_compare(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::compare))) { ImGui::End(); return; }
    const Document* a = v.main();
    const Document* b = v.other();
    if (!a) {
        ImGui::TextColored(ImColor(palette::text_dim), "No trace loaded.");
        ImGui::End();
        return;
    }
    if (!b) {
        ImGui::TextColored(ImColor(palette::text_dim), "Open a second trace to compare: tklab view A.cbor B.cbor");
        ImGui::End();
        return;
    }
    static int launch = 0;
    const size_t na = a->trace ? a->trace->launches.size() : 0, nb = b->trace ? b->trace->launches.size() : 0;
    const size_t nl = std::min(na, nb);
    if (nl > 1) {
        ImGui::SetNextItemWidth(120);
        ImGui::SliderInt("launch", &launch, 0, int(nl) - 1);
    }
    launch = std::clamp(launch, 0, std::max(0, int(nl) - 1));
    const trace::Launch* la = size_t(launch) < na ? &a->trace->launches[size_t(launch)] : nullptr;
    const trace::Launch* lb = size_t(launch) < nb ? &b->trace->launches[size_t(launch)] : nullptr;

    if (ImGui::BeginTable("##compare_head", 2, ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableNextColumn();
        header_column("A", *a, la);
        ImGui::TableNextColumn();
        header_column("B", *b, lb);
        ImGui::EndTable();
    }
    if (!la || !lb) {
        ImGui::TextColored(ImColor(palette::warning), "%s has no launch to compare.", !la ? a->name.c_str() : b->name.c_str());
        ImGui::End();
        return;
    }
    for (const auto& [d, l] : {std::pair{a, la}, std::pair{b, lb}})
        if (!l->summary)
            ImGui::TextColored(ImColor(palette::warning), "%s has no summary (a truncated trace): its column is empty.", d->name.c_str());

    if (la->summary && lb->summary && la->summary->est_kernel_cycles && lb->summary->est_kernel_cycles) {
        const double r = double(la->summary->est_kernel_cycles) / double(lb->summary->est_kernel_cycles);
        if (r > 1.005) ImGui::TextColored(ImColor(kBetter), "B is %.2fx faster than A (estimated kernel cycles)", r);
        else if (r < 0.995) ImGui::TextColored(ImColor(kWorse), "B is %.2fx slower than A (estimated kernel cycles)", 1 / r);
        else ImGui::TextUnformatted("A and B take the same estimated kernel cycles");
    }
    ImGui::TextColored(ImColor(palette::text_dim), "green: B better than A, red: B worse; rows neither run uses are left out");
    if (a->trace->from_gpu() || b->trace->from_gpu())
        ImGui::TextColored(ImColor(palette::text_dim), "a GPU run measures kernel and block cycles only: its other rows show -");
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##compare", 5, flags)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn("A", ImGuiTableColumnFlags_WidthStretch, 1.2f);
        ImGui::TableSetupColumn("B", ImGuiTableColumnFlags_WidthStretch, 1.2f);
        ImGui::TableSetupColumn("B - A", ImGuiTableColumnFlags_WidthStretch, 1.2f);
        ImGui::TableSetupColumn("B / A", ImGuiTableColumnFlags_WidthStretch, 0.8f);
        ImGui::TableHeadersRow();
        for (const Metric& m : metrics(*a->trace, *b->trace)) {
            const auto x = m.get(*a->trace, *la), y = m.get(*b->trace, *lb);
            if (m.hide_unused && x.value_or(0) == 0 && y.value_or(0) == 0) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(m.name.c_str());
            ImGui::TableNextColumn();
            value_cell(x);
            ImGui::TableNextColumn();
            value_cell(y);
            ImGui::TableNextColumn();
            if (!x || !y) { ImGui::TextColored(ImColor(palette::text_dim), "-"); ImGui::TableNextColumn(); continue; }
            const double d = *y - *x;
            const ImU32 c = d == 0 ? palette::text_dim : ((d < 0) == m.lower_is_better ? kBetter : kWorse);
            ImGui::TextColored(ImColor(c), "%s", signed_commas(d).c_str());
            ImGui::TableNextColumn();
            char ratio[32];
            if (*x != 0) std::snprintf(ratio, sizeof ratio, "%.2fx", *y / *x);
            else std::snprintf(ratio, sizeof ratio, "%s", *y == 0 ? "=" : "new");
            ImGui::TextColored(ImColor(c), "%s", ratio);
        }
        // Occupancy's limiting resource, as words.
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("occupancy limited by");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(la->summary && !a->trace->from_gpu() ? la->summary->occupancy_limit.c_str() : "-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(lb->summary && !b->trace->from_gpu() ? lb->summary->occupancy_limit.c_str() : "-");
        ImGui::EndTable();
    }
    ImGui::End();
}

} // namespace tklab::view
