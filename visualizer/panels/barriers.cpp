// The Barriers panel: the barrier episode at the cursor drawn as one bar per
// waiting warp (arrive -> release, the last arrival marked), every episode of
// the block in a list that seeks the replay, and the whole run's totals per
// barrier line from the summary.
#include <imgui.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "visualizer/model/barrier_episodes.h"
#include "visualizer/model/derived_cache.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

using ull = unsigned long long;

// The cursor block's episodes, worked out once per block.
struct BlockEpisodes {
    uint32_t launch = UINT32_MAX, block = UINT32_MAX;
    std::vector<BarrierEpisode> episodes;
    uint64_t total_wait = 0;
};

const BlockEpisodes& episodes_of(const ViewState& v) {
    static DerivedCache<BlockEpisodes, uint32_t, uint32_t> cache;
    const Replay& r = *v.replay;
    return cache.get(v.docs[0].trace, r.launch_index(), r.block_index(), [&] {
        BlockEpisodes c{r.launch_index(), r.block_index(), barrier_episodes(r.block()), 0};
        for (const BarrierEpisode& e : c.episodes) c.total_wait += e.total_wait();
        return c;
    });
}

// The episode the user picked in the list stays shown while the cursor stays
// where that click put it (another episode may have begun earlier). One per
// document: a new one starts with none.
struct Pin {
    uint32_t launch = UINT32_MAX, block = UINT32_MAX;
    long episode = -1;
    uint64_t cycle = 0;
};


std::string short_where(const trace::Trace& t, uint32_t loc) {
    const std::string w = t.where(loc);
    const auto slash = w.find_last_of('/');
    return slash == std::string::npos ? w : w.substr(slash + 1);
}

std::string trimmed(std::string s) {
    const auto a = s.find_first_not_of(" \t");
    if (a == std::string::npos) return {};
    const auto b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::string barrier_name(const BarrierEpisode& e) {
    char buf[64];
    if (e.mbarrier && e.at_once) std::snprintf(buf, sizeof buf, "mbarrier 0x%x, went on at once", e.address);
    else if (e.mbarrier) std::snprintf(buf, sizeof buf, "mbarrier 0x%x phase %u", e.address, e.phase);
    else std::snprintf(buf, sizeof buf, "bar.sync %d", int(e.id));
    return buf;
}

ImU32 with_alpha(ImU32 c, int a) { return (c & ~IM_COL32_A_MASK) | (ImU32(a) << IM_COL32_A_SHIFT); }

// A step for axis ticks: 1, 2 or 5 times a power of ten, about `target` apart.
double tick_step(double span, double target_ticks) {
    const double raw = std::max(span / std::max(target_ticks, 1.0), 1.0);
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (p * m >= raw) return p * m;
    return p * 10;
}

void seek_to(ViewState& v, const BarrierEpisode& e, long index, Pin& pin) {
    v.playing = false;
    v.seek_cycle(e.release);
    v.status = "at the release of " + barrier_name(e) + " (cycle " + std::to_string(e.release) + ")";
    pin = Pin{v.replay->launch_index(), v.replay->block_index(), index, v.cursor_cycle()};
}

// A faint box crossed by diagonal lines: time spent on the barrier's own latency.
void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color) {
    dl->AddRectFilled(a, b, with_alpha(color, 60));
    dl->PushClipRect(a, b, true);
    const float h = b.y - a.y;
    for (float x = a.x - h; x < b.x; x += 6) dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color, 1.5f);
    dl->PopClipRect();
    dl->AddRect(a, b, color);
}

