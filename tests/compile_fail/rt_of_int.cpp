// expect: tk::rt<T, ...>: T must be float, tk::bf16 or tk::half
// Mistake: a register tile of int. Tiles hold float, tk::bf16 or tk::half.
#include "tk/tk.h"

__global__ void kernel() {
    tk::rt<int, 16, 16> a;
    (void)a;
}
