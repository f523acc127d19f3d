// Timeline: one row per warp, grouped by block, on a cycle axis; the blocks
// of a second trace follow on the same axis. Instructions are slices coloured
// by op, the wait before each is a thinner slice coloured by stall reason
// (barrier and mbarrier waits hatched), bank conflicts are marked along the
// top edge by degree (with a triangle per instruction when zoomed in).
// Mouse, as in Tracy: the wheel zooms around the pointer (over the labels it
// scrolls), left-drag pans, shift+drag or right-drag measures a range, a click
// on a slice moves the cursor there, a click on a warp label selects the warp
// (double click: all warps), on a block header the block. Keys: F fit,
// Z zoom to the range, Esc clears it.
// Zoomed out, a warp is drawn from its TimelineIndex: one slice per pixel,
// so a frame costs what the visible pixels cost, whatever the trace's size.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>
#include <imgui.h>
#include "visualizer/model/derived_cache.h"
#include "visualizer/model/timeline_index.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/text.h"
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {

constexpr float kLabelW = 150, kRowH = 16, kHeaderH = 18, kDocH = 22, kAxisH = 24;
constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 18), kRowAlt = IM_COL32(255, 255, 255, 6);
constexpr ImU32 kSelectedRow = IM_COL32(90, 160, 255, 40), kLineMark = IM_COL32(255, 240, 120, 255);


std::string cycles(uint64_t n) { return with_commas(n) + (n == 1 ? " cycle" : " cycles"); }

// ---- indexes, built once per (trace, launch, block) when first drawn ----

// Per warp: positions (in TimelineIndex::events) of one source line's events.
using LineEvents = std::vector<std::vector<uint32_t>>;

struct BlockIndex {
    explicit BlockIndex(TimelineIndex i) : index(std::move(i)) {}
    TimelineIndex index;
    DerivedCache<LineEvents, uint32_t> marked;  // for the main trace's selected line (Selection::loc)
};

using BlockIndexes = std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<BlockIndex>>;

// The blocks indexed so far of docs[doc] (0 or 1); a document that is closed
// or replaced drops its indexes the next time this is asked.
BlockIndexes& indexes_of(const ViewState& v, size_t doc) {
    static DerivedCache<BlockIndexes> cache[2];
    return cache[doc].get(doc < v.docs.size() ? v.docs[doc].trace : nullptr, [] { return BlockIndexes{}; });
}

BlockIndex& block_index(const ViewState& v, size_t doc, uint32_t l, uint32_t b) {
    auto& slot = indexes_of(v, doc)[{l, b}];
    if (!slot) slot = std::make_unique<BlockIndex>(TimelineIndex(*v.docs[doc].trace, l, b));
    return *slot;
}

// The events of the main trace's selected source line in a block of trace `t`.
// A second trace has its own location table: its lines match by file and number.
const LineEvents& marked_events(BlockIndex& bi, const trace::Trace& t, const ViewState& v) {
    const trace::Trace& main = *v.trace();
    const uint32_t loc = v.sel.loc;
    return bi.marked.get(v.docs[0].trace, loc, [&] {
        LineEvents marked(size_t(bi.index.warps()));
        if (loc == 0 || loc >= main.locations.size()) return marked;
        std::vector<bool> match(t.locations.size(), false);
        if (&t == &main) match[loc] = true;
        else {
            const trace::Location& want = main.locations[loc];
            const std::string& path = want.file < main.files.size() ? main.files[want.file].path : "";
            for (size_t i = 1; i < t.locations.size(); ++i) {
                const trace::Location& l = t.locations[i];
                match[i] = l.line == want.line && l.file < t.files.size() && t.files[l.file].path == path;
            }
        }
        for (int w = 0; w < bi.index.warps(); ++w) {
            const auto& ev = bi.index.events(w);
            for (size_t i = 0; i < ev.size(); ++i) {
                const uint32_t el = bi.index.block().events[ev[i]].loc;
                if (el < match.size() && match[el]) marked[size_t(w)].push_back(uint32_t(i));
            }
        }
        return marked;
    });
}

bool any_marked(const std::vector<uint32_t>& m, size_t first, size_t last) {
    const auto it = std::lower_bound(m.begin(), m.end(), uint32_t(first));
    return it != m.end() && *it < last;
}

// ---- colours of one trace, looked up by index once per frame ----

struct Colors {
    std::vector<ImU32> op, stall, named;
    std::vector<bool> hatched;  // barrier and mbarrier waits
    explicit Colors(const trace::Trace& t) {
        for (const std::string& o : t.ops) op.push_back(palette::op_color(o));
        for (const std::string& s : t.stalls) {
            stall.push_back(palette::stall_color(s));
            hatched.push_back(s == "barrier" || s == "mbarrier");
        }
        for (size_t i = 0; i < t.op_names.size(); ++i) named.push_back(palette::region_color(i));
    }
    ImU32 of(SliceKind k) const {
        const auto& table = is_named(k) ? named : is_wait(k) ? stall : op;
        return kind_index(k) < table.size() ? table[kind_index(k)] : IM_COL32(128, 128, 128, 255);
    }
    bool hatch(SliceKind k) const { return is_wait(k) && kind_index(k) < hatched.size() && hatched[kind_index(k)]; }
};

ImU32 with_alpha(ImU32 c, float a) {
    const uint32_t alpha = uint32_t(float((c >> IM_COL32_A_SHIFT) & 0xff) * a);
    return (c & ~IM_COL32_A_MASK) | (alpha << IM_COL32_A_SHIFT);
}

// Diagonal lines over [x0, x1] x [y0, y1], clipped by hand (no clip-rect change per slice).
void hatch(ImDrawList* dl, float x0, float y0, float x1, float y1, ImU32 col) {
    const float h = y1 - y0, step = 5;
    for (float x = std::floor((x0 - h) / step) * step; x < x1; x += step) {
        const float a = std::max(x, x0), b = std::min(x + h, x1);
        if (b <= a) continue;
        dl->AddLine(ImVec2(a, y1 - (a - x)), ImVec2(b, y1 - (b - x)), col);
    }
}

// ---- the rows ----

struct Row {
    enum Kind { title, note, header, warp_row } kind;
    int doc;
    uint32_t launch = 0, block = 0;
    int warp = -1;
    float y = 0, h = 0;
    std::string text;  // doc and note rows
};

