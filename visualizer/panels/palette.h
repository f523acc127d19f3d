// The viewer's colours, in one place so every panel means the same thing by
// the same colour: instruction classes, stall reasons, conflict degrees.
#pragma once
#include <cstdint>
#include <string>
#include <imgui.h>

namespace tklab::view::palette {

// By instruction name (Trace::ops): shared memory, ldmatrix/stmatrix, tensor
// core, shuffle, barrier, async copy, global memory.
ImU32 op_color(const std::string& op);
// A GPU trace's regions, by their index in Trace::op_names: distinct hues.
ImU32 region_color(size_t name_index);
// By stall reason name (Trace::stalls): barrier, mbarrier, long_scoreboard, ...
ImU32 stall_color(const std::string& stall);
// By conflict degree: 1 (none) green through 32-way dark red.
ImU32 conflict_color(int way);
// A sequential heat scale for t in [0, 1] (dark blue -> yellow).
ImU32 heat(float t);
// A diverging scale for values around zero (tile inspector).
ImU32 diverging(float t);  // t in [-1, 1]
// A distinct colour per lane (0..31), for "which lane touches which bank".
ImU32 lane_color(int lane);

constexpr ImU32 cursor = IM_COL32(255, 255, 255, 230);
constexpr ImU32 selection = IM_COL32(90, 160, 255, 60);
constexpr ImU32 text_dim = IM_COL32(150, 150, 150, 255);
constexpr ImU32 warning = IM_COL32(255, 170, 60, 255);
constexpr ImU32 error = IM_COL32(255, 90, 80, 255);

} // namespace tklab::view::palette
