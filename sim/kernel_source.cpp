// Reading a kernel's source file (kernel_source.h).
#include "sim/kernel_source.h"

#include "trace/source_scan.h"

#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#ifndef TKLAB_SOURCE_DIR
#define TKLAB_SOURCE_DIR ""
#endif

namespace tklab::sim {

namespace {

// The roots files are named from: tklab's own, then those add_source_root() added.
std::vector<std::string>& source_roots() {
    static std::vector<std::string> roots{TKLAB_SOURCE_DIR};
    return roots;
}

} // namespace

void add_source_root(const std::string& dir) {
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    if (!d.empty()) source_roots().push_back(d);
}

std::string source_relative(const std::string& path) {
    for (const std::string& r : source_roots()) {
        const std::string root = r + "/";
        if (root.size() > 1 && path.compare(0, root.size(), root) == 0) return path.substr(root.size());
    }
    return path;
}

std::optional<std::string> read_source_text(const std::string& path) {
    std::vector<std::string> candidates{path};
    for (const std::string& r : source_roots()) candidates.push_back(r + "/" + path);
    for (const std::string& p : candidates) {
        std::ifstream in(p, std::ios::binary);
        if (!in) continue;
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    return std::nullopt;
}

int function_end_line(const char* file, int line) {
    static std::mutex m;
    static std::map<std::string, std::string> texts;  // file -> its text ("" when unreadable)
    // Kernel lines name their file by a pointer to the compiler's string (source_location): a key with no copy.
    static std::map<std::pair<const char*, int>, int> found;
    if (!file || !*file || line <= 0) return line;
    std::lock_guard<std::mutex> lock(m);
    if (auto it = found.find({file, line}); it != found.end()) return it->second;
    auto t = texts.find(file);
    if (t == texts.end()) t = texts.emplace(file, read_source_text(file).value_or("")).first;
    const int end = t->second.empty() ? line : trace::function_end_line_in(t->second.c_str(), line);
    found.emplace(std::make_pair(file, line), end);
    return end;
}

} // namespace tklab::sim
