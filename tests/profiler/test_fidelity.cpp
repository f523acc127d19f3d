// The fidelity report: a simulator trace's shared-memory totals beside a GPU
// trace's hardware counters, paired per launch, compared per kind.
#include <catch2/catch.hpp>
#include <random>
#include <sstream>
#include "profiler/decode/fidelity.h"
#include "trace/gpu_metrics.h"

using tklab::profiler::compare_fidelity;
using tklab::profiler::Fidelity;
using tklab::profiler::FidelityRow;

namespace {

namespace m = tklab::trace::gpu_metrics;

tklab::trace::SmemTotals totals(uint64_t instructions, uint64_t wavefronts, uint64_t ideal) {
    tklab::trace::SmemTotals t;
    t.instructions = instructions;
    t.wavefronts = wavefronts;
    t.ideal = ideal;
    return t;
}

struct Pair {
    tklab::trace::Trace sim, gpu;
};

// A simulator launch with seeded random totals, and a GPU record that counts
// exactly the same, so each test changes one thing.
Pair matching_pair(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<uint64_t> n(1, 5000);
    Pair p;
    for (auto* t : {&p.sim, &p.gpu}) {
        t->program = "lesson04";
        t->variant = "solution";
        t->problem = {{"R", 64}, {"C", 64}};
        t->seed = 1;
    }
    p.sim.producer = "tklab simulator";
    p.gpu.producer = "tklab profiler";
    p.sim.ops = {"ld.shared", "cp.async"};
    tklab::trace::Summary s;
    const uint64_t lds = n(rng), ldsm = n(rng), sts = n(rng), cp = n(rng);
    s.ld_shared = totals(lds, lds * 2, lds);       // 2-way
    s.ldmatrix = totals(ldsm, ldsm * 4, ldsm * 4);  // clean x4
    s.st_shared = totals(sts, sts * 8, sts * 2);   // 4-way on 64-bit stores
    s.by_op = {lds, cp};
    tklab::trace::Launch l;
    l.kernel = "lesson04";
    l.summary = s;
    p.sim.launches.push_back(l);
    tklab::trace::GpuCounters c;
    c.kernel = "void lesson04::solution::kernel(tk::gl<float>, tk::gl<float>)";
    c.metrics = {
        {m::kLdsInstructions, double(lds)},
        {m::kLdsmInstructions, double(ldsm)},
        {m::kStsInstructions, double(sts)},
        {m::kStsmInstructions, 0},
        {m::kLdgstsInstructions, double(cp)},
        {m::kLoadWavefronts, double(lds * 2 + ldsm * 4)},
        {m::kLoadConflicts, double(lds)},
        {m::kStoreWavefronts, double(sts * 8)},
        {m::kStoreConflicts, double(sts * 6)},
    };
    p.gpu.gpu_counters.push_back(c);
    return p;
}

const FidelityRow& row(const Fidelity& f, const std::string& kind, const std::string& quantity) {
    for (const FidelityRow& r : f.launches.at(0).rows)
        if (r.kind.rfind(kind, 0) == 0 && r.quantity == quantity) return r;
    FAIL("no row " << kind << " / " << quantity);
    throw 0;
}

} // namespace

TEST_CASE("fidelity: identical counts are equal in every row", "[profiler][fidelity]") {
    for (unsigned seed = 1; seed <= 5; ++seed) {
        const Pair p = matching_pair(seed);
        const Fidelity f = compare_fidelity(p.sim, p.gpu);
        INFO("seed " << seed);
        CHECK(f.warnings.empty());
        REQUIRE(f.launches.size() == 1);
        CHECK(f.rows == 9);
        CHECK(f.equal_rows == 9);
        CHECK(row(f, "loads", "bank conflicts").sim == row(f, "LDS", "instructions").sim);
    }
}

TEST_CASE("fidelity: a difference is found in its own row only", "[profiler][fidelity]") {
    Pair p = matching_pair(7);
    p.gpu.gpu_counters[0].metrics[m::kStoreConflicts] += 32;
    const Fidelity f = compare_fidelity(p.sim, p.gpu);
    CHECK(f.equal_rows == f.rows - 1);
    CHECK_FALSE(row(f, "stores", "bank conflicts").equal());
    CHECK(row(f, "stores", "wavefronts").equal());
    std::ostringstream out;
    tklab::profiler::write_fidelity(out, f);
    CHECK_THAT(out.str(), Catch::Contains("8 of 9 figures equal"));
    CHECK_THAT(out.str(), Catch::Contains("GPU +"));
    std::istringstream lines(out.str());
    for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);
}

TEST_CASE("fidelity: a metric the GPU did not measure is not counted as a difference", "[profiler][fidelity]") {
    Pair p = matching_pair(3);
    p.gpu.gpu_counters[0].metrics.erase(m::kLdgstsInstructions);
    const Fidelity f = compare_fidelity(p.sim, p.gpu);
    CHECK_FALSE(row(f, "LDGSTS", "instructions").gpu.has_value());
    CHECK(f.rows == 8);
    CHECK(f.equal_rows == 8);
    std::ostringstream out;
    tklab::profiler::write_fidelity(out, f);
    CHECK_THAT(out.str(), Catch::Contains("not measured"));
}

TEST_CASE("fidelity: mismatched runs are said, launches paired in order", "[profiler][fidelity]") {
    Pair p = matching_pair(4);
    p.gpu.problem = {{"R", 128}, {"C", 64}};
    p.gpu.gpu_counters.push_back(p.gpu.gpu_counters[0]);
    const Fidelity f = compare_fidelity(p.sim, p.gpu);
    REQUIRE(f.launches.size() == 2);
    CHECK(f.launches[1].problem == "no simulator launch to pair with");
    bool sizes = false, counts = false;
    for (const auto& w : f.warnings) {
        sizes = sizes || w.find("different sizes") != std::string::npos;
        counts = counts || w.find("1 launches in the simulator, 2 profiled") != std::string::npos;
    }
    CHECK(sizes);
    CHECK(counts);

    Pair q = matching_pair(5);
    q.gpu.gpu_counters.clear();
    const Fidelity g = compare_fidelity(q.sim, q.gpu);
    CHECK(g.rows == 0);
    REQUIRE_FALSE(g.warnings.empty());
    CHECK_THAT(g.warnings[0], Catch::Contains("--profile counters"));
}
