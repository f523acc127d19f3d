// Reading kernel source text (source_scan.h).
#include "trace/source_scan.h"

#include <sstream>
#include <string>
#include <vector>

namespace tklab::trace {

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

} // namespace tklab::trace
