// Lesson 6, "Register pressure": runnable as `tklab run lesson06 --variant
// exercise|solution|tile16|tile32|tile64`, and checked by `tklab lesson check
// 6`. The problem is in lesson.cuh, your kernel in exercise.cuh, the reference
// in solution.cuh; tile16, tile32 and tile64 are the reference's kernel with
// 16x16, 32x32 and 64x64 warp tiles, to compare.
#include "lessons/06_register_pressure/lesson.cuh"
#include "lessons/06_register_pressure/exercise.cuh"
#include "lessons/06_register_pressure/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson06, lesson06::program_def({
                            {"exercise", lesson06::exercise::kernel},
                            {"solution", lesson06::solution::kernel},
                            {"tile16", lesson06::solution::gemm<16, 16>},
                            {"tile32", lesson06::solution::gemm<32, 32>},
                            {"tile64", lesson06::solution::gemm<64, 64>},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson06, lesson06::lesson());
#endif

} // namespace