// One bar per waiting warp, on a shared cycle axis.
void draw_arrivals(const BarrierEpisode& e, uint64_t cursor, const ImU32 color) {
    const float lh = ImGui::GetTextLineHeight();
    const float row_h = lh + 6, label_w = ImGui::CalcTextSize("warp 000 (last)").x + 8;
    const float right_w = ImGui::CalcTextSize("wait 000000").x + 8;
    const float axis_h = lh + 8;
    const int rows = int(e.arrivals.size());
    const ImVec2 size(ImGui::GetContentRegionAvail().x, row_h * float(rows) + axis_h + 4);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##arrivals", ImVec2(std::max(size.x, 1.0f), size.y));
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();

    const float x0 = p0.x + label_w, x1 = p0.x + size.x - right_w;
    if (x1 - x0 < 40) return;
    // The axis spans the arrivals and the release, with a margin either side.
    const double lo0 = double(e.first_arrive()), hi0 = double(e.release);
    const double pad = std::max((hi0 - lo0) * 0.06, 4.0);
    const double lo = std::max(0.0, lo0 - pad), hi = hi0 + pad;
    auto X = [&](double c) { return x0 + float((c - lo) / (hi - lo)) * (x1 - x0); };
    const float plot_bottom = p0.y + row_h * float(rows);

    // Guides: the last arrival and the release, full height.
    dl->AddLine(ImVec2(X(double(e.last_arrive())), p0.y), ImVec2(X(double(e.last_arrive())), plot_bottom),
                IM_COL32(255, 170, 60, 120));
    dl->AddLine(ImVec2(X(hi0), p0.y), ImVec2(X(hi0), plot_bottom), IM_COL32(200, 200, 200, 120));

    for (int i = 0; i < rows; ++i) {
        const BarrierArrival& a = e.arrivals[size_t(i)];
        const float y = p0.y + row_h * float(i);
        const bool last = !e.open && a.warp == e.last_warp;
        char label[32];
        std::snprintf(label, sizeof label, last ? "warp %d (last)" : "warp %d", int(a.warp));
        dl->AddText(ImVec2(p0.x, y + 3), last ? palette::warning : IM_COL32(220, 220, 220, 255), label);
        // Solid while waiting for the other warps; faint for the barrier's own latency after the last arrival.
        const double split = std::max(double(a.arrive), double(e.last_arrive()));
        const float ya = y + 3, yb = y + row_h - 3;
        if (split > double(a.arrive)) dl->AddRectFilled(ImVec2(X(double(a.arrive)), ya), ImVec2(X(split), yb), color);
        hatch(dl, ImVec2(X(split), ya), ImVec2(std::max(X(double(a.release)), X(split) + 1), yb), color);
        // The arrival itself: a tick at its start, thick for the warp that released the others.
        dl->AddLine(ImVec2(X(double(a.arrive)), y + 1), ImVec2(X(double(a.arrive)), y + row_h - 1),
                    last ? palette::warning : IM_COL32(240, 240, 240, 255), last ? 3.0f : 1.5f);
        char wait[32];
        std::snprintf(wait, sizeof wait, "wait %llu", ull(a.wait()));
        dl->AddText(ImVec2(x1 + 6, y + 3), IM_COL32(220, 220, 220, 255), wait);
        if (hovered && ImGui::GetIO().MousePos.y >= y && ImGui::GetIO().MousePos.y < y + row_h)
            ImGui::SetTooltip(e.open ? "warp %d arrived at cycle %llu and was still waiting when the run stopped at %llu (%llu cycles)%s"
                                     : "warp %d arrived at cycle %llu, released at %llu: waited %llu cycles%s",
                              int(a.warp), ull(a.arrive), ull(a.release), ull(a.wait()),
                              last ? "\nits arrival was the last one: it released the others" : "");
    }

    // Cycle axis with a few labelled ticks.
    dl->AddLine(ImVec2(x0, plot_bottom + 1), ImVec2(x1, plot_bottom + 1), IM_COL32(150, 150, 150, 255));
    const double step = tick_step(hi - lo, std::max(2.0, double(x1 - x0) / 80.0));
    for (double c = std::ceil(lo / step) * step; c <= hi; c += step) {
        const float x = X(c);
        dl->AddLine(ImVec2(x, plot_bottom + 1), ImVec2(x, plot_bottom + 5), IM_COL32(150, 150, 150, 255));
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", c);
        const float w = ImGui::CalcTextSize(buf).x;
        dl->AddText(ImVec2(std::clamp(x - w / 2, x0 - 4, x1 - w + 4), plot_bottom + 5), palette::text_dim, buf);
    }
    dl->AddText(ImVec2(x1 + 6, plot_bottom + 5), palette::text_dim, "cycle");
    if (double(cursor) >= lo && double(cursor) <= hi) {
        const float x = X(double(cursor));
        dl->AddLine(ImVec2(x, p0.y), ImVec2(x, plot_bottom), palette::cursor, 1.5f);
    }
}

