// A simulated thread's fiber stack: where it lies (its guard page, for the
// crash handler), and the switches between it and the scheduler's stack,
// which AddressSanitizer must be told about (no-ops in a normal build).
//
// Why the switches are annotated here rather than by Boost: Boost.Context
// 1.74 annotates only its ucontext back end (BOOST_USE_UCONTEXT +
// BOOST_USE_ASAN), whose compiled half (fiber_activation_record::current)
// Debian's libboost_context, built for fcontext, does not have; swapcontext
// also makes a signal-mask system call at every switch, and the simulator
// switches millions of times per run. And the crash path (kernel_crash.h)
// jumps from a signal handler straight to the scheduler, which only code that
// knows both stacks can describe to the sanitizer.
#pragma once
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define TKLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TKLAB_ASAN 1
#endif
#endif
#if defined(TKLAB_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace tklab::sim {

// [guard, bottom) is the guard page, [bottom, top) the usable stack.
struct FiberStack {
    char* guard = nullptr;
    char* bottom = nullptr;
    char* top = nullptr;

    // A protected_fixedsize_stack's context: the guard page is its lowest
    // page (sp - size), whatever offset the pool moved sp by.
    static FiberStack of(const boost::context::stack_context& s, size_t page) {
        char* top = static_cast<char*>(s.sp);
        char* guard = top - s.size;
        return {guard, guard + page, top};
    }
    size_t size() const { return size_t(top - bottom); }
    bool in_guard(const void* p) const { return p >= guard && p < bottom; }
};

// A stack about to carry a new fiber. Its shadow may still mark the frames
// that the last fiber on these addresses left without returning (Boost's
// fiber entry never returns; munmap does not clear the shadow either), and
// compiled code assumes a frame's locals and outgoing arguments start
// unpoisoned: without this, AddressSanitizer reports stale redzones.
inline void reuse_stack(const boost::context::stack_context& s) {
#if defined(TKLAB_ASAN)
    __asan_unpoison_memory_region(static_cast<char*>(s.sp) - s.size, s.size);
#else
    (void)s;
#endif
}

namespace fiber_switch {
using boost::context::fiber;

#if defined(TKLAB_ASAN)
// The scheduler's stack on this host thread, learnt by each fiber when it is
// switched to (the sanitizer reports where it came from).
inline thread_local const void* sched_bottom = nullptr;
inline thread_local size_t sched_size = 0;

struct FinishSwitch {
    void*& fake;
    bool on_fiber;
    ~FinishSwitch() {
        if (on_fiber) __sanitizer_finish_switch_fiber(fake, &sched_bottom, &sched_size);
        else __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
    }
};
#endif

// Scheduler -> the fiber on `to`; returns once the fiber switches back.
inline fiber enter(fiber&& f, const FiberStack& to) {
#if defined(TKLAB_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, to.bottom, to.size());
    FinishSwitch back{fake, false};
#else
    (void)to;
#endif
    return std::move(f).resume();
}

// First thing a new fiber does.
inline void entered() {
#if defined(TKLAB_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &sched_bottom, &sched_size);
#endif
}

// Fiber -> scheduler, and back when the scheduler resumes it (or unwinds it:
// the forced unwind is thrown from here, and the switch is finished first).
inline fiber yield(fiber&& sched) {
#if defined(TKLAB_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, sched_bottom, sched_size);
    FinishSwitch back{fake, true};
#endif
    return std::move(sched).resume();
}

// The fiber is about to end (returning, unwound, or abandoned by the crash
// handler): its stack will not be switched to again.
inline void leaving() {
#if defined(TKLAB_ASAN)
    __sanitizer_start_switch_fiber(nullptr, sched_bottom, sched_size);
#endif
}

// Scheduler: destroys a parked fiber, which unwinds its stack on it.
inline void unwind(fiber& f, const FiberStack& on) {
#if defined(TKLAB_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, on.bottom, on.size());
    FinishSwitch back{fake, false};
#else
    (void)on;
#endif
    f = fiber{};
}

} // namespace fiber_switch
} // namespace tklab::sim
