#include "visualizer/model/view_state.h"
#include <algorithm>
#include <cmath>
#include <sstream>

namespace tklab::view {

namespace {
const char* const kPanelNames[] = {"timeline", "transport", "source", "shared-memory", "registers",
                                   "barriers", "tile", "statistics", "compare"};
static_assert(sizeof(kPanelNames) / sizeof(kPanelNames[0]) == size_t(Panel::count_));
} // namespace

const char* panel_name(Panel p) { return p < Panel::count_ ? kPanelNames[size_t(p)] : "?"; }

std::optional<Panel> parse_panel(const std::string& s) {
    for (size_t i = 0; i < size_t(Panel::count_); ++i)
        if (s == kPanelNames[i]) return Panel(i);
    return std::nullopt;
}

void ViewState::reset() {
    replay.reset();
    launch = block = 0;
    sel = {};
    status.clear();
    playing = false;
    view_begin = view_end = 0;
    const Document* d = main();
    if (!d || !d->trace) return;
    const auto blocks = d->timeline_blocks();
    if (blocks.empty()) {
        status = "this trace has no block timelines to step through (record them with --timeline-blocks)";
        return;
    }
    select_block(blocks[0].launch, blocks[0].block);
}

bool ViewState::select_block(uint32_t l, uint32_t b) {
    const trace::Trace* t = trace();
    if (!t || l >= t->launches.size() || b >= t->launches[l].blocks.size() || !t->launches[l].blocks[b].timeline)
        return false;
    if (replay && replay->launch_index() == l && replay->block_index() == b) return true;
    const uint64_t at = cursor_cycle();
    const bool had = replay.has_value();
    launch = l;
    block = b;
    replay.emplace(*t, l, b);
    if (had) replay->seek_cycle(at);
    if (sel.warp >= replay->warps()) sel.warp = -1;
    return true;
}

bool ViewState::step(int dir) {
    if (!replay) return false;
    playing = false;
    const bool moved = replay->step(dir, unit, sel.warp);
    if (!moved) status = dir > 0 ? "at the end of the block" : "at the start of the block";
    else status.clear();
    if (dir > 0 && replay->pos() == replay->size() && replay->failed_here()) {
        const trace::Failure& f = *replay->launch().failure;
        status = f.kind + " at " + replay->trace().where(f.loc) + ": " + f.message;
    }
    return moved;
}

bool ViewState::run(int dir) {
    if (!replay) return false;
    playing = false;
    auto hit = replay->run(dir, breakpoints, sel.warp);
    if (hit) status = "stopped: " + hit->why;
    else status = dir > 0 ? "ran to the end: no breakpoint hit" : "ran back to the start: no breakpoint hit";
    return hit.has_value();
}

void ViewState::seek_cycle(uint64_t cycle) {
    if (!replay) return;
    replay->seek_cycle(cycle);
    status.clear();
}

void ViewState::tick(double seconds) {
    if (!replay || !playing) return;
    play_carry += seconds * speed;
    const double whole = std::floor(play_carry);
    play_carry -= whole;
    const uint64_t target = replay->cycle() + uint64_t(whole);
    // Check the events that play passes over against the breakpoints.
    const size_t from = replay->pos(), to = replay->pos_at_cycle(target);
    for (size_t e = from; e < to; ++e) {
        const int w = replay->block().events[e].warp;
        if (sel.warp >= 0 && w != sel.warp) continue;
        if (auto why = replay->hits(e, breakpoints)) {
            replay->seek(e + 1);
            playing = false;
            status = "stopped: " + *why;
            return;
        }
    }
    replay->seek_cycle(target);
    if (target >= replay->end_cycle()) {
        playing = false;
        status = "played to the end of the block";
        if (replay->failed_here() && breakpoints.fault) {
            const trace::Failure& f = *replay->launch().failure;
            status = "stopped: " + f.kind + " at " + replay->trace().where(f.loc) + ": " + f.message;
        }
    }
}

uint64_t ViewState::max_cycle() const {
    uint64_t m = 0;
    for (const Document& d : docs) {
        if (!d.trace) continue;
        for (const auto& tb : d.timeline_blocks()) {
            const trace::Block& b = d.trace->launches[tb.launch].blocks[tb.block];
            m = std::max(m, b.cycles);
            if (!b.events.empty()) m = std::max(m, b.events.back().done);
        }
    }
    return m;
}

nlohmann::json ViewState::to_json() const {
    using nlohmann::json;
    json j;
    j["documents"] = json::array();
    for (const Document& d : docs) {
        json dj{{"path", d.path}, {"loaded", bool(d.trace)}, {"salvaged", d.salvaged}, {"problems", d.problems}};
        if (d.trace) {
            dj["program"] = d.trace->program;
            dj["variant"] = d.trace->variant;
            dj["timeline_blocks"] = d.timeline_blocks().size();
        }
        j["documents"].push_back(dj);
    }
    j["unit"] = step_unit_name(unit);
    j["warp"] = sel.warp;
    j["status"] = status;
    j["playing"] = playing;
    j["view"] = {view_begin, view_end};
    j["tile"] = {{"lanes", tile.lanes}, {"col_layout", tile.col_layout}, {"delta", tile.delta}};
    j["breakpoints"] = {{"conflict_way", breakpoints.conflict_way},
                        {"wait_cycles", breakpoints.wait_cycles},
                        {"fault", breakpoints.fault},
                        {"lines", json::array()}};
    const trace::Trace* t = trace();
    for (uint32_t l : breakpoints.locs) j["breakpoints"]["lines"].push_back(t ? t->where(l) : "?");
    j["selection"] = {{"line", sel.loc && t ? json(t->where(sel.loc)) : json(nullptr)},
                      {"range", sel.range ? json{sel.range->first, sel.range->second} : json(nullptr)},
                      {"snapshot", sel.snapshot}};
    if (!replay) {
        j["cursor"] = nullptr;
        return j;
    }
    const trace::Block& b = replay->block();
    json c{{"launch", launch}, {"block", b.index}, {"pos", replay->pos()}, {"events", replay->size()},
           {"cycle", replay->cycle()}};
    const long e = replay->current(sel.warp);
    if (e >= 0) {
        const trace::Event& ev = b.events[size_t(e)];
        c["event"] = {{"index", e},
                      {"warp", ev.warp},
                      {"op", ev.op < t->ops.size() ? t->ops[ev.op] : "?"},
                      {"line", t->where(ev.loc)},
                      {"issue", ev.issue},
                      {"op_seq", ev.op_seq}};
    } else {
        c["event"] = nullptr;
    }
    j["cursor"] = c;
    return j;
}

// ---- scripts ----

namespace {

std::optional<uint32_t> find_line(const trace::Trace& t, const std::string& spec) {
    const auto colon = spec.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    const std::string file = spec.substr(0, colon);
    int line = 0;
    try { line = std::stoi(spec.substr(colon + 1)); } catch (...) { return std::nullopt; }
    auto ends_with = [](const std::string& s, const std::string& suffix) {
        return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    for (uint32_t i = 1; i < t.locations.size(); ++i) {
        const trace::Location& l = t.locations[i];
        if (l.line == line && l.file < t.files.size() && ends_with(t.files[l.file].path, file)) return i;
    }
    return std::nullopt;
}

bool to_u64(const std::string& s, uint64_t& out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    try { out = std::stoull(s); } catch (...) { return false; }
    return true;
}

} // namespace

std::string run_command(ViewState& v, const std::string& command) {
    std::istringstream in(command);
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    if (w.empty()) return "";
    const std::string& cmd = w[0];
    auto arg = [&](size_t i, uint64_t dflt, uint64_t& out) -> bool {
        if (w.size() <= i) { out = dflt; return true; }
        return to_u64(w[i], out);
    };
    auto bad = [&](const std::string& usage) { return "bad command \"" + command + "\": expected " + usage; };
    const trace::Trace* t = v.trace();
    const bool needs_replay = cmd == "step" || cmd == "back" || cmd == "run" || cmd == "run-back" ||
                              cmd == "seek" || cmd == "pos" || cmd == "play";
    if (needs_replay && !v.replay) return "\"" + command + "\": no block timeline is open to step through";

    uint64_t n = 0, m = 0;
    if (cmd == "step" || cmd == "back") {
        if (!arg(1, 1, n)) return bad(cmd + " [COUNT]");
        for (uint64_t i = 0; i < n; ++i) v.step(cmd == "step" ? +1 : -1);
    } else if (cmd == "unit") {
        auto u = w.size() == 2 ? parse_step_unit(w[1]) : std::nullopt;
        if (!u) return bad("unit instruction|op|barrier");
        v.unit = *u;
    } else if (cmd == "warp") {
        if (w.size() == 2 && w[1] == "all") v.sel.warp = -1;
        else if (!arg(1, 0, n) || w.size() != 2 || !v.replay || n >= uint64_t(v.replay->warps()))
            return bad("warp all|N with N below the block's warp count");
        else v.sel.warp = int(n);
    } else if (cmd == "run") {
        v.run(+1);
    } else if (cmd == "run-back") {
        v.run(-1);
    } else if (cmd == "seek") {
        if (w.size() != 2 || !arg(1, 0, n)) return bad("seek CYCLE");
        v.seek_cycle(n);
    } else if (cmd == "pos") {
        if (w.size() != 2 || !arg(1, 0, n)) return bad("pos EVENTS");
        v.replay->seek(n);
    } else if (cmd == "block") {
        if (w.size() != 2 || !arg(1, 0, n) || !t) return bad("block N (a block index with a timeline)");
        for (uint32_t l = 0; l < t->launches.size(); ++l)
            for (uint32_t b = 0; b < t->launches[l].blocks.size(); ++b)
                if (t->launches[l].blocks[b].index == n && v.select_block(l, b)) return "";
        return "block " + w[1] + " has no timeline in this trace";
    } else if (cmd == "break-conflict") {
        if (w.size() != 2 || !arg(1, 0, n) || n > 32) return bad("break-conflict WAYS (0 = off, 2..32)");
        v.breakpoints.conflict_way = int(n);
    } else if (cmd == "break-wait") {
        if (w.size() != 2 || !arg(1, 0, n)) return bad("break-wait CYCLES (0 = off)");
        v.breakpoints.wait_cycles = n;
    } else if (cmd == "break-fault") {
        if (w.size() != 2 || (w[1] != "on" && w[1] != "off")) return bad("break-fault on|off");
        v.breakpoints.fault = w[1] == "on";
    } else if (cmd == "break-line" || cmd == "line") {
        if (w.size() != 2 || !t) return bad(cmd + " FILE:LINE");
        auto loc = find_line(*t, w[1]);
        if (!loc) return "\"" + command + "\": no instruction of this trace is at " + w[1];
        if (cmd == "line") v.sel.loc = *loc;
        else v.breakpoints.locs.push_back(*loc);
    } else if (cmd == "range" || cmd == "zoom") {
        if (w.size() != 3 || !arg(1, 0, n) || !arg(2, 0, m) || m <= n) return bad(cmd + " BEGIN END (cycles, BEGIN < END)");
        if (cmd == "range") v.sel.range = std::pair{n, m};
        else { v.view_begin = double(n); v.view_end = double(m); }
    } else if (cmd == "snapshot") {
        // Labels may hold spaces ("acc after the main loop"): the rest of the command.
        if (w.size() < 2) return bad("snapshot LABEL");
        const size_t at = command.find(w[1], command.find("snapshot") + 8);
        v.sel.snapshot = command.substr(at);
        v.sel.snapshot.erase(v.sel.snapshot.find_last_not_of(" \t") + 1);
    } else if (cmd == "tile-lanes" || cmd == "tile-delta") {
        if (w.size() != 2 || (w[1] != "on" && w[1] != "off")) return bad(cmd + " on|off");
        (cmd == "tile-lanes" ? v.tile.lanes : v.tile.delta) = w[1] == "on";
    } else if (cmd == "speed") {
        if (w.size() != 2 || !arg(1, 0, n) || n == 0) return bad("speed CYCLES_PER_SECOND");
        v.speed = double(n);
    } else if (cmd == "play") {
        double secs = 0;
        try { secs = w.size() == 2 ? std::stod(w[1]) : -1; } catch (...) { secs = -1; }
        if (secs < 0) return bad("play SECONDS");
        v.playing = true;
        for (double left = secs; left > 1e-9 && v.playing; left -= 1.0 / 60) v.tick(std::min(left, 1.0 / 60));
        v.playing = false;
    } else {
        return "unknown command \"" + cmd + "\"; commands: step, back, unit, warp, run, run-back, seek, pos, block, "
               "break-conflict, break-wait, break-fault, break-line, line, range, zoom, snapshot, tile-lanes, tile-delta, "
               "speed, play";
    }
    return "";
}

std::string run_script(ViewState& v, const std::string& script) {
    std::string cmd;
    for (size_t i = 0; i <= script.size(); ++i) {
        if (i == script.size() || script[i] == ';' || script[i] == '\n') {
            if (std::string err = run_command(v, cmd); !err.empty()) return err;
            cmd.clear();
        } else {
            cmd += script[i];
        }
    }
    return "";
}

} // namespace tklab::view
