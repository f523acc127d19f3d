// The instruction layer's data semantics, one instruction at a time, against a
// plain CPU model of the PTX ISA's definition, on seeded random data:
//   ldmatrix / stmatrix .x1/.x2/.x4 (.trans) with scattered row addresses,
//   mma.sync m16n8k16 (f16 and bf16) with hand-built fragments,
//   ld/st.shared and ld/st.global of 32/64/128 bits and 16 bits (and the streaming hint),
//   ex2.approx.ftz.
// Each kernel is one warp. Data gets in and out of shared memory through plain
// C++ (not through the instructions under test), so a wrong result points at
// the instruction. Memory images are compared whole: a stray write shows too.
// (shfl and cp.async have their own tests.)
#include "support/bug_finders_off.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>
#include "tk/tk.h"
#include "support/test_data.h"

namespace tkarch_test {

// Shared memory the matrix tests scatter their rows over, and the arena the
// plain load/store tests use (bytes; multiples of 16).
constexpr int kMatrixArena = 4096;
constexpr int kArena = 2048;

// ---- kernels ------------------------------------------------------------------------------

// Copies `words` 32-bit words between global memory and the start of dynamic
// shared memory with plain C++ accesses.
__device__ void image_to_shared(const uint32_t* image, int words) {
    uint32_t* s = reinterpret_cast<uint32_t*>(tk::dynamic_shared_memory());
    for (int i = int(threadIdx.x); i < words; i += 32) s[i] = image[i];
}
__device__ void shared_to_image(uint32_t* image, int words) {
    const uint32_t* s = reinterpret_cast<const uint32_t*>(tk::dynamic_shared_memory());
    for (int i = int(threadIdx.x); i < words; i += 32) image[i] = s[i];
}

// Lane l passes the shared address base + offsets[l]; writes its N registers to out[l*N ..].
template <int N, bool Trans>
__global__ void ldmatrix_kernel(const uint32_t* image, const uint32_t* offsets, uint32_t* out) {
    const int lane = int(threadIdx.x);
    image_to_shared(image, kMatrixArena / 4);
    tk::arch::syncwarp();
    uint32_t r[N];
    tk::arch::ldmatrix<N, Trans>(r, tk::arch::smem_addr(tk::dynamic_shared_memory()) + offsets[lane]);
    for (int i = 0; i < N; ++i) out[lane * N + i] = r[i];
}

// Shared memory starts as `image`; lane l stores regs[l*N ..] with address
// base + offsets[l]; the whole of shared memory comes back in out_image.
template <int N, bool Trans>
__global__ void stmatrix_kernel(const uint32_t* image, const uint32_t* offsets, const uint32_t* regs, uint32_t* out_image) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    const int lane = int(threadIdx.x);
    image_to_shared(image, kMatrixArena / 4);
    tk::arch::syncwarp();
    uint32_t v[N];
    for (int i = 0; i < N; ++i) v[i] = regs[lane * N + i];
    tk::arch::stmatrix<N, Trans>(tk::arch::smem_addr(tk::dynamic_shared_memory()) + offsets[lane], v);
    tk::arch::syncwarp();
    shared_to_image(out_image, kMatrixArena / 4);
#else
    (void)image; (void)offsets; (void)regs; (void)out_image;  // stmatrix needs sm_90; the host skips this test
#endif
}

// Lane l's fragments: a[4l..], b[2l..], c[4l..]; d comes back in d[4l..].
template <bool Half>
__global__ void mma_kernel(const uint32_t* a, const uint32_t* b, const float* c, float* d) {
    const int lane = int(threadIdx.x);
    uint32_t ar[4], br[2];
    float cr[4], dr[4];
    for (int i = 0; i < 4; ++i) { ar[i] = a[4 * lane + i]; cr[i] = c[4 * lane + i]; }
    for (int i = 0; i < 2; ++i) br[i] = b[2 * lane + i];
    tk::arch::mma_m16n8k16<Half>(dr, ar, br, cr);
    for (int i = 0; i < 4; ++i) d[4 * lane + i] = dr[i];
}