// One legend entry; entries flow onto the next line when the panel is narrow.
void legend_swatch(ImU32 color, bool hatched, const char* text, bool first = false) {
    const float h = ImGui::GetTextLineHeight();
    const float width = h * 1.4f + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(text).x;
    if (!first) {
        ImGui::SameLine(0, 16);
        if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 a(p.x, p.y + 2), b(p.x + h * 1.4f, p.y + h - 2);
    if (hatched) hatch(ImGui::GetWindowDrawList(), a, b, color);
    else ImGui::GetWindowDrawList()->AddRectFilled(a, b, color);
    ImGui::Dummy(ImVec2(h * 1.4f, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
}

void draw_cursor_episode(ViewState& v, const BlockEpisodes& c, Pin& pin) {
    const trace::Trace& t = v.replay->trace();
    const auto& eps = c.episodes;
    const uint64_t cursor = v.cursor_cycle();
    long k = episode_at(eps, cursor);
    const bool pinned = pin.launch == c.launch && pin.block == c.block && pin.cycle == cursor &&
                        pin.episode >= 0 && size_t(pin.episode) < eps.size();
    if (pinned) k = pin.episode;
    const bool before_first = k < 0;
    if (before_first) k = 0;
    const BarrierEpisode& e = eps[size_t(k)];

    ImGui::BeginDisabled(before_first || k == 0);
    if (ImGui::Button("< previous")) seek_to(v, eps[size_t(k - 1)], k - 1, pin);
    ImGui::EndDisabled();
    ImGui::SameLine();
    const long next = before_first ? 0 : k + 1;
    ImGui::BeginDisabled(size_t(next) >= eps.size());
    if (ImGui::Button("next >")) seek_to(v, eps[size_t(next)], next, pin);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("move the cursor to the release of the next barrier episode");
    ImGui::SameLine();
    ImGui::Text("episode %ld of %zu", k + 1, eps.size());
    // The barrier and its line; the source text unwrapped (one line, clipped when narrow).
    ImGui::Text("%s at %s", barrier_name(e).c_str(), short_where(t, e.loc()).c_str());
    const std::string text = trimmed(t.line_text(e.loc()));
    if (!text.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::text_dim), "  %s", text.c_str());
    }

    // Where the cursor stands relative to this episode.
    const size_t arrived = size_t(std::count_if(e.arrivals.begin(), e.arrivals.end(),
                                                [&](const BarrierArrival& a) { return a.arrive <= cursor; }));
    ImGui::PushStyleColor(ImGuiCol_Text, palette::warning);
    if (before_first)
        ImGui::TextWrapped("the cursor (cycle %llu) is before the block's first barrier", ull(cursor));
    else if (cursor < e.release)
        ImGui::TextWrapped("in progress at the cursor (cycle %llu): %zu of %zu waiting warps have arrived", ull(cursor),
                           arrived, e.arrivals.size());
    ImGui::PopStyleColor();
    if (!before_first && cursor >= e.release && !e.open)
        dim_wrapped("the latest barrier before the cursor (cycle " + std::to_string(cursor) + "): released " +
            std::to_string(cursor - e.release) + " cycles earlier");

    const ImU32 color = palette::stall_color(e.mbarrier ? "mbarrier" : "barrier");
    draw_arrivals(e, cursor, color);
    legend_swatch(color, false, "waiting for other warps", true);
    legend_swatch(color, true, "barrier latency");
    legend_swatch(palette::warning, false, "last arrival");
    legend_swatch(palette::cursor, false, "cursor");

    if (e.open) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::warning),
                           "Never released: the run stopped at cycle %llu with %zu warp%s still waiting here (first from cycle %llu).",
                           ull(e.release), e.arrivals.size(), e.arrivals.size() == 1 ? "" : "s", ull(e.first_arrive()));
        ImGui::TextWrapped("The report's Failures section says why (a deadlock names who each warp waits for).");
        return;
    }
    if (e.at_once) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::warning),
                           "Warp %d's wait went on at once, at cycle %llu: the barrier had completed no phase, and a wait for "
                           "parity 1 counts \"the phase before the first\" as done.", int(e.last_warp), ull(e.release));
        ImGui::TextWrapped("Right for a producer's first wait for a free slot; a consumer waiting for data should wait for parity 0 "
                           "first, or it reads the slot before anything landed.");
        return;
    }
    if (e.first_arrive() == e.last_arrive())
        ImGui::TextWrapped("All %zu warps arrived at cycle %llu; released at %llu; %llu warp-cycles waited in all.",
                           e.arrivals.size(), ull(e.first_arrive()), ull(e.release), ull(e.total_wait()));
    else
        ImGui::TextWrapped("%zu warps arrived from cycle %llu to %llu (%llu cycles apart); released at %llu; "
                           "%llu warp-cycles waited in all.",
                           e.arrivals.size(), ull(e.first_arrive()), ull(e.last_arrive()),
                           ull(e.last_arrive() - e.first_arrive()), ull(e.release), ull(e.total_wait()));
    if (e.last_warp_waited())
        ImGui::TextWrapped("Warp %d arrived last: the others waited for it, then all paid the barrier's %llu-cycle latency.",
                           int(e.last_warp), ull(e.release - e.last_arrive()));
    else
        ImGui::TextWrapped("Released by warp %d's arrival (it did not wait here: an arrive without a wait).", int(e.last_warp));
}

