// Runs one planted bug on the GPU, for compute-sanitizer (scripts/gpu/sanitizer.sh):
//   planted_bugs_gpu --list          every bug: name, kind, whether it hangs a GPU
//   planted_bugs_gpu NAME            launch it, synchronise, print what the runtime said
#include <cstdio>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

#include "planted_bugs/all.cuh"

int main(int argc, char** argv) {
    if (argc != 2 || !std::strcmp(argv[1], "--help")) {
        std::fprintf(stderr, "usage: %s --list | NAME\n", argv[0]);
        return 2;
    }
    if (!std::strcmp(argv[1], "--list")) {
        for (const planted::Bug& b : planted::all_bugs())
            std::printf("%s %s %s%s\n", b.name, planted::kind_name(b.kind), b.hangs_on_gpu ? "hangs" : "returns", b.hopper ? " hopper" : "");
        return 0;
    }
    for (const planted::Bug& b : planted::all_bugs()) {
        if (argv[1] != std::string(b.name)) continue;
        try {
            b.run();
        } catch (const std::exception& e) {
            std::printf("%s: host error: %s\n", b.name, e.what());
        }
        const cudaError_t e = cudaDeviceSynchronize();
        std::printf("%s: %s\n", b.name, e == cudaSuccess ? "ran to its end" : cudaGetErrorString(e));
        return e == cudaSuccess ? 0 : 1;
    }
    std::fprintf(stderr, "%s: no planted bug named '%s' (--list shows them)\n", argv[0], argv[1]);
    return 2;
}
