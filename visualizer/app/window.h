// The GLFW window and OpenGL 3 context the viewer draws into, visible or
// hidden (headless screenshots under Xvfb), and reading its pixels to PNG.
#pragma once
#include <string>

struct GLFWwindow;

namespace tklab::view {

struct Window {
    GLFWwindow* handle = nullptr;
    int width = 0, height = 0;
};

// Opens the window, GL context, Dear ImGui and its fonts. On failure, returns
// a window with no handle and says why in `error`.
Window open_window(int width, int height, bool hidden, float font_size, std::string& error);
void close_window(Window& w);

bool window_should_close(const Window& w);
void glfw_poll();                 // handle pending input
void glfw_wait(double seconds);   // wait for input (or the timeout), then handle it
void begin_frame();
// Renders the frame; glFinish()es when `finish` so frame times include the
// software renderer's work.
void end_frame(Window& w, bool finish);
void present(Window& w);

// The last rendered frame, as a PNG. False and a reason on failure.
bool save_png(const Window& w, const std::string& path, std::string& error);

} // namespace tklab::view
