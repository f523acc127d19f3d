// Lesson 10, "The Hopper path": runnable as `tklab run lesson10 --variant
// exercise|solution|one_stage`, and checked by `tklab lesson check 10`. The
// problem is in lesson.cuh, your kernel in exercise.cuh, the reference in
// solution.cuh; one_stage is the reference with a ring of one slot
// (wrong/one_stage.cuh), to compare timelines.
#include "lessons/10_hopper/lesson.cuh"
#include "lessons/10_hopper/exercise.cuh"
#include "lessons/10_hopper/solution.cuh"
#include "lessons/10_hopper/wrong/one_stage.cuh"

namespace {

TKLAB_PROGRAM(lesson10, lesson10::program_def({
                            {"exercise", lesson10::exercise::kernel},
                            {"solution", lesson10::solution::kernel},
                            {"one_stage", lesson10::wrong_one_stage::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson10, lesson10::lesson());
#endif

} // namespace
