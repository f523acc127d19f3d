#include "visualizer/app/window.h"
#include <filesystem>
#include <vector>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <GLFW/glfw3.h>
#include <stb_image_write.h>
#include "visualizer/panels/panels.h"

namespace tklab::view {

namespace {
ImFont* g_mono = nullptr;
ImVec4 g_clear(0.06f, 0.06f, 0.06f, 1.0f);  // the windows' background colour
std::string g_glfw_error;
void on_glfw_error(int, const char* what) { g_glfw_error = what ? what : "unknown GLFW error"; }

// Debian's fonts-dejavu-core is on nearly every desktop; without it, Dear
// ImGui's built-in font (small, but always there).
ImFont* add_font(const char* file, float size) {
    const std::string path = std::string("/usr/share/fonts/truetype/dejavu/") + file;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return nullptr;
    return ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), size);
}
} // namespace

ImFont* monospace_font() { return g_mono; }

Window open_window(int width, int height, bool hidden, float font_size, std::string& error) {
    Window w;
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        error = "cannot open a window (" + g_glfw_error + "): no display? Set DISPLAY, or run under "
                "`xvfb-run -a`; --print-state needs no display";
        return w;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, hidden ? GLFW_FALSE : GLFW_TRUE);
    w.handle = glfwCreateWindow(width, height, "tklab view", nullptr, nullptr);
    if (!w.handle) {
        error = "cannot create an OpenGL 3.3 window (" + g_glfw_error + "); install Mesa (libgl1-mesa-dri) "
                "or a GPU driver";
        glfwTerminate();
        return w;
    }
    glfwMakeContextCurrent(w.handle);
    glfwSwapInterval(hidden ? 0 : 1);
    w.width = width;
    w.height = height;

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is computed; nothing to persist
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 2.0f;
    // The panels tile the window, so the clear colour can be their background:
    // Mesa's software renderer then fills each pixel once less (about 5 ms a
    // frame at 1600x1000). Floating windows ask for an opaque one.
    g_clear = style.Colors[ImGuiCol_WindowBg];
    style.Colors[ImGuiCol_WindowBg].w = 0.0f;
    if (!add_font("DejaVuSans.ttf", font_size)) io.Fonts->AddFontDefault();
    g_mono = add_font("DejaVuSansMono.ttf", font_size);
    ImGui_ImplGlfw_InitForOpenGL(w.handle, true);
    ImGui_ImplOpenGL3_Init("#version 330");
    return w;
}

void close_window(Window& w) {
    if (!w.handle) return;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(w.handle);
    glfwTerminate();
    w.handle = nullptr;
}

bool window_should_close(const Window& w) { return glfwWindowShouldClose(w.handle); }
void glfw_poll() { glfwPollEvents(); }
void glfw_wait(double seconds) { glfwWaitEventsTimeout(seconds); }

void begin_frame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void end_frame(Window& w, bool finish) {
    ImGui::Render();
    glfwGetFramebufferSize(w.handle, &w.width, &w.height);
    glViewport(0, 0, w.width, w.height);
    glClearColor(g_clear.x, g_clear.y, g_clear.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (finish) glFinish();
}

void present(Window& w) { glfwSwapBuffers(w.handle); }

bool save_png(const Window& w, const std::string& path, std::string& error) {
    std::vector<unsigned char> px(size_t(w.width) * size_t(w.height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w.width, w.height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;  // the window is opaque
    stbi_flip_vertically_on_write(1);                        // GL's rows start at the bottom
    if (!stbi_write_png(path.c_str(), w.width, w.height, 4, px.data(), w.width * 4)) {
        error = "cannot write " + path + " (does its folder exist and is it writable?)";
        return false;
    }
    return true;
}

} // namespace tklab::view
