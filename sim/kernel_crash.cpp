// Signal handling for simulated threads, and the messages of kernels that
// stop by throwing, trapping or crashing (see kernel_crash.h).
#include "sim/kernel_crash.h"
#include "sim/cuda_shim.h"

#include <cxxabi.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace tklab::sim {

// __trap() in the host build (sim/cuda_shim.h).
[[noreturn]] void kernel_trap(const char* file, int line) {
    if (!kernel_crash::t_running)
        throw SimError(ErrorKind::usage, std::string(file) + ":" + std::to_string(line) +
                                             ": error: __trap() called outside a simulated kernel", file, line);
    throw kernel_crash::KernelTrap{file, line};
}

namespace kernel_crash {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
// How far below its stack a simulated thread's stack pointer may be and still
// count as an overrun of that stack (a large local array moves it in one step).
constexpr uintptr_t kOverrunReach = 64u << 20;
// The least alternate signal stack the handler accepts (it needs little; a
// previous handler it hands a host crash on to may need more).
constexpr size_t kAltStackBytes = 64 * 1024;

struct sigaction g_previous[NSIG];  // what was installed before us, per signal
std::mutex g_install_mu;

const void* stack_pointer(const ucontext_t* uc) {
#if defined(__x86_64__)
    return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
    return reinterpret_cast<const void*>(uc->uc_mcontext.sp);
#else
    (void)uc;
    return nullptr;
#endif
}

void on_signal(int sig, siginfo_t* info, void* uc_void);

bool is_ours(const struct sigaction& a) { return (a.sa_flags & SA_SIGINFO) && a.sa_sigaction == on_signal; }

void on_signal(int sig, siginfo_t* info, void* uc_void) {
    const auto* uc = static_cast<const ucontext_t*>(uc_void);
    RunningFiber* r = t_running;
    const void* sp = stack_pointer(uc);
    const auto spv = uintptr_t(sp), bottom = uintptr_t(r ? r->stack.bottom : nullptr);
    // On the running fiber's stack (or just below it), and the fiber can go back
    // to the scheduler (not while it is being unwound: its handle is then spent).
    const bool on_fiber = r && r->sched && r->stack.top &&
                          (!sp || (spv < uintptr_t(r->stack.top) && spv + kOverrunReach >= bottom));
    if (on_fiber) {
        Crash& c = r->crash;
        c.signal = sig;
        c.code = info->si_code;
        const bool addressed = sig == SIGSEGV || sig == SIGBUS;
        c.addr = addressed ? info->si_addr : nullptr;
        c.overrun = addressed && ((sp && spv < bottom) || r->stack.in_guard(info->si_addr));
        t_running = nullptr;
        // Leave the handler for good: the signal mask as it was before the
        // signal, then straight to the scheduler, which gets this (dead)
        // context as the fiber's handle and never resumes it.
        pthread_sigmask(SIG_SETMASK, &uc->uc_sigmask, nullptr);
        fiber_switch::leaving();
        std::move(r->sched).resume();
        std::abort();  // not reached
    }
    // Not a simulated thread's: the previous handler, or the default action.
    sigaction(sig, &g_previous[sig], nullptr);
    // A fault repeats when the instruction does; a sent signal must be sent again.
    if (info->si_code <= 0 || sig == SIGABRT) raise(sig);
}

// An alternate signal stack this thread owns, removed when the thread ends.
// Its destructor runs among the thread's exit handlers, on a stack where
// AddressSanitizer's shadow may still hold a fiber-switching frame's
// redzones; it reads only a local the kernel filled in, so it is not
// instrumented (a CI run once reported a stack-buffer-overflow on that local).
struct OwnAltStack {
    void* mem = nullptr;
    size_t bytes = 0;
    __attribute__((no_sanitize("address"))) ~OwnAltStack() {
        if (!mem) return;
        stack_t cur{};
        if (sigaltstack(nullptr, &cur) == 0 && cur.ss_sp == mem) {
            stack_t off{};
            off.ss_flags = SS_DISABLE;
            sigaltstack(&off, nullptr);
        }
        munmap(mem, bytes);
    }
};
thread_local OwnAltStack t_alt;

void ensure_alt_stack() {
    stack_t cur{};
    if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) && cur.ss_size >= kAltStackBytes) return;
    if (!t_alt.mem) {
        const size_t bytes = kAltStackBytes + size_t(sysconf(_SC_SIGSTKSZ) > 0 ? sysconf(_SC_SIGSTKSZ) : 0);
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;  // no handler stack: an overrun then ends the process, as before
        t_alt.mem = p;
        t_alt.bytes = bytes;
    }
    stack_t s{};
    s.ss_sp = t_alt.mem;
    s.ss_size = t_alt.bytes;
    sigaltstack(&s, nullptr);
}

