// The instruction layer: one small function per hardware instruction.
#pragma once
#include "tk/arch/shared_memory.h"
#include "tk/arch/ldmatrix.h"
#include "tk/arch/mma.h"
#include "tk/arch/shuffle.h"
#include "tk/arch/barrier.h"
#include "tk/arch/async_copy.h"
#include "tk/arch/mbarrier.h"
#include "tk/arch/global_memory.h"
#include "tk/arch/atomic.h"
#include "tk/arch/tma.h"
#include "tk/arch/wgmma.h"
#include "tk/arch/convert.h"
