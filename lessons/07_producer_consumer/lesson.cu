// Lesson 7, "Producer and consumer warps": runnable as `tklab run lesson07
// --variant exercise|solution|one_stage`, and checked by `tklab lesson check
// 7`. The problem is in lesson.cuh, your kernel in exercise.cuh, the
// reference in solution.cuh; one_stage is the reference with a ring of one
// slot (wrong/one_stage.cuh), to compare timelines.
#include "lessons/07_producer_consumer/lesson.cuh"
#include "lessons/07_producer_consumer/exercise.cuh"
#include "lessons/07_producer_consumer/solution.cuh"
#include "lessons/07_producer_consumer/wrong/one_stage.cuh"

namespace {

TKLAB_PROGRAM(lesson07, lesson07::program_def({
                            {"exercise", lesson07::exercise::kernel},
                            {"solution", lesson07::solution::kernel},
                            {"one_stage", lesson07::wrong_one_stage::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson07, lesson07::lesson());
#endif

} // namespace
