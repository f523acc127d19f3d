// Atomics (tk/arch/atomic.h and tk::atomic_add) against a plain CPU model of
// the PTX ISA's definition, on seeded random data (never zeros), in both
// builds. The bug finders stay on: every kernel here must also be free of
// races and reads of unwritten memory in the simulator.
//   - every op and type on a word of its own per lane, shared and global,
//     atom and red: the old value each lane gets and the new value, exactly;
//   - contended words: a histogram with shared atomics (many lanes on few
//     bins) summed into global memory, tickets (atom.add returns each value
//     once), min/max and exch on one word, a lock-free counter built from cas;
//   - split-K: tk::atomic_add of float register tiles from several blocks
//     into one output, against a fixed-order sum with a tolerance (the GPU's
//     order of the adds is its own).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>
#include "tk/tk.h"
#include "support/test_data.h"

namespace atomics_test {

using tk::arch::atomic_op;

template <typename T> TK_HOST_DEVICE uint32_t to_bits(T v) {
    if constexpr (std::is_same_v<T, float>) return tk::arch::f2u(v);
    else return static_cast<uint32_t>(v);
}
template <typename T> TK_HOST_DEVICE T from_bits(uint32_t u) {
    if constexpr (std::is_same_v<T, float>) return tk::arch::u2f(u);
    else return static_cast<T>(u);
}
TK_DEVICE uint32_t smem_base() { return tk::arch::smem_addr(tk::dynamic_shared_memory()); }

// ---- the CPU model

template <atomic_op Op, typename T>
T apply(T old, T b) {
    const uint32_t o = to_bits(old), v = to_bits(b);
    switch (Op) {
    case atomic_op::add:
        if constexpr (std::is_same_v<T, float>) return old + b;
        else return from_bits<T>(o + v);  // wraps, as the hardware does
    case atomic_op::min: return std::min(old, b);
    case atomic_op::max: return std::max(old, b);
    case atomic_op::exch: return b;
    case atomic_op::and_: return from_bits<T>(o & v);
    case atomic_op::or_: return from_bits<T>(o | v);
    case atomic_op::xor_: return from_bits<T>(o ^ v);
    }
    return old;
}

// Seeded values, never zero: full-range integers (negative ones for s32), floats in (-1, 1).
template <typename T>
std::vector<T> random_words(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<T> v(n);
    for (T& x : v) {
        if constexpr (std::is_same_v<T, float>) {
            do x = std::uniform_real_distribution<float>(-1.f, 1.f)(rng); while (x == 0.f);
        } else {
            do x = static_cast<T>(rng()); while (x == 0);
        }
    }
    return v;
}

template <typename T> std::string type_name() {
    return std::is_same_v<T, float> ? "f32" : std::is_same_v<T, int32_t> ? "s32" : "u32";
}
inline const char* op_text(atomic_op op) {
    switch (op) {
    case atomic_op::add: return "add";
    case atomic_op::min: return "min";
    case atomic_op::max: return "max";
    case atomic_op::exch: return "exch";
    case atomic_op::and_: return "and";
    case atomic_op::or_: return "or";
    case atomic_op::xor_: return "xor";
    }
    return "?";
}

// ---- one word per lane

// Lane l applies operand[l] to word l (in shared memory, staged from and back
// to mem; or mem itself); atom lanes write the old value to olds[l].
template <atomic_op Op, typename T, bool Shared, bool Returns>
__global__ void own_word_kernel(T* mem, const T* operand, T* olds) {
    const int l = int(threadIdx.x);
    T old{};
    if constexpr (Shared) {
        const uint32_t a = smem_base() + 4 * uint32_t(l);
        tk::arch::st_shared_b32(a, to_bits(mem[l]));
        if constexpr (Returns) old = tk::arch::atom_shared<Op>(a, operand[l]);
        else tk::arch::red_shared<Op>(a, operand[l]);
        mem[l] = from_bits<T>(tk::arch::ld_shared_b32(a));
    } else {
        if constexpr (Returns) old = tk::arch::atom_global<Op>(mem + l, operand[l]);
        else tk::arch::red_global<Op>(mem + l, operand[l]);
    }
    if constexpr (Returns) olds[l] = old;
}

template <atomic_op Op, typename T, bool Shared, bool Returns>
void check_own_word(uint32_t seed) {
    const auto init = random_words<T>(32, seed), operand = random_words<T>(32, seed + 1);
    std::vector<T> sentinel(32, T(7));
    tk::device_buffer<T> mem(32, init, "mem"), op(32, operand, "operand"), olds(32, sentinel, "olds");
    tk::launch("own_word", own_word_kernel<Op, T, Shared, Returns>, dim3(1), dim3(32), 128, mem.data(), (const T*)op.data(), olds.data());
    const auto got = mem.download(), got_old = olds.download();
    INFO((Returns ? "atom." : "red.") << (Shared ? "shared." : "global.") << op_text(Op) << "." << type_name<T>() << ", seed " << seed);
    for (int l = 0; l < 32; ++l) {
        INFO("lane " << l << ": old " << init[size_t(l)] << ", operand " << operand[size_t(l)]);
        CHECK(to_bits(got[size_t(l)]) == to_bits(apply<Op>(init[size_t(l)], operand[size_t(l)])));
        if (Returns) CHECK(to_bits(got_old[size_t(l)]) == to_bits(init[size_t(l)]));
        else CHECK(to_bits(got_old[size_t(l)]) == to_bits(T(7)));
    }
}

template <atomic_op Op, typename T>
void check_own_word_everywhere(uint32_t seed) {
    check_own_word<Op, T, true, true>(seed);
    check_own_word<Op, T, false, true>(seed + 10);
    if constexpr (Op != atomic_op::exch) {
        check_own_word<Op, T, true, false>(seed + 20);
        check_own_word<Op, T, false, false>(seed + 30);
    }
}

// cas on a word per lane: even lanes compare with the word's value (and swap), odd lanes with another (and do not).
template <bool Shared>
__global__ void own_word_cas_kernel(uint32_t* mem, const uint32_t* compare, const uint32_t* value, uint32_t* olds) {
    const int l = int(threadIdx.x);
    if constexpr (Shared) {
        const uint32_t a = smem_base() + 4 * uint32_t(l);
        tk::arch::st_shared_b32(a, mem[l]);
        olds[l] = tk::arch::atom_cas_shared(a, compare[l], value[l]);
        mem[l] = tk::arch::ld_shared_b32(a);
    } else {
        olds[l] = tk::arch::atom_cas_global(mem + l, compare[l], value[l]);
    }
}

template <bool Shared>
void check_own_word_cas(uint32_t seed) {
    const auto init = random_words<uint32_t>(32, seed), value = random_words<uint32_t>(32, seed + 1);
    std::vector<uint32_t> compare(init);
    for (size_t l = 1; l < 32; l += 2) compare[l] = init[l] + 1;
    tk::device_buffer<uint32_t> mem(32, init, "mem"), cmp(32, compare, "compare"), val(32, value, "value"), olds(32, "olds");
    tk::launch("own_word_cas", own_word_cas_kernel<Shared>, dim3(1), dim3(32), 128, mem.data(), (const uint32_t*)cmp.data(),
               (const uint32_t*)val.data(), olds.data());
    const auto got = mem.download(), got_old = olds.download();
    INFO((Shared ? "atom.shared.cas.b32" : "atom.global.cas.b32") << ", seed " << seed);
    for (size_t l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(got_old[l] == init[l]);
        CHECK(got[l] == (l % 2 == 0 ? value[l] : init[l]));
    }
}

// ---- contended words

// A histogram of keys[0..n) into `bins` bins: each block counts its slice
// in shared memory (red.shared.add, many lanes on a few bins), then adds its
// counts into hist (red.global.add).
__global__ void histogram_kernel(const uint32_t* keys, int n, int bins, uint32_t* hist) {
    const uint32_t base = smem_base();
    for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x)) tk::arch::st_shared_b32(base + 4 * uint32_t(b), 0u);
    tk::arch::syncthreads();
    const int per_block = (n + int(gridDim.x) - 1) / int(gridDim.x);
    const int lo = int(blockIdx.x) * per_block, hi = std::min(n, lo + per_block);
    for (int i = lo + int(threadIdx.x); i < hi; i += int(blockDim.x))
        tk::arch::red_shared<atomic_op::add>(base + 4 * (keys[i] % uint32_t(bins)), 1u);
    tk::arch::syncthreads();
    for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x))
        tk::arch::red_global<atomic_op::add>(hist + b, tk::arch::ld_shared_b32(base + 4 * uint32_t(b)));
}

