// Which kernel line a sampled instruction belongs to. Tile-library code is
// inlined into the kernel, so an instruction's own line is often inside tk/
// (tk/arch/mma.h:19) or CUDA's headers, the same for every kernel line that
// calls that op. nvcc -lineinfo keeps the inlining chain, and nvdisasm
// prints it (`-gi`): this reads that listing and picks, as the simulator
// does, the kernel line that called the tile op. CPU only.
#pragma once
#include <cstdint>
#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>
#include "profiler/decode/stall_samples.h"

namespace tklab::profiler {

// Per function (mangled), per instruction offset: the chain of source
// lines, innermost first (the line the instruction came from, then the line
// that function was inlined at, ..., the kernel's own line last).
using InlineTable = std::map<std::string, std::map<uint64_t, std::vector<SourceLine>>>;

// Reads `nvdisasm -gi -c` output. Lines it does not know are skipped; an
// instruction before any line information has an empty chain.
InlineTable parse_nvdisasm_lines(std::istream& in);

// The same output's CTA barriers that wait (BAR.SYNC, BAR.RED, predicated or
// not): per function (mangled), their offsets.
std::map<std::string, std::set<uint64_t>> parse_nvdisasm_barriers(std::istream& in);

// The kernel line of a chain: its innermost frame outside the tile library
// (`<root>/tk/`) and outside system and CUDA headers (a path with an
// `/include/` folder), else its outermost frame; `file` relative to `root`
// when under it. `inner_file`/`inner_line` keep the chain's innermost frame
// when it is another line. An empty chain gives an empty SourceLine.
SourceLine kernel_line_of(const std::vector<SourceLine>& chain, const std::string& root);

} // namespace tklab::profiler
