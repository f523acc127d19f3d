// Uninitialised reads: shared or global memory read before anything wrote it.
// On a GPU the read returns whatever was there (often zero, so the bug hides).
#pragma once
#include "planted_bugs/planted_bugs.h"
#include "planted_bugs/support.h"

namespace planted::uninit {

// A 16 x 16 float tile staged in shared memory, row by row; the loop stops
// one row short, and the last row's readers get garbage.
__global__ void tile_row_never_written(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid();
    for (int r = 0; r < 15; ++r) {  // should be r < 16
        if (lane < 16) {
            uint32_t v[1];
            tk::arch::ld_global<1>(v, x + 16 * r + lane);
            tk::arch::st_shared<1>(base + 4 * uint32_t(16 * r + lane), v);
        }
    }
    tk::arch::syncwarp();
    uint32_t v[1];
    tk::arch::ld_shared<1>(v, base + 4 * uint32_t(16 * (lane % 16) + 15));  // BUG tile_row_never_written
    tk::arch::st_global<1>(out + lane, v);
}
inline void run_tile_row_never_written() {
    tk::device_buffer<float> x(256, random_values<float>(256, 21), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("tile_row_never_written", tile_row_never_written, dim3(1), dim3(32), 1024, (const float*)x.data(), out.data());
}

// out = x + bias, where the host allocated the bias and forgot to upload it.
__global__ void bias_never_uploaded(const float* x, const float* bias, float* out) {
    const int t = int(threadIdx.x);
    uint32_t v[1], b[1];
    tk::arch::ld_global<1>(v, x + t);
    tk::arch::ld_global<1>(b, bias + t);  // BUG bias_never_uploaded
    const uint32_t o[1] = {bits(value(v[0]) + value(b[0]))};
    tk::arch::st_global<1>(out + t, o);
}
inline void run_bias_never_uploaded() {
    tk::device_buffer<float> x(64, random_values<float>(64, 22), "x");
    tk::device_buffer<float> bias(64, "bias");  // missing: bias.upload(...)
    tk::device_buffer<float> out(64, "out");
    tk::launch("bias_never_uploaded", bias_never_uploaded, dim3(1), dim3(64), 0, (const float*)x.data(), (const float*)bias.data(), out.data());
}

// cp.async into shared memory, then a read with no cp.async.wait_group: the
// copy may not have landed (the simulator lands it at the wait).
__global__ void read_before_cp_async_wait(const float* x, float* out) {
    const uint32_t base = smem_base();
    const int lane = tk::laneid();
    tk::arch::cp_async<16>(base + 16 * uint32_t(lane), x + 4 * lane);
    tk::arch::cp_async_commit();
    // missing: tk::arch::cp_async_wait<0>(); tk::arch::syncwarp();
    uint32_t v[1];
    tk::arch::ld_shared<1>(v, base + 4 * uint32_t(lane));  // BUG read_before_cp_async_wait
    tk::arch::st_global<1>(out + lane, v);
    tk::arch::cp_async_wait<0>();
}
inline void run_read_before_cp_async_wait() {
    tk::device_buffer<float> x(128, random_values<float>(128, 23), "x");
    tk::device_buffer<float> out(32, "out");
    tk::launch("read_before_cp_async_wait", read_before_cp_async_wait, dim3(1), dim3(32), 512, (const float*)x.data(), out.data());
}

inline const add_bug bugs[] = {
    add_bug({"tile_row_never_written", Kind::uninit, "a shared tile's last row is read but its loop never wrote it", __FILE__, false, false, run_tile_row_never_written}),
    add_bug({"bias_never_uploaded", Kind::uninit, "a global buffer read by the kernel was allocated but never uploaded", __FILE__, false, false, run_bias_never_uploaded}),
    add_bug({"read_before_cp_async_wait", Kind::uninit, "shared memory read after cp.async with no wait for the copy", __FILE__, false, false, run_read_before_cp_async_wait}),
};

} // namespace planted::uninit
