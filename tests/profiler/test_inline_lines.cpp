// Stall samples on the kernel's line: nvdisasm -gi's inlining chains read
// back, the kernel line picked as the simulator names it (the line that
// called the tile op, not tk/arch's), paths made relative to the project,
// and the samples summed by kernel line with each instruction's own line kept
// beside them, through the trace file.
#include <catch2/catch.hpp>

#include "profiler/decode/inline_lines.h"
#include "profiler/decode/stall_samples.h"
#include "trace/codec.h"

#include <filesystem>
#include <sstream>
#include <set>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tklab::profiler::SourceLine;

// What `nvdisasm -gi -c` prints for a kernel built with -lineinfo, cut down:
// a load inlined through two tile-library headers into kernel line 8, an
// instruction of the kernel's own line 3, and an mma through tk/arch into
// kernel line 10; one instruction after a CUDA header's line.
const char* kListing = R"listing(	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
//--------------------- .text._Z4kernPf --------------------------
	.section	.text._Z4kernPf,"ax",@progbits
        .global         _Z4kernPf
_Z4kernPf:
.text._Z4kernPf:
	//## File "/src/proj/kernels/k.cu", line 3
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/src/proj/tk/common/indices.h", line 6 inlined at "/src/proj/tk/ops/warp/memory/load.h", line 28
	//## File "/src/proj/tk/ops/warp/memory/load.h", line 28 inlined at "/src/proj/kernels/k.cu", line 8
	//## File "/src/proj/kernels/k.cu", line 8
        /*0010*/                   S2R R0, SR_TID.Y ;
        /*0020*/                   ULDC UR4, c[0x0][0x0] ;
	//## File "/src/proj/tk/arch/mma.h", line 19 inlined at "/src/proj/tk/ops/warp/register/mma.h", line 40
	//## File "/src/proj/tk/ops/warp/register/mma.h", line 40 inlined at "/src/proj/kernels/k.cu", line 10
	//## File "/src/proj/kernels/k.cu", line 10
        /*01a0*/                   HMMA.16816.F32.BF16 R8, R4, R2, R8 ;
	//## File "/usr/local/cuda/include/cuda_bf16.hpp", line 700 inlined at "/src/proj/kernels/k.cu", line 11
	//## File "/src/proj/kernels/k.cu", line 11
        /*01b0*/                   F2FP.BF16.F32.PACK_AB R3, R9, R8 ;
        /*01c0*/                   EXIT ;