void ensure_handlers() {
    for (int sig : kSignals) {
        struct sigaction cur{};
        if (sigaction(sig, nullptr, &cur) == 0 && is_ours(cur)) continue;
        std::lock_guard lk(g_install_mu);
        struct sigaction ours{};
        ours.sa_sigaction = on_signal;
        ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&ours.sa_mask);
        struct sigaction old{};
        if (sigaction(sig, &ours, &old) == 0 && !is_ours(old)) g_previous[sig] = old;
    }
}

std::string demangle(const std::string& name) {
    int status = 0;
    char* s = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && s ? s : name;
    std::free(s);
    return out;
}

std::string hex(const void* p) {
    std::ostringstream s;
    s << p;
    return s.str();
}

// "file:line: error: " when the line is known; "after kernel line" or
// "before its first instruction" otherwise said in the text.
std::string prefix(const char* file, int line) {
    return line > 0 ? std::string(file) + ":" + std::to_string(line) + ": error: " : std::string("error: ");
}
std::string at(const char* file, int line) {
    return line > 0 ? ", at or after kernel line " + std::string(file) + ":" + std::to_string(line) : ", before its first instruction";
}

} // namespace

void guard_host_thread() {
    ensure_alt_stack();
    ensure_handlers();
}

SimError crash_error(const Crash& c, const std::string& who, const char* file, int line, size_t stack_bytes) {
    std::ostringstream s;
    s << prefix(file, line);
    ErrorKind kind = ErrorKind::fault;
    std::string fix;
    if (c.overrun) {
        s << "the kernel overran its simulated thread's stack (" << stack_bytes / 1024
          << " KiB, Options::stack_bytes) in " << who << at(file, line);
        fix = "keep large arrays out of kernel locals (a GPU thread has little local memory: use shared memory or a global "
              "buffer), avoid deep recursion, or raise tklab::sim::options().stack_bytes";
    } else if (c.signal == SIGSEGV || c.signal == SIGBUS) {
        s << "the kernel " << (c.signal == SIGSEGV ? "accessed invalid memory" : "made a misaligned or unmapped access")
          << " at address " << hex(c.addr) << " in " << who << at(file, line)
          << " (a wild pointer in the kernel's own C++ code; on a GPU, an illegal address error)";
        fix = "check the pointers and indices the kernel computes after that line; pass global buffers "
              "(tk::device_buffer) and index inside them";
    } else if (c.signal == SIGFPE) {
        s << "the kernel divided an integer by zero (or overflowed a division) in " << who << at(file, line);
        fix = "check the divisor before dividing";
    } else if (c.signal == SIGILL) {
        s << "the kernel executed an illegal instruction (a __builtin_trap() or a compiler's trap for undefined behaviour) in "
          << who << at(file, line);
        fix = "look for code the compiler proved undefined after that line (a missing return, a null reference)";
    } else {
        kind = ErrorKind::kernel_exception;
        s << "the kernel aborted (SIGABRT: a failed assert() prints its condition and line just above) in " << who << at(file, line);
        fix = "the assertion's condition was false: find why";
    }
    s << ".\n  fix: " << fix;
    return SimError(kind, s.str(), file, line);
}

SimError trap_error(const KernelTrap& t, const std::string& who) {
    std::ostringstream s;
    s << prefix(t.file, t.line) << "the kernel executed __trap() in " << who
      << " (on a GPU this stops the whole launch with an unspecified launch failure).\n  fix: the trap marks a condition "
         "the kernel treats as impossible: find why it happened";
    return SimError(ErrorKind::kernel_exception, s.str(), t.file, t.line);
}

SimError exception_error(const std::string& type, const std::string& what, const std::string& who, const char* file, int line) {
    std::ostringstream s;
    s << prefix(file, line) << "the kernel threw " << (type.empty() ? "a non-standard exception" : demangle(type));
    if (!what.empty()) s << " (\"" << what << "\")";
    s << " in " << who << at(file, line)
      << ".\n  fix: device code cannot throw on a GPU: find what threw (a library call such as std::vector::at, or the "
         "kernel's own check) and test the condition instead";
    return SimError(ErrorKind::kernel_exception, s.str(), file, line);
}

} // namespace kernel_crash
} // namespace tklab::sim
