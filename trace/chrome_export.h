// Export a trace to the Chrome trace-event JSON format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing load.
//
// Layout of the document:
//   pid 1                 "<program> · launches": one slice per launch, and
//                         failures that belong to no timeline block.
//   pid 2, 3, ...         one process per (launch, timeline block), in order;
//                         blocks without a timeline get no process.
//     tid 1 + w           "warp w": tile-op slices with instruction children,
//                         bank-conflict and snapshot instants.
//     tid 1001 + w        "warp w · waits": barrier waits (a separate thread so
//                         they never have to nest inside instruction slices).
//     counter             "registers per thread", one series per warp.
//
// Time: ts = cycle / clock_mhz microseconds (arch "clock_mhz", 1000 when
// absent), launches placed one after another. Times are rounded to whole
// nanoseconds because Perfetto rounds ts and dur to nanoseconds separately;
// rounding them here first keeps every child inside its parent after import.
// Raw cycles are in each event's args.
#pragma once
#include <iosfwd>

#include "trace/trace.h"

namespace tklab::trace {

struct ChromeOptions {
    bool instructions = true;  // per-instruction slices; tile-op slices are always written
};

// The whole document as one JSON value.
json to_chrome(const Trace& t, const ChromeOptions& options = {});

// The same document written event by event, without building it in memory.
void write_chrome(std::ostream& out, const Trace& t, const ChromeOptions& options = {});

} // namespace tklab::trace
