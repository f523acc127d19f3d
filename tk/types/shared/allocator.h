// Hands out shared tiles and vectors from the block's dynamic shared memory,
// aligned as each type requires (tiles: 1024 bytes, for the swizzle patterns).
// An array (allocate<tile[2]>() for two pipeline stages) is laid out like its
// elements one after the other; indexing it with a stage known only at run
// time is address arithmetic, where an array of pointers to tiles would be
// kept in local memory and loaded again after every barrier.
#pragma once
#include <type_traits>
#include "tk/common/base.h"
#include "tk/common/check.h"

namespace tk {

TK_DEVICE char* dynamic_shared_memory() {
#if defined(TK_GPU)
    extern __shared__ __align__(1024) char tk_dynamic_smem[];
    return tk_dynamic_smem;
#else
    return tklab::sim::dynamic_smem();
#endif
}

struct shared_allocator {
    char* base;
    char* next;
    TK_DEVICE shared_allocator() : base(dynamic_shared_memory()), next(base) {}

    template <typename T>
    TK_DEVICE T& allocate(TK_LOC) {
        constexpr size_t align = alignment_of<T>();
        next = base + (size_t(next - base) + align - 1) / align * align;
        T* p = reinterpret_cast<T*>(next);
        next += sizeof(T);
#if defined(TK_SIM)
        TK_CHECK(size_t(next - base) <= tklab::sim::dynamic_smem_bytes(),
                 "shared_allocator ran past the dynamic shared memory the kernel was launched with",
                 "pass a larger shared-memory size to tk::launch (sum of the tiles' bytes plus alignment padding)");
#endif
        return *p;
    }
    // Bytes used so far (for sizing the launch).
    TK_DEVICE size_t used() const { return size_t(next - base); }

private:
    template <typename T> static constexpr size_t alignment_of() {
        using E = std::remove_all_extents_t<T>;  // an array: its elements' alignment
        if constexpr (std::is_array_v<T> && requires { E::alignment; }) {
            static_assert(sizeof(E) % E::alignment == 0,
                          "shared_allocator: this array's tiles are smaller than their alignment, so every other "
                          "one would be misaligned; allocate them one by one");
            return E::alignment;
        }
        else if constexpr (requires { T::alignment; }) return T::alignment;
        else return alignof(T) < 16 ? 16 : alignof(T);
    }
};

} // namespace tk
