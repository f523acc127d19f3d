#include "lessons/framework/hints.h"
#include <sstream>

namespace tklab::lessons {

namespace {

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// "<!-- mistake: a, b -->" -> {"a", "b"}; anything else -> {}.
std::vector<std::string> tag_names(const std::string& line) {
    const std::string t = trim(line), open = "<!-- mistake:", close = "-->";
    if (t.rfind(open, 0) != 0 || t.size() < open.size() + close.size() || t.compare(t.size() - close.size(), close.size(), close) != 0)
        return {};
    std::vector<std::string> names;
    std::istringstream in(t.substr(open.size(), t.size() - open.size() - close.size()));
    for (std::string n; std::getline(in, n, ',');)
        if (!trim(n).empty()) names.push_back(trim(n));
    return names;
}

} // namespace

Hints parse_hints(const std::string& text) {
    std::vector<std::string> sections{""};
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line == "---") sections.emplace_back();
        else sections.back() += line + "\n";
    }
    Hints h;
    for (const std::string& s : sections) {
        if (trim(s).empty()) continue;
        const std::string body = s.substr(s.find_first_not_of("\n"));
        const size_t eol = body.find('\n');
        const auto names = tag_names(body.substr(0, eol));
        if (names.empty()) {
            h.general.push_back(body);
            continue;
        }
        const std::string rest = eol == std::string::npos ? "" : body.substr(eol + 1);
        const std::string kept = rest.find_first_not_of("\n") == std::string::npos ? "" : rest.substr(rest.find_first_not_of("\n"));
        for (const std::string& n : names) h.for_mistake[n] = kept;
    }
    return h;
}

std::optional<NextHint> next_hint(const Hints& h, int general_shown, const std::string& diagnosed,
                                  const std::set<std::string>& mistake_hints_shown) {
    if (!diagnosed.empty() && !mistake_hints_shown.count(diagnosed)) {
        const auto it = h.for_mistake.find(diagnosed);
        if (it != h.for_mistake.end()) return NextHint{it->second, diagnosed, -1};
    }
    if (general_shown >= 0 && general_shown < int(h.general.size()))
        return NextHint{h.general[size_t(general_shown)], "", general_shown};
    return std::nullopt;
}

} // namespace tklab::lessons
