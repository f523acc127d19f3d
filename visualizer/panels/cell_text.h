// Text inside small coloured cells (the shared-memory grid, the tile
// inspector's heatmap): a colour that reads on the fill, and the largest font
// size that fits.
#pragma once
#include <cfloat>
#include <imgui.h>

namespace tklab::view {

// Black or white, whichever reads on `fill`.
inline ImU32 ink_on(ImU32 fill) {
    const float r = float((fill >> IM_COL32_R_SHIFT) & 0xff), g = float((fill >> IM_COL32_G_SHIFT) & 0xff),
                b = float((fill >> IM_COL32_B_SHIFT) & 0xff);
    return 0.299f * r + 0.587f * g + 0.114f * b > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

// Draws `text` centred in [a, z] in the largest font size, down to 8 px, that
// fits; nothing when none does. `bottom` leaves room under it (for a bar).
inline void fit_text(ImDrawList* dl, ImVec2 a, ImVec2 z, const char* text, ImU32 color, float bottom = 0) {
    ImFont* font = ImGui::GetFont();
    for (float px = ImGui::GetFontSize(); px >= 8; px -= 1) {
        const ImVec2 ts = font->CalcTextSizeA(px, FLT_MAX, 0, text);
        if (ts.x + 2 > z.x - a.x || ts.y > z.y - a.y - bottom) continue;
        dl->AddText(font, px, ImVec2((a.x + z.x - ts.x) / 2, (a.y + z.y - bottom - ts.y) / 2), color, text);
        return;
    }
}

} // namespace tklab::view
