// Checks a screenshot the visualizer wrote: its size, that it shows something
// (enough distinct colours, overall and in a region), and that given colours
// are present or absent. Used by the headless screenshot tests.
//   tklab_png_check FILE WIDTH HEIGHT [--min-colors N] [--region X,Y,W,H,N]...
//                   [--has RRGGBB]... [--lacks RRGGBB]... [--count RRGGBB,MIN,MAX]...
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>
#include <stb_image.h>

namespace {
int fail(const std::string& why) {
    std::fprintf(stderr, "png_check: %s\n", why.c_str());
    return 1;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) return fail("usage: tklab_png_check FILE WIDTH HEIGHT [options]");
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
    if (!px) return fail(std::string(argv[1]) + ": not a readable PNG (" + stbi_failure_reason() + ")");
    const int want_w = std::atoi(argv[2]), want_h = std::atoi(argv[3]);
    if (w != want_w || h != want_h)
        return fail(std::string(argv[1]) + ": " + std::to_string(w) + "x" + std::to_string(h) + ", expected " +
                    std::to_string(want_w) + "x" + std::to_string(want_h));
    auto rgb = [&](int x, int y) {
        const unsigned char* p = px + (size_t(y) * size_t(w) + size_t(x)) * 3;
        return (unsigned(p[0]) << 16) | (unsigned(p[1]) << 8) | p[2];
    };
    auto colours = [&](int x0, int y0, int rw, int rh) {
        std::set<unsigned> s;
        for (int y = y0; y < y0 + rh && y < h; ++y)
            for (int x = x0; x < x0 + rw && x < w; ++x) s.insert(rgb(x, y));
        return s;
    };
    const std::set<unsigned> all = colours(0, 0, w, h);
    int status = 0;
    for (int i = 4; i < argc; ++i) {
        const std::string opt = argv[i];
        if (i + 1 >= argc) return fail(opt + ": needs a value");
        const std::string val = argv[++i];
        if (opt == "--min-colors") {
            if (all.size() < size_t(std::atoi(val.c_str())))
                status = fail(std::to_string(all.size()) + " distinct colours, expected at least " + val + " (blank?)");
        } else if (opt == "--region") {
            int x, y, rw, rh, min;
            if (std::sscanf(val.c_str(), "%d,%d,%d,%d,%d", &x, &y, &rw, &rh, &min) != 5) return fail("--region X,Y,W,H,N");
            const size_t c = colours(x, y, rw, rh).size();
            if (c < size_t(min))
                status = fail("region " + val + ": " + std::to_string(c) + " distinct colours, expected at least " +
                              std::to_string(min));
        } else if (opt == "--has" || opt == "--lacks") {
            const unsigned c = unsigned(std::strtoul(val.c_str(), nullptr, 16));
            const bool has = all.count(c) > 0;
            if (has != (opt == "--has")) status = fail("colour " + val + (has ? " is present" : " is absent"));
        } else if (opt == "--count") {  // pixels of one colour: a legend swatch is small, a panel's cells are not
            unsigned c = 0;
            long lo = 0, hi = 0;
            if (std::sscanf(val.c_str(), "%x,%ld,%ld", &c, &lo, &hi) != 3) return fail("--count RRGGBB,MIN,MAX");
            long n = 0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) n += rgb(x, y) == c;
            if (n < lo || n > hi)
                status = fail("colour " + val.substr(0, 6) + ": " + std::to_string(n) + " pixels, expected " +
                              std::to_string(lo) + " to " + std::to_string(hi));
        } else {
            return fail("unknown option " + opt);
        }
    }
    stbi_image_free(px);
    return status;
}
