// Lesson 2, "Maps and reductions": runnable as `tklab run lesson02 --variant
// exercise|solution`, and checked by `tklab lesson check 2`. The problem is in
// lesson.cuh, your kernel in exercise.cuh, the reference in solution.cuh.
#include "lessons/02_softmax/lesson.cuh"
#include "lessons/02_softmax/exercise.cuh"
#include "lessons/02_softmax/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson02, lesson02::program_def({
                            {"exercise", lesson02::exercise::kernel},
                            {"solution", lesson02::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson02, lesson02::lesson());
#endif

} // namespace
