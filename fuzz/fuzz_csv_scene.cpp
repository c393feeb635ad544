// libFuzzer target: the CSV scene loader on arbitrary bytes, in both dimensions (one of the
// two stops at the header's dimension, the other reads the rows). Refusing the input with
// InputError is the right answer; anything else escaping, or a sanitizer report, is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "tooling/scenes.hpp"

namespace {

template <int D>
void load(const std::string& text) {
    std::istringstream in(text);
    try {
        collide::load_csv_scene_from<D>(in, "fuzz.csv");
    } catch (const collide::InputError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    load<2>(text);
    load<3>(text);
    return 0;
}
