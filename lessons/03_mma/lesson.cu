// Lesson 3, "Tensor cores": runnable as `tklab run lesson03 --variant
// exercise|solution`, and checked by `tklab lesson check 3`. The problem is in
// lesson.cuh, your kernel in exercise.cuh, the reference in solution.cuh.
#include "lessons/03_mma/lesson.cuh"
#include "lessons/03_mma/exercise.cuh"
#include "lessons/03_mma/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson03, lesson03::program_def({
                            {"exercise", lesson03::exercise::kernel},
                            {"solution", lesson03::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson03, lesson03::lesson());
#endif

} // namespace
