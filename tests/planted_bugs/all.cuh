// Every planted bug, registered in this order (include this in one file only).
#pragma once
#include "planted_bugs/planted_bugs.h"

#include "planted_bugs/memory.cuh"
#include "planted_bugs/races.cuh"
#include "planted_bugs/uninit.cuh"
#include "planted_bugs/sync.cuh"
#include "planted_bugs/deadlock.cuh"
#include "planted_bugs/hopper.cuh"
