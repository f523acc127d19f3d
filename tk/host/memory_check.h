// Host memory a run asks for, checked before it is taken: an input, a
// reference or a simulated device buffer larger than the memory the machine
// has available now is refused with both figures, instead of ending in
// std::bad_alloc or the kernel's out-of-memory killer halfway through a run.
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace tk::host {

// Bytes the machine can give a process now without swapping (Linux's
// MemAvailable), else its free physical pages; 0 when unknown.
inline uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

// This process's resident memory now, and the most it has held (Linux's
// statm and getrusage); 0 when unknown.
inline uint64_t resident_memory_bytes() {
    std::ifstream in("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    if (!(in >> size >> resident)) return 0;
    const long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? resident * uint64_t(page) : 0;
}
inline uint64_t peak_resident_memory_bytes() {
    rusage u{};
    return getrusage(RUSAGE_SELF, &u) == 0 ? uint64_t(u.ru_maxrss) * 1024 : 0;
}

// What the address-space limit (ulimit -v) leaves this process, or nothing
// when no limit is set.
inline std::optional<uint64_t> address_space_left_bytes() {
    rlimit r{};
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
    std::ifstream in("/proc/self/statm");
    uint64_t pages = 0;
    in >> pages;
    const long page = sysconf(_SC_PAGESIZE);
    const uint64_t used = page > 0 ? pages * uint64_t(page) : 0;
    return uint64_t(r.rlim_cur) > used ? uint64_t(r.rlim_cur) - used : 0;
}

inline std::string gigabytes(uint64_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f GB", double(bytes) / 1e9);
    return b;
}

// Throws std::runtime_error naming `what`, its size and the memory available
// when `bytes` would not fit (with a sixteenth kept back for everything else).
inline void check_fits(uint64_t bytes, const std::string& what) {
    const uint64_t available = available_memory_bytes();
    if (available == 0 || bytes <= available - available / 16) return;
    throw std::runtime_error(what + " needs " + gigabytes(bytes) + ", more than the " + gigabytes(available) +
                             " of memory this machine has available now; fix: run a smaller size (--size), or on a machine "
                             "with more memory");
}

} // namespace tk::host