// Shared memory starts as `image`. Lane l stores st_val[l*W ..] at st_off[l];
// after a syncwarp it loads W words from ld_off[l] into ld_out[l*W ..]. The
// whole of shared memory comes back in out_image.
template <int W>
__global__ void shared_words_kernel(const uint32_t* image, const uint32_t* st_off, const uint32_t* st_val,
                                    const uint32_t* ld_off, uint32_t* ld_out, uint32_t* out_image) {
    const int lane = int(threadIdx.x);
    image_to_shared(image, kArena / 4);
    tk::arch::syncwarp();
    const uint32_t base = tk::arch::smem_addr(tk::dynamic_shared_memory());
    uint32_t v[W], r[W];
    for (int i = 0; i < W; ++i) v[i] = st_val[lane * W + i];
    tk::arch::st_shared<W>(base + st_off[lane], v);
    tk::arch::syncwarp();
    tk::arch::ld_shared<W>(r, base + ld_off[lane]);
    for (int i = 0; i < W; ++i) ld_out[lane * W + i] = r[i];
    tk::arch::syncwarp();
    shared_to_image(out_image, kArena / 4);
}

__global__ void shared_b16_kernel(const uint32_t* image, const uint32_t* st_off, const uint16_t* st_val,
                                  const uint32_t* ld_off, uint16_t* ld_out, uint32_t* out_image) {
    const int lane = int(threadIdx.x);
    image_to_shared(image, kArena / 4);
    tk::arch::syncwarp();
    const uint32_t base = tk::arch::smem_addr(tk::dynamic_shared_memory());
    tk::arch::st_shared_b16(base + st_off[lane], st_val[lane]);
    tk::arch::syncwarp();
    ld_out[lane] = tk::arch::ld_shared_b16(base + ld_off[lane]);
    tk::arch::syncwarp();
    shared_to_image(out_image, kArena / 4);
}

// The same with global memory: `mem` (kArena bytes) starts as the image.
template <int W, tk::arch::cache_hint Hint>
__global__ void global_words_kernel(uint32_t* mem, const uint32_t* st_off, const uint32_t* st_val, const uint32_t* ld_off,
                                    uint32_t* ld_out) {
    const int lane = int(threadIdx.x);
    char* base = reinterpret_cast<char*>(mem);
    uint32_t v[W], r[W];
    for (int i = 0; i < W; ++i) v[i] = st_val[lane * W + i];
    tk::arch::st_global<W, Hint>(base + st_off[lane], v);
    tk::arch::syncwarp();
    tk::arch::ld_global<W, Hint>(r, base + ld_off[lane]);
    for (int i = 0; i < W; ++i) ld_out[lane * W + i] = r[i];
}

__global__ void global_b16_kernel(uint32_t* mem, const uint32_t* st_off, const uint16_t* st_val, const uint32_t* ld_off,
                                  uint16_t* ld_out) {
    const int lane = int(threadIdx.x);
    char* base = reinterpret_cast<char*>(mem);
    tk::arch::st_global_b16(base + st_off[lane], st_val[lane]);
    tk::arch::syncwarp();
    ld_out[lane] = tk::arch::ld_global_b16(base + ld_off[lane]);
}

// ---- host side: data, models, comparisons ---------------------------------------------------

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = uint32_t(rng());
    return v;
}

// `count` distinct slots of `slot_bytes` out of `arena` bytes, in random order:
// byte offsets.
std::vector<uint32_t> distinct_slots(int count, int slot_bytes, int arena, std::mt19937& rng) {
    std::vector<uint32_t> slots(size_t(arena / slot_bytes));
    std::iota(slots.begin(), slots.end(), 0u);
    std::shuffle(slots.begin(), slots.end(), rng);
    slots.resize(size_t(count));
    for (auto& s : slots) s *= uint32_t(slot_bytes);
    return slots;
}

uint16_t get16(const std::vector<uint32_t>& image, uint32_t byte) {
    return uint16_t(image[byte / 4] >> (8 * (byte % 4)));
}
void put16(std::vector<uint32_t>& image, uint32_t byte, uint16_t v) {
    uint32_t& w = image[byte / 4];
    const int sh = 8 * int(byte % 4);
    w = (w & ~(0xffffu << sh)) | (uint32_t(v) << sh);
}

