// What CUPTI's Activity API reports of one kernel, decoded into the trace's
// GpuKernel. CPU only (no CUDA, no CUPTI types): profiler/gpu/ copies the
// fields out of CUPTI's record into a RawKernelActivity, and the tests feed
// recorded ones, so every decoding rule is tested without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "trace/trace.h"

namespace tklab::profiler {

// One kernel as the trace stores it (trace/SCHEMA.md, "GPU kernels"): name
// (demangled), start/end ns, registers per thread, static and dynamic shared
// memory, grid and block, device, stream, correlation id.
using KernelRecord = trace::GpuKernel;

// The fields tklab keeps of CUPTI's kernel record (CUpti_ActivityKernel10 in
// CUDA 13), with CUPTI's own types: signed shapes and sizes, a C string name.
struct RawKernelActivity {
    const char* name = nullptr;   // mangled; CUPTI owns the string
    uint64_t start = 0, end = 0;  // ns; both 0 when CUPTI could not time the kernel
    uint16_t registers_per_thread = 0;
    int32_t static_shared = 0, dynamic_shared = 0;
    int32_t grid_x = 0, grid_y = 0, grid_z = 0;
    int32_t block_x = 0, block_y = 0, block_z = 0;
    uint32_t device_id = 0, stream_id = 0, correlation_id = 0;
};

// The C++ name of a mangled symbol ("_Z4axpyfPfi" -> "axpy(float, float*, int)"),
// or the symbol itself when it is not a mangled C++ name.
std::string demangle(const std::string& symbol);

// A KernelRecord from CUPTI's fields. Throws std::invalid_argument naming the
// field and its value for what no real kernel has (a negative or zero shape,
// negative shared memory, end before start), so a misread record struct
// (a CUPTI version other than the one compiled against) is caught, not stored.
KernelRecord decode_kernel(const RawKernelActivity& raw);

// True when CUPTI could not time the kernel (start and end both 0).
inline bool untimed(const RawKernelActivity& raw) { return raw.start == 0 && raw.end == 0; }

// As the trace's gpu_kernel record, and back (checked as the loader checks it;
// trace::TraceError names the field's path under `path`).
trace::json to_json(const KernelRecord& k);
KernelRecord kernel_from_json(const trace::json& j, const std::string& path = "gpu_kernel");

// In start order (CUPTI delivers buffers in no promised order); ties keep their order.
void sort_by_start(std::vector<KernelRecord>& kernels);
// Appends kernels to a trace's GPU kernels, in start order.
void add_to_trace(trace::Trace& t, std::vector<KernelRecord> kernels);

} // namespace tklab::profiler
