// Makes a small seed for the trace_loader fuzzer from a real trace: the same
// records through the project's own writer, without the embedded source
// texts (most of a small trace's bytes), with tile snapshots cut to their
// first row and at most BLOCKS blocks per launch. fuzz/make_seeds.sh runs it.
//   seed_shrink IN OUT [BLOCKS]     (OUT's extension picks JSON or CBOR)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include "trace/codec.h"

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: seed_shrink IN OUT [BLOCKS]\n");
        return 2;
    }
    try {
        tklab::trace::Trace t = tklab::trace::load_trace(argv[1]).trace;
        for (auto& f : t.files) f.text.reset();
        if (argc == 4) {
            const size_t keep = size_t(std::strtoul(argv[3], nullptr, 10));
            for (auto& l : t.launches)
                if (l.blocks.size() > keep) l.blocks.resize(keep);
        }
        for (auto& l : t.launches)
            for (auto& b : l.blocks)
                for (auto& s : b.snapshots) {
                    s.rows = std::min(s.rows, 1);
                    s.values.resize(size_t(s.rows) * size_t(s.cols));
                }
        tklab::trace::write_trace(argv[2], t);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "seed_shrink: %s\n", e.what());
        return 1;
    }
    return 0;
}
