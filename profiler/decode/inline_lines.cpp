// nvdisasm's inlining chains, and the kernel line of a sample (inline_lines.h).
#include "profiler/decode/inline_lines.h"

#include <string_view>

namespace tklab::profiler {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }

// `"<file>", line <n>` at `s`: the file and line, and where it ends; false when it is not that.
bool quoted_location(std::string_view s, size_t& at, SourceLine& out) {
    if (at >= s.size() || s[at] != '"') return false;
    const size_t close = s.find('"', at + 1);
    if (close == std::string_view::npos) return false;
    out.file = std::string(s.substr(at + 1, close - at - 1));
    constexpr std::string_view kLine = ", line ";
    if (s.substr(close + 1, kLine.size()) != kLine) return false;
    size_t p = close + 1 + kLine.size();
    uint64_t n = 0;
    const size_t digits = p;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') n = n * 10 + uint64_t(s[p++] - '0');
    if (p == digits || n > UINT32_MAX) return false;
    out.line = uint32_t(n);
    at = p;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::string relative_to(const std::string& file, const std::string& root) {
    if (root.empty()) return file;
    const std::string r = root.back() == '/' ? root : root + "/";
    return starts_with(file, r) ? file.substr(r.size()) : file;
}

bool in_library(const std::string& file, const std::string& root) {
    const std::string rel = relative_to(file, root);
    return starts_with(rel, "tk/") || file.find("/include/") != std::string::npos;
}

} // namespace

namespace {
// An instruction's line, "/*0040*/ TEXT ...": its offset and its text.
bool instruction_at(std::string_view line, uint64_t& off, std::string_view& text) {
    if (!starts_with(line, "/*")) return false;
    const size_t end = line.find("*/");
    if (end == std::string_view::npos || end <= 2) return false;
    off = 0;
    for (size_t i = 2; i < end; ++i) {
        const char c = line[i];
        if (c >= '0' && c <= '9') off = off * 16 + uint64_t(c - '0');
        else if (c >= 'a' && c <= 'f') off = off * 16 + uint64_t(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') off = off * 16 + uint64_t(c - 'A' + 10);
        else return false;
    }
    text = trim(line.substr(end + 2));
    return true;
}
} // namespace

InlineTable parse_nvdisasm_lines(std::istream& in) {
    InlineTable table;
    std::map<uint64_t, std::vector<SourceLine>>* function = nullptr;
    std::vector<SourceLine> chain;   // the chain in force
    std::vector<SourceLine> block;   // the `//## File` lines being read
    bool reading_block = false;
    std::string raw;
    while (std::getline(in, raw)) {
        const std::string_view line = trim(raw);
        // A function's code: ".text.<mangled>:" (its label; the section directive has a comma).
        if (starts_with(line, ".text.") && line.back() == ':' && line.find(',') == std::string_view::npos) {
            function = &table[std::string(line.substr(6, line.size() - 7))];
            chain.clear();
            reading_block = false;
            continue;
        }
        constexpr std::string_view kFile = "//## File ";
        if (starts_with(line, kFile)) {
            if (!reading_block) block.clear();
            reading_block = true;
            size_t at = kFile.size();
            SourceLine frame;
            if (!quoted_location(line, at, frame)) continue;
            constexpr std::string_view kInlined = " inlined at ";
            if (line.substr(at, kInlined.size()) == kInlined) {
                // "A inlined at B": A is one frame of the chain; B is the next
                // line of the block (which says how B itself was reached).
                block.push_back(std::move(frame));
            } else {
                block.push_back(std::move(frame));  // the outermost: the block ends here
                chain = block;
                reading_block = false;
            }
            continue;
        }
        uint64_t off = 0;
        std::string_view text;
        if (function && instruction_at(line, off, text)) (*function)[off] = chain;
    }
    return table;
}

std::map<std::string, std::set<uint64_t>> parse_nvdisasm_barriers(std::istream& in) {
    std::map<std::string, std::set<uint64_t>> out;
    std::set<uint64_t>* function = nullptr;
    std::string raw;
    while (std::getline(in, raw)) {
        const std::string_view line = trim(raw);
        if (starts_with(line, ".text.") && line.back() == ':' && line.find(',') == std::string_view::npos) {
            function = &out[std::string(line.substr(6, line.size() - 7))];
            continue;
        }
        uint64_t off = 0;
        std::string_view text;
        if (!function || !instruction_at(line, off, text)) continue;
        if (starts_with(text, "@")) {  // a predicate: "@P0 " or "@!P1 "
            const size_t sp = text.find(' ');
            if (sp == std::string_view::npos) continue;
            text = trim(text.substr(sp));
        }
        if (starts_with(text, "BAR.SYNC") || starts_with(text, "BAR.RED")) function->insert(off);
    }
    return out;
}

SourceLine kernel_line_of(const std::vector<SourceLine>& chain, const std::string& root) {
    if (chain.empty()) return {};
    const SourceLine* pick = &chain.back();  // the outermost, when every frame is library code
    for (const SourceLine& f : chain)
        if (!in_library(f.file, root)) { pick = &f; break; }
    SourceLine out;
    out.file = relative_to(pick->file, root);
    out.line = pick->line;
    if (&chain.front() != pick) {
        out.inner_file = relative_to(chain.front().file, root);
        out.inner_line = chain.front().line;
    }
    return out;
}

} // namespace tklab::profiler
