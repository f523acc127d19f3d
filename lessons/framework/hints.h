// A lesson's hints.md: sections split by lines "---". Untagged sections are
// the general hints, served in order. A section whose first line is
// "<!-- mistake: NAME -->" (or several names, comma-separated) belongs to a
// known mistake (lessons/framework/diagnosis.h): `tklab lesson hint` serves
// it first when the last check diagnosed that mistake. The tag is an HTML
// comment, so the file still reads well on GitHub.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tklab::lessons {

struct Hints {
    std::vector<std::string> general;                 // in order
    std::map<std::string, std::string> for_mistake;   // mistake name -> its hint
};

Hints parse_hints(const std::string& text);

// What `tklab lesson hint` shows next: the diagnosed mistake's hint if it has
// one not shown yet, else the next general hint; nothing when all are shown.
struct NextHint {
    std::string text;
    std::string mistake;   // set when it is the mistake's hint
    int general = -1;      // else its index in `general`
};
std::optional<NextHint> next_hint(const Hints& h, int general_shown, const std::string& diagnosed,
                                  const std::set<std::string>& mistake_hints_shown);

} // namespace tklab::lessons
