// Tests for the panels' derived-data cache (visualizer/model/derived_cache.h):
// same trace and inputs reuse the value; another trace (even one at the
// address a closed trace had) or another input makes it again.
#include <catch2/catch.hpp>

#include "visualizer/model/derived_cache.h"
#include "visualizer/model/document.h"

#include <random>

using namespace tklab;
using tklab::view::DerivedCache;

namespace {

// A trace of a few launches and blocks of random events.
trace::Trace random_trace(std::mt19937& rng) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    trace::Trace t;
    t.launches.resize(size_t(pick(2, 3)));
    for (trace::Launch& l : t.launches) {
        l.block = {128, 1, 1};
        l.blocks.resize(size_t(pick(2, 4)));
        for (trace::Block& b : l.blocks) {
            b.timeline = true;
            uint64_t clock = 0;
            for (int i = pick(20, 200); i > 0; --i) {
                trace::Event e;
                e.warp = uint16_t(pick(0, 3));
                clock += uint64_t(pick(1, 40));
                e.issue = clock;
                b.events.push_back(e);
            }
        }
    }
    return t;
}

// What the cache holds in these tests: per warp, the sum of the block's issue cycles.
using PerWarp = std::vector<uint64_t>;
PerWarp per_warp(const trace::Trace& t, uint32_t l, uint32_t b) {
    PerWarp out(4, 0);
    for (const trace::Event& e : t.launches[l].blocks[b].events) out[e.warp] += e.issue;
    return out;
}

// The cache as a panel uses it, counting how often it had to make the value.
struct Counted {
    DerivedCache<PerWarp, uint32_t, uint32_t> cache;
    int made = 0;
    const PerWarp& get(const std::shared_ptr<const trace::Trace>& t, uint32_t l, uint32_t b) {
        return cache.get(t, l, b, [&] { ++made; return per_warp(*t, l, b); });
    }
};

} // namespace

TEST_CASE("derived cache: the same trace and inputs reuse the value, other inputs make it again", "[visualizer][cache]") {
    for (uint32_t seed : {1u, 2u, 3u}) {
        INFO("seed " << seed);
        std::mt19937 rng(seed);
        view::Document doc;
        doc.trace = std::make_shared<const trace::Trace>(random_trace(rng));
        const trace::Trace& t = *doc.trace;
        Counted c;

        const PerWarp& first = c.get(doc.trace, 0, 0);
        CHECK(first == per_warp(t, 0, 0));
        CHECK(c.made == 1);
        // The same inputs: the kept value, not a new one.
        CHECK(&c.get(doc.trace, 0, 0) == &first);
        CHECK(c.made == 1);
        // A copy of the document shares its trace: still the same source.
        const view::Document copy = doc;
        c.get(copy.trace, 0, 0);
        CHECK(c.made == 1);

        // Each input counts.
        CHECK(c.get(doc.trace, 0, 1) == per_warp(t, 0, 1));
        CHECK(c.made == 2);
        CHECK(c.get(doc.trace, 1, 1) == per_warp(t, 1, 1));
        CHECK(c.made == 3);
        // One value is kept: going back makes the first again, and it is right.
        CHECK(c.get(doc.trace, 0, 0) == per_warp(t, 0, 0));
        CHECK(c.made == 4);
    }
}

TEST_CASE("derived cache: a trace loaded where a closed one was is not taken for it", "[visualizer][cache]") {
    for (uint32_t seed : {4u, 5u, 6u}) {
        INFO("seed " << seed);
        std::mt19937 rng(seed);
        // One place in memory for both traces: the second is loaded exactly
        // where the first was, so only its ownership tells them apart.
        trace::Trace storage = random_trace(rng);
        auto keep_storage = [](const trace::Trace*) {};
        view::Document doc;
        doc.trace = std::shared_ptr<const trace::Trace>(&storage, keep_storage);
        Counted c;
        const PerWarp old_value = c.get(doc.trace, 1, 0);
        CHECK(old_value == per_warp(storage, 1, 0));

        doc = view::Document{};  // closed
        storage = random_trace(rng);
        doc.trace = std::shared_ptr<const trace::Trace>(&storage, keep_storage);
        REQUIRE(doc.trace.get() == &storage);
        REQUIRE(per_warp(storage, 1, 0) != old_value);  // else the test could not tell

        CHECK(c.get(doc.trace, 1, 0) == per_warp(storage, 1, 0));
        CHECK(c.made == 2);
        c.get(doc.trace, 1, 0);
        CHECK(c.made == 2);
    }
}

TEST_CASE("derived cache: a closed trace is not kept alive, and a null one is a source of its own", "[visualizer][cache]") {
    std::mt19937 rng(7);
    bool deleted = false;
    std::shared_ptr<const trace::Trace> t(new trace::Trace(random_trace(rng)),
                                          [&](const trace::Trace* p) { deleted = true; delete p; });
    Counted c;
    c.get(t, 0, 0);
    t.reset();
    CHECK(deleted);  // the cache's weak reference let it go

    // A document that could not be read has no trace: its value is kept like any other.
    DerivedCache<int> nulls;
    int made = 0;
    CHECK(nulls.get(nullptr, [&] { return ++made; }) == 1);
    CHECK(nulls.get(nullptr, [&] { return ++made; }) == 1);
    auto other = std::make_shared<const trace::Trace>(random_trace(rng));
    CHECK(nulls.get(other, [&] { return ++made; }) == 2);
    other.reset();
    CHECK(nulls.get(nullptr, [&] { return ++made; }) == 3);  // not the closed trace's value
}
