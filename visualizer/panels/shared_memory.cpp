// Shared memory: the block's shared memory as rows of 128 bytes, one column
// per bank (bank = byte address / 4 mod 32). Two views:
// - "this instruction": the cursor's shared-memory instruction; each lane's
//   words drawn as a box labelled with the lane and coloured by its bank's
//   conflict degree within its phase, so an unswizzled ldmatrix shows 8 lanes
//   stacked in one bank column and a swizzled one a diagonal. Hovering a box
//   outlines the lanes it collides with.
// - "whole run": per word, the conflict wavefronts its bank added over every
//   recorded instruction of the block (or of all timeline blocks), and per
//   bank the launch's totals from the summary.
#include <imgui.h>
#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "visualizer/model/bank_view.h"
#include "visualizer/model/derived_cache.h"
#include "visualizer/panels/cell_text.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

// What the user picked in this panel (not part of the replayed state).
struct PanelChoice {
    bool whole_run = false;
    bool all_blocks = false;  // whole run: every timeline block, not just the cursor's
    int phase = -1;           // this instruction: -1 all phases, else one
};
PanelChoice g_choice;

// The heat map, computed once per (trace, launch, block or all blocks).
struct BankHeat {
    SmemHeat heat;
    std::array<uint64_t, 32> launch_bank_words{};  // Summary::smem_sites bank_words, summed
    bool has_summary = false;
};

BankHeat make_heat(const trace::Trace& t, uint32_t launch, uint32_t block, bool all) {
    BankHeat c;
    if (launch >= t.launches.size()) return c;
    const trace::Launch& l = t.launches[launch];
    const size_t words = size_t(std::min<uint64_t>(l.smem_bytes, 1u << 22) / 4);
    if (all) {
        for (const trace::Block& b : l.blocks)
            if (b.timeline) c.heat.add_block(t, b, words);
    } else if (block < l.blocks.size()) {
        c.heat.add_block(t, l.blocks[block], words);
    }
    if (l.summary) {
        c.has_summary = true;
        for (const trace::SmemSite& s : l.summary->smem_sites)
            for (int b = 0; b < 32; ++b) c.launch_bank_words[size_t(b)] += s.bank_words[size_t(b)];
    }
    return c;
}

const BankHeat& heat_for(const Document& d, uint32_t launch, uint32_t block, bool all) {
    static DerivedCache<BankHeat, uint32_t, uint32_t, bool> cache;
    if (all) block = UINT32_MAX;  // the same map whichever block the cursor is in
    return cache.get(d.trace, launch, block, all, [&] { return make_heat(*d.trace, launch, block, all); });
}

// The cursor's instruction, analysed once per event.
const InstructionBanks& banks_for(const Document& d, const Replay& r, long e) {
    static DerivedCache<InstructionBanks, uint32_t, uint32_t, long> cache;
    return cache.get(d.trace, r.launch_index(), r.block_index(), e,
                     [&] { return instruction_banks(r.trace(), r.block(), size_t(e)); });
}


ImU32 with_alpha(ImU32 c, int a) { return (c & ~IM_COL32_A_MASK) | (ImU32(a) << IM_COL32_A_SHIFT); }

// A dim heading with a "(?)" that explains it on hover: the panel stays short.
void titled(const char* title, const char* help) {
    ImGui::TextColored(ImColor(palette::text_dim), "%s", title);
    ImGui::SameLine();
    ImGui::TextColored(ImColor(palette::text_dim), "(?)");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
        ImGui::TextUnformatted(help);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

// "ldmatrix.x4" / "ld.shared.b128".
std::string instruction_name(const std::string& op, SmemKind kind, int aux) {
    if (kind == SmemKind::matrix) return op + ".x" + std::to_string(aux);
    return op + ".b" + std::to_string(aux * 8);
}

std::string phases_text(const sim::BankPhases& p, SmemKind kind) {
    if (p.count == 0) return "a shape the hardware does not have";
    char buf[160];
    if (kind == SmemKind::matrix)
        std::snprintf(buf, sizeof buf, "%d phase%s (one per 8x8 matrix): 8 lanes each give one 16-byte row", p.count,
                      p.count > 1 ? "s" : "");
    else if (p.count == 1)
        std::snprintf(buf, sizeof buf, "1 phase: all 32 lanes at once");
    else
        std::snprintf(buf, sizeof buf, "%d phases of %d lanes x %d bytes", p.count, p.lanes, p.words_per_lane * 4);
    return buf;
}

// The colour scale for conflict degrees, as a row of swatches.
void conflict_legend() {
    dim("bank conflict:");
    for (int way : {1, 2, 4, 8, 16, 32}) {
        ImGui::SameLine();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + h, p.y + h), palette::conflict_color(way));
        ImGui::Dummy(ImVec2(h, h));
        ImGui::SameLine(0, 3);
        ImGui::Text(way == 1 ? "none" : "%d-way", way);
    }
}

