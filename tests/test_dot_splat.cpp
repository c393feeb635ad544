// The dot splat (drawing bodies under a pixel wide): each centre marks the pixel the viewport
// transform puts it in, the highest id keeps a shared pixel, and centres outside the view or
// NaN mark nothing. Checked against the same arithmetic on the CPU, on a small viewport.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "collide/gpu/compute_context.hpp"
#include "collide/gpu/dot_splat.hpp"
#include "test_support.hpp"

namespace collide {
namespace {

// The pixels the splat must give: the same projection and rounding, done here.
std::vector<std::uint32_t> expected_pixels(const std::vector<glm::vec2>& pos, const glm::mat4& m,
                                           int w, int h) {
    std::vector<std::uint32_t> px(std::size_t(w) * h, 0);
    for (std::size_t i = 0; i < pos.size(); ++i) {
        const glm::vec4 clip = m * glm::vec4(pos[i], 0.0f, 1.0f);
        const glm::vec2 p = (glm::vec2(clip) / clip.w * 0.5f + 0.5f) * glm::vec2(w, h);
        if (!(p.x >= 0 && p.y >= 0 && p.x < float(w) && p.y < float(h))) continue;
        std::uint32_t& slot = px[std::size_t(p.y) * w + std::size_t(p.x)];
        slot = std::max(slot, std::uint32_t(i + 1));
    }
    return px;
}

std::vector<std::uint32_t> splat(gpu::DotSplat& dots, const std::vector<glm::vec2>& pos,
                                 const glm::mat4& m, int w, int h) {
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    const auto bytes = GLsizeiptr(pos.size() * sizeof(glm::vec2));
    glBufferData(GL_SHADER_STORAGE_BUFFER, bytes + 8, nullptr, GL_STATIC_DRAW);  // never empty
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, bytes, pos.data());
    dots.splat(buffer, pos.size(), glm::value_ptr(m), w, h);
    std::vector<std::uint32_t> px(std::size_t(w) * h);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, dots.pixels());
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(px.size() * 4), px.data());
    glDeleteBuffers(1, &buffer);
    return px;
}

TEST(DotSplat, MarksEachCentresPixelWithTheHighestId) {
    SKIP_WITHOUT_GPU("gpu-grid");
    gpu::DotSplat dots;
    // A 10 x 6 viewport on the world [0, 20] x [0, 12]: a pixel is 2 x 2 units.
    const glm::mat4 m = glm::ortho(0.0f, 20.0f, 0.0f, 12.0f);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<glm::vec2> pos{
        {1, 1},        // pixel (0, 0)
        {1.5f, 1},     // the same pixel: id 2 keeps it
        {19, 11},      // the top right pixel
        {5, 3},        // pixel (2, 1)
        {-1, 5},       // left of the view
        {20.5f, 5},    // right of it
        {nan, 3},      // NaN marks nothing
        {4.5f, 2.5f},  // pixel (2, 1) again: id 8 takes it from id 4
    };
    const std::vector<std::uint32_t> px = splat(dots, pos, m, 10, 6);
    EXPECT_EQ(px, expected_pixels(pos, m, 10, 6));
    EXPECT_EQ(px[0], 2u);
    EXPECT_EQ(px[5 * 10 + 9], 3u);
    EXPECT_EQ(px[1 * 10 + 2], 8u);
    std::size_t marked = 0;
    for (std::uint32_t v : px) marked += v != 0;
    EXPECT_EQ(marked, 3u);
}

TEST(DotSplat, AgreesWithTheCpuOnManyBodiesAndAgainOnASmallerView) {
    SKIP_WITHOUT_GPU("gpu-grid");
    gpu::DotSplat dots;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-10.0f, 110.0f);  // some outside the view
    std::vector<glm::vec2> pos(20000);
    for (glm::vec2& p : pos) p = {u(rng), u(rng)};
    const glm::mat4 m = glm::ortho(0.0f, 100.0f, 0.0f, 100.0f);
    EXPECT_EQ(splat(dots, pos, m, 64, 48), expected_pixels(pos, m, 64, 48));
    // The pixels are cleared between splats, also when the view shrinks.
    pos.resize(50);
    EXPECT_EQ(splat(dots, pos, m, 7, 5), expected_pixels(pos, m, 7, 5));
    EXPECT_EQ(splat(dots, {}, m, 7, 5), std::vector<std::uint32_t>(35, 0));
}

}  // namespace
}  // namespace collide
