// What the simulator says when a kernel goes wrong: fault messages (the
// problem, the kernel line, who, and the fix), the bug finders' race and
// uninitialised-read reports, and the block-level verdicts (deadlock with its
// wait-for picture, divergence, an endless loop, barriers and transaction
// counts left unsettled). Each throws a SimError.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "sim/bug_finders/shared_shadow.h"
#include "sim/cuda_shim.h"
#include "sim/simulator.h"

namespace tklab::sim {

struct Block;
struct Thread;
struct Warp;

std::string block_name(const dim3& b);
std::string where(const Thread& t);          // "block (x,y,z) warp w lane l"
std::string line_of(const char* file, int line);
std::string hex(uint64_t v);
std::string warp_list(uint64_t mask);        // "warps 0-3, 6"
std::string lane_list(uint32_t mask);        // "lanes 1-31", "lane 0"

[[noreturn]] void fault_at(const char* file, int line, const std::string& who, const std::string& what, const std::string& fix,
                           ErrorKind kind = ErrorKind::fault);
// A fault at the thread's kernel line.
[[noreturn]] void fault(const Thread& t, const std::string& what, const std::string& fix);
// A misuse of a barrier or mbarrier: the same report, its own kind.
[[noreturn]] void fault_kind(ErrorKind kind, const Thread& t, const std::string& what, const std::string& fix);

// A finding names instructions by site: the event's location id and its op.
inline uint32_t make_site(uint32_t loc, Op op) { return (loc << 8) | uint32_t(op); }
std::pair<const char*, int> site_line(const Block& b, uint32_t site);

// Block-level verdicts, from the scheduler.
[[noreturn]] void report_deadlock(const Block& b);
// Every warp still running polls mbarriers (test_wait) that nothing can complete.
[[noreturn]] void report_livelock(const Block& b);
[[noreturn]] void report_instruction_limit(const Block& b);
[[noreturn]] void report_divergence(const Warp& w, int groups, const uint32_t* mask, const int* lane, bool needs_exited);
// After the block: barriers still half-arrived.
void check_barriers_settled(const Block& b);

} // namespace tklab::sim
