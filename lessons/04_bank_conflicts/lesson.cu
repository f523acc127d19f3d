// Lesson 4, "Shared memory and bank conflicts": runnable as `tklab run lesson04
// --variant exercise|solution|padded|unpadded`, and checked by `tklab lesson
// check 4`. The problem is in lesson.cuh, your kernel in exercise.cuh, the
// reference in solution.cuh (the swizzle) and padded.cuh (the padding);
// "unpadded" is the conflicted one, wrong/conflicts.cuh, to compare with.
// Part 2, the GEMM, is in part2_gemm/.
#include "lessons/04_bank_conflicts/lesson.cuh"
#include "lessons/04_bank_conflicts/exercise.cuh"
#include "lessons/04_bank_conflicts/solution.cuh"
#include "lessons/04_bank_conflicts/padded.cuh"
#include "lessons/04_bank_conflicts/wrong/conflicts.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/exercise.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/solution.cuh"
#include "lessons/04_bank_conflicts/part2_gemm/wrong/unswizzled.cuh"

namespace {

TKLAB_PROGRAM(lesson04, lesson04::program_def({
                            {"exercise", lesson04::exercise::kernel},
                            {"solution", lesson04::solution::kernel},
                            {"padded", lesson04::padded::kernel},
                            {"unpadded", lesson04::wrong_conflicts::kernel},
                        }));

// Part 2: `tklab run lesson04_gemm --variant exercise|solution|unswizzled`.
TKLAB_PROGRAM(lesson04_gemm, lesson04_gemm::program_def({
                                 {"exercise", lesson04_gemm::exercise::kernel},
                                 {"solution", lesson04_gemm::solution::kernel},
                                 {"unswizzled", lesson04_gemm::wrong_unswizzled::kernel},
                             }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson04, lesson04::lesson());
// Part 2 (part2_gemm/): the same problem in a GEMM's ldmatrix loads.
TKLAB_LESSON_PARTS(lesson04, 4, "a transpose through a 32x32 shared tile", {lesson04_gemm::part()});
#endif

} // namespace