// Geometry shared by both grids: a label column, then 32 bank columns.
struct Grid {
    ImVec2 origin;        // top-left of bank 0 in the first row
    float label_w = 0, cell_w = 0, row_h = 0;
    bool tail = true;     // room on the right for the phase strip's "32 wf"
};

Grid grid_geometry(float row_h_wanted) {
    Grid g;
    g.label_w = ImGui::CalcTextSize("phase 0 ").x;  // also fits byte offsets up to 999999
    // Room for the label column and, on the right, the phase strip's "32 wf"
    // unless that would make the cells too small for a lane number.
    const float avail = ImGui::GetContentRegionAvail().x - g.label_w - 4;
    const float tail = ImGui::CalcTextSize(" 32 wf").x;
    g.tail = std::floor((avail - tail) / 32.0f) >= 14;
    g.cell_w = std::clamp(std::floor((avail - (g.tail ? tail : 0)) / 32.0f), 6.0f, 30.0f);
    // Rows tall enough for their byte-offset label and a lane number over the lane's colour bar.
    g.row_h = row_h_wanted > 0 ? row_h_wanted : ImGui::GetTextLineHeight() + 6;
    return g;
}

// Bank numbers above the columns.
void bank_header(const Grid& g, const char* corner) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    dl->AddText(ImVec2(p.x, p.y), palette::text_dim, corner);
    const int every = g.cell_w >= ImGui::CalcTextSize("00").x + 2 ? 1 : g.cell_w * 4 >= ImGui::CalcTextSize("00").x ? 4 : 8;
    for (int b = 0; b < 32; b += every) {
        char s[12];  // room for any int: the sanitizer build's range analysis cannot bound b
        std::snprintf(s, sizeof s, "%d", b);
        const float x = p.x + g.label_w + float(b) * g.cell_w + (g.cell_w - ImGui::CalcTextSize(s).x) / 2;
        dl->AddText(ImVec2(std::max(x, p.x + g.label_w + float(b) * g.cell_w), p.y), palette::text_dim, s);
    }
    ImGui::Dummy(ImVec2(g.label_w + 32 * g.cell_w, h));
}

// Bars per bank (the heat map, a line's launch-wide totals).
void bank_bars(const Grid& g, const std::array<uint64_t, 32>& v, const char* label, ImU32 color, const char* what) {
    uint64_t top = 0;
    for (uint64_t x : v) top = std::max(top, x);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float h = std::max(28.0f, 2 * ImGui::GetTextLineHeight());
    const ImVec2 o = ImGui::GetCursorScreenPos();
    dl->AddText(ImVec2(o.x, o.y + h - ImGui::GetTextLineHeight()), palette::text_dim, label);
    for (int b = 0; b < 32; ++b) {
        const float x = o.x + g.label_w + float(b) * g.cell_w;
        const float bh = top ? h * float(double(v[size_t(b)]) / double(top)) : 0;
        dl->AddRectFilled(ImVec2(x, o.y), ImVec2(x + g.cell_w - 1, o.y + h), IM_COL32(40, 40, 46, 255));
        if (bh > 0) dl->AddRectFilled(ImVec2(x, o.y + h - bh), ImVec2(x + g.cell_w - 1, o.y + h), color);
        if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(ImVec2(x, o.y), ImVec2(x + g.cell_w, o.y + h)))
            ImGui::SetTooltip("bank %d: %llu %s", b, (unsigned long long)v[size_t(b)], what);
    }
    // The scale (the tallest bar's value) above the label, in the label column.
    char s[32];
    std::snprintf(s, sizeof s, "%llu", (unsigned long long)top);
    ImFont* font = ImGui::GetFont();
    const float px = std::max(8.0f, ImGui::GetFontSize() - 3);
    dl->AddText(font, px, ImVec2(o.x + g.label_w - font->CalcTextSizeA(px, FLT_MAX, 0, s).x - 4, o.y), palette::text_dim, s);
    ImGui::Dummy(ImVec2(g.label_w + 32 * g.cell_w, h + 2));
}

