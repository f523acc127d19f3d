// The terminal report of a trace: what a run did, what was slow and where, in
// at most 100 columns so it reads in any terminal and diffs cleanly against a
// golden file. It reads only the summaries of each launch (not the per-block
// timelines), so it works the same for traces recorded with or without them.
#pragma once
#include <cstddef>
#include <ostream>
#include "trace/trace.h"

namespace tklab::trace {

struct ReportOptions {
    bool color = false;  // ANSI colour: bold headings, red for bad figures, green for ok ones
    size_t top = 5;      // rows per section (conflict sites, barrier sites, lines, live tiles)
};

// Writes the report of every launch, then the checks and the failures.
// Deterministic for a given trace and options; never throws on odd input
// (indices out of range print "?", a missing summary is said to be missing).
void write_report(std::ostream& out, const Trace& t, const ReportOptions& opt = {});

} // namespace tklab::trace
