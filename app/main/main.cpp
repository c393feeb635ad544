// collidoscope: the interactive demo. main() only parses the command line (exiting with 2
// and a clear message on any mistake, before a window exists) and hands over to run_app.
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "main/app.hpp"
#include "cli/cli.hpp"
#include "cli/presets.hpp"
#include "main/settings_store.hpp"

int main(int argc, char** argv) {
    using namespace collidoscope;
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    CliResult cli;
    try {
        cli = parse_cli(args);
    } catch (const collide::InputError& e) {
        std::fprintf(stderr, "collidoscope: %s\nTry 'collidoscope --help' for usage.\n", e.what());
        return 2;
    }
    for (const std::string& w : cli.warnings) std::fprintf(stderr, "collidoscope: warning: %s\n", w.c_str());
    switch (cli.action) {
        case CliAction::kHelp: std::fputs(help_text().c_str(), stdout); return 0;
        case CliAction::kList: std::fputs(list_text().c_str(), stdout); return 0;
        case CliAction::kRun: break;
    }
    // The stored settings fill in what the command line left out; a bad file warns.
    SettingsLoad stored;
    bool first_start = true;  // no settings file yet (or --no-settings)
    if (!cli.options.given.no_settings) {
        const std::string path = settings_path();
        std::error_code ec;
        first_start = path.empty() || !std::filesystem::exists(path, ec);
        stored = load_settings(path);
        if (stored.warning) std::fprintf(stderr, "collidoscope: %s\n", stored.warning->c_str());
    }
    // Nothing on the command line chooses what to show: the first start opens on the tour's
    // first preset, a later one on the preset shown when the app last quit, if any (else
    // on the stored scene).
    if (!cli.options.given.view && (first_start || find_preset(stored.settings.preset))) {
        std::vector<std::string_view> with_preset = {
            "--preset", first_start ? presets().front().name : stored.settings.preset};
        with_preset.insert(with_preset.end(), args.begin(), args.end());
        cli = parse_cli(with_preset);
    }
    if (!cli.options.given.no_settings) {
        cli.options.settings_file = settings_path();
        if (const auto dropped = apply_settings(stored.settings, cli.options))
            std::fprintf(stderr, "collidoscope: %s\n", dropped->c_str());
    }
    return run_app(cli.options);
}
