// The helpers both programs share (cli/common.h).
#include "cli/common.h"
#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace tklab::cli {

bool use_color(FILE* f, const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    const char* no = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return isatty(fileno(f)) && !(no && *no) && !(term && std::string(term) == "dumb");
}

[[noreturn]] void fail_usage(const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", tool_name(), msg.c_str());
    std::exit(2);
}

namespace {

// --size: "256" sets every dimension, "512x256x128" sets them in order,
// "M=512,K=128" sets the ones named.
tk::host::dims_t parse_size(const tk::host::program& p, const std::string& s) {
    tk::host::dims_t out;
    if (s.empty()) return out;
    auto number = [&](const std::string& v) {
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
            fail_usage("--size " + s + ": '" + v + "' is not a positive whole number");
        return std::stoi(v);
    };
    if (s.find('=') != std::string::npos) {
        std::stringstream ss(s);
        std::string part;
        while (std::getline(ss, part, ',')) {
            const size_t eq = part.find('=');
            if (eq == std::string::npos) fail_usage("--size " + s + ": '" + part + "' should look like NAME=VALUE" + p.dims_help());
            out[part.substr(0, eq)] = number(part.substr(eq + 1));
        }
        return out;
    }
    std::vector<std::string> parts;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, 'x')) parts.push_back(part);
    if (parts.size() == 1) {
        for (const auto& d : p.dims) out[d.name] = number(parts[0]);
    } else if (parts.size() == p.dims.size()) {
        for (size_t i = 0; i < parts.size(); ++i) out[p.dims[i].name] = number(parts[i]);
    } else {
        fail_usage("--size " + s + ": " + p.name + " takes one size for all or " + std::to_string(p.dims.size()) +
                   " separated by 'x'" + p.dims_help());
    }
    return out;
}

} // namespace

std::vector<std::string> variants_to_run(const tk::host::program& p, const std::string& v) {
    if (v.empty()) return {p.variants.front()};
    if (v == "all") return p.variants;
    for (const auto& x : p.variants)
        if (x == v) return {v};
    std::string known;
    for (const auto& x : p.variants) known += " " + x;
    fail_usage(p.name + " has no variant '" + v + "'; it has:" + known + " (or all)");
}

const tk::host::program& find_or_fail(const std::string& name) {
    const tk::host::program* p = tk::host::find_program(name);
    if (!p) fail_usage("nothing called '" + name + "' to run; `" + tool_name() + " list` shows the kernels and lessons");
    return *p;
}

tk::host::dims_t resolve_or_fail(const tk::host::program& p, const std::string& size) {
    try {
        return p.resolve(parse_size(p, size));
    } catch (const std::invalid_argument& e) {
        fail_usage(e.what());
    }
}

} // namespace tklab::cli
