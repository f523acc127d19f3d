// A simulated kernel that traps, aborts or crashes stops with a SimError
// naming its line, and the process goes on: __trap() throws; a fault on a
// simulated thread's fiber (a stack overrun into the guard page, a wild
// pointer, an integer division by zero) or an abort() there (a failed
// assert) is caught by a signal handler that leaves the fiber for good and
// resumes the scheduler, which reports it like any other kernel error.
// Signals anywhere else go to the handler that was there before (or the
// default action), so host crashes still crash.
#pragma once
#include <boost/context/fiber.hpp>
#include <cstddef>
#include <string>
#include "sim/fiber_stack.h"
#include "sim/simulator.h"

namespace tklab::sim::kernel_crash {

// What the handler saw.
struct Crash {
    int signal = 0;               // 0: none
    int code = 0;                 // siginfo's si_code
    const void* addr = nullptr;   // the faulting address (SIGSEGV, SIGBUS)
    bool overrun = false;         // the stack pointer left the fiber's stack, or the guard page was hit
};

// Scoped to one switch into a fiber: where its stack is and the scheduler to
// go back to (the fiber's handle on it, valid while the fiber runs).
struct RunningFiber;
inline thread_local RunningFiber* t_running = nullptr;
struct RunningFiber {
    const FiberStack& stack;
    boost::context::fiber& sched;
    Crash crash;
    RunningFiber(const FiberStack& s, boost::context::fiber& f) : stack(s), sched(f) { t_running = this; }
    ~RunningFiber() { t_running = nullptr; }
    RunningFiber(const RunningFiber&) = delete;
    RunningFiber& operator=(const RunningFiber&) = delete;
};

// Makes sure this host thread has the handlers and an alternate signal stack
// (a stack overrun leaves no stack to run a handler on). Cheap; called per
// block, because a test framework may put back its own handlers in between.
void guard_host_thread();

// Thrown by __trap() (tklab::sim::kernel_trap) to stop the thread.
struct KernelTrap { const char* file; int line; };

// The SimErrors, each naming the kernel line (file may be "", line 0: the
// thread had not reached an instruction yet) and the thread (`who`).
SimError crash_error(const Crash& c, const std::string& who, const char* file, int line, size_t stack_bytes);
SimError trap_error(const KernelTrap& t, const std::string& who);
SimError exception_error(const std::string& type, const std::string& what, const std::string& who, const char* file, int line);

} // namespace tklab::sim::kernel_crash
