// Text every panel writes the same way: wrapped (panels are often narrow and
// nothing may be cut off), dim for hints, numbers with thousands separators.
#pragma once
#include <cstdint>
#include <string>
#include <imgui.h>

namespace tklab::view {

constexpr ImU32 kText = IM_COL32(230, 230, 230, 255);  // body text, for say()

// Wrapped text in one colour, printf-style.
void say(ImU32 color, const char* fmt, ...) IM_FMTARGS(2);
// A dim hint on one line, and wrapped.
void dim(const std::string& s);
void dim_wrapped(const std::string& s);
// 1234567 -> "1,234,567".
std::string with_commas(uint64_t n);

} // namespace tklab::view
