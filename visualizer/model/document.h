// A trace file as the viewer holds it: what loaded, and every problem met on
// the way, in words a person can act on. Loading never throws: a bad file
// gives a document with problems and as much of the trace as could be read.
#pragma once
#include <memory>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::view {

struct Document {
    std::string path;
    std::string name;                           // the file name, for titles
    std::shared_ptr<const trace::Trace> trace;  // null when nothing could be read
    std::vector<std::string> problems;          // shown in the window and on stderr
    bool salvaged = false;                      // a cut file: only its complete records

    // Launch/block pairs that have a timeline, in order.
    struct TimelineBlock { uint32_t launch, block; };
    std::vector<TimelineBlock> timeline_blocks() const;
};

// Reads `path`; on a truncated or malformed file, keeps the complete records
// and says what was lost. Source files the trace names but does not embed are
// looked for relative to `source_root` (and the current folder) and reported
// when missing.
Document load_document(const std::string& path, const std::string& source_root = "");

} // namespace tklab::view