// ---- this instruction ----

// Rows (128-byte lines) to draw: every touched row, one row of context above
// and below; untouched runs between them collapse into a thin band (a
// negative entry: -rows), so a strided access stays compact.
std::vector<long> rows_to_draw(const InstructionBanks& ib, uint64_t total_rows) {
    std::vector<long> touched;
    for (const LaneSegment& s : ib.segments) touched.push_back(long(s.first_word / 32));
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::vector<long> out;
    if (touched.empty()) return out;
    if (touched.front() > 0) out.push_back(touched.front() - 1);
    for (size_t i = 0; i < touched.size(); ++i) {
        if (i > 0 && touched[i] > touched[i - 1] + 1) out.push_back(-(touched[i] - touched[i - 1] - 1));
        out.push_back(touched[i]);
    }
    if (total_rows == 0 || uint64_t(touched.back() + 1) < total_rows) out.push_back(touched.back() + 1);
    return out;
}

// `latest`: the cursor's own instruction is not this one (it is not a shared-memory one).
void instruction_header(const Replay& r, const trace::Event& ev, const trace::SmemAccess* sa, const InstructionBanks& ib,
                        bool latest) {
    const trace::Trace& t = r.trace();
    const std::string op = ev.op < t.ops.size() ? t.ops[ev.op] : "?";
    say(kText, "%s   warp %u   cycle %llu%s", instruction_name(op, ib.kind, ev.aux).c_str(), unsigned(ev.warp),
        (unsigned long long)ev.issue, latest ? "   (the latest shared-memory instruction before the cursor)" : "");
    if (sa) {
        const int extra = sa->conflicts();
        if (extra > 0)
            say(palette::conflict_color(sa->max_way), "%d wavefronts, ideal %d: %d extra from bank conflicts (worst %d-way)",
                int(sa->wavefronts), int(sa->ideal), extra, int(sa->max_way));
        else
            say(palette::conflict_color(1), "%d wavefronts, ideal %d: no bank conflicts", int(sa->wavefronts), int(sa->ideal));
    }
    const std::string text = t.line_text(ev.loc);
    const std::string where = t.where(ev.loc);
    std::string line = where;
    if (!text.empty()) line += "   " + text.substr(std::min(text.find_first_not_of(" \t"), text.size()));
    dim_wrapped(line);
}

// One row per phase: the distinct words each bank must serve. The busiest
// bank sets the phase's wavefronts.
void phase_strip(const InstructionBanks& ib, const Grid& g) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float h = ImGui::GetTextLineHeight() + 2;
    for (int p = 0; p < ib.phases.count; ++p) {
        const ImVec2 o = ImGui::GetCursorScreenPos();
        char label[32];
        std::snprintf(label, sizeof label, "phase %d", p);
        const bool chosen = g_choice.phase < 0 || g_choice.phase == p;
        dl->AddText(o, chosen ? ImU32(IM_COL32(220, 220, 220, 255)) : palette::text_dim, label);
        for (int b = 0; b < 32; ++b) {
            const BankUse& u = ib.banks[size_t(p)][size_t(b)];
            const ImVec2 a(o.x + g.label_w + float(b) * g.cell_w, o.y), z(a.x + g.cell_w - 1, a.y + h - 1);
            const ImU32 fill = u.words == 0 ? IM_COL32(45, 45, 50, 255) : palette::conflict_color(u.words);
            dl->AddRectFilled(a, z, chosen ? fill : with_alpha(fill, 90));
            if (u.words > 0) {
                char s[4];
                std::snprintf(s, sizeof s, "%d", int(u.words));
                fit_text(dl, a, z, s, ink_on(fill));
            }
            if (ImGui::IsMouseHoveringRect(a, z) && ImGui::IsWindowHovered()) {
                const int wf = ib.phase_wavefronts[size_t(p)];
                if (u.words == 0)
                    ImGui::SetTooltip("phase %d, bank %d: not used\nphase %d takes %d wavefront%s (its busiest bank)", p, b,
                                      p, wf, wf == 1 ? "" : "s");
                else
                    ImGui::SetTooltip("phase %d, bank %d: %d distinct word%s, lanes %s\n%s\nphase %d takes %d wavefront%s "
                                      "(its busiest bank)",
                                      p, b, int(u.words), u.words > 1 ? "s" : "", lanes_text(u.lanes).c_str(),
                                      u.words > 1 ? "a bank serves one word per wavefront: a conflict"
                                                  : "one word: served in one wavefront",
                                      p, wf, wf == 1 ? "" : "s");
            }
        }
        if (g.tail) {
            char tail[48];
            std::snprintf(tail, sizeof tail, " %d wf", ib.phase_wavefronts[size_t(p)]);
            dl->AddText(ImVec2(o.x + g.label_w + 32 * g.cell_w + 2, o.y), palette::text_dim, tail);
        }
        ImGui::Dummy(ImVec2(g.label_w + 32 * g.cell_w + (g.tail ? ImGui::CalcTextSize(" 00 wf").x : 0), h));
    }
}