// Counts the differences; names the first few with `where(i)`.
template <typename T, typename Where>
void check_exact(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, Where&& where) {
    REQUIRE(got.size() == want.size());
    size_t bad = 0;
    std::string first;
    for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i] && bad++ < 3) {
            char buf[96];
            std::snprintf(buf, sizeof buf, ": got 0x%08x, want 0x%08x", unsigned(got[i]), unsigned(want[i]));
            first += "\n  " + where(i) + buf;
        }
    INFO(what << ": " << bad << " of " << want.size() << " values differ" << first);
    CHECK(bad == 0);
}

std::string lane_reg(size_t i, int per_lane) {
    return "lane " + std::to_string(i / size_t(per_lane)) + " register " + std::to_string(i % size_t(per_lane));
}
std::string image_word(size_t i) { return "shared/global word at byte " + std::to_string(4 * i); }

bool device_has_stmatrix() {
#if defined(TK_GPU)
    int dev = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) return false;
    return p.major >= 9;
#else
    return true;  // the simulator models stmatrix for every architecture
#endif
}

// The PTX ISA's m8n8 .b16 fragment: lane l holds, in its register for matrix
// i, the elements (row l/4, cols 2(l%4) and 2(l%4)+1) of matrix i -- of its
// transpose with .trans -- the lower column in the low half. Row j of matrix i
// is 8 16-bit values at byte offsets[8i+j]. The byte address of (lane, matrix, half):
uint32_t fragment_byte(const std::vector<uint32_t>& offsets, bool trans, int lane, int i, int h) {
    const int r = lane / 4, c = 2 * (lane % 4) + h;  // in the (possibly transposed) matrix
    const int row = trans ? c : r, col = trans ? r : c;  // in the matrix as stored
    return offsets[size_t(8 * i + row)] + uint32_t(2 * col);
}

// 32 distinct, scattered 16-byte rows over the arena: lanes 8i..8i+7 address
// matrix i; lanes past 8N get addresses too (of other rows, which the
// instruction must ignore).
std::vector<uint32_t> matrix_rows(uint32_t seed) {
    std::mt19937 rng(seed);
    return distinct_slots(32, 16, kMatrixArena, rng);
}

template <int N, bool Trans>
void check_ldmatrix(uint32_t seed) {
    const auto image = random_words(kMatrixArena / 4, seed);
    const auto offsets = matrix_rows(seed + 1000);
    tk::device_buffer<uint32_t> dimage(image.size(), image, "image"), doff(32, offsets, "offsets"), dout(32 * N, "out");
    tk::launch("ldmatrix_kernel", ldmatrix_kernel<N, Trans>, dim3(1), dim3(32), kMatrixArena, dimage.data(), doff.data(),
               dout.data());
    std::vector<uint32_t> want(32 * N);
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < N; ++i)
            want[size_t(l * N + i)] = uint32_t(get16(image, fragment_byte(offsets, Trans, l, i, 0))) |
                                      uint32_t(get16(image, fragment_byte(offsets, Trans, l, i, 1))) << 16;
    check_exact("ldmatrix.x" + std::to_string(N) + (Trans ? ".trans" : "") + " (seed " + std::to_string(seed) + ")",
                dout.download(), want, [](size_t i) { return lane_reg(i, N); });
}

template <int N, bool Trans>
void check_stmatrix(uint32_t seed) {
    const auto image = random_words(kMatrixArena / 4, seed);
    const auto offsets = matrix_rows(seed + 1000);
    const auto regs = random_words(32 * N, seed + 2000);
    tk::device_buffer<uint32_t> dimage(image.size(), image, "image"), doff(32, offsets, "offsets"),
        dregs(regs.size(), regs, "regs"), dout(image.size(), "out_image");
    tk::launch("stmatrix_kernel", stmatrix_kernel<N, Trans>, dim3(1), dim3(32), kMatrixArena, dimage.data(), doff.data(),
               dregs.data(), dout.data());
    auto want = image;  // everything but the N matrices stays as it was
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < N; ++i)
            for (int h = 0; h < 2; ++h)
                put16(want, fragment_byte(offsets, Trans, l, i, h), uint16_t(regs[size_t(l * N + i)] >> (16 * h)));
    check_exact("stmatrix.x" + std::to_string(N) + (Trans ? ".trans" : "") + " (seed " + std::to_string(seed) + ")",
                dout.download(), want, image_word);
}