void check_histogram(int n, int bins, int blocks, int threads, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> keys(static_cast<size_t>(n));
    for (uint32_t& k : keys) k = rng() % 2 ? 0u : rng();  // half the keys fall in bin 0
    std::vector<uint32_t> init(static_cast<size_t>(bins));
    for (uint32_t& h : init) h = 1 + rng() % 1000;
    std::vector<uint32_t> want(init);
    for (uint32_t k : keys) ++want[k % uint32_t(bins)];
    tk::device_buffer<uint32_t> dkeys(size_t(n), keys, "keys"), hist(size_t(bins), init, "hist");
    tk::launch("histogram", histogram_kernel, dim3(unsigned(blocks)), dim3(unsigned(threads)), size_t(4 * bins),
               (const uint32_t*)dkeys.data(), n, bins, hist.data());
    INFO(n << " keys, " << bins << " bins, " << blocks << " blocks of " << threads << " threads");
    CHECK(hist.download() == want);
}

// Every thread takes a ticket from a shared counter (per block) and from a
// global one: atom.add returns each value exactly once.
__global__ void ticket_kernel(uint32_t* counter, uint32_t* shared_tickets, uint32_t* global_tickets, uint32_t shared_start) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, shared_start);
    tk::arch::syncthreads();
    const int t = int(blockIdx.x * blockDim.x + threadIdx.x);
    shared_tickets[t] = tk::arch::atom_shared<atomic_op::add>(base, 1u);
    global_tickets[t] = tk::arch::atom_global<atomic_op::add>(counter, 1u);
}

