#pragma once
// The perftriage command line: one CLI11 App with a subcommand per command (server/cli/commands.hpp).
#include <iosfwd>

#include "server/cli/cli_common.hpp"

namespace perftriage::cli {

// Parses `argv` (without the program name), runs the chosen command and returns the process exit code: 0 ok (and
// --help, --version, `help`), 1 the command was refused or found nothing, 2 a usage error.
int run_cli(const Args& argv, std::ostream& out, std::ostream& err);

}  // namespace perftriage::cli