// m16n8k16 .row.col with T = tk::half (mma_m16n8k16<true>) or tk::bf16.
template <typename T>
void check_mma_fragment(uint32_t seed, float range) {
    constexpr bool half = std::is_same_v<T, tk::half>;
    const auto A = tktest::random_values<T>(16 * 16, seed, -range, range);     // 16 x 16, row-major (m, k)
    const auto B = tktest::random_values<T>(16 * 8, seed + 1, -range, range);  // 16 x 8, row-major (k, n)
    const auto C = tktest::random_values<float>(16 * 8, seed + 2, -4.f, 4.f);  // 16 x 8, row-major (m, n)
    // Fragments, per the PTX ISA's figures for mma.m16n8k16 (.f16/.bf16).
    std::vector<uint32_t> a(32 * 4, 0), b(32 * 2, 0);
    std::vector<float> c(32 * 4);
    for (int l = 0; l < 32; ++l) {
        for (int i = 0; i < 8; ++i) {  // a0..a7: two per register, even index in the low half
            const int row = l / 4 + 8 * ((i / 2) % 2), col = 2 * (l % 4) + (i % 2) + 8 * (i / 4);
            a[size_t(4 * l + i / 2)] |= uint32_t(tk::as_bits(A[size_t(16 * row + col)])) << (16 * (i % 2));
        }
        for (int i = 0; i < 4; ++i) {  // b0..b3
            const int k = 2 * (l % 4) + (i % 2) + 8 * (i / 2), n = l / 4;
            b[size_t(2 * l + i / 2)] |= uint32_t(tk::as_bits(B[size_t(8 * k + n)])) << (16 * (i % 2));
        }
        for (int i = 0; i < 4; ++i) {  // c0..c3
            const int row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + (i % 2);
            c[size_t(4 * l + i)] = C[size_t(8 * row + col)];
        }
    }
    tk::device_buffer<uint32_t> da(a.size(), a, "a"), db(b.size(), b, "b");
    tk::device_buffer<float> dc(c.size(), c, "c"), dd(c.size(), "d");
    tk::launch("mma_kernel", mma_kernel<half>, dim3(1), dim3(32), 0, da.data(), db.data(), dc.data(), dd.data());
    const auto d = dd.download();
    size_t bad = 0;
    double worst = 0;
    std::string first;
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i) {
            const int row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + (i % 2);
            double want = C[size_t(8 * row + col)];
            for (int k = 0; k < 16; ++k)
                want += double(tk::to_float(A[size_t(16 * row + k)])) * double(tk::to_float(B[size_t(8 * k + col)]));
            const double got = d[size_t(4 * l + i)];
            const double err = std::abs(got - want) / std::max(1.0, std::abs(want));
            worst = std::max(worst, err);
            if (!(err <= 1e-5) && bad++ < 3)
                first += "\n  lane " + std::to_string(l) + " d" + std::to_string(i) + " (D[" + std::to_string(row) + "][" +
                         std::to_string(col) + "]): got " + std::to_string(got) + ", want " + std::to_string(want);
        }
    INFO("mma.m16n8k16 " << (half ? "f16" : "bf16") << " (seed " << seed << "): " << bad
                         << " of 128 results off by more than 1e-5 (worst " << worst << ")" << first);
    CHECK(bad == 0);
}