void check_tickets(int blocks, int threads, uint32_t seed) {
    std::mt19937 rng(seed);
    const uint32_t shared_start = 1 + rng() % 100000, global_start = 1 + rng() % 100000;
    const size_t n = size_t(blocks) * size_t(threads);
    tk::device_buffer<uint32_t> counter(1, std::vector<uint32_t>{global_start}, "counter"), st(n, "shared_tickets"), gt(n, "global_tickets");
    tk::launch("tickets", ticket_kernel, dim3(unsigned(blocks)), dim3(unsigned(threads)), 64, counter.data(), st.data(), gt.data(), shared_start);
    INFO(blocks << " blocks of " << threads << " threads");
    auto s = st.download(), g = gt.download();
    for (int b = 0; b < blocks; ++b) {
        std::vector<uint32_t> mine(s.begin() + long(b) * threads, s.begin() + long(b + 1) * threads);
        std::sort(mine.begin(), mine.end());
        for (int i = 0; i < threads; ++i) CHECK(mine[size_t(i)] == shared_start + uint32_t(i));
    }
    std::sort(g.begin(), g.end());
    for (size_t i = 0; i < n; ++i) CHECK(g[i] == global_start + uint32_t(i));
    CHECK(counter.download()[0] == global_start + uint32_t(n));
}

// Every thread applies v[t] to one shared word (per block) and one global
// word, keeping the old values; thread 0 of each block reports the shared word.
template <atomic_op Op, typename T>
__global__ void one_word_kernel(const T* v, T* word, T* shared_olds, T* global_olds, T shared_init, T* shared_final) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, to_bits(shared_init));
    tk::arch::syncthreads();
    const int t = int(blockIdx.x * blockDim.x + threadIdx.x);
    shared_olds[t] = tk::arch::atom_shared<Op>(base, v[t]);
    global_olds[t] = tk::arch::atom_global<Op>(word, v[t]);
    tk::arch::syncthreads();
    if (threadIdx.x == 0) shared_final[blockIdx.x] = from_bits<T>(tk::arch::ld_shared_b32(base));
}

// What one word's old values and final value must satisfy, whatever order
// the atomics took: they form one chain from the initial value to the final
// one, each thread's step taking the word from its old value to
// apply(old, v) -- so {init} + {apply(old_t, v_t)} and {old_t} + {final} are
// the same multiset. Add, min and max also end at the fold of every value.
template <atomic_op Op, typename T>
void check_one_word_history(T init, const std::vector<T>& v, const std::vector<T>& olds, T final_value) {
    std::vector<uint32_t> before{to_bits(final_value)}, after{to_bits(init)};
    for (size_t t = 0; t < v.size(); ++t) {
        before.push_back(to_bits(olds[t]));
        after.push_back(to_bits(apply<Op>(olds[t], v[t])));
    }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    CHECK(before == after);
    if constexpr (Op != atomic_op::exch) {
        T want = init;
        for (T x : v) want = apply<Op>(want, x);
        CHECK(to_bits(final_value) == to_bits(want));
    }
}

