// libFuzzer target: the app's and the bench's command-line parsers on arbitrary arguments,
// one per line of the input. Refusing them with InputError is the right answer; anything
// else escaping, or a sanitizer report, is a bug. Only parsing runs: nothing is simulated,
// drawn or written (--out and --screenshot are only checked).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench_cli.hpp"
#include "cli/cli.hpp"
#include "tooling/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> args;
    if (!text.empty()) args = collide::split(text, '\n');
    try {
        collidoscope::parse_cli(args);
    } catch (const collide::InputError&) {
    }
    std::vector<std::string> owned = {"collidoscope-bench"};
    owned.insert(owned.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : owned) argv.push_back(a.data());
    argv.push_back(nullptr);
    try {
        collide::bench::parse_command_line(static_cast<int>(owned.size()), argv.data());
    } catch (const collide::InputError&) {
    }
    return 0;
}
