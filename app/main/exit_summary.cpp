#include "main/exit_summary.hpp"

#include <cstdio>

namespace collidoscope {
namespace {

// The last race, one line: each algorithm's time, and which ones differ from the reference.
void print_race(const RaceReport& race) {
    if (race.entries.empty()) return;
    std::string line = "collidoscope: race at step " + std::to_string(race.step) + " (" +
                       std::to_string(race.bodies) + " bodies, reference " + race.reference + "):";
    std::string differ;
    for (const RaceEntry& e : race.entries) {
        if (!e.ran) continue;
        char part[96];
        std::snprintf(part, sizeof part, " %s %.3f ms;", e.name.c_str(), e.ms);
        line += part;
        if (e.differs) differ += " " + e.name;
    }
    std::printf("%s differ:%s\n", line.c_str(), differ.empty() ? " none" : differ.c_str());
}

}  // namespace

void print_exit_summary(const Demo& demo, const FrameStats& stats, const std::string& gl) {
    const SimWorld& world = demo.world();
    std::fputs(
        stats.summary(demo.pairs_found_by(), demo.dim(), demo.scene(), world.body_count()).c_str(),
        stdout);
    print_race(demo.race());
    std::printf("collidoscope: %s\n", gl.c_str());
    if (world.on_gpu()) {
        std::printf(
            "collidoscope: GPU world: the whole step on the GPU; the per-step phases above "
            "are its own times (GL timer queries, read back a frame or two late); %llu "
            "steps overflowed the pair buffer.\n",
            static_cast<unsigned long long>(world.gpu_overflowed_steps()));
    }
    std::fputs(demo.session_summary().c_str(), stdout);
    const Physics physics = world.physics();
    if (physics.count_tunnelling) {
        const ContinuousFacts f = world.continuous_facts();
        std::printf("collidoscope: swept boxes %s; %llu pairs tunnelled in all.\n",
                    physics.swept ? "on" : "off",
                    static_cast<unsigned long long>(f.tunnelled_total));
    }
}

}  // namespace collidoscope
