// Which bug finders run, and the list that names them ("all", "none", or a
// comma list of races, uninit and sync): Options::checks in the simulator,
// `--checks` on the command line. No dependencies, so the GPU tool's parser
// (which links no simulator) checks the same list the same way.
#pragma once
#include <string>

namespace tklab::sim {

struct Checks {
    bool races = true;   // shared-memory hazards that no barrier, mbarrier phase or warp-synchronous instruction orders
    bool uninit = true;  // reads of shared or global memory that nothing wrote
    bool sync = true;    // barrier and mbarrier misuse
    bool operator==(const Checks&) const = default;
};

// Parses `list` into `out` (left as it was on a mistake); returns "" or what is wrong.
inline std::string parse_check_list(const std::string& list, Checks& out) {
    const std::string names = "use all, none, or a comma-separated list of races, uninit and sync";
    if (list == "all" || list == "none") {
        out = list == "all" ? Checks{} : Checks{false, false, false};
        return "";
    }
    Checks c{false, false, false};
    size_t start = 0;
    for (;;) {
        const size_t end = list.find(',', start);
        const std::string name = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (name == "races") c.races = true;
        else if (name == "uninit") c.uninit = true;
        else if (name == "sync") c.sync = true;
        else if (name == "all" || name == "none") return "'" + name + "' stands alone, not in a list: " + names;
        else if (name.empty()) return "an empty name in '" + list + "': " + names;
        else return "unknown bug finder '" + name + "': " + names;
        if (end == std::string::npos) break;
        start = end + 1;
    }
    out = c;
    return "";
}

} // namespace tklab::sim
