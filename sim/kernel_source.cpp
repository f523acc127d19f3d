// Reading a kernel's source file (kernel_source.h).
#include "sim/kernel_source.h"

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

// The text before a `{` back to the previous `;`, `{` or `}` says what it
// opens: a scope (namespace, class, struct, union, enum, extern "C") has no
// parenthesis before its name; a function, a lambda or a control statement has.
bool opens_scope(const std::string& head) {
    if (head.find('(') != std::string::npos) return false;
    std::istringstream words(head);
    for (std::string w; words >> w;)
        if (w == "namespace" || w == "class" || w == "struct" || w == "union" || w == "enum" || w == "extern") return true;
    return false;
}

} // namespace

int function_end_line_in(const char* text, int line) {
    struct Open { int line; bool scope; };
    std::vector<Open> open;
    std::string head;  // code since the last `;`, `{` or `}`
    int cur = 1, best = line;
    const std::string s = text ? text : "";
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\n') { ++cur; head += ' '; continue; }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {  // to the end of the line
            while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            for (i += 2; i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/'); ++i)
                if (s[i] == '\n') ++cur;
            ++i;
            continue;
        }
        if (c == '"' || c == '\'') {  // a literal (raw strings are not expected in kernels)
            for (++i; i < s.size() && s[i] != c; ++i) {
                if (s[i] == '\\') ++i;
                else if (s[i] == '\n') ++cur;
            }
            head += ' ';
            continue;
        }
        if (c == '{') {
            open.push_back({cur, opens_scope(head)});
            head.clear();
        } else if (c == '}') {
            if (open.empty()) { head.clear(); continue; }
            const Open o = open.back();
            open.pop_back();
            // A function body: a non-scope pair whose parent is a scope (or
            // none). Such pairs do not nest, so one at most holds the line.
            const bool outermost = open.empty() || open.back().scope;
            if (!o.scope && outermost && o.line <= line && cur >= line) best = cur;
            head.clear();
        } else if (c == ';') {
            head.clear();
        } else {
            head += c;
        }
    }
    return best;
}

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
    const int end = t->second.empty() ? line : function_end_line_in(t->second.c_str(), line);
    found.emplace(std::make_pair(file, line), end);
    return end;
}

} // namespace tklab::sim