.L_x_0:
        /*01d0*/                   BRA `(.L_x_0);
)listing";

} // namespace

TEST_CASE("inline lines: nvdisasm's chains are read per function and instruction, innermost first", "[profiler][stalls]") {
    std::istringstream in(kListing);
    const auto table = tklab::profiler::parse_nvdisasm_lines(in);
    REQUIRE(table.count("_Z4kernPf") == 1);
    const auto& f = table.at("_Z4kernPf");
    REQUIRE(f.count(0x10) == 1);
    const std::vector<SourceLine> load = f.at(0x10);
    REQUIRE(load.size() == 3);
    CHECK(load[0] == SourceLine{"/src/proj/tk/common/indices.h", 6});
    CHECK(load[1] == SourceLine{"/src/proj/tk/ops/warp/memory/load.h", 28});
    CHECK(load[2] == SourceLine{"/src/proj/kernels/k.cu", 8});
    CHECK(f.at(0x20) == load);  // the chain holds until the next line information
    CHECK(f.at(0x0) == std::vector<SourceLine>{{"/src/proj/kernels/k.cu", 3}});
    CHECK(f.at(0x1a0).front() == SourceLine{"/src/proj/tk/arch/mma.h", 19});
    CHECK(f.at(0x1d0).back() == SourceLine{"/src/proj/kernels/k.cu", 11});  // after a label
    CHECK(f.size() == 7);
}

TEST_CASE("inline lines: the CTA barriers that wait are found per function, predicated or not", "[profiler][stalls]") {
    const std::string listing = R"listing(.text._Z4kernPf:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0020*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;
        /*0030*/              @!P0 BAR.SYNC 0x1, 0x80 ;
        /*0040*/                   BAR.ARV 0x2, 0x80 ;
.text._Z5otherv:
        /*0000*/                   BAR.RED.POPC.DEFER_BLOCKING 0x0, P0 ;
        /*0010*/                   EXIT ;
)listing";
    std::istringstream in(listing);
    const auto bars = tklab::profiler::parse_nvdisasm_barriers(in);
    // BAR.ARV arrives without waiting; a warpgroup's dependency barrier is no CTA barrier.
    CHECK(bars.at("_Z4kernPf") == std::set<uint64_t>{0x10, 0x30});
    CHECK(bars.at("_Z5otherv") == std::set<uint64_t>{0x0});
    std::istringstream none(kListing);
    CHECK(tklab::profiler::parse_nvdisasm_barriers(none).at("_Z4kernPf").empty());
}

TEST_CASE("inline lines: the kernel line is the call into the tile library, relative to the project", "[profiler][stalls]") {
    std::istringstream in(kListing);
    const auto table = tklab::profiler::parse_nvdisasm_lines(in);
    const auto& f = table.at("_Z4kernPf");
    const std::string root = "/src/proj";
    // mma.h:19 in tk/arch, inlined from the kernel's line 10: the kernel line, with the inner one kept.
    const SourceLine mma = tklab::profiler::kernel_line_of(f.at(0x1a0), root);
    CHECK(mma.file == "kernels/k.cu");
    CHECK(mma.line == 10);
    CHECK(mma.inner_file == "tk/arch/mma.h");
    CHECK(mma.inner_line == 19);
    // A CUDA header is library code too.
    const SourceLine pack = tklab::profiler::kernel_line_of(f.at(0x1b0), root);
    CHECK(pack == SourceLine{"kernels/k.cu", 11, "/usr/local/cuda/include/cuda_bf16.hpp", 700});
    // The kernel's own line: no inner line.
    CHECK(tklab::profiler::kernel_line_of(f.at(0x0), root) == SourceLine{"kernels/k.cu", 3});
    // Code entirely inside the tile library: its outermost frame.
    CHECK(tklab::profiler::kernel_line_of({{"/src/proj/tk/a.h", 1}, {"/src/proj/tk/b.h", 2}}, root) ==
          SourceLine{"tk/b.h", 2, "tk/a.h", 1});
    // Without a root, paths stay as they are.
    CHECK(tklab::profiler::kernel_line_of(f.at(0x0), "").file == "/src/proj/kernels/k.cu");
    CHECK(tklab::profiler::kernel_line_of({}, root) == SourceLine{});
}

TEST_CASE("inline lines: samples summed by kernel line, each instruction's own line kept, through the trace file", "[profiler][stalls][trace]") {
    using tklab::profiler::PcKey;
    std::istringstream in(kListing);
    const auto table = tklab::profiler::parse_nvdisasm_lines(in);
    const auto& f = table.at("_Z4kernPf");
    tklab::profiler::LineTable lines;
    for (uint64_t pc : {0x0, 0x10, 0x1a0, 0x1b0}) lines[PcKey{7, "_Z4kernPf", pc}] = tklab::profiler::kernel_line_of(f.at(pc), "/src/proj");
    const std::vector<tklab::profiler::RawPcSample> samples = {
        {7, 0x10, "_Z4kernPf", {{"smsp__pcsamp_warps_issue_stalled_long_scoreboard", 40}}},
        {7, 0x1a0, "_Z4kernPf", {{"smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", 25}, {"smsp__pcsamp_warps_issue_stalled_selected", 5}}},
        {7, 0x1b0, "_Z4kernPf", {{"smsp__pcsamp_warps_issue_stalled_selected", 3}}},
        {7, 0x0, "_Z4kernPf", {{"smsp__pcsamp_warps_issue_stalled_selected", 2}}},
    };
    const auto kernels = tklab::profiler::aggregate_stall_samples(samples, lines, {4096, 0});
    REQUIRE(kernels.size() == 1);
    const tklab::trace::GpuStalls& s = kernels[0].stalls;
    CHECK(s.samples == 75);
    auto samples_at = [](const std::vector<tklab::trace::GpuStallSite>& v, const std::string& file, uint32_t line) {
        uint64_t n = 0;
        for (const auto& x : v) n += x.file == file && x.line == line ? x.samples : 0;
        return n;
    };
    CHECK(samples_at(s.sites, "kernels/k.cu", 8) == 40);
    CHECK(samples_at(s.sites, "kernels/k.cu", 10) == 30);
    CHECK(samples_at(s.sites, "kernels/k.cu", 11) == 3);
    CHECK(samples_at(s.sites, "tk/arch/mma.h", 19) == 0);
    CHECK(samples_at(s.inner_sites, "tk/arch/mma.h", 19) == 30);
    CHECK(samples_at(s.inner_sites, "tk/common/indices.h", 6) == 40);
    CHECK(samples_at(s.inner_sites, "kernels/k.cu", 3) == 2);
    // Both tables through both encodings.
    tklab::trace::Trace t;
    t.producer = "tklab profiler";
    t.arch = {{"gpu", true}};
    t.stalls = {"none"};
    t.files = {tklab::trace::SourceFile{}};
    t.locations = {tklab::trace::Location{}};
    t.op_names = {std::string{}};
    tklab::profiler::add_to_trace(t, kernels);
    for (const char* ext : {".json", ".cbor"}) {
        const std::string path = (fs::temp_directory_path() / ("tklab_inline_" + std::to_string(::getpid()) + ext)).string();
        tklab::trace::write_trace(path, t);
        const auto back = tklab::trace::load_trace(path);
        CHECK(back.trace.gpu_stalls == t.gpu_stalls);
        CHECK(back.trace.gpu_stalls.at(0).inner_sites.size() == s.inner_sites.size());
        fs::remove(path);
    }
}
