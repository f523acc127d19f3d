// Memory bugs: out-of-bounds and misaligned accesses, at every width, and in
// asynchronous copies. The simulator stops at the access (a fault) and names
// the line, the lane and the address.
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"

namespace planted::memory {

// Row sums of a 4-wide float matrix, read 16 bytes at a time; the bounds check
// lets one thread too many through.
__global__ void vector_load_past_end(const float* x, float* out, int rows) {
    const int row = int(threadIdx.x);
    if (row <= rows) {  // should be row < rows
        uint32_t v[4];
        tk::arch::ld_global<4>(v, x + 4 * row);  // BUG vector_load_past_end
        const float s = value(v[0]) + value(v[1]) + value(v[2]) + value(v[3]);
        const uint32_t w[1] = {bits(s)};
        tk::arch::st_global<1>(out + row, w);
    }
}
inline void run_vector_load_past_end() {
    const int rows = 63;
    tk::device_buffer<float> x(4 * rows, random_values<float>(4 * rows, 1), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("vector_load_past_end", vector_load_past_end, dim3(1), dim3(64), 0, (const float*)x.data(), out.data(), rows);
}

// Pairs of floats staged in shared memory with 8-byte stores, at an offset
// of one float: every second store straddles an 8-byte boundary.
__global__ void misaligned_shared_store(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x);
    uint32_t v[2];
    tk::arch::ld_global<2>(v, x + 2 * t);
    tk::arch::st_shared<2>(base + 4 + 8 * uint32_t(t), v);  // BUG misaligned_shared_store
    tk::arch::syncthreads();
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, base + 4 + 4 * uint32_t(t));
    tk::arch::st_global<1>(out + t, r);
}
inline void run_misaligned_shared_store() {
    tk::device_buffer<float> x(64, random_values<float>(64, 2), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("misaligned_shared_store", misaligned_shared_store, dim3(1), dim3(32), 512, (const float*)x.data(), out.data());
}

// A 16 x 16 float tile copied to shared memory with cp.async, 16 bytes per
// lane; the row stride is taken as the tile's width in bytes, not floats.
__global__ void cp_async_source_past_end(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x);  // 64 threads: 16 rows x 4 pieces of 4 floats
    const int row = t / 4, piece = t % 4;
    tk::arch::cp_async<16>(base + uint32_t(16 * 4 * row + 16 * piece), x + row * 64 + 4 * piece);  // BUG cp_async_source_past_end
    tk::arch::cp_async_commit();
    tk::arch::cp_async_wait<0>();
    tk::arch::syncthreads();
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, base + 4 * uint32_t(t));
    tk::arch::st_global<1>(out + t, r);
}
inline void run_cp_async_source_past_end() {
    tk::device_buffer<float> x(256, random_values<float>(256, 3), "x");
    tk::device_buffer<float> out(64, "out");
    tk::launch("cp_async_source_past_end", cp_async_source_past_end, dim3(1), dim3(64), 1024, (const float*)x.data(), out.data());
}

// A reduction that reads one float past the shared memory it was launched with.
__global__ void shared_load_past_end(float* out) {
    const uint32_t base = smem_base();
    const int t = int(threadIdx.x);
    const uint32_t w[1] = {bits(float(t))};
    tk::arch::st_shared<1>(base + 4 * uint32_t(t), w);
    tk::arch::syncthreads();
    uint32_t r[1];
    tk::arch::ld_shared<1>(r, base + 4 * uint32_t(t + 1));  // BUG shared_load_past_end
    tk::arch::st_global<1>(out + t, r);
}
inline void run_shared_load_past_end() {
    tk::device_buffer<float> out(32, "out");
    tk::launch("shared_load_past_end", shared_load_past_end, dim3(1), dim3(32), 128, out.data());
}

inline const add_bug bugs[] = {
    add_bug({"vector_load_past_end", Kind::memory, "a 16-byte global load one row past the end (bounds check off by one)", __FILE__, false, false, run_vector_load_past_end}),
    add_bug({"misaligned_shared_store", Kind::memory, "an 8-byte shared store at a 4-byte offset", __FILE__, false, false, run_misaligned_shared_store}),
    add_bug({"cp_async_source_past_end", Kind::memory, "cp.async reads past the end of its source (row stride wrong)", __FILE__, false, false, run_cp_async_source_past_end}),
    add_bug({"shared_load_past_end", Kind::memory, "a shared load one float past the launch's shared memory", __FILE__, false, false, run_shared_load_past_end}),
};

} // namespace planted::memory
