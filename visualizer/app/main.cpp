// tklab_view: the visualizer. `tklab view FILE...` starts it. With a display it
// opens a window; with --screenshot it renders off-screen to a PNG and exits
// (under Xvfb on a machine without a screen); with --print-state it runs a
// script against the model and prints the state as JSON, needing no display.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include <CLI/CLI.hpp>
#include <imgui.h>
#include "visualizer/app/layout.h"
#include "visualizer/app/window.h"
#include "visualizer/panels/palette.h"
#include "visualizer/panels/panels.h"

using namespace tklab::view;

namespace {

struct Args {
    std::vector<std::string> files;
    std::string screenshot, size = "1600x1000", panels, source_root;
    std::vector<std::string> scripts;
    bool print_state = false;
    int frames = 0;
    float font_size = 15.0f;
};

bool parse_size(const std::string& s, int& w, int& h) {
    return std::sscanf(s.c_str(), "%dx%d", &w, &h) == 2 && w >= 320 && h >= 240 && w <= 8192 && h <= 8192;
}

void draw_menu(ViewState& v, float& height) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("View")) {
        for (size_t i = 0; i < size_t(Panel::count_); ++i) ImGui::MenuItem(panel_title(Panel(i)), nullptr, &v.shown[i]);
        ImGui::Separator();
        if (ImGui::MenuItem("Reset layout")) reset_layout();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::TextUnformatted(
            "Space        play / pause\n"
            "Right, Left  step forward / back (one instruction, tile op or barrier)\n"
            "Shift+arrow  run to the next / previous breakpoint\n"
            "Home, End    to the start / end of the block\n"
            "U            change the step unit;  W  change the warp\n"
            "Timeline     wheel: zoom, drag: pan, shift+drag: select and measure, F: fit, Z: zoom to selection\n"
            "Source       click a line to select its events; click again to clear");
        ImGui::EndMenu();
    }
    if (const Document* d = v.main()) {
        std::string title = d->name;
        if (d->trace) {
            const auto& t = *d->trace;
            if (!t.program.empty()) title += "   " + t.program + (t.variant.empty() ? "" : " (" + t.variant + ")");
            for (auto it = t.problem.begin(); it != t.problem.end(); ++it) title += " " + it.key() + "=" + it.value().dump();
        }
        if (const Document* o = v.other()) title += "   vs   " + o->name;
        ImGui::SameLine(0, 30);
        ImGui::TextColored(ImColor(palette::text_dim), "%s", title.c_str());
    }
    height = ImGui::GetWindowSize().y;
    ImGui::EndMainMenuBar();
}

// Every problem met while loading, in the window as on stderr, until closed.
void draw_problems(const ViewState& v, bool& open) {
    if (!open) return;
    size_t n = 0;
    for (const Document& d : v.docs) n += d.problems.size();
    if (n == 0) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->Size.x * 0.5f, vp->Size.y * 0.35f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(300, 0), ImVec2(vp->Size.x * 0.8f, vp->Size.y * 0.6f));
    ImGui::SetNextWindowBgAlpha(1.0f);  // it floats over the panels
    if (ImGui::Begin("Problems", &open, ImGuiWindowFlags_AlwaysAutoResize)) {
        for (const Document& d : v.docs) {
            if (d.problems.empty()) continue;
            ImGui::TextColored(ImColor(d.trace ? palette::warning : palette::error), "%s%s", d.path.c_str(),
                               d.trace ? "" : ": could not be opened");
            for (const std::string& p : d.problems) ImGui::BulletText("%s", p.c_str());
        }
        ImGui::TextColored(ImColor(palette::text_dim), "What could be read is shown.");
    }
    ImGui::End();
}

void draw_all(ViewState& v, bool& problems_open) {
    float menu = 0;
    draw_menu(v, menu);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    apply_layout(v, vp->Size.x, vp->Size.y, menu);
    auto on = [&](Panel p) { return v.shown[size_t(p)]; };
    if (on(Panel::transport)) draw_transport(v);
    if (on(Panel::timeline)) draw_timeline(v);
    if (on(Panel::source)) draw_source(v);
    if (on(Panel::shared_memory)) draw_shared_memory(v);
    if (on(Panel::registers)) draw_registers(v);
    if (on(Panel::barriers)) draw_barriers(v);
    if (on(Panel::tile_inspector)) draw_tile_inspector(v);
    if (on(Panel::statistics)) draw_statistics(v);
    if (on(Panel::compare)) draw_compare(v);
    draw_problems(v, problems_open);
}