std::string block_name(const trace::Trace& t, uint32_t l, const trace::Block& b) {
    std::string s = "block " + std::to_string(b.index) + " (" + std::to_string(b.coord.x) + "," +
                    std::to_string(b.coord.y) + "," + std::to_string(b.coord.z) + ")";
    return t.launches.size() > 1 ? "launch " + std::to_string(l) + " " + s : s;
}

std::string doc_title(const Document& d) {
    std::string s = d.name;
    if (d.trace && !d.trace->variant.empty()) s += "  (" + d.trace->program + " " + d.trace->variant + ")";
    return s;
}

// Rows of both documents. With two, `interleave` puts block k of A right
// above block k of B, so the same block of the two runs can be compared
// directly; otherwise all of A's blocks come first, then B's.
std::vector<Row> layout_rows(const ViewState& v, bool interleave, float& total) {
    std::vector<Row> rows;
    float y = 0;
    auto add = [&](Row r, float h) { r.y = y; r.h = h; y += h; rows.push_back(std::move(r)); };
    const size_t ndocs = std::min<size_t>(v.docs.size(), 2);
    std::vector<std::vector<Document::TimelineBlock>> blocks(ndocs);
    for (size_t d = 0; d < ndocs; ++d) blocks[d] = v.docs[d].timeline_blocks();
    auto add_block = [&](size_t d, const Document::TimelineBlock& tb) {
        add({Row::header, int(d), tb.launch, tb.block, -1, 0, 0, {}}, kHeaderH);
        const int warps = int(v.docs[d].trace->launches[tb.launch].warps_per_block());
        for (int w = 0; w < warps; ++w) add({Row::warp_row, int(d), tb.launch, tb.block, w, 0, 0, {}}, kRowH);
    };
    auto note = [&](size_t d) -> bool {  // a document with nothing to draw says why
        const Document& doc = v.docs[d];
        if (!doc.trace) add({Row::note, int(d), 0, 0, -1, 0, 0, doc.name + " could not be read"}, kRowH);
        else if (blocks[d].empty())
            add({Row::note, int(d), 0, 0, -1, 0, 0, "no block timelines in " + doc.name + " (record them with --timeline-blocks)"}, kRowH);
        return !doc.trace || blocks[d].empty();
    };
    if (ndocs > 1 && interleave) {
        add({Row::title, 0, 0, 0, -1, 0, 0, "A: " + doc_title(v.docs[0]) + "      B: " + doc_title(v.docs[1])}, kDocH);
        note(0);
        note(1);
        for (size_t k = 0; k < std::max(blocks[0].size(), blocks[1].size()); ++k)
            for (size_t d = 0; d < 2; ++d)
                if (k < blocks[d].size()) add_block(d, blocks[d][k]);
    } else {
        for (size_t d = 0; d < ndocs; ++d) {
            if (ndocs > 1) add({Row::title, int(d), 0, 0, -1, 0, 0, std::string(d == 0 ? "A: " : "B: ") + doc_title(v.docs[d])}, kDocH);
            if (note(d)) continue;
            for (const auto& tb : blocks[d]) add_block(d, tb);
        }
    }
    total = y;
    return rows;
}

// ---- the cycle axis ----

struct Axis {
    double begin = 0, cpp = 1;  // first visible cycle, cycles per pixel
    float x0 = 0, x1 = 0;       // the tracks' screen span
    float x(double c) const { return x0 + float((c - begin) / cpp); }
    float near_x(double c) const { return std::clamp(x(c), x0 - 8, x1 + 8); }  // for shapes that may lie far off-screen
    double cycle(float px) const { return begin + double(px - x0) * cpp; }
};