// Which lanes collide on which banks, in words.
void conflict_text(const InstructionBanks& ib) {
    const std::vector<ConflictGroup> groups = conflict_groups(ib);
    if (groups.empty()) {
        say(palette::conflict_color(1),
                           "No conflicts: in every phase each bank serves at most one distinct word.");
        return;
    }
    const size_t shown = std::min<size_t>(groups.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
        const ConflictGroup& c = groups[i];
        say(palette::conflict_color(c.way), "phase %d: %d-way on bank%s %s: lanes %s", c.phase,
                           c.way, c.banks.size() > 1 ? "s" : "", ranges_text(c.banks).c_str(),
                           lanes_text(c.lanes).c_str());
    }
    if (groups.size() > shown) dim(("... and " + std::to_string(groups.size() - shown) + " more groups").c_str());
}

// The instruction's lanes over the banks: one box per lane (and row), its lane
// number inside, its fill the conflict degree of its bank in its phase.
void lane_grid(const InstructionBanks& ib, uint64_t smem_bytes) {
    const Grid g0 = grid_geometry(0);
    bank_header(g0, "byte");
    const std::vector<long> rows = rows_to_draw(ib, (smem_bytes + 127) / 128);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    Grid g = g0;
    g.origin = ImGui::GetCursorScreenPos();
    g.origin.x += g.label_w;
    const float gap_h = 7;
    // Where each drawn row sits.
    std::vector<float> row_y;
    float y = g.origin.y;
    for (long r : rows) {
        row_y.push_back(y);
        y += r < 0 ? gap_h : g.row_h;
    }
    const float total_h = y - g.origin.y;
    auto y_of_row = [&](long row) -> float {
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i] == row) return row_y[i];
        return -1;
    };

    // The hovered word, found first so the boxes it collides with can be outlined.
    const ImVec2 m = ImGui::GetIO().MousePos;
    long hover_word = -1;
    if (ImGui::IsWindowHovered() && m.x >= g.origin.x && m.x < g.origin.x + 32 * g.cell_w)
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i] >= 0 && m.y >= row_y[i] && m.y < row_y[i] + g.row_h)
                hover_word = rows[i] * 32 + long((m.x - g.origin.x) / g.cell_w);
    int hover_phase = -1, hover_bank = -1;
    for (const LaneSegment& s : ib.segments)
        if (hover_word >= long(s.first_word) && hover_word < long(s.first_word + s.words) &&
            (g_choice.phase < 0 || g_choice.phase == s.phase)) {
            hover_phase = s.phase;
            hover_bank = int(hover_word % 32);
        }

    // Background: every word of the drawn rows, and the row labels.
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] < 0) {
            // A band of dots across the banks: rows skipped.
            const float yc = row_y[i] + gap_h / 2 - 1;
            for (float x = g.origin.x + 2; x < g.origin.x + 32 * g.cell_w; x += 6)
                dl->AddRectFilled(ImVec2(x, yc), ImVec2(x + 2, yc + 2), palette::text_dim);
            if (ImGui::IsWindowHovered() && m.y >= row_y[i] && m.y < row_y[i] + gap_h && m.x >= g.origin.x - g.label_w &&
                m.x < g.origin.x + 32 * g.cell_w)
                ImGui::SetTooltip("%ld row%s (%ld bytes) not touched", -rows[i], rows[i] < -1 ? "s" : "", -rows[i] * 128);
            continue;
        }
        char s[24];
        std::snprintf(s, sizeof s, "%ld", rows[i] * 128);
        const float tw = ImGui::CalcTextSize(s).x;
        dl->AddText(ImVec2(g.origin.x - tw - 6, row_y[i] + (g.row_h - ImGui::GetTextLineHeight()) / 2), palette::text_dim, s);
        dl->AddRectFilled(ImVec2(g.origin.x, row_y[i]), ImVec2(g.origin.x + 32 * g.cell_w, row_y[i] + g.row_h - 1),
                          IM_COL32(40, 40, 46, 255));
        for (int b = 1; b < 32; ++b) {
            const float x = g.origin.x + float(b) * g.cell_w;
            dl->AddLine(ImVec2(x, row_y[i]), ImVec2(x, row_y[i] + g.row_h - 1),
                        b % 4 == 0 ? IM_COL32(85, 85, 95, 255) : IM_COL32(55, 55, 62, 255));
        }
    }

    // The lanes' boxes: the chosen phase on top, the others faded.
    for (int pass = 0; pass < 2; ++pass)
        for (const LaneSegment& s : ib.segments) {
            const bool chosen = g_choice.phase < 0 || g_choice.phase == s.phase;
            if (chosen != (pass == 1)) continue;
            const float top = y_of_row(long(s.first_word / 32));
            if (top < 0) continue;
            const float x0 = g.origin.x + float(s.first_word % 32) * g.cell_w;
            const ImVec2 a(x0 + 1, top + 1), z(x0 + float(s.words) * g.cell_w - 1, top + g.row_h - 2);
            const ImU32 fill = palette::conflict_color(s.way);
            dl->AddRectFilled(a, z, chosen ? fill : with_alpha(fill, 50));
            // The lane's own colour as a bar along the bottom, so equal fills stay tellable apart.
            const ImU32 lane_col = palette::lane_color(s.first_lane());
            dl->AddRectFilled(ImVec2(a.x, z.y - 3), z, chosen ? lane_col : with_alpha(lane_col, 50));
            char label[8];
            std::snprintf(label, sizeof label, std::popcount(s.lanes) > 1 ? "%d+" : "%d", s.first_lane());
            if (chosen) fit_text(dl, a, z, label, ink_on(fill), 3);
            // Boxes in the hovered box's phase and bank: the lanes it collides with.
            const bool collides = s.phase == hover_phase && int(s.first_word % 32) <= hover_bank &&
                                  hover_bank < int(s.first_word % 32) + s.words;
            if (collides) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), palette::cursor, 0, 0, 2.0f);
        }
    ImGui::Dummy(ImVec2(g.label_w + 32 * g.cell_w, total_h));

    if (hover_word >= 0) {
        const uint32_t w = uint32_t(hover_word);
        ImGui::BeginTooltip();
        ImGui::Text("bytes %u-%u: bank %u, row %u", w * 4, w * 4 + 3, w % 32, w / 32);
        bool any = false;
        for (const PhaseWord& pw : ib.words) {
            if (pw.word != w) continue;
            any = true;
            ImGui::Text("phase %d: lane%s %s", int(pw.phase), std::popcount(pw.lanes) > 1 ? "s" : "",
                        lanes_text(pw.lanes).c_str());
            const BankUse& u = ib.banks[pw.phase][w % 32];
            if (pw.way > 1)
                ImGui::TextColored(ImColor(palette::conflict_color(pw.way)),
                                   "  bank %u serves %d distinct words in this phase (lanes %s): %d-way conflict",
                                   w % 32, int(pw.way), lanes_text(u.lanes).c_str(), int(pw.way));
            else
                ImGui::TextColored(ImColor(palette::conflict_color(1)), "  the only word of bank %u in this phase",
                                   w % 32);
        }
        if (!any) dim("not touched by this instruction");
        ImGui::EndTooltip();
    }
}