template <atomic_op Op, typename T>
void check_one_word(int blocks, int threads, uint32_t seed) {
    const size_t n = size_t(blocks) * size_t(threads);
    const auto v = random_words<T>(n, seed);
    const auto inits = random_words<T>(2, seed + 1);
    tk::device_buffer<T> dv(n, v, "v"), word(1, std::vector<T>{inits[1]}, "word"), so(n, "shared_olds"), go(n, "global_olds"),
        sf(size_t(blocks), "shared_final");
    tk::launch("one_word", one_word_kernel<Op, T>, dim3(unsigned(blocks)), dim3(unsigned(threads)), 64, (const T*)dv.data(), word.data(),
               so.data(), go.data(), inits[0], sf.data());
    INFO(op_text(Op) << "." << type_name<T>() << " on one word: " << blocks << " blocks of " << threads << " threads, seed " << seed);
    const auto s_olds = so.download(), g_olds = go.download(), s_final = sf.download();
    for (int b = 0; b < blocks; ++b) {
        INFO("shared word of block " << b);
        const auto lo = long(b) * threads, hi = long(b + 1) * threads;
        check_one_word_history<Op>(inits[0], std::vector<T>(v.begin() + lo, v.begin() + hi), std::vector<T>(s_olds.begin() + lo, s_olds.begin() + hi),
                                   s_final[size_t(b)]);
    }
    INFO("the global word");
    check_one_word_history<Op>(inits[1], v, g_olds, word.download()[0]);
}

// A counter built from cas alone: each thread adds v[t] by reading, then
// swapping in the sum if nobody changed it meanwhile (else retrying).
__global__ void cas_counter_kernel(const uint32_t* v, uint32_t* counter, uint32_t* shared_totals, uint32_t shared_start) {
    const uint32_t base = smem_base();
    if (threadIdx.x == 0) tk::arch::st_shared_b32(base, shared_start);
    tk::arch::syncthreads();
    const uint32_t mine = v[blockIdx.x * blockDim.x + threadIdx.x];
    uint32_t guess = 0;
    for (;;) {
        const uint32_t seen = tk::arch::atom_cas_shared(base, guess, guess + mine);
        if (seen == guess) break;
        guess = seen;
    }
    guess = 0;
    for (;;) {
        const uint32_t seen = tk::arch::atom_cas_global(counter, guess, guess + mine);
        if (seen == guess) break;
        guess = seen;
    }
    tk::arch::syncthreads();
    if (threadIdx.x == 0) shared_totals[blockIdx.x] = tk::arch::ld_shared_b32(base);
}

void check_cas_counter(int blocks, int threads, uint32_t seed) {
    std::mt19937 rng(seed);
    const size_t n = size_t(blocks) * size_t(threads);
    std::vector<uint32_t> v(n);
    for (uint32_t& x : v) x = 1 + rng() % 1000;
    const uint32_t shared_start = 1 + rng() % 1000, global_start = 1 + rng() % 1000;
    tk::device_buffer<uint32_t> dv(n, v, "v"), counter(1, std::vector<uint32_t>{global_start}, "counter"), totals(size_t(blocks), "totals");
    tk::launch("cas_counter", cas_counter_kernel, dim3(unsigned(blocks)), dim3(unsigned(threads)), 64, (const uint32_t*)dv.data(), counter.data(),
               totals.data(), shared_start);
    INFO(blocks << " blocks of " << threads << " threads");
    const auto t = totals.download();
    uint32_t all = global_start;
    for (int b = 0; b < blocks; ++b) {
        uint32_t want = shared_start;
        for (int i = 0; i < threads; ++i) want += v[size_t(b) * size_t(threads) + size_t(i)];
        CHECK(t[size_t(b)] == want);
        all += want - shared_start;
    }
    CHECK(counter.download()[0] == all);
}

// ---- split-K: tk::atomic_add of register tiles

// Block s adds slice s of `parts` (batch index s) into `out`, one tile per warp at a time.
template <typename RT>
__global__ void split_k_kernel(tk::gl<float> parts, tk::gl<float> out) {
    const int s = int(blockIdx.x);
    const int tiles_r = out.rows / RT::rows, tiles_c = out.cols / RT::cols;
    for (int t = tk::warpid(); t < tiles_r * tiles_c; t += int(blockDim.x) / 32) {
        RT x;
        tk::load(x, parts, {s, 0, t / tiles_c, t % tiles_c});
        tk::atomic_add(out, x, {0, 0, t / tiles_c, t % tiles_c});
    }
}