// A tick step of 1, 2 or 5 x 10^k cycles, with labels about `px` pixels apart.
uint64_t tick_step(double cpp, float px) {
    const double want = std::max(1.0, cpp * px);
    double step = std::pow(10.0, std::floor(std::log10(want)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= want) { step *= m; break; }
    return uint64_t(std::max(1.0, step));
}

void draw_axis(ImDrawList* dl, const Axis& ax, ImVec2 p0, float w, const ViewState& v) {
    const float y1 = p0.y + kAxisH;
    dl->AddRectFilled(p0, ImVec2(p0.x + w, y1), ImGui::GetColorU32(ImGuiCol_FrameBg));
    dl->AddText(ImVec2(p0.x + 6, p0.y + 5), palette::text_dim, "cycles");
    dl->PushClipRect(ImVec2(ax.x0, p0.y), ImVec2(ax.x1, y1), true);
    const uint64_t step = tick_step(ax.cpp, 90);
    const uint64_t minor = step >= 5 && step % 5 == 0 ? step / 5 : (step % 2 == 0 ? step / 2 : 0);
    const double end = ax.cycle(ax.x1);
    const double first = std::max(0.0, std::floor(ax.begin / double(step)) * double(step));
    if (minor)
        for (double c = std::max(0.0, std::floor(ax.begin / double(minor)) * double(minor)); c <= end; c += double(minor))
            dl->AddLine(ImVec2(std::round(ax.x(c)), y1 - 4), ImVec2(std::round(ax.x(c)), y1), palette::text_dim);
    for (double c = first; c <= end; c += double(step)) {
        const float x = std::round(ax.x(c));
        dl->AddLine(ImVec2(x, y1 - 9), ImVec2(x, y1), IM_COL32(220, 220, 220, 255));
        dl->AddText(ImVec2(x + 3, p0.y + 2), IM_COL32(220, 220, 220, 255), with_commas(uint64_t(c)).c_str());
    }
    if (v.sel.range) {
        const float a = ax.near_x(double(v.sel.range->first)), b = ax.near_x(double(v.sel.range->second));
        dl->AddRectFilled(ImVec2(a, p0.y), ImVec2(b, y1), palette::selection);
        const std::string len = cycles(v.sel.range->second - v.sel.range->first);
        const ImVec2 ts = ImGui::CalcTextSize(len.c_str());
        const float tx = std::clamp((a + b - ts.x) / 2, ax.x0 + 2, std::max(ax.x0 + 2, ax.x1 - ts.x - 2));
        dl->AddRectFilled(ImVec2(tx - 3, y1 - ts.y - 3), ImVec2(tx + ts.x + 3, y1), IM_COL32(40, 70, 120, 255));
        dl->AddText(ImVec2(tx, y1 - ts.y - 2), IM_COL32(255, 255, 255, 255), len.c_str());
    }
    if (v.replay) {
        const float x = std::round(ax.near_x(double(v.cursor_cycle())));
        dl->AddTriangleFilled(ImVec2(x - 5, y1 - 7), ImVec2(x + 5, y1 - 7), ImVec2(x, y1), palette::cursor);
    }
    dl->PopClipRect();
}

// ---- one warp's row ----

// Rasterises a row's slices to pixel columns: each column takes the look
// (kind, faded) that covers most of it and runs of equal columns become one
// rectangle. A row then costs at most one rectangle per pixel, and a slice
// narrower than a pixel shows only where it is most of that pixel (a 1-cycle
// instruction between two 100-cycle waits does not paint a whole pixel).
class RowRaster {
public:
    RowRaster(ImDrawList* dl, const Colors& col, float y0, float y1) : dl_(dl), col_(col), y0_(y0), y1_(y1) {}

    void add(float x0, float x1, SliceKind kind, bool dim) {
        const Look look{kind, dim};
        x1 = std::max(x1, x0);
        int c0 = int(std::floor(x0));
        const int c1 = int(std::floor(x1));
        if (c0 > column_) { close_column(); column_ = c0; }
        else if (c0 < column_) {  // overlaps columns already taken: keep its rest
            if (c1 < column_) return;
            c0 = column_;
            x0 = float(column_);
        }
        if (c1 == c0) { cover(look, x1 - x0); return; }
        cover(look, float(c0 + 1) - x0);
        close_column();
        if (c1 > c0 + 1) emit(c0 + 1, c1, look);
        column_ = c1;
        cover(look, x1 - float(c1));
    }
    void finish() { close_column(); flush(); }

private:
    struct Look {
        SliceKind kind;
        bool dim;
        bool operator==(const Look&) const = default;
    };
    void cover(Look look, float w) {
        for (int i = 0; i < n_; ++i)
            if (cov_[i].first == look) { cov_[i].second += w; return; }
        if (n_ < int(cov_.size())) { cov_[size_t(n_++)] = {look, w}; return; }
        auto least = std::min_element(cov_.begin(), cov_.end(), [](auto& a, auto& b) { return a.second < b.second; });
        if (least->second < w) *least = {look, w};
    }
    void close_column() {
        if (n_ == 0) return;
        float total = 0;
        int best = 0;
        for (int i = 0; i < n_; ++i) {
            total += cov_[i].second;
            if (cov_[i].second > cov_[best].second) best = i;
        }
        if (total >= 0.3f) emit(column_, column_ + 1, cov_[best].first);
        n_ = 0;
    }
    void emit(int c0, int c1, Look look) {
        if (open_ && look == look_ && c0 <= b_) { b_ = std::max(b_, c1); return; }
        flush();
        open_ = true; a_ = c0; b_ = c1; look_ = look;
    }
    void flush() {
        if (!open_) return;
        open_ = false;
        const float a = float(a_), b = float(b_), h = y1_ - y0_;
        const ImU32 c = col_.of(look_.kind);
        const float alpha = look_.dim ? 0.3f : 1.0f;
        if (col_.hatch(look_.kind)) {
            dl_->AddRectFilled(ImVec2(a, y0_), ImVec2(b, y1_), with_alpha(c, 0.3f * alpha));
            hatch(dl_, a, y0_, b, y1_, with_alpha(c, alpha));
        } else if (is_wait(look_.kind)) {
            // Waiting: a thinner band, so it reads as time passing, not work.
            dl_->AddRectFilled(ImVec2(a, y0_ + h * 0.25f), ImVec2(b, y1_ - h * 0.25f), with_alpha(c, alpha));
        } else {
            dl_->AddRectFilled(ImVec2(a, y0_), ImVec2(b, y1_), with_alpha(c, alpha));
        }
    }

    ImDrawList* dl_;
    const Colors& col_;
    float y0_, y1_;
    int column_ = std::numeric_limits<int>::min();
    std::array<std::pair<Look, float>, 6> cov_{};
    int n_ = 0;
    bool open_ = false;
    int a_ = 0, b_ = 0;
    Look look_{0, false};
};

// Bank conflicts: a strip over the row's top edge, by degree, joined where
// they follow each other; zoomed in, a triangle over each instruction too.
class ConflictMarks {
public:
    ConflictMarks(ImDrawList* dl, float y) : dl_(dl), y_(y) {}
    void add(float x0, float x1, int way, bool triangle) {
        x0 = std::floor(x0);
        x1 = std::max(x0 + 2, std::ceil(x1));
        if (open_ && way == way_ && x0 <= b_ + 8) b_ = std::max(b_, x1);
        else {
            flush();
            open_ = true; a_ = std::max(x0, b_); b_ = std::max(a_ + 1, x1); way_ = way;
        }
        if (triangle) {
            const float x = std::round((x0 + x1) / 2);
            dl_->AddTriangleFilled(ImVec2(x - 4, y_ + 2), ImVec2(x + 4, y_ + 2), ImVec2(x, y_ + 7), palette::conflict_color(way));
        }
    }
    void flush() {
        if (open_) dl_->AddRectFilled(ImVec2(a_, y_), ImVec2(b_, y_ + 2), palette::conflict_color(way_));
        open_ = false;
    }

private:
    ImDrawList* dl_;
    float y_;
    bool open_ = false;
    float a_ = -1e9f, b_ = -1e9f;
    int way_ = 0;
};

struct RowContext {
    const Axis& ax;
    const Colors& col;
    BlockIndex& bi;
    int warp;
    float y0, y1;
    long cursor_pos;  // events at or after it have not run (cursor block only), -1: none
    const LineEvents* marked;  // the selected line's events, outlined; null: no line selected
};

// ---- a simulator trace's tk::region markers (Block::regions) ----

// Each region is a thin band along the bottom of its warp's row, coloured by
// its name (as a GPU trace's region events are); nested ones stack upwards.
// Regions are few (one per marker per warp), so a row scans its block's list.
constexpr float kRegionBandH = 3;
constexpr int kRegionLevels = 3;  // deeper nesting shares the top band

float region_band_top(float y1, int depth) { return y1 - 1 - kRegionBandH * float(std::min(depth, kRegionLevels - 1) + 1); }

void draw_regions(ImDrawList* dl, const RowContext& r) {
    const trace::Block& b = r.bi.index.block();
    const double t0 = r.ax.cycle(r.ax.x0), t1 = r.ax.cycle(r.ax.x1);
    for (const trace::Region& g : b.regions) {
        if (g.warp != r.warp || double(g.end) < t0 || double(g.begin) > t1) continue;
        const float a = std::floor(r.ax.near_x(double(g.begin))), e = std::max(a + 1, std::ceil(r.ax.near_x(double(g.end))));
        const float y = region_band_top(r.y1, g.depth);
        dl->AddRectFilled(ImVec2(a, y), ImVec2(e, y + kRegionBandH - 0.5f), r.col.of(named_kind(g.name)));
        if (g.open) dl->AddRectFilled(ImVec2(e - 2, y - 1), ImVec2(e, y + kRegionBandH), palette::error);  // never left
    }
}

// The innermost region of a warp under the mouse, when it is over the bands.
const trace::Region* region_at(const trace::Block& b, int warp, uint64_t cycle, uint64_t slack, float mouse_y, float y1) {
    const trace::Region* best = nullptr;
    for (const trace::Region& g : b.regions) {
        if (g.warp != warp || cycle + slack < g.begin || cycle > g.end + slack) continue;
        if (mouse_y < region_band_top(y1, g.depth) - 1) continue;  // above its band: the instructions are hovered
        if (!best || g.depth > best->depth) best = &g;
    }
    return best;
}

void region_tooltip(const trace::Trace& t, const trace::Region& g) {
    ImGui::BeginTooltip();
    const std::string name = g.name < t.op_names.size() ? t.op_names[g.name] : "?";
    ImGui::TextColored(ImColor(palette::region_color(g.name & 0xff)), "region %s", name.c_str());
    ImGui::SameLine();
    ImGui::Text("  warp %d%s", int(g.warp), g.depth ? (", nested " + std::to_string(g.depth) + " deep").c_str() : "");
    ImGui::TextColored(ImColor(palette::text_dim), "%s", t.where(g.loc).c_str());
    ImGui::Text("cycles %s to %s (%s)", with_commas(g.begin).c_str(), with_commas(g.end).c_str(), cycles(g.end - g.begin).c_str());
    if (g.open) ImGui::TextColored(ImColor(palette::error), "never left: the run stopped inside it");
    ImGui::EndTooltip();
}

void draw_warp(ImDrawList* dl, const RowContext& r) {
    const TimelineIndex& ix = r.bi.index;
    if (r.warp >= ix.warps()) return;
    const auto& events = ix.events(r.warp);
    const std::vector<uint32_t>* marked = r.marked && size_t(r.warp) < r.marked->size() ? &(*r.marked)[size_t(r.warp)] : nullptr;
    const uint64_t t0 = uint64_t(std::max(0.0, r.ax.cycle(r.ax.x0))), t1 = uint64_t(std::max(0.0, r.ax.cycle(r.ax.x1))) + 1;
    // Screen x of a cycle, kept near the tracks (deep zoom puts far cycles past int range).
    auto X = [&](uint64_t c) { return r.ax.near_x(double(c)); };
    RowRaster raster(dl, r.col, r.y0 + 2, r.y1 - 2);
    std::vector<std::tuple<float, float, int, bool>> conflicts;  // drawn over the slices
    std::vector<std::pair<float, float>> outlines;
    std::vector<float> at_once;  // mbarrier waits that went on at once on a fresh barrier: a mark above the row
    ix.visit(r.warp, t0, t1, r.ax.cpp, [&](int level, size_t i, const TimelineSpan& s) {
        const size_t first = i << level, last = std::min(events.size(), (i + 1) << level);
        const bool dim = r.cursor_pos >= 0 && long(events[first]) >= r.cursor_pos;
        float c0 = X(s.begin), c1 = X(s.end);
        if (level == 0) {
            const EventSlices e = ix.slices(r.warp, i);
            if (e.issue > e.wait_begin) raster.add(X(e.wait_begin), X(e.issue), e.wait, dim);
            raster.add(X(e.issue), X(e.done), e.body, dim);
            if (s.max_way > 1) conflicts.emplace_back(X(e.issue), X(e.done), int(s.max_way), c1 - c0 >= 12);
            if (e.barrier >= 0 && size_t(e.barrier) < ix.block().barriers.size() && ix.block().barriers[size_t(e.barrier)].at_once)
                at_once.push_back(X(e.issue));
        } else if (s.max_way > 1) {
            conflicts.emplace_back(c0, c1, int(s.max_way), false);
        }
        if (level > 0) raster.add(c0, c1, s.kind, dim);
        if (marked && any_marked(*marked, first, last)) {
            c0 = std::floor(c0);
            c1 = std::max(c0 + 2, std::ceil(c1));
            if (!outlines.empty() && c0 <= outlines.back().second + 1) outlines.back().second = std::max(outlines.back().second, c1);
            else outlines.push_back({c0, c1});
        }
    });
    raster.finish();
    ConflictMarks marks(dl, r.y0);
    for (const auto& [a, b, way, triangle] : conflicts) marks.add(a, b, way, triangle);
    marks.flush();
    for (const auto& [a, b] : outlines) dl->AddRect(ImVec2(a - 1, r.y0 + 1), ImVec2(b + 1, r.y1 - 1), kLineMark, 0, 0, 1.5f);
    for (float x : at_once) {  // an open diamond: a wait of no length
        const float y = (r.y0 + r.y1) * 0.5f, h = (r.y1 - r.y0) * 0.5f;
        dl->AddQuad(ImVec2(x, y - h), ImVec2(x + h, y), ImVec2(x, y + h), ImVec2(x - h, y), palette::warning, 1.5f);
    }
    if (!ix.block().regions.empty()) draw_regions(dl, r);
}

// ---- tooltips ----

void event_tooltip(const trace::Trace& t, const TimelineIndex& ix, int warp, size_t i, long cursor_pos) {
    const trace::Block& b = ix.block();
    const uint32_t index = ix.events(warp)[i];
    const trace::Event& e = b.events[index];
    const EventSlices s = ix.slices(warp, i);
    const std::string op = e.op < t.ops.size() ? t.ops[e.op] : "?";
    ImGui::BeginTooltip();
    ImGui::Text("%s   warp %d, instruction %zu of %zu", op.c_str(), warp, i + 1, ix.events(warp).size());
    ImGui::TextColored(ImColor(palette::text_dim), "%s", t.where(e.loc).c_str());
    std::string text = t.line_text(e.loc);
    text.erase(0, std::min(text.find_first_not_of(" \t"), text.size()));
    if (!text.empty()) ImGui::TextUnformatted(text.c_str());
    ImGui::Separator();
    ImGui::Text("issued at cycle %s, done at %s (%s)", with_commas(e.issue).c_str(), with_commas(s.done).c_str(),
                cycles(s.done - s.issue).c_str());
    if (s.issue > s.wait_begin) {
        const std::string why = e.stall < t.stalls.size() ? t.stalls[e.stall] : "?";
        ImGui::Text("waited %s before issue: %s", cycles(s.issue - s.wait_begin).c_str(), why.c_str());
    }
    if (s.barrier >= 0) {
        const trace::BarrierWait& w = b.barriers[size_t(s.barrier)];
        if (w.open) {
            ImGui::TextColored(ImColor(palette::warning), "%s wait: arrived %s, never released (the run stopped at cycle %s)",
                               w.mbarrier ? "mbarrier" : "barrier", with_commas(w.arrive).c_str(), with_commas(w.release).c_str());
        } else if (w.at_once) {
            ImGui::TextColored(ImColor(palette::warning),
                               "mbarrier wait went on at once: the barrier had completed no phase, and a wait for parity 1\n"
                               "counts \"the phase before the first\" as done (right for a producer's first wait for a free slot;\n"
                               "a consumer waiting for data should wait for parity 0 first)");
        } else {
            ImGui::Text("%s wait: arrived %s, released %s (%s), released by warp %d's arrival", w.mbarrier ? "mbarrier" : "barrier",
                        with_commas(w.arrive).c_str(), with_commas(w.release).c_str(),
                        cycles(w.release > w.arrive ? w.release - w.arrive : 0).c_str(), int(w.last_warp));
        }
    }
    if (e.smem >= 0 && size_t(e.smem) < b.smem.size()) {
        const trace::SmemAccess& a = b.smem[size_t(e.smem)];
        const ImU32 c = a.max_way > 1 ? palette::conflict_color(a.max_way) : palette::conflict_color(1);
        ImGui::TextColored(ImColor(c), "shared memory: %d wavefronts (ideal %d), %d conflicts, %d-way", int(a.wavefronts),
                           int(a.ideal), a.conflicts(), int(std::max<uint8_t>(a.max_way, 1)));
    }
    if (e.op_name && e.op_name < t.op_names.size())
        ImGui::Text("tile op: %s (call %u of this warp)", t.op_names[e.op_name].c_str(), e.op_seq);
    if (e.mask != 0xffffffffu) ImGui::Text("active lanes: %d of 32", __builtin_popcount(e.mask));
    if (cursor_pos >= 0)
        ImGui::TextColored(ImColor(palette::text_dim), long(index) < cursor_pos ? "has run (before the cursor); click to move the cursor here"
                                                                                : "not run yet; click to move the cursor here");
    ImGui::EndTooltip();
}

// ---- the legend ----

void swatch(ImU32 c, int style) {  // 0: instruction, 1: wait, 2: hatched wait, 3: conflict triangle, 4: diamond
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(18, ImGui::GetTextLineHeight()));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float y0 = p.y + 2, y1 = p.y + ImGui::GetTextLineHeight() - 2, h = y1 - y0;
    if (style == 0) dl->AddRectFilled(ImVec2(p.x, y0), ImVec2(p.x + 18, y1), c);
    if (style == 1) dl->AddRectFilled(ImVec2(p.x, y0 + h * 0.25f), ImVec2(p.x + 18, y1 - h * 0.25f), c);
    if (style == 2) { dl->AddRectFilled(ImVec2(p.x, y0), ImVec2(p.x + 18, y1), with_alpha(c, 0.3f)); hatch(dl, p.x, y0, p.x + 18, y1, c); }
    if (style == 3) {
        dl->AddRectFilled(ImVec2(p.x, y0), ImVec2(p.x + 18, y0 + 2), c);
        dl->AddTriangleFilled(ImVec2(p.x + 5, y0 + 2), ImVec2(p.x + 13, y0 + 2), ImVec2(p.x + 9, y0 + 7), c);
    }
    if (style == 4) {
        const float cx = p.x + 9, cy = (y0 + y1) * 0.5f, r = h * 0.5f;
        dl->AddQuad(ImVec2(cx, cy - r), ImVec2(cx + r, cy), ImVec2(cx, cy + r), ImVec2(cx - r, cy), c, 1.5f);
    }
}

