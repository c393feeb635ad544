// The bench's command line: its grammar and help text, the listing of what it can run, and
// the validation of the whole line before anything is measured.
#pragma once

#include <string>
#include <vector>

#include "bench_runner.hpp"

namespace collide::bench {

enum class Action { kRun, kHelp, kList };

struct Options {
    Action action = Action::kRun;
    RunConfig run;
    std::vector<std::size_t> counts{10000};
    std::vector<std::string> algorithms;  // empty = all
    std::string format = "table";
    std::string out;
    bool list = false;
    std::vector<std::string> warnings;  // one line each, for stderr; the run goes on
};

// Parses and validates the whole command line (flags, algorithms, parameters, the scene);
// throws InputError.
Options parse_command_line(int argc, char** argv);

std::string help_text();

// What --list prints: the algorithms with their parameters, the references, the scenes.
void print_list();

}  // namespace collide::bench
