// Tensor maps: what a bulk tensor copy (TMA) needs to know about a tensor in
// global memory and the box it moves. A global layout that will be copied
// with bulk copies carries one map per shared-tile type it is used with:
//
//   using a_gl = tk::gl_tma<tk::bf16, tk::st_bf<128, 64>>;   // maps for one tile type
//   a_gl A(ptr, 1, 1, M, K);                                  // builds them (host)
//   __global__ void k(const __grid_constant__ a_gl A) { ... tk::tma::load_async(tile, A, {0, 0, r, c}, bar); }
//
// The box is one column block of the tile: rows x (swizzle span) elements,
// written to shared memory with the tile's swizzle, so a bulk copy produces
// exactly the layout tk::st describes (a tile wider than its swizzle span
// takes one copy per column block). On the GPU the map is a CUtensorMap made
// by the driver's cuTensorMapEncodeTiled; in the simulator it is a
// tklab::sim::TensorMap holding the same fields, in the same 128 bytes.
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>
#include "tk/common/base.h"
#include "tk/types/global/gl.h"
#include "tk/types/shared/st.h"
#if defined(TK_GPU)
#include <cuda.h>
#include <cuda_runtime.h>
#endif

namespace tk {

struct alignas(64) tensor_map {
    unsigned char bytes[128];
};

namespace detail {

// The box a tile type moves with: one column block of its swizzle span.
template <typename ST>
struct tma_box {
    static constexpr int elem = int(sizeof(typename ST::dtype));
    static constexpr int cols = ST::swizzle_bytes ? ST::swizzle_bytes / elem : ST::cols;
    static constexpr int rows = ST::rows;
    static constexpr int blocks = ST::cols / cols;  // copies per tile
    static constexpr int bytes = rows * cols * elem;
    static_assert(rows <= 256 && cols <= 256, "tk: a bulk tensor copy's box is at most 256 elements in each dimension; use a smaller tile");
    static_assert(cols * elem % 16 == 0, "tk: a bulk tensor copy's box rows must be a multiple of 16 bytes");
};

#if defined(TK_GPU)
template <typename T> constexpr CUtensorMapDataType tma_dtype() {
    if constexpr (std::is_same_v<T, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    else if constexpr (std::is_same_v<T, bf16>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    else return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
using encode_tiled_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                     const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                     CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
// The driver's encoder, found through the runtime (no link against libcuda).
inline encode_tiled_fn encode_tiled() {
    static encode_tiled_fn fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !p)
            throw std::runtime_error("tk::make_tensor_map: the driver has no cuTensorMapEncodeTiled (bulk tensor copies need CUDA 12+ and a Hopper GPU)");
        return reinterpret_cast<encode_tiled_fn>(p);
    }();
    return fn;
}
#endif

} // namespace detail

// The tensor map for moving tiles of type ST to and from `g` (4-D: batch,
// depth, rows, cols). Throws std::invalid_argument naming what the hardware
// would refuse (alignment, strides).
template <typename ST, typename T>
tensor_map make_tensor_map(const gl<T>& g) {
    static_assert(is_st_v<ST>, "tk::make_tensor_map<ST>: ST must be a shared tile type");
    static_assert(std::is_same_v<typename ST::dtype, T>, "tk::make_tensor_map<ST>: the tile and the tensor must have the same element type");
    using box = detail::tma_box<ST>;
    const uint64_t elem = sizeof(T);
    if (reinterpret_cast<uintptr_t>(g.raw) % 16 != 0)
        throw std::invalid_argument("tk::make_tensor_map: the tensor's address must be 16-byte aligned for bulk tensor copies");
    if (uint64_t(g.cols) * elem % 16 != 0)
        throw std::invalid_argument("tk::make_tensor_map: a row of the tensor (" + std::to_string(g.cols) +
                                    " elements) must be a multiple of 16 bytes for bulk tensor copies; pad the rows");
    const uint64_t dims[4] = {uint64_t(g.cols), uint64_t(g.rows), uint64_t(g.depth), uint64_t(g.batch)};
    const uint64_t strides[4] = {elem, dims[0] * elem, dims[0] * dims[1] * elem, dims[0] * dims[1] * dims[2] * elem};
    const uint32_t boxdim[4] = {uint32_t(box::cols), uint32_t(box::rows), 1, 1};
    tensor_map m{};
#if defined(TK_GPU)
    const cuuint64_t gdim[4] = {dims[0], dims[1], dims[2], dims[3]};
    const cuuint64_t gstride[3] = {strides[1], strides[2], strides[3]};
    const cuuint32_t bdim[4] = {boxdim[0], boxdim[1], 1, 1}, estride[4] = {1, 1, 1, 1};
    const CUtensorMapSwizzle sw = ST::swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                : ST::swizzle_bytes == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                                : ST::swizzle_bytes == 32  ? CU_TENSOR_MAP_SWIZZLE_32B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
    static_assert(sizeof(CUtensorMap) == sizeof(tensor_map), "tk::tensor_map must have CUtensorMap's size");
    const CUresult r = detail::encode_tiled()(reinterpret_cast<CUtensorMap*>(&m), detail::tma_dtype<T>(), 4, g.raw, gdim, gstride, bdim, estride,
                                              CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::invalid_argument("tk::make_tensor_map: cuTensorMapEncodeTiled refused the map (CUresult " + std::to_string(int(r)) +
                                    "); check the tensor's shape and alignment");
#else
    static_assert(sizeof(tklab::sim::TensorMap) <= sizeof(tensor_map), "tklab::sim::TensorMap must fit in tk::tensor_map");
    tklab::sim::TensorMap s;
    s.magic = tklab::sim::TensorMap::magic_value;
    s.rank = 4;
    s.elem_bytes = uint32_t(elem);
    s.swizzle_bytes = uint32_t(ST::swizzle_bytes);
    s.global = g.raw;
    TK_UNROLL
    for (int i = 0; i < 4; ++i) {
        s.dims[i] = uint32_t(dims[i]);
        s.box[i] = boxdim[i];
        s.strides[i] = strides[i];
    }
    std::memcpy(m.bytes, &s, sizeof s);
#endif
    return m;
}

namespace detail {
template <typename X, typename... Ts> struct index_of;
template <typename X, typename... Ts> struct index_of<X, X, Ts...> { static constexpr int value = 0; };
template <typename X, typename T, typename... Ts> struct index_of<X, T, Ts...> { static constexpr int value = 1 + index_of<X, Ts...>::value; };
template <typename X> struct index_of<X> { static constexpr int value = -1000; };
} // namespace detail

// A global layout that carries tensor maps for the tile types it is moved
// with. Pass it to kernels as `const __grid_constant__` (the maps must stay in
// the kernel's parameter space for the copy engine to read them).
template <typename T, typename... Tiles>
struct gl_tma : gl<T> {
    static_assert(sizeof...(Tiles) > 0, "tk::gl_tma<T, Tiles...>: name at least one shared tile type it is copied with");
    tensor_map maps[sizeof...(Tiles)];
    gl_tma() = default;
    gl_tma(T* p, int b, int d, int r, int c) : gl<T>(p, b, d, r, c) {
        int i = 0;
        ((maps[i++] = make_tensor_map<Tiles>(static_cast<const gl<T>&>(*this))), ...);
    }
    template <typename ST>
    TK_HOST_DEVICE const tensor_map& map() const {
        constexpr int i = detail::index_of<std::remove_cv_t<ST>, Tiles...>::value;
        static_assert(i >= 0, "tk::gl_tma: this global layout has no tensor map for that tile type; add the tile type to its gl_tma<T, Tiles...>");
        return maps[i];
    }
};

template <typename X> struct is_gl_tma : std::false_type {};
template <typename T, typename... Tiles> struct is_gl_tma<gl_tma<T, Tiles...>> : std::true_type {};

} // namespace tk
