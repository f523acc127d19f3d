// Warp-scope ops on register tiles and vectors: everything but mma.
//   maps.h        zero/one/neg_infty/fill, copy, exp/exp2/log/abs/relu,
//                 add/sub/mul/div/max/min, unary_map/binary_map (tiles and vectors)
//   reductions.h  row_max/row_min/row_sum, col_max/col_min/col_sum (+ accumulate)
//   broadcasts.h  add_row/.../div_row, add_col/.../div_col, row_map/col_map,
//                 broadcast_row/broadcast_col
//   layout.h      swap_layout, transpose
//   mask.h        make_causal
//   vectors.h     load/store of register vectors (shared and global)
#pragma once
#include "tk/ops/warp/register/maps.h"
#include "tk/ops/warp/register/reductions.h"
#include "tk/ops/warp/register/broadcasts.h"
#include "tk/ops/warp/register/layout.h"
#include "tk/ops/warp/register/mask.h"
#include "tk/ops/warp/register/vectors.h"