// What the summary knows of the instruction's line: its bank use over the
// whole launch, shown when this execution's lanes were not kept.
void site_totals(const Replay& r, const trace::Event& ev) {
    const trace::Launch& l = r.launch();
    if (!l.summary) return;
    for (const trace::SmemSite& site : l.summary->smem_sites) {
        if (site.loc != ev.loc || site.op != ev.op) continue;
        ImGui::Spacing();
        char worst[32] = "no conflicts";
        if (site.max_way > 1) std::snprintf(worst, sizeof worst, "worst %d-way", int(site.max_way));
        say(kText, "This line over the whole launch: %llu executions, %llu wavefronts (ideal %llu), %s.",
            (unsigned long long)site.count, (unsigned long long)site.wavefronts, (unsigned long long)site.ideal, worst);
        std::array<uint64_t, 32> words{};
        for (int b = 0; b < 32; ++b) words[size_t(b)] = site.bank_words[size_t(b)];
        const Grid g = grid_geometry(0);
        bank_header(g, "bank");
        bank_bars(g, words, "words", IM_COL32(80, 170, 230, 255), "distinct words served by this line, whole launch");
        return;
    }
}

void draw_instruction(const Document& d, const Replay& r, int warp) {
    const long e = r.current_smem(warp);
    if (e < 0) {
        dim_wrapped(std::string("No shared-memory instruction has run yet") + (warp >= 0 ? " in this warp" : "") +
                    ". Step forward (or switch to \"whole run\").");
        return;
    }
    const trace::Block& blk = r.block();
    const trace::Event& ev = blk.events[size_t(e)];
    const trace::SmemAccess* sa =
        ev.smem >= 0 && size_t(ev.smem) < blk.smem.size() ? &blk.smem[size_t(ev.smem)] : nullptr;
    const InstructionBanks& ib = banks_for(d, r, e);
    instruction_header(r, ev, sa, ib, e != r.current(warp));
    if (!ib.has_lanes) {
        if (sa && sa->lanes < 0)
            say(palette::warning,
                               "Lane addresses not recorded for this %sinstruction; record them with "
                               "tklab run ... --all-lanes",
                               sa->conflicts() == 0 ? "conflict-free " : "");
        else if (ib.phases.count == 0)
            ImGui::TextColored(ImColor(palette::warning), "Cannot draw: %s", phases_text(ib.phases, ib.kind).c_str());
        else
            ImGui::TextColored(ImColor(palette::warning), "The lane addresses in this trace are damaged.");
        site_totals(r, ev);
        return;
    }
    if (g_choice.phase >= ib.phases.count) g_choice.phase = -1;  // picked for an instruction with more phases
    if (ib.phases.count > 1) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("show");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::CalcTextSize("phase 0: lanes 24-31  ").x + ImGui::GetFrameHeight());
        char preview[48];
        if (g_choice.phase < 0) std::snprintf(preview, sizeof preview, "all phases");
        else std::snprintf(preview, sizeof preview, "phase %d: lanes %d-%d", g_choice.phase,
                           ib.phase_first_lane(g_choice.phase), ib.phase_end_lane(g_choice.phase) - 1);
        if (ImGui::BeginCombo("##phase", preview)) {
            if (ImGui::Selectable("all phases", g_choice.phase < 0)) g_choice.phase = -1;
            for (int p = 0; p < ib.phases.count; ++p) {
                char s[48];
                std::snprintf(s, sizeof s, "phase %d: lanes %d-%d", p, ib.phase_first_lane(p), ib.phase_end_lane(p) - 1);
                if (ImGui::Selectable(s, g_choice.phase == p)) g_choice.phase = p;
            }
            ImGui::EndCombo();
        }
    }
    const Grid g = grid_geometry(0);
    titled("Banks per phase: distinct words each must serve",
           (phases_text(ib.phases, ib.kind) +
            ". Only lanes of one phase can conflict. A bank serves one 4-byte word per wavefront (lanes reading the "
            "same word share it), so the busiest bank sets the phase's wavefronts (wf); the instruction needs the "
            "sum over its phases.").c_str());
    bank_header(g, "");
    phase_strip(ib, g);
    titled("The lanes' addresses in shared memory",
           "A row is 128 bytes = one word in each of the 32 banks; a column is a bank. A box is one lane's bytes, "
           "numbered by lane, coloured by the conflict in its bank and phase; the bar under it is the lane's colour. "
           "Dotted bands are rows nobody touched. Hover a box to outline the lanes it collides with. A swizzle "
           "shows as lanes of one phase spread over different columns instead of stacked in one.");
    lane_grid(ib, r.launch().smem_bytes);
    conflict_legend();
    conflict_text(ib);
}