void legend_item(ImU32 c, int style, const std::string& label) {
    const float w = 18 + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str()).x;
    if (ImGui::GetContentRegionAvail().x < w + 4) ImGui::NewLine();
    swatch(c, style);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine(0, 14);
}

void draw_legend(const trace::Trace& t) {
    // Ops grouped by colour, named by what this trace ran.
    std::vector<std::pair<ImU32, std::string>> groups;
    for (size_t i = 0; i < t.ops.size(); ++i) {
        const bool ran = !t.launches.empty() && t.launches[0].summary && i < t.launches[0].summary->by_op.size()
                             ? t.launches[0].summary->by_op[i] > 0 : true;
        if (!ran || t.ops[i] == "region") continue;  // regions are listed by name below
        const ImU32 c = palette::op_color(t.ops[i]);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == c; });
        if (it == groups.end()) groups.push_back({c, t.ops[i]});
        else it->second += ", " + t.ops[i];
    }
    if (!groups.empty()) {
        ImGui::TextColored(ImColor(palette::text_dim), "instructions");
        ImGui::SameLine(0, 10);
        for (const auto& [c, names] : groups) legend_item(c, 0, names);
        ImGui::NewLine();
    }
    if (std::find(t.ops.begin(), t.ops.end(), "region") != t.ops.end()) {
        ImGui::TextColored(ImColor(palette::text_dim), "regions");
        ImGui::SameLine(0, 10);
        for (size_t i = 1; i < t.op_names.size(); ++i) legend_item(palette::region_color(i), 0, t.op_names[i]);
        ImGui::NewLine();
    } else {
        // A simulator trace's markers: the names of each launch's first block that has any (blocks run alike).
        std::vector<uint16_t> names;
        for (const trace::Launch& l : t.launches) {
            auto b = std::find_if(l.blocks.begin(), l.blocks.end(), [](const trace::Block& x) { return !x.regions.empty(); });
            if (b == l.blocks.end()) continue;
            for (const trace::Region& g : b->regions)
                if (std::find(names.begin(), names.end(), g.name) == names.end()) names.push_back(g.name);
        }
        if (!names.empty()) {
            ImGui::TextColored(ImColor(palette::text_dim), "regions (bands under the rows)");
            ImGui::SameLine(0, 10);
            for (uint16_t n : names) legend_item(palette::region_color(n & 0xff), 1, n < t.op_names.size() ? t.op_names[n] : "?");
            ImGui::NewLine();
        }
    }
    ImGui::TextColored(ImColor(palette::text_dim), "waits");
    ImGui::SameLine(0, 10);
    for (size_t i = 1; i < t.stalls.size(); ++i) {
        const bool hatched = t.stalls[i] == "barrier" || t.stalls[i] == "mbarrier";
        legend_item(palette::stall_color(t.stalls[i]), hatched ? 2 : 1, t.stalls[i]);
    }
    legend_item(palette::warning, 4, "went on at once (a fresh mbarrier)");
    ImGui::NewLine();
    ImGui::TextColored(ImColor(palette::text_dim), "bank conflicts");
    ImGui::SameLine(0, 10);
    for (int way : {2, 4, 8, 16, 32}) legend_item(palette::conflict_color(way), 3, std::to_string(way) + "-way");
    ImGui::TextColored(ImColor(palette::text_dim), "  faded: not run yet   yellow outline: selected line   white line: cursor");
}

