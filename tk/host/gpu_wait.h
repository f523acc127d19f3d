// Waiting for a GPU launch without hanging for good. A kernel whose warps wait
// on a barrier, semaphore or mbarrier phase that nothing completes (a
// deadlock: the simulator stops it and names each warp's wait) never ends on
// the GPU, and cudaDeviceSynchronize would wait for it for ever. tk::launch
// polls instead (tk/host/launch.h) and gives up after gpu_wait_limit_s().
#pragma once
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace tk::host {

// Seconds a launch may run before tk::launch calls it hung: TKLAB_GPU_TIMEOUT
// when it is a positive number, else 60 (every kernel and lesson here runs in
// well under a second).
inline double gpu_wait_limit_s() {
    constexpr double kDefault = 60;
    const char* v = std::getenv("TKLAB_GPU_TIMEOUT");
    if (!v || !*v) return kDefault;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    return end && *end == '\0' && s > 0 ? s : kDefault;
}

// Polls `done` (true once the GPU has finished) until it says so, or until
// `limit_s` seconds have passed: false then. A thousand quick polls first (a
// kernel of microseconds is not kept waiting), then one a millisecond.
template <typename Done>
bool poll_until_done(Done&& done, double limit_s) {
    const auto start = std::chrono::steady_clock::now();
    for (int polls = 0;; ++polls) {
        if (done()) return true;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s) return false;
        if (polls >= 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// What tk::launch says when a launch has not finished in time.
inline std::string hung_launch_message(const std::string& kernel, double limit_s) {
    return "error: kernel " + kernel + " has not finished after " + std::to_string(int(limit_s + 0.5)) +
           " s on the GPU: its warps are most likely waiting on a barrier, semaphore or mbarrier phase that nothing "
           "completes (a deadlock).\n  fix: run it in the simulator (`tklab run` without --gpu, or `tklab lesson run N`), "
           "which stops at a deadlock and names each warp's wait and line; a kernel that really runs longer needs "
           "TKLAB_GPU_TIMEOUT=SECONDS. Exiting now: the driver ends the kernel with the process.\n";
}

} // namespace tk::host
