// Everything the viewer shows, apart from pixels: the open documents, the
// cursor (a Replay of one block), the selection, transport settings and the
// timeline's visible window. Panels read and change it; the headless mode
// drives it with a script and prints it as JSON, so tests check it without
// a display.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>
#include "visualizer/model/document.h"
#include "visualizer/model/replay.h"

namespace tklab::view {

enum class Panel : uint8_t {
    timeline, transport, source, shared_memory, registers, barriers, tile_inspector, statistics, compare, count_
};
const char* panel_name(Panel p);                       // "timeline", "shared-memory", ...
std::optional<Panel> parse_panel(const std::string&);  // the same names

struct Selection {
    int warp = -1;                 // -1: all warps
    uint32_t loc = 0;              // a clicked source line (Trace::locations index), 0: none
    std::optional<std::pair<uint64_t, uint64_t>> range;  // cycles [begin, end) picked on the timeline
    std::string snapshot;          // the tile inspector's label, "" = the first
};

// The tile inspector's choices (scripts set them for screenshots).
struct TileOptions {
    bool lanes = false;       // colour by owning lane instead of value
    bool col_layout = false;  // the tile is tk::col_l (not recorded in the trace)
    bool delta = false;       // show the change since the previous snapshot of the label
};

struct ViewState {
    std::vector<Document> docs;    // docs[0] is walked by the cursor; docs[1] (if any) is compared
    uint32_t launch = 0, block = 0;  // the cursor's block (Launch::blocks index) in docs[0]
    std::optional<Replay> replay;  // absent when docs[0] has no timeline to replay
    Selection sel;
    StepUnit unit = StepUnit::instruction;
    Breakpoints breakpoints;
    TileOptions tile;
    bool playing = false;
    double speed = 2000;           // simulated cycles per second while playing
    double play_carry = 0;         // fraction of a cycle left from the last tick
    std::string status;            // why the cursor last stopped, for the transport bar
    double view_begin = 0, view_end = 0;  // the timeline's visible cycles (0, 0: fit on first frame)
    bool shown[size_t(Panel::count_)] = {true, true, true, true, true, true, true, true, true};

    const Document* main() const { return docs.empty() ? nullptr : &docs[0]; }
    const trace::Trace* trace() const { return docs.empty() ? nullptr : docs[0].trace.get(); }
    const Document* other() const { return docs.size() > 1 ? &docs[1] : nullptr; }

    // Opens the first timeline block of docs[0] (or none).
    void reset();
    // Moves the cursor to another block (Launch::blocks index); keeps the cycle.
    bool select_block(uint32_t launch, uint32_t block);

    // Transport actions; each sets `status`.
    bool step(int dir);                  // one `unit`, for sel.warp
    bool run(int dir);                   // to the next breakpoint
    void seek_cycle(uint64_t cycle);
    // Advances playback by `seconds` of wall time; stops at breakpoints and the end.
    void tick(double seconds);

    uint64_t cursor_cycle() const { return replay ? replay->cycle() : 0; }
    // The latest cycle any timeline block of docs[0] reaches (the axis's end).
    uint64_t max_cycle() const;

    // The state a test checks: documents, block, position, cycle, warp, the
    // current event (op, line), status, selection and breakpoints.
    nlohmann::json to_json() const;
};

// Runs one script command against the state ("step 10", "back 3", "unit op",
// "warp 2", "run", "run-back", "seek 1200", "pos 40", "block 1",
// "break-conflict 4", "break-wait 100", "break-line FILE:LINE", "line FILE:LINE",
// "range 0 500", "zoom 0 2000", "snapshot LABEL", "tile-lanes on", "play SECONDS").
// Returns an error message for a bad command, "" on success.
std::string run_command(ViewState& v, const std::string& command);
// Runs commands separated by ';' or newlines; stops at the first error.
std::string run_script(ViewState& v, const std::string& script);

} // namespace tklab::view