// ---- interaction ----

struct Gesture {
    enum Mode { none, pan, measure } mode = none;
    ImVec2 start;
    double start_begin = 0, anchor = 0;
    float start_scroll = 0;
    bool double_click = false;
};

void fit(ViewState& v) {
    v.view_begin = 0;
    v.view_end = double(std::max<uint64_t>(v.max_cycle(), 1)) * 1.02;
}

void set_window(ViewState& v, double begin, double width, double track_w) {
    // From a few pixels per cycle out to the whole run, never far past either end.
    const double full = double(std::max<uint64_t>(v.max_cycle(), 1)) * 1.02;
    width = std::clamp(width, std::max(8.0, track_w / 40.0), std::max(full, 8.0));
    begin = width >= full ? 0 : std::clamp(begin, -0.05 * width, full - 0.95 * width);
    v.view_begin = begin;
    v.view_end = begin + width;
}

void zoom_to_range(ViewState& v, double track_w) {
    if (!v.sel.range || v.sel.range->second <= v.sel.range->first) return;
    const double a = double(v.sel.range->first), w = double(v.sel.range->second - v.sel.range->first);
    set_window(v, a - w * 0.05, w * 1.1, track_w);
}

const Row* row_at(const std::vector<Row>& rows, float y) {
    auto it = std::upper_bound(rows.begin(), rows.end(), y, [](float y, const Row& r) { return y < r.y; });
    if (it == rows.begin()) return nullptr;
    --it;
    return y < it->y + it->h ? &*it : nullptr;
}

