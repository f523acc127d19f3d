// Reading ptxas's figures and finding a simulated kernel's entry among them
// (compiler_figures.h).
#include "sim/compiler_figures.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

namespace tklab::sim {
namespace {

std::string& dir_setting() {  // set_compiler_figures_dir(), possibly from a static initialiser
    static std::string dir;
    return dir;
}

std::string demangle(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : mangled;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// CUDA's names for the types the simulator defines as tk's own (tk/common/dtypes.h).
std::string simulator_type_names(std::string s) {
    static const std::pair<const char*, const char*> names[] = {
        {"__nv_bfloat162", "tk::bf16_2"}, {"__nv_bfloat16", "tk::bf16"}, {"__half2", "tk::half_2"},
        {"__half", "tk::half"},           {"float2", "tk::float2"},
    };
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (ident_char(s[i]) && (i == 0 || !ident_char(s[i - 1]))) {
            size_t j = i;
            while (j < s.size() && ident_char(s[j])) ++j;
            const std::string word = s.substr(i, j - i);
            const bool qualified = i >= 2 && s.compare(i - 2, 2, "::") == 0;
            const char* to = nullptr;
            for (const auto& [from, sim] : names)
                if (word == from && !qualified) to = sim;
            out += to ? to : word;
            i = j;
        } else {
            out += s[i++];
        }
    }
    return out;
}

struct Table {
    std::map<std::string, trace::CompilerFigures> by_key;
    std::set<std::string> ambiguous;  // keys whose entries disagree
};

// The reports in `dir`, read once per folder.
const Table& table(const std::string& dir) {
    static std::map<std::string, Table> tables;
    auto found = tables.find(dir);
    if (found != tables.end()) return found->second;
    Table& t = tables[dir];
    {
        std::error_code ec;
        if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return t;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
            if (!e.is_regular_file() || e.path().extension() != ".txt") continue;
            std::ifstream in(e.path());
            std::stringstream text;
            text << in.rdbuf();
            for (CompiledKernel& k : parse_ptxas_report(text.str())) {
                auto [it, fresh] = t.by_key.emplace(k.key, k.figures);
                if (!fresh && !(it->second == k.figures)) t.ambiguous.insert(k.key);
            }
        }
    }
    return t;
}

uint64_t number(const std::smatch& m, size_t i) { return m[i].matched ? std::stoull(m[i].str()) : 0; }

} // namespace

std::vector<CompiledKernel> parse_ptxas_report(std::string_view text, const std::string& arch) {
    static const std::regex tool_re(R"(^tklab compiler figures: (.*)$)");
    static const std::regex entry_re(R"(Compiling entry function '([^']+)' for '([^']+)')");
    static const std::regex props_re(R"(Function properties for (\S+))");
    static const std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used_re(R"(Used (\d+) registers(?:.*?, (\d+) bytes smem)?)");
    std::vector<CompiledKernel> out;
    std::string tool = "ptxas";
    CompiledKernel* cur = nullptr;   // the entry being compiled for `arch`
    std::string props_of;            // whose "Function properties" the next line gives
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, tool_re)) {
            tool = "ptxas (" + m[1].str() + ")";
        } else if (std::regex_search(line, m, entry_re)) {
            cur = nullptr;
            if (m[2].str() != arch) continue;
            CompiledKernel k;
            k.name = demangle(m[1].str());
            k.key = kernel_key(k.name);
            k.figures.tool = tool;
            k.figures.arch = arch;
            k.figures.entry = m[1].str();
            out.push_back(std::move(k));
            cur = &out.back();
            props_of = m[1].str();
        } else if (std::regex_search(line, m, props_re)) {
            props_of = m[1].str();
        } else if (std::regex_search(line, m, frame_re)) {
            if (cur && props_of == cur->figures.entry) {
                cur->figures.stack_bytes = number(m, 1);
                cur->figures.spill_store_bytes = number(m, 2);
                cur->figures.spill_load_bytes = number(m, 3);
            }
        } else if (std::regex_search(line, m, used_re)) {
            if (cur) {
                cur->figures.registers = int(number(m, 1));
                cur->figures.static_shared_bytes = number(m, 2);
            }
        }
    }
    return out;
}

std::string kernel_key(std::string_view demangled) {
    std::string s(demangled);
    // Drop the parameter list: the parenthesised group the name ends with.
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            else if (s[i] == '(' && --depth == 0) {
                s.resize(i);
                break;
            }
        }
    }
    // A template's demangled name starts with its return type.
    if (s.rfind("void ", 0) == 0) s.erase(0, 5);
    return simulator_type_names(s);
}

std::string compiler_figures_dir() {
    if (const char* env = std::getenv("TKLAB_COMPILER_FIGURES")) return env;
    return dir_setting();
}

void set_compiler_figures_dir(const std::string& dir) { dir_setting() = dir; }

std::string function_name(const void* code) {
    Dl_info info{};
    if (!code || !dladdr(code, &info) || !info.dli_sname || info.dli_saddr != code) return {};
    return demangle(info.dli_sname);
}

std::optional<trace::CompilerFigures> compiler_figures_for(const void* kernel) {
    const Table& t = table(compiler_figures_dir());
    if (t.by_key.empty()) return std::nullopt;
    const std::string name = function_name(kernel);
    if (name.empty()) return std::nullopt;
    const std::string key = kernel_key(name);
    if (t.ambiguous.count(key)) return std::nullopt;
    auto it = t.by_key.find(key);
    if (it == t.by_key.end()) return std::nullopt;
    return it->second;
}

} // namespace tklab::sim