// 32 distinct store slots of `bytes`; loads: even lanes read another lane's
// stored slot, odd lanes any slot (stored or untouched).
struct access_plan {
    std::vector<uint32_t> st_off, ld_off;
};
access_plan plan_accesses(int bytes, uint32_t seed) {
    std::mt19937 rng(seed);
    access_plan p;
    p.st_off = distinct_slots(32, bytes, kArena, rng);
    std::vector<uint32_t> other = distinct_slots(32, bytes, kArena, rng);
    p.ld_off.resize(32);
    for (int l = 0; l < 32; ++l) p.ld_off[size_t(l)] = l % 2 == 0 ? p.st_off[size_t((l + 7) % 32)] : other[size_t(l)];
    return p;
}

// The memory model: stores (to distinct slots) land first, then the loads read.
template <int W>
void model_words(const access_plan& p, const std::vector<uint32_t>& st_val, std::vector<uint32_t>& image,
                 std::vector<uint32_t>& ld_out) {
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < W; ++i) image[p.st_off[size_t(l)] / 4 + size_t(i)] = st_val[size_t(l * W + i)];
    ld_out.resize(32 * W);
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < W; ++i) ld_out[size_t(l * W + i)] = image[p.ld_off[size_t(l)] / 4 + size_t(i)];
}
void model_b16(const access_plan& p, const std::vector<uint16_t>& st_val, std::vector<uint32_t>& image,
               std::vector<uint16_t>& ld_out) {
    for (int l = 0; l < 32; ++l) put16(image, p.st_off[size_t(l)], st_val[size_t(l)]);
    ld_out.resize(32);
    for (int l = 0; l < 32; ++l) ld_out[size_t(l)] = get16(image, p.ld_off[size_t(l)]);
}

std::vector<uint16_t> random_halves(size_t n, uint32_t seed) {
    const auto w = random_words(n, seed);
    std::vector<uint16_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint16_t(w[i] ^ (w[i] >> 16));
    return v;
}

template <int W>
void check_shared_words(uint32_t seed) {
    const auto image = random_words(kArena / 4, seed);
    const auto p = plan_accesses(4 * W, seed + 1);
    const auto st_val = random_words(32 * W, seed + 2);
    tk::device_buffer<uint32_t> dimage(image.size(), image, "image"), dst_off(32, p.st_off, "st_off"),
        dst_val(st_val.size(), st_val, "st_val"), dld_off(32, p.ld_off, "ld_off"), dld(32 * W, "ld_out"),
        dout(image.size(), "out_image");
    tk::launch("shared_words_kernel", shared_words_kernel<W>, dim3(1), dim3(32), kArena, dimage.data(), dst_off.data(),
               dst_val.data(), dld_off.data(), dld.data(), dout.data());
    auto want_image = image;
    std::vector<uint32_t> want_ld;
    model_words<W>(p, st_val, want_image, want_ld);
    const std::string name = (W == 1 ? ".b32" : W == 2 ? ".v2.b32" : ".v4.b32") + std::string(" (seed ") + std::to_string(seed) + ")";
    check_exact("st.shared" + name + ": shared memory afterwards", dout.download(), want_image, image_word);
    check_exact("ld.shared" + name + ": loaded registers", dld.download(), want_ld, [](size_t i) { return lane_reg(i, W); });
}

void check_shared_b16(uint32_t seed) {
    const auto image = random_words(kArena / 4, seed);
    const auto p = plan_accesses(2, seed + 1);
    const auto st_val = random_halves(32, seed + 2);
    tk::device_buffer<uint32_t> dimage(image.size(), image, "image"), dst_off(32, p.st_off, "st_off"),
        dld_off(32, p.ld_off, "ld_off"), dout(image.size(), "out_image");
    tk::device_buffer<uint16_t> dst_val(32, st_val, "st_val"), dld(32, "ld_out");
    tk::launch("shared_b16_kernel", shared_b16_kernel, dim3(1), dim3(32), kArena, dimage.data(), dst_off.data(),
               dst_val.data(), dld_off.data(), dld.data(), dout.data());
    auto want_image = image;
    std::vector<uint16_t> want_ld;
    model_b16(p, st_val, want_image, want_ld);
    const std::string seed_s = " (seed " + std::to_string(seed) + ")";
    check_exact("st.shared.b16" + seed_s + ": shared memory afterwards", dout.download(), want_image, image_word);
    check_exact("ld.shared.b16" + seed_s + ": loaded values", dld.download(), want_ld, [](size_t i) { return "lane " + std::to_string(i); });
}

