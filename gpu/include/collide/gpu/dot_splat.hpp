// Bodies smaller than a pixel, drawn by a compute pass rather than the rasteriser: each
// body's centre marks the pixel it falls in, and where several fall in one pixel the highest
// id keeps it, as the last of them drawn would. A renderer then colours each marked pixel from
// its body (one fragment a pixel, however many bodies). On an H100 ten million one-pixel
// point sprites took 30 ms a frame; the rasteriser, not the bodies, was the cost. 2D only:
// 3D dots would need a depth per pixel.
#pragma once

#include <cstddef>
#include <memory>

namespace collide::gpu {

class ComputeContext;

class DotSplat {
public:
    // Uses shared_context() (the app's own window context); throws GpuError without one.
    DotSplat();
    ~DotSplat();
    DotSplat(const DotSplat&) = delete;
    DotSplat& operator=(const DotSplat&) = delete;

    // Marks the pixels of a `width` x `height` viewport: for each of the `count` bodies whose
    // 2D centres the GL buffer `positions` holds (two floats each), projected by `view_proj`
    // (16 floats, column-major, as OpenGL's), the pixel its centre falls in gets the body's
    // id + 1 (0: no body). Centres outside the viewport, or NaN, mark nothing.
    void splat(unsigned positions, std::size_t count, const float* view_proj, int width,
               int height);

    // The GL buffer of the last splat's pixels: width * height 32-bit words, row by row from
    // the bottom (as gl_FragCoord counts).
    unsigned pixels() const;

private:
    struct Impl;
    std::shared_ptr<ComputeContext> context_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace collide::gpu
