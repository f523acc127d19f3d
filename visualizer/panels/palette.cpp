#include "visualizer/panels/palette.h"
#include <algorithm>
#include <cmath>

namespace tklab::view::palette {

namespace {
bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
ImU32 lerp(ImU32 a, ImU32 b, float t) {
    auto ch = [&](int shift) {
        const float x = float((a >> shift) & 0xff), y = float((b >> shift) & 0xff);
        return uint32_t(std::lround(x + (y - x) * t)) << shift;
    };
    return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | ch(IM_COL32_A_SHIFT);
}
} // namespace

ImU32 op_color(const std::string& op) {
    if (starts(op, "ldmatrix") || starts(op, "stmatrix")) return IM_COL32(80, 170, 230, 255);
    if (starts(op, "ld.shared") || starts(op, "st.shared")) return IM_COL32(70, 200, 200, 255);
    if (starts(op, "mma") || starts(op, "wgmma")) return IM_COL32(110, 200, 90, 255);
    if (starts(op, "shfl")) return IM_COL32(200, 200, 90, 255);
    if (starts(op, "bar") || starts(op, "mbarrier")) return IM_COL32(190, 120, 230, 255);
    if (starts(op, "cp.async") || starts(op, "cp.")) return IM_COL32(230, 150, 70, 255);
    if (starts(op, "ld.global") || starts(op, "st.global")) return IM_COL32(220, 110, 150, 255);
    return IM_COL32(160, 160, 160, 255);
}

ImU32 region_color(size_t name_index) {
    // Golden-angle hue steps: neighbours in the name table get far-apart colours.
    const float hue = std::fmod(0.08f + 0.381966f * float(name_index), 1.0f);
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.85f, r, g, b);
    return IM_COL32(int(r * 255), int(g * 255), int(b * 255), 255);
}

ImU32 stall_color(const std::string& stall) {
    if (stall == "barrier") return IM_COL32(150, 90, 200, 255);
    if (stall == "mbarrier") return IM_COL32(120, 80, 220, 255);
    if (stall == "long_scoreboard") return IM_COL32(200, 80, 120, 255);
    if (stall == "short_scoreboard") return IM_COL32(60, 150, 160, 255);
    if (stall == "mio_throttle") return IM_COL32(230, 70, 60, 255);
    if (stall == "math_pipe_throttle") return IM_COL32(90, 160, 60, 255);
    if (stall == "wait") return IM_COL32(200, 170, 60, 255);
    if (stall == "selected") return IM_COL32(110, 140, 210, 255);
    if (stall == "not_selected") return IM_COL32(150, 170, 225, 255);
    if (stall == "drain") return IM_COL32(170, 120, 90, 255);
    if (stall == "lg_throttle") return IM_COL32(235, 150, 60, 255);
    if (stall == "imc_miss") return IM_COL32(120, 190, 120, 255);
    return IM_COL32(90, 90, 90, 255);
}

ImU32 conflict_color(int way) {
    if (way <= 1) return IM_COL32(70, 170, 90, 255);
    // 2-way is yellow, 8-way orange-red, 32-way dark red: log scale.
    const float t = std::clamp(std::log2(float(way)) / 5.0f, 0.0f, 1.0f);
    if (t < 0.4f) return lerp(IM_COL32(240, 220, 60, 255), IM_COL32(245, 140, 40, 255), t / 0.4f);
    return lerp(IM_COL32(245, 140, 40, 255), IM_COL32(150, 20, 30, 255), (t - 0.4f) / 0.6f);
}

ImU32 heat(float t) {
    t = std::clamp(t, 0.0f, 1.0f);
    static const ImU32 stops[] = {IM_COL32(20, 25, 60, 255), IM_COL32(60, 40, 140, 255),
                                  IM_COL32(190, 60, 100, 255), IM_COL32(250, 150, 40, 255),
                                  IM_COL32(250, 240, 120, 255)};
    const float x = t * 4.0f;
    const int i = std::min(3, int(x));
    return lerp(stops[i], stops[i + 1], x - float(i));
}

ImU32 diverging(float t) {
    t = std::clamp(t, -1.0f, 1.0f);
    const ImU32 mid = IM_COL32(235, 235, 235, 255);
    return t < 0 ? lerp(mid, IM_COL32(40, 90, 200, 255), -t) : lerp(mid, IM_COL32(200, 50, 40, 255), t);
}

ImU32 lane_color(int lane) {
    // Evenly spaced hues; lanes of one 8-lane phase sit far apart on the wheel.
    const float h = std::fmod(float(lane % 32) * 0.618034f, 1.0f);
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(h, 0.55f, 0.95f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

} // namespace tklab::view::palette
