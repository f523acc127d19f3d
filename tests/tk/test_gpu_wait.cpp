// tk::host's wait for a GPU launch (tk/host/gpu_wait.h): polls until the
// launch is done, gives up past the limit with a message that names the
// kernel and the fix, and reads its limit from TKLAB_GPU_TIMEOUT.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>

#include "tk/host/gpu_wait.h"

TEST_CASE("gpu wait: a launch that finishes is waited for, one that never does is given up on", "[tk][host]") {
    std::mt19937 rng(41);
    const int polls_needed = 1 + int(rng() % 2000);  // past the thousand quick polls, some of the time
    int polls = 0;
    CHECK(tk::host::poll_until_done([&] { return ++polls >= polls_needed; }, 30.0));
    CHECK(polls == polls_needed);
    polls = 0;
    CHECK_FALSE(tk::host::poll_until_done([&] { ++polls; return false; }, 0.05));
    CHECK(polls > 1);
}

TEST_CASE("gpu wait: the limit comes from TKLAB_GPU_TIMEOUT when it is a positive number", "[tk][host]") {
    const char* old = std::getenv("TKLAB_GPU_TIMEOUT");
    const std::string saved = old ? old : "";
    ::setenv("TKLAB_GPU_TIMEOUT", "2.5", 1);
    CHECK(tk::host::gpu_wait_limit_s() == 2.5);
    for (const char* bad : {"", "0", "-3", "ten", "5s"}) {
        ::setenv("TKLAB_GPU_TIMEOUT", bad, 1);
        INFO("TKLAB_GPU_TIMEOUT=" << bad);
        CHECK(tk::host::gpu_wait_limit_s() == 60.0);
    }
    if (old) ::setenv("TKLAB_GPU_TIMEOUT", saved.c_str(), 1);
    else ::unsetenv("TKLAB_GPU_TIMEOUT");
    const std::string m = tk::host::hung_launch_message("lesson10", 60.0);
    CHECK_THAT(m, Catch::Contains("kernel lesson10 has not finished after 60 s"));
    CHECK_THAT(m, Catch::Contains("deadlock"));
    CHECK_THAT(m, Catch::Contains("run it in the simulator"));
    CHECK_THAT(m, Catch::Contains("TKLAB_GPU_TIMEOUT=SECONDS"));
}
