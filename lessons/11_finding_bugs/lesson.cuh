// Lesson 11, "Finding bugs without a GPU": the problem every version of the
// kernel solves (the exercise, the solution, and the known-wrong ones the
// checker's tests use), so they all run on the same inputs against the same
// CPU reference.
//
//   X   : R x N float, seeded random values in [-1, 1)
//   OUT : R float, the roughness of each row: the sum of its squared steps,
//         OUT[r] = sum over i < N-1 of (X[r][i+1] - X[r][i])^2
//
// N is a multiple of 512. One block of 4 warps per row (grid R): the block
// walks its row 512 floats (a chunk) at a time, double-buffered with
// cp.async into two shared stages, each thread taking 4 neighbouring floats
// and their 4 steps; the last step of a chunk needs the first float of the
// next chunk, its halo. Then a two-stage sum: each warp adds its lanes'
// sums with shuffles, lane 0 puts the warp's sum in shared memory and
// arrives on an mbarrier, and warp 0 waits on it and adds the four.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "tk/tk.h"
#include "tk/host/registry.h"
#if !defined(TK_GPU)
#include <regex>
#include "lessons/framework/lesson.h"
#endif

namespace lesson11 {

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;  // 128
constexpr int kChunk = 512;            // floats of the row per step: 4 per thread
constexpr int kPieces = kChunk / 4;    // a chunk's 16-byte pieces (4 floats): one per thread

// A shared stage: one chunk of the row, then its halo, the next chunk's
// first piece (4 floats, of which the last step reads the first).
struct Stage {
    static constexpr int alignment = 16;
    float x[kChunk + 4];
};
// The warps' sums, for warp 0 to add up.
struct Sums {
    static constexpr int alignment = 16;
    float partial[kWarps];
};
// The dynamic shared memory each block gets: two stages, the sums and the
// mbarrier, with room for their alignment.
constexpr size_t kSharedBytes = 2 * sizeof(Stage) + sizeof(Sums) + sizeof(tk::semaphore) + 64;

// Every kernel of this lesson has this signature: kernel(X, OUT).
using kernel_fn = void (*)(tk::gl<float>, tk::gl<float>);

// The instructions the kernels use on single floats, one line each, so that
// every finding names the kernel's line (TK_LOC is the caller's line).
// cp.async of one 16-byte piece (4 floats) from global to shared memory.
TK_DEVICE void copy_piece_async(float& dst, const float* src, TK_LOC) {
    tk::arch::cp_async<16>(tk::arch::smem_addr(&dst, loc), src, loc);
}
// ld.shared of 4 neighbouring floats, and of one.
TK_DEVICE void read4(float (&v)[4], const float& src, TK_LOC) {
    uint32_t w[4];
    tk::arch::ld_shared<4>(w, tk::arch::smem_addr(&src, loc), loc);
    for (int j = 0; j < 4; ++j) v[j] = tk::arch::u2f(w[j]);
}
TK_DEVICE float read1(const float& src, TK_LOC) {
    return tk::arch::u2f(tk::arch::ld_shared_b32(tk::arch::smem_addr(&src, loc), loc));
}
// st.shared of one float.
TK_DEVICE void write1(float& dst, float v, TK_LOC) {
    tk::arch::st_shared_b32(tk::arch::smem_addr(&dst, loc), tk::arch::f2u(v), loc);
}
// The sum of v over the warp's 32 lanes, in every lane (shfl.bfly).
TK_DEVICE float warp_sum(float v, TK_LOC) {
    for (int m = 16; m >= 1; m /= 2) v += tk::arch::u2f(tk::arch::shfl_xor(0xffffffffu, tk::arch::f2u(v), m, loc));
    return v;
}
// st.global of one float at OUT[row].
TK_DEVICE void store1(const tk::gl<float>& out, int row, float v, TK_LOC) {
    const uint32_t w[1] = {tk::arch::f2u(v)};
    tk::arch::st_global<1>(out.ptr(0, 0, row, 0), w, loc);
}

struct Data {
    int rows = 0, cols = 0;
    std::vector<float> x;
    std::shared_ptr<tk::device_buffer<float>> dx;
    std::shared_ptr<tk::device_buffer<float>> dout;
    tk::gl<float> X() const { return {dx->data(), 1, 1, rows, cols}; }
    tk::gl<float> OUT() const { return {dout->data(), 1, 1, rows, 1}; }
};

inline Data make_inputs(const tk::host::dims_t& d, unsigned seed) {
    Data g;
    g.rows = d.at("R");
    g.cols = d.at("N");
    g.x = tk::host::random_values<float>(size_t(g.rows) * g.cols, seed);
    g.dx = std::make_shared<tk::device_buffer<float>>(g.x.size(), g.x, "X");
    g.dout = std::make_shared<tk::device_buffer<float>>(size_t(g.rows), "OUT");
    return g;
}

// Each row's sum of squared steps, in float64.
inline std::vector<double> reference(const Data& g) {
    std::vector<double> out(size_t(g.rows));
    for (int r = 0; r < g.rows; ++r) {
        const float* x = &g.x[size_t(r) * g.cols];
        double s = 0;
        for (int i = 0; i + 1 < g.cols; ++i) s += (double(x[i + 1]) - x[i]) * (double(x[i + 1]) - x[i]);
        out[size_t(r)] = s;
    }
    return out;
}

// One block of 4 warps per row.
inline void launch(const char* name, kernel_fn kernel, Data& g) {
    tk::launch(name, kernel, dim3(unsigned(g.rows)), dim3(kThreads), kSharedBytes, g.X(), g.OUT());
}

// The program, given its variants (name -> kernel; the first is the default).
// lesson.cu registers it with the exercise and the solution; the tests build
// the same problem around known-wrong kernels.
inline tk::host::program_def<Data> program_def(std::vector<std::pair<std::string, kernel_fn>> kernels,
                                               std::string name = "lesson11") {
    tk::host::program_def<Data> p;
    p.name = std::move(name);
    p.kind = "lesson";
    p.summary = "Lesson 11, finding bugs without a GPU: OUT[r] = sum of (X[r][i+1] - X[r][i])^2 (R x N float), one block per row, "
                "chunks of 512 double-buffered with cp.async, warp sums added through an mbarrier";
    p.dims = {{"R", 16, 1, 4096}, {"N", 4096, kChunk, 1 << 16}};
    p.inputs = make_inputs;
    tk::host::set_variants(p, std::move(kernels), [](Data& g, kernel_fn k) { launch("lesson11", k, g); });
    p.output = [](Data& g) { return g.dout->download(); };
    p.reference = reference;
    p.output_name = "OUT";
    // Each sum is about (2/3) N of positive terms; fp32 adds them with a
    // relative error near 1e-6. A step left out or counted twice moves it
    // by about 1/N (2e-4 at N = 4096).
    p.tolerance = 2e-5;
    p.bytes = [](const tk::host::dims_t& d) { return 4.0 * d.at("R") * (d.at("N") + 1.0); };
    return p;
}

#if !defined(TK_GPU)
// A wait that can never complete, as the deadlock finder counts it: "N of M
// arrivals" for the waiting warp's phase; {-1, -1} when the message has none.
inline std::pair<int, int> arrivals_of_wait(const tklab::lessons::Symptom& s) {
    static const std::regex counted(R"(([0-9]+) of ([0-9]+) arrivals)");
    std::smatch m;
    if (!std::regex_search(s.message, m, counted)) return {-1, -1};
    return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

// This lesson's known mistakes (lessons/framework/diagnosis.h), most specific
// first; each has its hint in hints.md, and wrong/ (or the exercise) holds an
// example of each. They read the finders' messages, which name what went
// wrong in the simulator's words, and say it in the kernel's: the halo, the
// stages, the warps' sums.
inline std::vector<tklab::lessons::Mistake> mistakes() {
    using tklab::lessons::Symptom;
    using tklab::sim::ErrorKind;
    const auto waits_forever = [](const Symptom& s) {
        return s.error == ErrorKind::deadlock || s.error == ErrorKind::sync_misuse;
    };
    // The block's last thread: the one whose last step reads the halo.
    const std::string last_thread = "warp " + std::to_string(kWarps - 1) + " lane 31 ";
    return {
        {"halo_not_copied",
         [last_thread](const Symptom& s) {
             return s.error == ErrorKind::uninitialized_read && s.says("(ld.shared)") && s.says(last_thread);
         },
         "the halo was never copied: thread " + std::to_string(kThreads - 1) +
             "'s last step reads the float just past its chunk, the next chunk's first, and no cp.async put it in "
             "the stage. start_chunk must add the halo piece to the chunk's " + std::to_string(kPieces) +
             " for every chunk that has a next one: check the condition that adds it."},
        {"halo_past_the_row",
         [](const Symptom& s) { return s.error == ErrorKind::fault && s.says("out-of-bounds global-memory cp.async source"); },
         "the halo is copied for the row's last chunk too, which has no next chunk: its \"halo\" lies past the end of "
         "the row (for the last row, past the end of X). Copy the extra piece only when c + 1 < chunks; the last "
         "thread's last step of the row reads no halo."},
        {"stage_refilled_while_read",
         [](const Symptom& s) {
             return s.error == ErrorKind::race && s.says("(write after read)") && s.says("a cp.async issued by");
         },
         "the end of a step has no __syncthreads(): the next step's cp.async starts refilling a stage (two steps "
         "later, this one) while another warp may still read it, and a copy may land at any moment after its issue. "
         "Put a __syncthreads() after each step's last read of its stage."},
        {"read_before_copies_landed",
         [](const Symptom& s) {
             return s.error == ErrorKind::race && s.says("(read after write)") && s.says("a cp.async issued by");
         },
         "a thread reads a float another thread copied (the next thread's first, or the halo) with nothing ordering "
         "the read after that thread's copy: load_async_wait only covers the waiting thread's own copies. Keep the "
         "__syncthreads() right after the wait, before the step's reads."},
        {"every_lane_arrives",
         [](const Symptom& s) { return s.error == ErrorKind::sync_misuse && s.says("lanes arrived at once on mbarrier"); },
         "every lane arrives on sums_ready, 32 arrivals per warp, on a barrier that counts one arrival per warp (" +
             std::to_string(kWarps) + " a phase): the first warp alone completes several phases. Let lane 0 arrive, "
             "after it wrote the warp's sum."},
        {"waits_for_parity_1",
         [waits_forever](const Symptom& s) {
             return (waits_forever(s) && s.says("(parity 1)")) || s.says("went on at once");
         },
         "warp 0 waits for parity 1 on a barrier whose first phase is parity 0: a fresh mbarrier counts parity 1 "
         "(the phase before the first) as done, so the wait goes on at once before the sums are in, or, once phase 0 "
         "completed, waits for a second phase that never comes. sums_ready is used once: wait for parity 0."},
        {"count_not_arrivals",
         [waits_forever](const Symptom& s) {
             const auto [came, needed] = arrivals_of_wait(s);
             return waits_forever(s) && s.says("(parity 0)") && came == kWarps && needed > came;
         },
         "sums_ready's count at init_semaphore is not the number of arrivals a phase gets: only lane 0 of each of "
         "the " + std::to_string(kWarps) + " warps arrives, once, so a count of more than " + std::to_string(kWarps) +
             " is never reached and warp 0 waits for ever. The count must be one per warp."},
        {"nothing_stored",
         [](const Symptom& s) { return s.part == "correctness" && s.all_nan(); },
         "OUT holds nothing the kernel wrote: the sums are computed, and warp 0 never stores the row's total. After "
         "adding the four warps' sums, lane 0 of warp 0 stores it at OUT[row] (store1)."},
    };
}

// What `tklab lesson check 11` runs: two rows of three chunks first (a halo
// in each chunk but the last, and stage 0 used again), one chunk alone (no
// halo, no reuse), then five rows of five chunks and the default size.
inline tklab::lessons::Lesson lesson() {
    return tklab::lessons::Lesson{
        .number = 11,
        .folder = "lessons/11_finding_bugs",
        .title = "Finding bugs without a GPU",
        .program = "lesson11",
        .sizes = {{{"R", 2}, {"N", 1536}}, {{"R", 1}, {"N", 512}}, {{"R", 5}, {"N", 2560}}, {{"R", 16}, {"N", 4096}}},
        .shape = [](const tk::host::dims_t& d) { return std::pair{d.at("R"), 1}; },
        // The lesson's goal is a kernel the bug finders have nothing to say
        // about, and which is right: the check's run of every size is that.
        .goals = {},
        .mistakes = mistakes(),
    };
}
#endif

} // namespace lesson11
