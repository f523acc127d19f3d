#include "visualizer/panels/text.h"
#include <cstdarg>
#include <cstdio>
#include "visualizer/panels/palette.h"

namespace tklab::view {

void say(ImU32 color, const char* fmt, ...) {
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextWrapped("%s", buf);
    ImGui::PopStyleColor();
}

void dim(const std::string& s) { ImGui::TextColored(ImColor(palette::text_dim), "%s", s.c_str()); }

void dim_wrapped(const std::string& s) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette::text_dim);
    ImGui::TextWrapped("%s", s.c_str());
    ImGui::PopStyleColor();
}

std::string with_commas(uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string s;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

} // namespace tklab::view
