#include "render/screenshot.hpp"

#include "render/gl_api.hpp"

#include <cstring>
#include <stdexcept>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

namespace collidoscope {

void save_screenshot(const std::string& path, glm::ivec2 framebuffer) {
    const int w = framebuffer.x;
    const int h = framebuffer.y;
    if (w <= 0 || h <= 0) throw std::runtime_error(path + ": the window has no pixels");
    // RGB only: the default framebuffer's alpha is whatever blending left there.
    constexpr int kChannels = 3;
    const std::size_t row = static_cast<std::size_t>(w) * kChannels;
    std::vector<unsigned char> pixels(row * static_cast<std::size_t>(h));
    while (glGetError() != GL_NO_ERROR) {
        // Drop errors from earlier calls so the check below is about this read only.
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    if (glGetError() != GL_NO_ERROR) throw std::runtime_error(path + ": glReadPixels failed");

    // GL's rows run bottom to top; PNG's top to bottom.
    std::vector<unsigned char> line(row);
    for (int y = 0; y < h / 2; ++y) {
        unsigned char* top = pixels.data() + row * static_cast<std::size_t>(y);
        unsigned char* bottom = pixels.data() + row * static_cast<std::size_t>(h - 1 - y);
        std::memcpy(line.data(), top, row);
        std::memcpy(top, bottom, row);
        std::memcpy(bottom, line.data(), row);
    }
    if (stbi_write_png(path.c_str(), w, h, kChannels, pixels.data(), static_cast<int>(row)) == 0) {
        throw std::runtime_error("cannot write " + path);
    }
}

}  // namespace collidoscope
