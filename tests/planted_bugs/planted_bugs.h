// Planted bugs: small kernels, each with one known mistake, for the
// simulator's bug finders (tests/sim/test_bug_finders.cpp checks each is
// found, of the right kind, at the right lines) and for compute-sanitizer on
// a GPU (run_planted_bug.cu, scripts/gpu/sanitizer.sh).
//
// In each kernel a comment marks the lines a finding must name:
//     // BUG <name>: here      the line the report is about (SimError::line)
//     // BUG <name>: earlier   the other access or arrival it names, if any
#pragma once
#include <string>
#include <vector>

namespace planted {

enum class Kind { memory, race, uninit, sync, deadlock };
inline const char* kind_name(Kind k) {
    switch (k) {
    case Kind::memory: return "memory";
    case Kind::race: return "race";
    case Kind::uninit: return "uninit";
    case Kind::sync: return "sync";
    case Kind::deadlock: return "deadlock";
    }
    return "?";
}

struct Bug {
    const char* name;
    Kind kind;
    const char* what;   // the mistake, in a line
    const char* file;   // the source holding the kernel and its BUG markers
    bool hopper;        // needs sm_90a (wgmma, bulk tensor copies)
    bool hangs_on_gpu;  // a real GPU never returns from it (a deadlock)
    void (*run)();      // allocates, uploads and launches (simulator or GPU)
};

// Every planted bug, in the order all.cuh includes their files.
inline std::vector<Bug>& all_bugs() {
    static std::vector<Bug> bugs;
    return bugs;
}

struct add_bug {
    explicit add_bug(const Bug& b) { all_bugs().push_back(b); }
};

} // namespace planted
