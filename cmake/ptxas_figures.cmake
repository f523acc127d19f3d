# Compiles one runnable source for the GPU with `ptxas -v` and writes its
# report (registers, local memory and spills per kernel) for the simulator to
# read (sim/compiler_figures.h). Run by the build (cli/CMakeLists.txt):
#   cmake -DNVCC=.. -DNVCC_VERSION=.. -DSOURCE=.. -DINCLUDE=.. -DARCH=sm_90a
#         -DCUBIN=.. -DDEPFILE=.. -DREPORT=.. -P ptxas_figures.cmake
get_filename_component(report_dir ${REPORT} DIRECTORY)
file(MAKE_DIRECTORY ${report_dir})
execute_process(
  COMMAND ${NVCC} -I${INCLUDE} -O3 -DNDEBUG -arch=${ARCH} -cubin --expt-relaxed-constexpr -lineinfo -std=c++20
          -Xptxas=-v -MD -MF ${DEPFILE} ${SOURCE} -o ${CUBIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${err}${out}\nnvcc could not compile ${SOURCE} for ${ARCH} (the compiler's figures for the simulator); "
                      "its messages are above. Fix the source, or configure with -DTKLAB_CUDA=OFF to build without nvcc.")
endif()
file(WRITE ${REPORT} "tklab compiler figures: nvcc ${NVCC_VERSION}\ntklab source: ${SOURCE} for ${ARCH}\n${out}${err}")
