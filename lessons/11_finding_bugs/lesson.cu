// Lesson 11, "Finding bugs without a GPU": runnable as `tklab run lesson11
// --variant exercise|solution`, and checked by `tklab lesson check 11`. The
// problem is in lesson.cuh, your kernel in exercise.cuh, the reference in
// solution.cuh. (The known-wrong kernels are not registered: one of them, like
// the exercise, would hang a real GPU.)
#include "lessons/11_finding_bugs/lesson.cuh"
#include "lessons/11_finding_bugs/exercise.cuh"
#include "lessons/11_finding_bugs/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson11, lesson11::program_def({
                            {"exercise", lesson11::exercise::kernel},
                            {"solution", lesson11::solution::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson11, lesson11::lesson());
#endif

} // namespace