// A click on the tracks or the labels.
void click(ViewState& v, const Row& row, bool on_label, bool double_click, double cycle, double slack) {
    if (row.doc != 0 || !v.docs[0].trace) return;  // a compared trace is shown, not replayed
    if (row.kind == Row::header) { v.select_block(row.launch, row.block); return; }
    if (row.kind != Row::warp_row) return;
    if (on_label) {
        v.select_block(row.launch, row.block);
        v.sel.warp = double_click ? -1 : row.warp;
        return;
    }
    BlockIndex& bi = block_index(v, 0, row.launch, row.block);
    const long i = bi.index.event_at(row.warp, uint64_t(std::max(0.0, cycle)), uint64_t(slack));
    if (i < 0) return;
    if (!v.select_block(row.launch, row.block) || !v.replay) return;
    v.playing = false;
    v.sel.warp = row.warp;
    v.replay->seek(size_t(bi.index.events(row.warp)[size_t(i)]) + 1);
    v.status.clear();
}

void toolbar(ViewState& v, bool& legend, bool& interleave, double track_w) {
    if (ImGui::Button("Fit (F)")) fit(v);
    ImGui::SameLine();
    const bool has_range = v.sel.range && v.sel.range->second > v.sel.range->first;
    if (!has_range) ImGui::BeginDisabled();
    if (ImGui::Button("Zoom to range (Z)")) zoom_to_range(v, track_w);
    if (!has_range) ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Checkbox("Legend", &legend);
    if (v.other()) {
        ImGui::SameLine();
        ImGui::Checkbox("A/B block by block", &interleave);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("on: each block of A right above the same block of B\noff: all of A, then all of B");
    }
    ImGui::SameLine(0, 16);
    const double cpp = (v.view_end - v.view_begin) / std::max(1.0, track_w);
    ImGui::TextColored(ImColor(palette::text_dim), "cycles %s - %s  (%.3g cycles/pixel)",
                       with_commas(uint64_t(std::max(0.0, v.view_begin))).c_str(),
                       with_commas(uint64_t(std::max(0.0, v.view_end))).c_str(), cpp);
    if (v.sel.range) {
        ImGui::SameLine(0, 16);
        ImGui::Text("range %s - %s: %s cycles", with_commas(v.sel.range->first).c_str(), with_commas(v.sel.range->second).c_str(),
                    with_commas(v.sel.range->second - v.sel.range->first).c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton("clear")) v.sel.range.reset();
    } else {
        ImGui::SameLine(0, 16);
        ImGui::TextColored(ImColor(palette::text_dim), "wheel: zoom   drag: pan   shift+drag: measure   click: move the cursor");
    }
}

} // namespace

