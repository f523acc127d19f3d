// Lesson 5, "Asynchronous copies and double buffering": runnable as `tklab run
// lesson05 --variant exercise|solution`, and checked by `tklab lesson check
// 5`. The problem is in lesson.cuh, your kernel in exercise.cuh, the
// reference in solution.cuh.
#include "lessons/05_async_copies/lesson.cuh"
#include "lessons/05_async_copies/exercise.cuh"
#include "lessons/05_async_copies/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson05, lesson05::program_def({
                            {"exercise", lesson05::exercise::kernel},
                            {"solution", lesson05::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson05, lesson05::lesson());
#endif

} // namespace
