// The simulator's bank rule for shared atomics (sim/banks.h, analyze_atomic)
// against an H100's Nsight Compute counts for the same lane patterns
// (results/smem_atomics_h100.txt, written by scripts/gpu/smem_atomics.sh from
// bench/gpu/smem_atomics.cu): per warp atomic, the SASS instructions, the
// wavefronts and the wavefronts Nsight calls bank conflicts, within 5%.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/gpu/smem_atomic_patterns.h"
#include "sim/api.h"
#include "sim/banks.h"

using namespace tklab::sim;

namespace {

std::filesystem::path project_root() { return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path(); }

struct OpKind { AtomOp op; AtomType type; };
// bench/gpu/smem_atomic_patterns.h's op_name order.
constexpr OpKind kKinds[smem_atomics::kOps] = {
    {AtomOp::add, AtomType::u32}, {AtomOp::add, AtomType::u32}, {AtomOp::add, AtomType::f32}, {AtomOp::cas, AtomType::b32},
    {AtomOp::exch, AtomType::b32}, {AtomOp::max, AtomType::s32}, {AtomOp::add, AtomType::u32}, {AtomOp::add, AtomType::u32},
    {AtomOp::add, AtomType::f32}, {AtomOp::min, AtomType::u32}, {AtomOp::or_, AtomType::b32}, {AtomOp::xor_, AtomType::b32}};
constexpr double kWarpAtomics = 132.0 * 4 * 256;  // per launch: blocks x warps x iterations

bool near(double got, double want) { return std::abs(got - want) <= 0.05 * std::max(want, 1.0); }

} // namespace

TEST_CASE("shared atomics: the simulator's wavefronts are the H100's for every measured pattern and op", "[banks][atomics]") {
    std::ifstream in(project_root() / "results" / "smem_atomics_h100.txt");
    REQUIRE(in.good());
    int rows = 0;
    bool popc_increment = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# SASS", 0) == 0) popc_increment = line.find("ATOMS.POPC.INC") != std::string::npos;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream f(line);
        int id = -1;
        std::string kernel;
        double inst = 0, sass = 0, wave = 0, conflicts = 0;
        f >> id >> kernel >> inst >> sass >> wave >> conflicts;
        REQUIRE(f);
        const int op = id / smem_atomics::kPatterns, pattern = id % smem_atomics::kPatterns;
        REQUIRE(op < smem_atomics::kOps);
        ++rows;
        // red.add.u32 of the literal 1: ptxas makes it a population-count
        // increment that merges lanes on one word (not modelled, sim/banks.h).
        if (op == 1) continue;
        uint32_t addr[32];
        for (int l = 0; l < 32; ++l) addr[l] = 4 * smem_atomics::word_of(pattern, l);
        const BankAnalysis ba = analyze_atomic(0xffffffffu, addr, kKinds[op].op, kKinds[op].type);
        INFO(smem_atomics::op_name(op) << ", " << smem_atomics::pattern_name(pattern) << ": GPU " << inst / kWarpAtomics
                                       << " instructions, " << wave / kWarpAtomics << " wavefronts, " << conflicts / kWarpAtomics
                                       << " conflicts per warp atomic");
        CHECK(near(ba.instructions, inst / kWarpAtomics));
        CHECK(near(ba.wavefronts, wave / kWarpAtomics));
        CHECK(near(ba.conflicts(), conflicts / kWarpAtomics));
    }
    CHECK(rows == smem_atomics::kOps * smem_atomics::kPatterns);
    CHECK(popc_increment);  // the one exception is still what ptxas does
}
