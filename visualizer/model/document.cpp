#include "visualizer/model/document.h"
#include <filesystem>
#include <fstream>
#include <sstream>
#include "trace/codec.h"

namespace tklab::view {

namespace fs = std::filesystem;

std::vector<Document::TimelineBlock> Document::timeline_blocks() const {
    std::vector<TimelineBlock> out;
    if (!trace) return out;
    for (uint32_t l = 0; l < trace->launches.size(); ++l)
        for (uint32_t b = 0; b < trace->launches[l].blocks.size(); ++b)
            if (trace->launches[l].blocks[b].timeline) out.push_back({l, b});
    return out;
}

namespace {

std::optional<std::string> read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Source files without embedded text are looked for on disk, so a trace
// written with text left out still shows its lines where the project is.
void find_sources(trace::Trace& t, const std::string& root, std::vector<std::string>& problems) {
    for (size_t i = 1; i < t.files.size(); ++i) {
        trace::SourceFile& f = t.files[i];
        if (f.text || f.path.empty()) continue;
        std::vector<fs::path> tries{fs::path(f.path)};
        if (!root.empty()) tries.insert(tries.begin(), fs::path(root) / f.path);
        bool found = false;
        for (const fs::path& p : tries) {
            auto text = read_text(p);
            if (!text) continue;
            found = true;
            if (!f.hash.empty() && trace::text_hash(*text) != f.hash)
                problems.push_back("source " + f.path + ": the file on disk (" + p.string() +
                                   ") changed since the trace was written; its lines may not match the events");
            f.text = std::move(*text);
            break;
        }
        if (!found)
            problems.push_back("source " + f.path + " is not in the trace and was not found" +
                               (root.empty() ? std::string(" here") : " under " + root) +
                               "; pass --source-root DIR (the project folder) to show its lines");
    }
}

} // namespace

Document load_document(const std::string& path, const std::string& source_root) {
    Document d;
    d.path = path;
    d.name = fs::path(path).filename().string();
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        d.problems.push_back("no such file; make one with `tklab run NAME --trace " + path + "`");
        return d;
    }
    try {
        auto loaded = trace::load_trace(path);
        auto t = std::make_shared<trace::Trace>(std::move(loaded.trace));
        find_sources(*t, source_root, d.problems);
        d.trace = std::move(t);
        return d;
    } catch (const std::exception& e) {
        d.problems.push_back(e.what());
    }
    // Keep what can be kept of a cut or damaged file.
    try {
        trace::LoadOptions opt;
        opt.salvage = true;
        auto loaded = trace::load_trace(path, opt);
        auto t = std::make_shared<trace::Trace>(std::move(loaded.trace));
        if (!loaded.warning.empty()) d.problems.push_back(loaded.warning);
        d.problems.push_back("showing the complete records before the damage; summaries missing from it are left out");
        find_sources(*t, source_root, d.problems);
        d.trace = std::move(t);
        d.salvaged = true;
    } catch (const std::exception&) {
        d.problems.push_back("nothing in " + path + " could be shown");
    }
    return d;
}

} // namespace tklab::view