template <int W, tk::arch::cache_hint Hint = tk::arch::cache_hint::normal>
void check_global_words(uint32_t seed) {
    const auto image = random_words(kArena / 4, seed);
    const auto p = plan_accesses(4 * W, seed + 1);
    const auto st_val = random_words(32 * W, seed + 2);
    tk::device_buffer<uint32_t> dmem(image.size(), image, "mem"), dst_off(32, p.st_off, "st_off"),
        dst_val(st_val.size(), st_val, "st_val"), dld_off(32, p.ld_off, "ld_off"), dld(32 * W, "ld_out");
    tk::launch("global_words_kernel", global_words_kernel<W, Hint>, dim3(1), dim3(32), 0, dmem.data(), dst_off.data(),
               dst_val.data(), dld_off.data(), dld.data());
    auto want_image = image;
    std::vector<uint32_t> want_ld;
    model_words<W>(p, st_val, want_image, want_ld);
    const std::string name = std::string(Hint == tk::arch::cache_hint::streaming ? ".L1::no_allocate" : "") +
                             (W == 1 ? ".b32" : W == 2 ? ".v2.b32" : ".v4.b32") + " (seed " + std::to_string(seed) + ")";
    check_exact("st.global" + name + ": global memory afterwards", dmem.download(), want_image, image_word);
    check_exact("ld.global" + name + ": loaded registers", dld.download(), want_ld, [](size_t i) { return lane_reg(i, W); });
}

void check_global_b16(uint32_t seed) {
    const auto image = random_words(kArena / 4, seed);
    const auto p = plan_accesses(2, seed + 1);
    const auto st_val = random_halves(32, seed + 2);
    tk::device_buffer<uint32_t> dmem(image.size(), image, "mem"), dst_off(32, p.st_off, "st_off"),
        dld_off(32, p.ld_off, "ld_off");
    tk::device_buffer<uint16_t> dst_val(32, st_val, "st_val"), dld(32, "ld_out");
    tk::launch("global_b16_kernel", global_b16_kernel, dim3(1), dim3(32), 0, dmem.data(), dst_off.data(), dst_val.data(),
               dld_off.data(), dld.data());
    auto want_image = image;
    std::vector<uint16_t> want_ld;
    model_b16(p, st_val, want_image, want_ld);
    const std::string seed_s = " (seed " + std::to_string(seed) + ")";
    check_exact("st.global.b16" + seed_s + ": global memory afterwards", dmem.download(), want_image, image_word);
    check_exact("ld.global.b16" + seed_s + ": loaded values", dld.download(), want_ld, [](size_t i) { return "lane " + std::to_string(i); });
}

} // namespace tkarch_test

using namespace tkarch_test;

