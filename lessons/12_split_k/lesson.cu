// Lesson 12, "Split-K and atomics": runnable as `tklab run lesson12
// --variant exercise|solution|one_slice`, and checked by `tklab lesson check
// 12`. The problem is in lesson.cuh, your kernels in exercise.cuh, the
// reference in solution.cuh; one_slice is the unsplit GEMM the goal is
// measured against.
#include "lessons/12_split_k/lesson.cuh"
#include "lessons/12_split_k/exercise.cuh"
#include "lessons/12_split_k/solution.cuh"

namespace {

TKLAB_PROGRAM(lesson12, lesson12::program_def({
                            {"exercise", {lesson12::exercise::zero, lesson12::exercise::kernel, lesson12::exercise::kSlices}},
                            {"solution", {lesson12::solution::zero, lesson12::solution::kernel, lesson12::solution::kSlices}},
                            {"one_slice", lesson12::one_slice_kernels},
                        }));

#if !defined(TK_GPU)
TKLAB_LESSON(lesson12, lesson12::lesson());
#endif

} // namespace
