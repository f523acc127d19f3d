// tklab: run kernels and lessons by name, read reports, export traces.
//
// One source for two programs: `tklab` runs in the CPU simulator and records
// traces; `tklab_gpu` (built by nvcc when CUDA is found) runs the same
// registered kernels on the GPU and times them. What they share is here and
// in cli/common.cpp; what differs is in cli/backend_sim.cpp (tklab) and
// cli/backend_gpu.cpp (tklab_gpu), one of which CMake builds into each.
#include <csignal>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include "cli/common.h"
#include "cli/parser.h"
#include "tk/host/registry.h"

namespace {

int cmd_list() {
    size_t w = 4;
    for (const auto& p : tk::host::registry()) w = std::max(w, p.name.size());
    for (const char* kind : {"kernel", "lesson"}) {
        bool any = false;
        for (const auto& p : tk::host::registry()) {
            if (p.kind != kind) continue;
            if (!any) std::printf("%ss:\n", kind);
            any = true;
            std::string variants;
            for (const auto& v : p.variants) variants += (variants.empty() ? "" : "|") + v;
            std::printf("  %-*s  %s\n  %-*s  variants %s; sizes", int(w), p.name.c_str(), p.summary.c_str(), int(w), "",
                        variants.c_str());
            for (const auto& d : p.dims) std::printf(" %s=%d", d.name.c_str(), d.default_value);
            // One multiple for all, or each size's own where they differ.
            bool same = true;
            for (const auto& d : p.dims) same = same && d.multiple == p.dims.front().multiple;
            if (same) {
                std::printf(" (multiples of %d)\n", p.dims.empty() ? 1 : p.dims[0].multiple);
            } else {
                std::string each;
                for (const auto& d : p.dims)
                    each += (each.empty() ? "" : ", ") + d.name + (d.multiple == 1 ? " any" : " a multiple of " + std::to_string(d.multiple));
                std::printf(" (%s)\n", each.c_str());
            }
        }
    }
    if (tk::host::registry().empty()) std::printf("nothing registered\n");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    // A file size limit (ulimit -f) must fail the write that passes it, which
    // tklab reports, rather than kill the process.
    std::signal(SIGXFSZ, SIG_IGN);
    const tklab::cli::ParsedCommandLine pc = tklab::cli::parse_command_line(argc, argv);
    if (pc.exits) {
        std::cout << pc.out << std::flush;
        std::cerr << pc.err << std::flush;
        return pc.exit_code;
    }
    using tklab::cli::Command;
    switch (pc.command) {
    case Command::list: return cmd_list();
    case Command::run: return tklab::cli::cmd_run(pc.run);
    default: return tklab::cli::cmd_other(pc, argc, argv);
    }
}