double median(std::vector<double> x) {
    if (x.empty()) return 0;
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    Args a;
    CLI::App app{"tklab view: step through a kernel's trace warp by warp (the visualizer)", "tklab view"};
    app.add_option("files", a.files, "Trace files (.json or .cbor) from `tklab run NAME --trace FILE`; "
                                     "a second file is shown beside the first to compare")
        ->required()->expected(1, 2);
    app.add_option("--screenshot", a.screenshot, "Render off-screen to this PNG and exit (needs an X display "
                                                 "or `xvfb-run -a`)");
    app.add_option("--size", a.size, "Window size WIDTHxHEIGHT")->capture_default_str();
    app.add_option("--panels", a.panels, "Panels to show, comma-separated: timeline,transport,source,"
                                         "shared-memory,registers,barriers,tile,statistics,compare (default: all)");
    app.add_option("--script", a.scripts, "Commands run before the first frame, separated by ';' (or give --script "
                                         "again): step N, back N, "
                                         "unit instruction|op|barrier, warp N|all, run, run-back, seek CYCLE, pos N, "
                                         "block N, break-conflict WAYS, break-wait CYCLES, break-fault on|off, "
                                         "break-line FILE:LINE, line FILE:LINE, range A B, zoom A B, snapshot LABEL, "
                                         "tile-lanes on|off, tile-delta on|off, speed CPS, play SECONDS")
        ->allow_extra_args(false);  // one value each time, so a file after it stays a file
    app.add_flag("--print-state", a.print_state, "Print the viewer's state as JSON after the script and exit "
                                                 "(no display needed)");
    app.add_option("--frames", a.frames, "Frames to render before the screenshot, printing each frame's time "
                                         "(a benchmark)")->check(CLI::Range(1, 100000));
    app.add_option("--source-root", a.source_root, "Where to look for source files a trace names but does not embed");
    app.add_option("--font-size", a.font_size, "Font size in pixels")->check(CLI::Range(8.0f, 48.0f))->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    int width = 0, height = 0;
    if (!parse_size(a.size, width, height)) {
        std::cerr << "tklab view: --size " << a.size << ": expected WIDTHxHEIGHT, e.g. 1600x1000 (320x240 to 8192x8192)\n";
        return 2;
    }

    ViewState v;
    if (!a.panels.empty()) {
        std::fill(std::begin(v.shown), std::end(v.shown), false);
        std::stringstream ss(a.panels);
        for (std::string p; std::getline(ss, p, ',');) {
            auto panel = parse_panel(p);
            if (!panel) {
                std::cerr << "tklab view: --panels: unknown panel \"" << p << "\"; panels: timeline, transport, source, "
                             "shared-memory, registers, barriers, tile, statistics, compare\n";
                return 2;
            }
            v.shown[size_t(*panel)] = true;
        }
    }

    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& f : a.files) v.docs.push_back(load_document(f, a.source_root));
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bool any_problem = false;
    for (const Document& d : v.docs)
        for (const std::string& p : d.problems) {
            // The loader's messages may already start with the file's name.
            std::cerr << "tklab view: " << (p.rfind(d.path, 0) == 0 ? "" : d.path + ": ") << p << "\n";
            any_problem = true;
        }
    v.reset();
    for (const std::string& script : a.scripts) {
        if (std::string err = run_script(v, script); !err.empty()) {
            std::cerr << "tklab view: --script: " << err << "\n";
            return 2;
        }
    }
    if (a.print_state) {
        nlohmann::json j = v.to_json();
        j["load_seconds"] = load_s;
        std::cout << j.dump(2) << "\n";
        if (a.screenshot.empty()) return v.docs[0].trace ? 0 : 1;
    }

    const bool headless = !a.screenshot.empty();
    std::string error;
    Window w = open_window(width, height, headless, a.font_size, error);
    if (!w.handle) {
        std::cerr << "tklab view: " << error << "\n";
        return 1;
    }
    bool problems_open = any_problem;
    if (headless) {
        // A few frames let windows size themselves before the picture is taken.
        const int frames = a.frames > 0 ? a.frames : 3;
        std::vector<double> times;
        for (int f = 0; f < frames; ++f) {
            const auto f0 = std::chrono::steady_clock::now();
            begin_frame();
            draw_all(v, problems_open);
            end_frame(w, true);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
            times.push_back(ms);
            if (a.frames > 0) std::fprintf(stderr, "frame %d: %.2f ms\n", f, ms);
        }
        if (a.frames > 0) {
            // The first frames build caches and upload the font: report the rest apart.
            std::vector<double> steady(times.begin() + std::min<long>(2, long(times.size()) - 1), times.end());
            std::fprintf(stderr, "loaded in %.2f s; first frame %.1f ms; later frames: median %.2f ms, max %.2f ms (%zu frames)\n",
                         load_s, times[0], median(steady), *std::max_element(steady.begin(), steady.end()),
                         steady.size());
        }
        const bool ok = save_png(w, a.screenshot, error);
        close_window(w);
        if (!ok) {
            std::cerr << "tklab view: " << error << "\n";
            return 1;
        }
        std::cerr << "tklab view: wrote " << a.screenshot << " (" << w.width << "x" << w.height << ")\n";
        return v.docs[0].trace ? 0 : 1;
    }

    auto last = std::chrono::steady_clock::now();
    while (!window_should_close(w)) {
        // Sleep until input unless playing: an idle viewer costs no CPU.
        if (v.playing) glfw_poll(); else glfw_wait(0.5);
        const auto now = std::chrono::steady_clock::now();
        v.tick(std::chrono::duration<double>(now - last).count());
        last = now;
        begin_frame();
        draw_all(v, problems_open);
        end_frame(w, false);
        present(w);
    }
    close_window(w);
    return 0;
}
