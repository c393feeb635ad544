#include "sim/scene_save.hpp"

#include <ctime>
#include <filesystem>

namespace collidoscope {

std::string timestamped_scene_name() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    const std::string base = std::string("scene-") + stamp;
    std::string name = base + ".csv";
    std::error_code ec;
    for (int k = 2; std::filesystem::exists(name, ec); ++k) {
        name = base + "-" + std::to_string(k) + ".csv";
    }
    return name;
}

std::string save_scene(const SimWorld& world, const std::string& path) {
    world.save_scene(path);
    return "saved " + std::to_string(world.body_count()) + " bodies to " + path;
}

}  // namespace collidoscope
