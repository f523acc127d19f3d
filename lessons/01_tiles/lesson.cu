// Lesson 1, "Tiles and warps": runnable as `tklab run lesson01 --variant
// exercise|solution`, and checked by `tklab lesson check 1`. The problem is in
// lesson.cuh, your kernel in exercise.cuh, the reference in solution.cuh.
#include "lessons/01_tiles/lesson.cuh"
#include "lessons/01_tiles/exercise.cuh"
#include "lessons/01_tiles/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson01, lesson01::program_def({
                            {"exercise", lesson01::exercise::kernel},
                            {"solution", lesson01::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson01, lesson01::lesson());
#endif

} // namespace