void draw_timeline(ViewState& v) {
    for (size_t d = 0; d < 2; ++d) indexes_of(v, d);  // let go of a closed document's indexes
    // No window background: the panels are tiled, so the frame's clear colour
    // shows instead, and the software renderer skips blending a million pixels.
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoBackground;
    const bool open = ImGui::Begin(panel_title(Panel::timeline), nullptr, flags);
    if (!open) { ImGui::End(); return; }
    const Document* main = v.main();
    if (!main) {
        ImGui::TextColored(ImColor(palette::text_dim), "No trace loaded: tklab view TRACE.json [OTHER.json]");
        ImGui::End();
        return;
    }
    bool any_timeline = false;
    for (size_t d = 0; d < std::min<size_t>(v.docs.size(), 2); ++d) any_timeline = any_timeline || !v.docs[d].timeline_blocks().empty();
    if (!any_timeline) {
        ImGui::TextColored(ImColor(palette::text_dim), "%s", main->trace ? "No block timelines in this trace: record them with "
                                                                          "`tklab run ... --timeline-blocks first-wave|all|0-3`."
                                                                        : "Nothing could be read from this file.");
        ImGui::End();
        return;
    }
    static bool legend = true, interleave = true;
    static Gesture g;
    // Where the view last followed the cursor, per main document (a new one starts afresh).
    struct Follow {
        std::optional<std::pair<uint32_t, uint32_t>> block;                 // the block the rows last scrolled to
        std::optional<std::tuple<uint32_t, uint32_t, uint64_t>> cursor;   // last frame's block and cycle
    };
    static DerivedCache<Follow> follows;
    Follow& follow = follows.get(main->trace, [] { return Follow{}; });

    const ImGuiIO& io = ImGui::GetIO();
    const float full_w = ImGui::GetContentRegionAvail().x;
    const float track_w = std::max(10.0f, full_w - kLabelW - ImGui::GetStyle().ScrollbarSize);
    if (v.view_begin == 0 && v.view_end == 0) fit(v);
    if (v.view_end <= v.view_begin) v.view_end = v.view_begin + 1;
    // When the cursor moves (playing, stepping) off the screen, bring it back;
    // a view the user panned away from a still cursor stays where it is.
    if (v.replay) {
        const auto now = std::tuple<uint32_t, uint32_t, uint64_t>{v.launch, v.block, v.cursor_cycle()};
        const double c = double(v.cursor_cycle()), w = v.view_end - v.view_begin;
        // Not on the document's first frame: a script's zoom stays.
        if (follow.cursor && now != *follow.cursor && (c < v.view_begin || c > v.view_end)) {
            v.view_begin = c - w * 0.1;
            v.view_end = v.view_begin + w;
        }
        follow.cursor = now;
    }
    toolbar(v, legend, interleave, track_w);
    const trace::Trace* legend_trace = main->trace ? main->trace.get() : (v.other() ? v.other()->trace.get() : nullptr);
    if (legend && legend_trace) draw_legend(*legend_trace);

    Axis ax;
    ax.begin = v.view_begin;
    ax.cpp = (v.view_end - v.view_begin) / double(track_w);
    const ImVec2 axis_p = ImGui::GetCursorScreenPos();
    ax.x0 = axis_p.x + kLabelW;
    ax.x1 = ax.x0 + track_w;
    draw_axis(ImGui::GetWindowDrawList(), ax, axis_p, full_w, v);
    ImGui::Dummy(ImVec2(full_w, kAxisH));

    float total = 0;
    const std::vector<Row> rows = layout_rows(v, interleave, total);

    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::BeginChild("##timeline_rows", ImVec2(0, 0), false,
                      ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_AlwaysVerticalScrollbar);
    ImGui::PopStyleVar();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();  // row 0's top-left, scrolled
    const ImVec2 win = ImGui::GetWindowPos();
    const float view_h = ImGui::GetWindowHeight(), scroll = ImGui::GetScrollY();
    ImGui::Dummy(ImVec2(full_w - ImGui::GetStyle().ScrollbarSize, std::max(total, 1.0f)));

    // Scroll to the cursor's block when it changes (transport, other panels).
    if (follow.block != std::pair{v.launch, v.block}) {
        follow.block = std::pair{v.launch, v.block};
        for (const Row& r : rows)
            if (r.doc == 0 && r.kind == Row::header && r.launch == v.launch && r.block == v.block &&
                (r.y < scroll || r.y + kHeaderH * 2 > scroll + view_h))
                ImGui::SetScrollY(r.y);
    }

    // The canvas catches the mouse over what is visible.
    ImGui::SetCursorScreenPos(ImVec2(win.x, win.y));
    ImGui::InvisibleButton("##timeline_canvas", ImVec2(std::max(1.0f, full_w - ImGui::GetStyle().ScrollbarSize), std::max(1.0f, view_h)),
                           ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    const ImVec2 m = io.MousePos;
    const bool on_label = m.x < ax.x0;

    if (ImGui::IsItemActivated()) {
        g.start = m;
        g.start_begin = v.view_begin;
        g.start_scroll = scroll;
        g.anchor = ax.cycle(m.x);
        g.double_click = io.MouseDoubleClicked[0];
        g.mode = (io.MouseClicked[1] || io.KeyShift) && !on_label ? Gesture::measure : Gesture::pan;
    }
    const float dx = m.x - g.start.x, dy = m.y - g.start.y;
    const bool moved = std::abs(dx) + std::abs(dy) > 3;
    if (active && moved) {
        if (g.mode == Gesture::pan) {
            set_window(v, g.start_begin - double(dx) * ax.cpp, v.view_end - v.view_begin, track_w);
            ImGui::SetScrollY(std::clamp(g.start_scroll - dy, 0.0f, ImGui::GetScrollMaxY()));
        } else if (g.mode == Gesture::measure) {
            const double c = ax.cycle(m.x);
            const uint64_t a = uint64_t(std::llround(std::max(0.0, std::min(g.anchor, c))));
            const uint64_t b = uint64_t(std::llround(std::max(0.0, std::max(g.anchor, c))));
            if (b > a) v.sel.range = std::pair{a, b};
        }
    }
    if (ImGui::IsItemDeactivated()) {
        if (!moved && g.mode == Gesture::pan)
            if (const Row* r = row_at(rows, g.start.y - origin.y))
                click(v, *r, g.start.x < ax.x0, g.double_click, ax.cycle(g.start.x), 4 * ax.cpp);
        g.mode = Gesture::none;
    }
    if (hovered && io.MouseWheel != 0) {
        if (on_label) ImGui::SetScrollY(std::clamp(scroll - io.MouseWheel * 3 * kRowH, 0.0f, ImGui::GetScrollMaxY()));
        else {
            const double at = ax.cycle(m.x), f = std::pow(1.25, -double(io.MouseWheel));
            const double w = (v.view_end - v.view_begin) * f;
            set_window(v, at - (at - v.view_begin) * f, w, track_w);
        }
    }
    if ((hovered || ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) && !io.WantTextInput) {
        if (ImGui::IsKeyPressed('F', false)) fit(v);
        if (ImGui::IsKeyPressed('Z', false)) zoom_to_range(v, track_w);
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) v.sel.range.reset();
    }
    // The view may have changed above: draw with the new one.
    ax.begin = v.view_begin;
    ax.cpp = (v.view_end - v.view_begin) / double(track_w);

    // ---- drawing ----
    const float top = win.y, bottom = win.y + view_h;
    const ImVec2 clip0(win.x, top), clip1(win.x + full_w, bottom);
    dl->PushClipRect(clip0, clip1, true);
    // Thousands of slices: skip anti-aliasing's extra triangles (the software renderer pays per triangle).
    const ImDrawListFlags aa = dl->Flags;
    dl->Flags &= ~(ImDrawListFlags_AntiAliasedLines | ImDrawListFlags_AntiAliasedFill);
    static const trace::Trace no_trace;
    std::vector<Colors> colors;
    for (size_t d = 0; d < std::min<size_t>(v.docs.size(), 2); ++d)
        colors.emplace_back(v.docs[d].trace ? *v.docs[d].trace : no_trace);

    const Row* hover_row = hovered && !active ? row_at(rows, m.y - origin.y) : nullptr;
    // Two passes, so the whole panel takes a few draw commands (the software
    // renderer pays for each): labels and row backgrounds, then the tracks.
    std::vector<const Row*> shown;
    for (const Row& r : rows)
        if (origin.y + r.y + r.h >= top && origin.y + r.y <= bottom) shown.push_back(&r);
    auto is_cursor_block = [&](const Row& r) { return r.doc == 0 && v.replay && r.launch == v.launch && r.block == v.block; };
    for (const Row* rp : shown) {
        const Row& r = *rp;
        const float y0 = origin.y + r.y, y1 = y0 + r.h;
        if (r.kind == Row::title) {
            dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(win.x + full_w, y1), IM_COL32(60, 60, 75, 255));
            dl->AddText(ImVec2(win.x + 6, y0 + 3), IM_COL32(255, 255, 255, 255), r.text.c_str());
        } else if (r.kind == Row::note) {
            dl->AddText(ImVec2(win.x + 6, y0 + 1), palette::text_dim, r.text.c_str());
        } else if (r.kind == Row::header) {
            const trace::Trace& t = *v.docs[size_t(r.doc)].trace;
            dl->AddLine(ImVec2(ax.x0 - 1, y0), ImVec2(ax.x0 - 1, y1), IM_COL32(255, 255, 255, 50));
            // Bands only under the labels: every pixel filled costs the software renderer.
            dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(ax.x0, y1), IM_COL32(255, 255, 255, 12));
            dl->AddLine(ImVec2(win.x, y0), ImVec2(win.x + full_w, y0), IM_COL32(255, 255, 255, 40));
            if (is_cursor_block(r)) dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(win.x + 3, y1), palette::cursor);
            std::string name = block_name(t, r.launch, t.launches[r.launch].blocks[r.block]);
            if (v.other()) name = (r.doc == 0 ? "A  " : "B  ") + name;
            dl->AddText(ImVec2(win.x + 6, y0 + 2), IM_COL32(235, 235, 235, 255), name.c_str());
        } else {
            const bool selected = is_cursor_block(r) && v.sel.warp == r.warp;
            if (selected) dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(win.x + full_w, y1), kSelectedRow);
            else if (r.warp % 2) dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(ax.x0, y1), kRowAlt);
            if (is_cursor_block(r)) dl->AddRectFilled(ImVec2(win.x, y0), ImVec2(win.x + 3, y1), with_alpha(palette::cursor, 0.5f));
            dl->AddLine(ImVec2(ax.x0 - 1, y0), ImVec2(ax.x0 - 1, y1), IM_COL32(255, 255, 255, 50));
            const std::string label = "warp " + std::to_string(r.warp);
            dl->AddText(ImVec2(win.x + 18, y0 + 1), selected ? IM_COL32(255, 255, 255, 255) : IM_COL32(200, 200, 200, 255), label.c_str());
        }
    }
    dl->PushClipRect(ImVec2(ax.x0, top), ImVec2(ax.x1, bottom), true);
    // Grid lines at the axis ticks.
    {
        const uint64_t step = tick_step(ax.cpp, 90);
        for (double c = std::max(0.0, std::floor(ax.begin / double(step)) * double(step)); c <= ax.cycle(ax.x1); c += double(step))
            dl->AddLine(ImVec2(std::round(ax.x(c)), top), ImVec2(std::round(ax.x(c)), bottom), kGrid);
    }
    for (const Row* rp : shown) {
        const Row& r = *rp;
        const float y0 = origin.y + r.y, y1 = y0 + r.h;
        if (r.kind != Row::header && r.kind != Row::warp_row) continue;
        const Document& doc = v.docs[size_t(r.doc)];
        const trace::Trace& t = *doc.trace;
        const trace::Block& blk = t.launches[r.launch].blocks[r.block];
        if (r.kind == Row::header) {
            // The block's span, with its length.
            const float a = ax.x(0), b = ax.x(double(blk.cycles));
            dl->AddRectFilled(ImVec2(a, y1 - 3), ImVec2(std::max(a + 1, b), y1 - 1), IM_COL32(200, 200, 200, 90));
            const std::string len = with_commas(blk.cycles) + " cycles, " + with_commas(blk.instructions) + " instructions";
            dl->AddText(ImVec2(std::max(ax.x0, a) + 4, y0 + 2), palette::text_dim, len.c_str());
            continue;
        }
        const bool cursor_block = is_cursor_block(r);
        BlockIndex& bi = block_index(v, size_t(r.doc), r.launch, r.block);
        const LineEvents* marked = v.sel.loc != 0 && v.trace() ? &marked_events(bi, t, v) : nullptr;
        draw_warp(dl, {ax, colors[size_t(r.doc)], bi, r.warp, y0, y1, cursor_block ? long(v.replay->pos()) : -1, marked});
        if (hover_row == &r) {
            if (on_label) ImGui::SetTooltip("click: select warp %d of %s\ndouble click: all warps", r.warp, block_name(t, r.launch, blk).c_str());
            else {
                const uint64_t at = uint64_t(std::max(0.0, ax.cycle(m.x))), slack = uint64_t(3 * ax.cpp);
                const long i = bi.index.event_at(r.warp, at, slack);
                if (const trace::Region* g = region_at(blk, r.warp, at, slack, m.y, y1)) region_tooltip(t, *g);
                else if (i >= 0) event_tooltip(t, bi.index, r.warp, size_t(i), cursor_block ? long(v.replay->pos()) : -1);
            }
        }
    }
    if (hover_row && hover_row->kind == Row::header && hover_row->doc == 0) ImGui::SetTooltip("click: step through this block");

    // The measured range and the cursor, over every row.
    // The measured range and the cursor, over every row.
    if (v.sel.range)
        dl->AddRectFilled(ImVec2(ax.near_x(double(v.sel.range->first)), top), ImVec2(ax.near_x(double(v.sel.range->second)), bottom), palette::selection);
    if (v.replay) {
        const float x = std::round(ax.near_x(double(v.cursor_cycle())));
        dl->AddLine(ImVec2(x, top), ImVec2(x, bottom), palette::cursor, 1.0f);
    }
    dl->PopClipRect();
    dl->PopClipRect();
    dl->Flags = aa;
    ImGui::EndChild();
    ImGui::End();
}

} // namespace tklab::view
