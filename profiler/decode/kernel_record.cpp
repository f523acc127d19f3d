// Decoding CUPTI's kernel records (see kernel_record.h).
#include "profiler/decode/kernel_record.h"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <stdexcept>
#include "trace/codec.h"

namespace tklab::profiler {

std::string demangle(const std::string& symbol) {
    // Only Itanium-ABI names ("_Z...") are mangled; extern "C" kernels keep their name.
    if (symbol.rfind("_Z", 0) != 0) return symbol;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : symbol;
}

namespace {

uint32_t positive(int32_t v, const char* field) {
    if (v <= 0)
        throw std::invalid_argument(std::string("CUPTI kernel record: ") + field + " = " + std::to_string(v) +
                                    " (a launch dimension is at least 1): the record was misread; rebuild "
                                    "tklab against the libcupti it runs with");
    return uint32_t(v);
}

uint32_t non_negative(int32_t v, const char* field) {
    if (v < 0)
        throw std::invalid_argument(std::string("CUPTI kernel record: ") + field + " = " + std::to_string(v) +
                                    " bytes: the record was misread; rebuild tklab against the libcupti it runs with");
    return uint32_t(v);
}

} // namespace

KernelRecord decode_kernel(const RawKernelActivity& raw) {
    KernelRecord k;
    const std::string symbol = raw.name ? raw.name : "";
    k.name = symbol.empty() ? "?" : demangle(symbol);
    k.mangled = k.name == symbol ? "" : symbol;
    if (raw.end < raw.start)
        throw std::invalid_argument("CUPTI kernel record of " + k.name + ": end " + std::to_string(raw.end) +
                                    " ns is before start " + std::to_string(raw.start) + " ns");
    k.start_ns = raw.start;
    k.end_ns = raw.end;
    k.registers = raw.registers_per_thread;
    k.static_smem = non_negative(raw.static_shared, "staticSharedMemory");
    k.dynamic_smem = non_negative(raw.dynamic_shared, "dynamicSharedMemory");
    k.grid = {positive(raw.grid_x, "gridX"), positive(raw.grid_y, "gridY"), positive(raw.grid_z, "gridZ")};
    k.block = {positive(raw.block_x, "blockX"), positive(raw.block_y, "blockY"), positive(raw.block_z, "blockZ")};
    k.device = raw.device_id;
    k.stream = raw.stream_id;
    k.correlation = raw.correlation_id;
    return k;
}

trace::json to_json(const KernelRecord& k) { return trace::gpu_kernel_record(k); }

KernelRecord kernel_from_json(const trace::json& j, const std::string& path) {
    if (!j.is_object() || !j.contains("type") || j["type"] != "gpu_kernel")
        throw trace::TraceError(path + ": not a gpu_kernel record (its \"type\" must be \"gpu_kernel\")");
    return trace::gpu_kernel_of(j, path);
}

void sort_by_start(std::vector<KernelRecord>& kernels) {
    std::stable_sort(kernels.begin(), kernels.end(), [](const KernelRecord& a, const KernelRecord& b) {
        return a.start_ns < b.start_ns;
    });
}

void add_to_trace(trace::Trace& t, std::vector<KernelRecord> kernels) {
    sort_by_start(kernels);
    t.gpu_kernels.insert(t.gpu_kernels.end(), kernels.begin(), kernels.end());
}

} // namespace tklab::profiler
