// main() of `tklab` and `tklab_gpu`: the command line (cli/main.cpp) with
// tklab's own kernels and lessons, which cli/CMakeLists.txt links in. A
// program of a user's own kernels gets a generated main() instead
// (tklab_add_kernel in cmake/tklab.cmake).
#include "cli/common.h"
#ifdef TKLAB_COMPILER_FIGURES_DIR
#include "sim/compiler_figures.h"
#endif

int main(int argc, char** argv) {
#ifdef TKLAB_COMPILER_FIGURES_DIR
    // This build compiled every registered kernel with nvcc too: launches show ptxas's figures.
    tklab::sim::set_compiler_figures_dir(TKLAB_COMPILER_FIGURES_DIR);
#endif
    return tklab::cli::run_main(argc, argv);
}
