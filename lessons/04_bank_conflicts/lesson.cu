// Lesson 4, "Shared memory and bank conflicts": runnable as `tklab run lesson04
// --variant exercise|solution|padded|unpadded`, and checked by `tklab lesson
// check 4`. The problem is in lesson.cuh, your kernel in exercise.cuh, the
// reference in solution.cuh (the swizzle) and padded.cuh (the padding);
// "unpadded" is the conflicted one, wrong/conflicts.cuh, to compare with.
#include "lessons/04_bank_conflicts/lesson.cuh"
#include "lessons/04_bank_conflicts/exercise.cuh"
#include "lessons/04_bank_conflicts/solution.cuh"
#include "lessons/04_bank_conflicts/padded.cuh"
#include "lessons/04_bank_conflicts/wrong/conflicts.cuh"

namespace {

TKLAB_PROGRAM(lesson04, lesson04::program_def({
                            {"exercise", lesson04::exercise::kernel},
                            {"solution", lesson04::solution::kernel},
                            {"padded", lesson04::padded::kernel},
                            {"unpadded", lesson04::wrong_conflicts::kernel},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson04, lesson04::lesson());
#endif

} // namespace