void draw_episode_list(ViewState& v, const BlockEpisodes& c, Pin& pin) {
    const trace::Trace& t = v.replay->trace();
    const auto& eps = c.episodes;
    const uint64_t cursor = v.cursor_cycle();
    long current = episode_at(eps, cursor);
    if (pin.launch == c.launch && pin.block == c.block && pin.cycle == cursor) current = pin.episode;
    static long followed = -2;
    const bool scroll = current != followed;
    followed = current;

    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float height = row_h * float(std::min<size_t>(eps.size(), 10) + 1) + 8;
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##episodes", 8, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#");
    ImGui::TableSetupColumn("barrier");
    ImGui::TableSetupColumn("line");
    ImGui::TableSetupColumn("first arrival");
    ImGui::TableSetupColumn("released");
    ImGui::TableSetupColumn("warps");
    ImGui::TableSetupColumn("total wait");
    ImGui::TableSetupColumn("last to arrive", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(int(eps.size()));
    if (scroll && current >= 0) clip.ForceDisplayRangeByIndices(int(current), int(current) + 1);
    while (clip.Step()) {
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
            const BarrierEpisode& e = eps[size_t(i)];
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            char label[32];
            std::snprintf(label, sizeof label, "%d##ep%d", i + 1, i);
            if (ImGui::Selectable(label, i == current, ImGuiSelectableFlags_SpanAllColumns)) seek_to(v, e, i, pin);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: move the cursor to this barrier's release");
            if (scroll && i == current) ImGui::SetScrollHereY(0.5f);
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(barrier_name(e).c_str());
            ImGui::TableSetColumnIndex(2);
            ImGui::TextUnformatted(short_where(t, e.loc()).c_str());
            ImGui::TableSetColumnIndex(3);
            ImGui::Text("%llu", ull(e.first_arrive()));
            ImGui::TableSetColumnIndex(4);
            ImGui::Text("%llu", ull(e.release));
            ImGui::TableSetColumnIndex(5);
            ImGui::Text("%zu", e.arrivals.size());
            ImGui::TableSetColumnIndex(6);
            ImGui::Text("%llu", ull(e.total_wait()));
            ImGui::TableSetColumnIndex(7);
            if (e.open) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::warning), "never released");
            else if (e.last_warp_waited()) ImGui::Text("warp %d", int(e.last_warp));
            else ImGui::Text("warp %d (did not wait)", int(e.last_warp));
        }
    }
    ImGui::EndTable();
}

