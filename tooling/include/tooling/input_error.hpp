// The one error type for bad input at the edges: a command-line flag, a scene name or size,
// a scene file. The tooling and the command-line parsers throw it, and each program's main
// catches it, prints its message and exits with 2. The engine itself does not throw it: it
// asserts on broken invariants and returns values for what can fail.
#pragma once

#include <stdexcept>

namespace collide {

// The message names the offending flag, value or file line.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace collide