template <typename RT>
void check_split_k(int slices, int rows, int cols, int warps, uint32_t seed) {
    const size_t n = size_t(rows) * size_t(cols);
    const auto parts = tktest::random_values<float>(n * size_t(slices), seed);
    const auto init = tktest::random_values<float>(n, seed + 1);
    tk::device_buffer<float> dparts(parts.size(), parts, "parts"), out(n, init, "out");
    tk::launch("split_k", split_k_kernel<RT>, dim3(unsigned(slices)), dim3(unsigned(32 * warps)), 0,
               tk::gl<float>(dparts.data(), slices, 1, rows, cols), tk::gl<float>(out.data(), 1, 1, rows, cols));
    const auto got = out.download();
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; ++i) {
        double want = init[i], scale = std::fabs(init[i]);
        for (int s = 0; s < slices; ++s) {
            want += parts[size_t(s) * n + i];
            scale += std::fabs(parts[size_t(s) * n + i]);
        }
        // float adds in any order: each rounding is within 2^-24 of what it has summed so far
        if (std::fabs(double(got[i]) - want) > 1e-6 * scale * slices && bad++ == 0) first = i;
    }
    INFO(slices << " slices of " << rows << "x" << cols << ", " << RT::rows << "x" << RT::cols << (RT::layout::is_row ? " row" : " col")
                << " tiles, " << warps << " warps; " << bad << " wrong, first at " << first << ": got " << got[first]);
    CHECK(bad == 0);
}

} // namespace atomics_test

using namespace atomics_test;

TEST_CASE("atomics: every op and type, one word per lane, shared and global, atom and red", "[tk][atomics]") {
    check_own_word_everywhere<atomic_op::add, uint32_t>(701);
    check_own_word_everywhere<atomic_op::add, int32_t>(702);
    check_own_word_everywhere<atomic_op::add, float>(703);
    check_own_word_everywhere<atomic_op::min, uint32_t>(704);
    check_own_word_everywhere<atomic_op::min, int32_t>(705);
    check_own_word_everywhere<atomic_op::max, uint32_t>(706);
    check_own_word_everywhere<atomic_op::max, int32_t>(707);
    check_own_word_everywhere<atomic_op::exch, uint32_t>(708);
    check_own_word_everywhere<atomic_op::exch, float>(709);
    check_own_word_everywhere<atomic_op::and_, uint32_t>(710);
    check_own_word_everywhere<atomic_op::or_, uint32_t>(711);
    check_own_word_everywhere<atomic_op::xor_, int32_t>(712);
    check_own_word_cas<true>(713);
    check_own_word_cas<false>(714);
}

TEST_CASE("atomics: a histogram with shared atomics, summed into global memory", "[tk][atomics]") {
    check_histogram(1000, 1, 1, 32, 721);     // every lane on one bin
    check_histogram(1000, 7, 1, 64, 722);
    check_histogram(4096, 64, 3, 128, 723);
    check_histogram(5000, 256, 4, 96, 724);
}

TEST_CASE("atomics: atom.add hands out every ticket once, in shared and global memory", "[tk][atomics]") {
    check_tickets(1, 32, 731);
    check_tickets(2, 96, 732);
    check_tickets(4, 256, 733);
}

TEST_CASE("atomics: min, max, exch and add on one contended word", "[tk][atomics]") {
    check_one_word<atomic_op::min, uint32_t>(1, 32, 741);
    check_one_word<atomic_op::min, int32_t>(3, 64, 742);
    check_one_word<atomic_op::max, uint32_t>(2, 128, 743);
    check_one_word<atomic_op::max, int32_t>(1, 96, 744);
    check_one_word<atomic_op::exch, uint32_t>(1, 32, 745);
    check_one_word<atomic_op::exch, int32_t>(3, 64, 746);
    check_one_word<atomic_op::add, uint32_t>(2, 64, 747);
}

TEST_CASE("atomics: a lock-free counter from atom.cas", "[tk][atomics]") {
    check_cas_counter(1, 32, 751);
    check_cas_counter(2, 64, 752);
    check_cas_counter(3, 128, 753);
}

TEST_CASE("atomics: split-K partial sums added into one output with tk::atomic_add", "[tk][atomics]") {
    check_split_k<tk::rt<float, 16, 32>>(4, 16, 32, 1, 761);
    check_split_k<tk::rt<float, 16, 32>>(7, 48, 64, 2, 762);
    check_split_k<tk::rt<float, 32, 16, tk::col_l>>(3, 64, 32, 4, 763);
}
