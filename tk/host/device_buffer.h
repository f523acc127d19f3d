// Memory a kernel can read and write: cudaMalloc on the GPU; in the
// simulator, host memory registered so every access is bounds-checked.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
#include "tk/common/base.h"
#include "tk/host/memory_check.h"
#if defined(TK_GPU)
#include <cuda_runtime.h>
#else
#include "sim/simulator.h"
#endif

namespace tk {

#if defined(TK_GPU)
inline void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

template <typename T>
class device_buffer {
public:
    explicit device_buffer(size_t n, std::string name = "buffer") : n_(n), name_(std::move(name)) {
        const size_t bytes = std::max<size_t>(n * sizeof(T), 1);
#if defined(TK_GPU)
        cuda_check(cudaMalloc(&p_, bytes), ("cudaMalloc of " + name_).c_str());
#else
        // The buffer, and the uninitialised-read finder's bit per byte of it.
        tk::host::check_fits(bytes + bytes / 8, "device buffer '" + name_ + "' (" + std::to_string(n) + " elements)");
        p_ = static_cast<T*>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
        if (!p_) throw std::bad_alloc();
        std::memset(static_cast<void*>(p_), 0xff, bytes);  // like fresh device memory: not zero
        tklab::sim::register_global(p_, n * sizeof(T), name_, sizeof(T));
#endif
    }
    device_buffer(size_t n, const std::vector<T>& init, std::string name = "buffer") : device_buffer(n, std::move(name)) { upload(init); }
    ~device_buffer() {
#if defined(TK_GPU)
        cudaFree(p_);
#else
        tklab::sim::unregister_global(p_);
        std::free(p_);
#endif
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    void upload(const std::vector<T>& h) {
        if (h.size() != n_) throw std::invalid_argument("device_buffer '" + name_ + "': upload of " + std::to_string(h.size()) + " elements into " + std::to_string(n_));
#if defined(TK_GPU)
        cuda_check(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
#else
        std::memcpy(static_cast<void*>(p_), h.data(), n_ * sizeof(T));
        tklab::sim::mark_global_written(p_, n_ * sizeof(T));  // reads of it are not uninitialised reads
#endif
    }
    std::vector<T> download() const {
        std::vector<T> h(n_);
#if defined(TK_GPU)
        cuda_check(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
#else
        std::memcpy(static_cast<void*>(h.data()), p_, n_ * sizeof(T));
#endif
        return h;
    }
    T* data() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_;
    std::string name_;
};

} // namespace tk