// ---- whole run ----

void draw_whole_run(const Document& d, const ViewState& v) {
    const Replay& r = *v.replay;
    ImGui::SameLine();
    if (ImGui::RadioButton("this block", !g_choice.all_blocks)) g_choice.all_blocks = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("all timeline blocks", g_choice.all_blocks)) g_choice.all_blocks = true;
    const BankHeat& c = heat_for(d, r.launch_index(), r.block_index(), g_choice.all_blocks);
    const SmemHeat& h = c.heat;
    const uint64_t extra = h.wavefronts > h.ideal ? h.wavefronts - h.ideal : 0;
    say(kText, "%llu shared-memory instructions in %u block%s: %llu wavefronts, ideal %llu", (unsigned long long)h.executions,
        h.blocks, h.blocks == 1 ? "" : "s", (unsigned long long)h.wavefronts, (unsigned long long)h.ideal);
    say(extra ? palette::conflict_color(8) : palette::conflict_color(1), "%llu extra wavefronts from bank conflicts",
        (unsigned long long)extra);
    if (h.executions == 0) {
        dim("No shared-memory loads or stores (ld/st.shared, ldmatrix, stmatrix) recorded here.");
        return;
    }
    if (h.with_lanes < h.executions) {
        const unsigned long long missing = h.executions - h.with_lanes;
        if (h.conflicted_without_lanes > 0)
            say(palette::warning, "%llu of them have no lane addresses, %llu of those with conflicts: they are not placed below.",
                missing, (unsigned long long)h.conflicted_without_lanes);
        else
            dim_wrapped(std::to_string(missing) + " of them have no lane addresses; all of those were conflict-free, so the "
                        "map misses no conflict (tklab run ... --all-lanes shows the words they touch too).");
    }
    titled("Conflicts per 4-byte word over the run",
           "Each time a recorded instruction touched the word while its bank had to serve k distinct words in that "
           "phase, the word adds k-1: the wavefronts its bank needed beyond one. Bars: the same per bank (this "
           "block), and the distinct words each bank served over the whole launch (from the summary). White "
           "outline: the cursor's instruction.");

    // Heat scale legend.
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float w = 120, lh = ImGui::GetTextLineHeight();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddRectFilled(p, ImVec2(p.x + lh, p.y + lh), IM_COL32(40, 40, 46, 255));
        dl->AddText(ImVec2(p.x + lh + 3, p.y), palette::text_dim, "untouched");
        const float x1 = p.x + lh + 8 + ImGui::CalcTextSize("untouched").x;
        dl->AddRectFilled(ImVec2(x1, p.y), ImVec2(x1 + lh, p.y + lh), IM_COL32(55, 95, 70, 255));
        dl->AddText(ImVec2(x1 + lh + 3, p.y), palette::text_dim, "no conflict   0");
        const float x2 = x1 + lh + 8 + ImGui::CalcTextSize("no conflict   0").x;
        for (int i = 0; i < int(w); ++i)
            dl->AddRectFilled(ImVec2(x2 + float(i), p.y), ImVec2(x2 + float(i) + 1, p.y + lh), palette::heat(float(i) / w));
        char s[32];
        std::snprintf(s, sizeof s, " %llu", (unsigned long long)h.max_extra);
        dl->AddText(ImVec2(x2 + w, p.y), palette::text_dim, s);
        ImGui::Dummy(ImVec2(x2 + w + ImGui::CalcTextSize(s).x - p.x, lh));
    }

    const size_t nrows = (h.words.size() + 31) / 32;
    // What is left under the legend, less the two bank bars and their headers.
    const float avail_h = ImGui::GetContentRegionAvail().y - 2 * 30 - 3 * ImGui::GetTextLineHeightWithSpacing();
    Grid g = grid_geometry(-1);
    g.row_h = std::clamp(std::floor(avail_h / float(std::max<size_t>(nrows, 1))), 3.0f, g.cell_w);
    // Per bank: the map's columns summed, and the launch's totals.
    bank_header(g, "bank");
    bank_bars(g, h.bank_extra, "extra", palette::conflict_color(8),
              "wavefronts this bank needed beyond the first, summed over phases: its conflicts");
    if (c.has_summary)
        bank_bars(g, c.launch_bank_words, "words", IM_COL32(80, 170, 230, 255),
                  "distinct words served, whole launch (every block, from the summary)");
    else
        dim("(no summary: the trace was cut short, so no launch-wide bank totals)");
    bank_header(g, "byte");
    g.origin = ImGui::GetCursorScreenPos();
    g.origin.x += g.label_w;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    // Only the visible rows are drawn: the map may have thousands.
    const float clip_top = ImGui::GetWindowPos().y, clip_bottom = clip_top + ImGui::GetWindowHeight();
    const size_t label_every = size_t(std::ceil((lh + 2) / g.row_h));
    const double log_max = std::log1p(double(h.max_extra));
    const size_t row_lo = size_t(std::max(0.0f, std::floor((clip_top - g.origin.y) / g.row_h)));
    const size_t row_hi = std::min(nrows, size_t(std::max(0.0f, std::ceil((clip_bottom - g.origin.y) / g.row_h))) + 1);
    for (size_t row = row_lo; row < row_hi; row += label_every) {
        char s[24];
        std::snprintf(s, sizeof s, "%zu", row * 128);
        dl->AddText(ImVec2(g.origin.x - ImGui::CalcTextSize(s).x - 6, g.origin.y + float(row) * g.row_h), palette::text_dim, s);
    }
    auto fill_of = [&](size_t row, int b) {
        const size_t w = row * 32 + size_t(b);
        const WordHeat* wh = w < h.words.size() ? &h.words[w] : nullptr;
        if (wh && wh->extra > 0) return palette::heat(float(std::log1p(double(wh->extra)) / log_max));
        if (wh && wh->touches > 0) return ImU32(IM_COL32(55, 95, 70, 255));
        return ImU32(IM_COL32(40, 40, 46, 255));
    };
    // One rectangle per run of equal colour down a bank's column: a software
    // renderer pays per triangle, and conflict patterns run in columns.
    for (int b = 0; b < 32; ++b) {
        const float x = g.origin.x + float(b) * g.cell_w;
        size_t start = row_lo;
        ImU32 run = row_lo < row_hi ? fill_of(row_lo, b) : 0;
        for (size_t row = row_lo + 1; row <= row_hi; ++row) {
            const ImU32 f = row < row_hi ? fill_of(row, b) : 0;
            if (row < row_hi && f == run) continue;
            dl->AddRectFilled(ImVec2(x, g.origin.y + float(start) * g.row_h),
                              ImVec2(x + g.cell_w - (g.cell_w > 6 ? 1 : 0), g.origin.y + float(row) * g.row_h), run);
            start = row;
            run = f;
        }
    }
    // The cursor's instruction, outlined, to tie the two views together.
    const long e = r.current_smem(v.sel.warp);
    if (e >= 0) {  // every block lays out its shared memory alike
        const InstructionBanks& ib = banks_for(d, r, e);
        for (const LaneSegment& s : ib.segments) {
            const float x = g.origin.x + float(s.first_word % 32) * g.cell_w;
            const float y = g.origin.y + float(s.first_word / 32) * g.row_h;
            if (y + g.row_h < clip_top || y > clip_bottom) continue;
            dl->AddRect(ImVec2(x, y), ImVec2(x + float(s.words) * g.cell_w, y + g.row_h), palette::cursor);
        }
    }
    const float map_h = float(nrows) * g.row_h;
    ImGui::Dummy(ImVec2(g.label_w + 32 * g.cell_w, map_h));
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (ImGui::IsWindowHovered() && m.x >= g.origin.x && m.x < g.origin.x + 32 * g.cell_w && m.y >= g.origin.y &&
        m.y < g.origin.y + map_h) {
        const size_t w = size_t((m.y - g.origin.y) / g.row_h) * 32 + size_t((m.x - g.origin.x) / g.cell_w);
        ImGui::BeginTooltip();
        ImGui::Text("bytes %zu-%zu: bank %zu, row %zu", w * 4, w * 4 + 3, w % 32, w / 32);
        if (w < h.words.size() && h.words[w].touches > 0) {
            const WordHeat& wh = h.words[w];
            ImGui::Text("touched by %u recorded instruction%s", wh.touches, wh.touches == 1 ? "" : "s");
            ImGui::TextColored(ImColor(palette::conflict_color(wh.worst_way)),
                               "conflict wavefronts its bank added: %llu (worst %d-way)", (unsigned long long)wh.extra,
                               int(wh.worst_way));
            ImGui::Text("those instructions' conflicts in all: %llu", (unsigned long long)wh.instr_extra);
        } else {
            dim("no recorded instruction touched it");
        }
        ImGui::EndTooltip();
    }
}

} // namespace

void draw_shared_memory(ViewState& v) {
    if (!ImGui::Begin(panel_title(Panel::shared_memory))) { ImGui::End(); return; }
    const Document* d = v.main();
    if (!d || !d->trace) {
        dim("No trace loaded.");
    } else if (!v.replay) {
        dim_wrapped("This trace has no timeline block to replay, so there are no instructions to show. "
                    "Record one with tklab run ... --timeline-blocks 0.");
    } else {
        if (ImGui::RadioButton("this instruction", !g_choice.whole_run)) g_choice.whole_run = false;
        ImGui::SameLine();
        if (ImGui::RadioButton("whole run", g_choice.whole_run)) g_choice.whole_run = true;
        if (g_choice.whole_run) {
            draw_whole_run(*d, v);
        } else {
            ImGui::Separator();
            draw_instruction(*d, *v.replay, v.sel.warp);
        }
    }
    ImGui::End();
}

} // namespace tklab::view
