// Lesson 9, "Profiling on a real GPU": runnable as `tklab run lesson09
// --variant exercise|solution` (and on a GPU, `tklab run lesson09 --gpu
// --profile timing,regions`), checked by `tklab lesson check 9`. Part 1 marks
// the kernel's phases (exercise.cuh); part 2 compares their timing in the
// simulator with an H100's (part2_compare/answer.txt).
#include "lessons/09_gpu_profiling/lesson.cuh"
#include "lessons/09_gpu_profiling/exercise.cuh"
#include "lessons/09_gpu_profiling/solution.cuh"
#if !defined(TK_GPU)
#include "lessons/09_gpu_profiling/checks.h"
#endif

namespace {

TKLAB_PROGRAM(lesson09, lesson09::program_def({
                            {"exercise", lesson09::exercise::kernel},
                            {"solution", lesson09::solution::kernel},
                        }));

} // namespace

#if !defined(TK_GPU)
namespace {
TKLAB_LESSON(lesson09, lesson09::lesson());
TKLAB_LESSON_PARTS(lesson09, 9, "mark the phases", {lesson09::answers_part()});
} // namespace
#endif