TEST_CASE("ldmatrix .x1/.x2/.x4 gives each lane its PTX fragment from scattered rows", "[arch][ldmatrix]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    for (uint32_t seed : {11u, 12u}) {
        check_ldmatrix<1, false>(seed);
        check_ldmatrix<2, false>(seed);
        check_ldmatrix<4, false>(seed);
    }
}
TEST_CASE("ldmatrix .x1/.x2/.x4 .trans gives each lane its fragment of the transposed matrices", "[arch][ldmatrix]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    for (uint32_t seed : {21u, 22u}) {
        check_ldmatrix<1, true>(seed);
        check_ldmatrix<2, true>(seed);
        check_ldmatrix<4, true>(seed);
    }
}
TEST_CASE("stmatrix .x1/.x2/.x4 writes each lane's fragment to scattered rows and nothing else", "[arch][stmatrix]") {
    if (!device_has_stmatrix()) { WARN("stmatrix needs sm_90 or later: skipped on this GPU"); return; }
    for (uint32_t seed : {31u, 32u}) {
        check_stmatrix<1, false>(seed);
        check_stmatrix<2, false>(seed);
        check_stmatrix<4, false>(seed);
    }
}
TEST_CASE("stmatrix .x1/.x2/.x4 .trans writes the transposed matrices and nothing else", "[arch][stmatrix]") {
    if (!device_has_stmatrix()) { WARN("stmatrix needs sm_90 or later: skipped on this GPU"); return; }
    for (uint32_t seed : {41u, 42u}) {
        check_stmatrix<1, true>(seed);
        check_stmatrix<2, true>(seed);
        check_stmatrix<4, true>(seed);
    }
}
TEST_CASE("mma.m16n8k16 f16 on hand-built PTX fragments matches a float64 reference", "[arch][mma]") {
    check_mma_fragment<tk::half>(51, 1.f);
    check_mma_fragment<tk::half>(52, 8.f);
}
TEST_CASE("mma.m16n8k16 bf16 on hand-built PTX fragments matches a float64 reference", "[arch][mma]") {
    check_mma_fragment<tk::bf16>(61, 1.f);
    check_mma_fragment<tk::bf16>(62, 8.f);
}
TEST_CASE("ld.shared/st.shared of 1, 2 and 4 words at random aligned offsets", "[arch][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    for (uint32_t seed : {71u, 72u}) {
        check_shared_words<1>(seed);
        check_shared_words<2>(seed);
        check_shared_words<4>(seed);
    }
}
TEST_CASE("ld.shared.b16/st.shared.b16 at random even offsets", "[arch][shared]") {
    TK_TEST_WITHOUT_MEMORY_CHECKS;  // its kernel tests something else, with unsynchronised or unwritten shared data
    check_shared_b16(81);
    check_shared_b16(82);
}
TEST_CASE("ld.global/st.global of 1, 2 and 4 words at random aligned offsets, with and without the streaming hint", "[arch][global]") {
    for (uint32_t seed : {91u, 92u}) {
        check_global_words<1>(seed);
        check_global_words<2>(seed);
        check_global_words<4>(seed);
        check_global_words<1, tk::arch::cache_hint::streaming>(seed);
        check_global_words<4, tk::arch::cache_hint::streaming>(seed);
    }
}
TEST_CASE("ld.global.b16/st.global.b16 at random even offsets", "[arch][global]") {
    check_global_b16(101);
    check_global_b16(102);
}

// ex2.approx.ftz: 2^x within 2 ulp of the exact value; results below 2^-126
// flush to zero; 2^-inf = +0. Inputs: seeded random x in [-140, 40], and edges.
__global__ void ex2_kernel(const float* x, float* y, int n) {
    for (int i = int(threadIdx.x); i < n; i += 32) y[i] = tk::arch::ex2_approx(x[i]);
}
TEST_CASE("ex2.approx.ftz is 2^x within 2 ulp and flushes results below 2^-126 to zero", "[arch][math]") {
    std::mt19937 rng(111);
    std::uniform_real_distribution<float> pick(-140.f, 40.f);
    std::vector<float> x(1024);
    for (float& v : x) v = pick(rng);
    const float edges[] = {0.f, 1.f, -1.f, 0.5f, -125.f, -126.5f, -127.f, -149.f, -std::numeric_limits<float>::infinity(), 20.25f};
    std::copy(std::begin(edges), std::end(edges), x.begin());
    tk::device_buffer<float> dx(x.size(), x, "x"), dy(x.size(), "y");
    tk::launch("ex2_kernel", ex2_kernel, dim3(1), dim3(32), 0, dx.data(), dy.data(), int(x.size()));
    const auto y = dy.download();
    int flushed = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp2(double(x[i]));
        INFO("x = " << x[i] << ": got " << y[i] << ", 2^x = " << want);
        if (want < 0x1p-126) {
            CHECK(y[i] == 0.f);
            ++flushed;
        } else {
            CHECK(std::fabs(y[i] - want) <= 2 * std::ldexp(1.0, std::ilogb(want) - 23));  // 2 ulp of float
        }
    }
    CHECK(flushed > 50);  // the random inputs reach below -126 too
}
