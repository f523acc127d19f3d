// Lesson 8, "Flash attention forward": runnable as `tklab run lesson08
// --variant exercise|solution`, and checked by `tklab lesson check 8`. The
// problem is in lesson.cuh, your kernel in exercise.cuh, the reference in
// solution.cuh.
#include "lessons/08_flash_attention/lesson.cuh"
#include "lessons/08_flash_attention/exercise.cuh"
#include "lessons/08_flash_attention/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson08, lesson08::program_def({
                            {"exercise", lesson08::exercise::kernel},
                            {"solution", lesson08::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson08, lesson08::lesson());
#endif

} // namespace