void draw_sites(const trace::Trace& t, const trace::Summary& s) {
    if (s.barrier_sites.empty()) {
        dim_wrapped("no warp waited at a barrier in this launch");
        return;
    }
    dim_wrapped("all " + std::to_string(s.blocks) + " blocks; \"arrived last\": how often this warp's arrival released the others");
    for (size_t i = 0; i < s.barrier_sites.size(); ++i) {
        const trace::BarrierSite& site = s.barrier_sites[i];
        uint64_t most = 1;
        for (const auto& w : site.warps) most = std::max(most, w.total);
        if (site.mbarrier) ImGui::Text("mbarrier at %s", short_where(t, site.loc).c_str());
        else ImGui::Text("bar.sync %d at %s", int(site.id), short_where(t, site.loc).c_str());
        const std::string text = trimmed(t.line_text(site.loc));
        if (!text.empty()) {
            ImGui::SameLine();
            dim_wrapped("   " + text);
        }
        ImGui::PushID(int(i));
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
        if (ImGui::BeginTable("##site", 6, flags)) {
            ImGui::TableSetupColumn("warp");
            ImGui::TableSetupColumn("waits");
            ImGui::TableSetupColumn("total wait (cycles)", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("total wait (cycles)").x + 90);
            ImGui::TableSetupColumn("mean");
            ImGui::TableSetupColumn("longest");
            ImGui::TableSetupColumn("arrived last", ImGuiTableColumnFlags_WidthStretch);
            ImGui::TableHeadersRow();
            for (size_t w = 0; w < site.warps.size(); ++w) {
                const trace::BarrierWarpStats& ws = site.warps[w];
                if (ws.waits == 0 && ws.arrived_last == 0) continue;
                ImGui::TableNextRow();
                ImGui::TableSetColumnIndex(0);
                ImGui::Text("%zu", w);
                ImGui::TableSetColumnIndex(1);
                ImGui::Text("%llu", ull(ws.waits));
                ImGui::TableSetColumnIndex(2);
                {  // the number with a bar behind it, scaled to the site's largest
                    const ImVec2 p = ImGui::GetCursorScreenPos();
                    const float full = ImGui::GetContentRegionAvail().x;
                    ImGui::GetWindowDrawList()->AddRectFilled(
                        ImVec2(p.x, p.y + 1), ImVec2(p.x + full * float(double(ws.total) / double(most)), p.y + ImGui::GetTextLineHeight() - 1),
                        with_alpha(palette::stall_color(site.mbarrier ? "mbarrier" : "barrier"), 160));
                    ImGui::Text("%llu", ull(ws.total));
                }
                ImGui::TableSetColumnIndex(3);
                ImGui::Text("%.1f", ws.waits ? double(ws.total) / double(ws.waits) : 0.0);
                ImGui::TableSetColumnIndex(4);
                ImGui::Text("%llu", ull(ws.longest));
                ImGui::TableSetColumnIndex(5);
                if (ws.arrived_last) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette::warning), "%llu", ull(ws.arrived_last));
                else ImGui::TextUnformatted("0");
            }
            ImGui::EndTable();
        }
        ImGui::PopID();
        ImGui::Spacing();
    }
}

} // namespace

void draw_barriers(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::barriers))) { ImGui::End(); return; }
    const trace::Trace* t = v.trace();
    if (!t) {
        dim_wrapped("no trace loaded");
        ImGui::End();
        return;
    }
    static DerivedCache<Pin> pins;
    Pin& pin = pins.get(v.docs[0].trace, [] { return Pin{}; });
    if (!v.replay) {
        dim_wrapped("no block timeline in this trace: barrier episodes need one (record it with --timeline-blocks)");
    } else {
        const BlockEpisodes& c = episodes_of(v);
        const trace::Block& b = v.replay->block();
        if (c.episodes.empty()) {
            dim_wrapped("block (" + std::to_string(b.coord.x) + "," + std::to_string(b.coord.y) + "," + std::to_string(b.coord.z) +
                "): no warp waited at a barrier");
        } else {
            if (ImGui::CollapsingHeader("At the cursor", ImGuiTreeNodeFlags_DefaultOpen)) draw_cursor_episode(v, c, pin);
            char title[160];
            std::snprintf(title, sizeof title, "Every barrier of block (%u,%u,%u): %zu episodes, %llu warp-cycles waited###episodes",
                          b.coord.x, b.coord.y, b.coord.z, c.episodes.size(), ull(c.total_wait));
            if (ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen)) draw_episode_list(v, c, pin);
        }
    }
    const trace::Summary* s = v.launch < t->launches.size() && t->launches[v.launch].summary ? &*t->launches[v.launch].summary : nullptr;
    if (ImGui::CollapsingHeader("Whole run, per barrier line", ImGuiTreeNodeFlags_DefaultOpen)) {
        if (s) draw_sites(*t, *s);
        else dim_wrapped("no summary in this trace (it was cut short): no per-line totals");
    }
    ImGui::End();
}

} // namespace tklab::view
