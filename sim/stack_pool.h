// A pool of fiber stacks, reused from block to block on one host thread.
#pragma once
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>
#include <boost/context/stack_traits.hpp>

#include <cstddef>
#include <vector>

#include "sim/fiber_stack.h"

namespace tklab::sim {

// Fiber stacks are reused between blocks; each has a guard page so a stack
// overflow in kernel code stops at a fault instead of corrupting memory.
//
// Each stack also starts at a different offset within its page: the stacks
// are separate page-aligned mappings, so without it every thread's hot frames
// would sit at the same cache-set index and evict each other at every fiber
// switch (measured: ~12% of the demo GEMM's simulation time).
class StackPool {
public:
    explicit StackPool(size_t bytes) : alloc_(bytes) {}
    ~StackPool() {
        for (auto& s : free_) {
            const size_t off = full_size_ - s.size;  // undo the stagger before unmapping
            s.sp = static_cast<char*>(s.sp) + off;
            s.size += off;
            alloc_.deallocate(s);
        }
    }
    boost::context::stack_context allocate() {
        if (!free_.empty()) {
            auto s = free_.back();
            free_.pop_back();
            reuse_stack(s);
            return s;
        }
        boost::context::stack_context s = alloc_.allocate();
        reuse_stack(s);  // the addresses may have held an earlier pool's stacks
        full_size_ = s.size;
        const size_t off = (count_++ * 17 % 64) * 64;  // 0..4032 bytes, 64-byte steps
        s.sp = static_cast<char*>(s.sp) - off;
        s.size -= off;
        return s;
    }
    void deallocate(boost::context::stack_context& s) noexcept { free_.push_back(s); }
private:
    boost::context::protected_fixedsize_stack alloc_;
    std::vector<boost::context::stack_context> free_;
    size_t full_size_ = 0;
    size_t count_ = 0;
};
struct PooledStack {
    StackPool* pool;
    FiberStack* where;  // told where the stack is (its guard page, for sanitizers and the crash handler)
    boost::context::stack_context allocate() {
        boost::context::stack_context s = pool->allocate();
        *where = FiberStack::of(s, boost::context::stack_traits::page_size());
        return s;
    }
    void deallocate(boost::context::stack_context& s) noexcept { pool->deallocate(s); }
};


} // namespace tklab::sim
