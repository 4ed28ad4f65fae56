#pragma once
#include <iosfwd>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/cli/args.hpp"

namespace perftriage::cli {

inline constexpr const char* kDefaultDb = "var/perftriage.sqlite";

// Opens the store, creating the parent directory of a file path.
Result<schema::Store> open_store(const std::string& path);
// The audit_log actor of a command run by hand: "cli:$USER" (the login name when USER is unset).
std::string cli_actor();
// "perftriage: FILE:LINE: column COLUMN: message (code)" on one line.
void print_error(std::ostream& err, const Error& e);
// A table's output format: --json, or --format md|csv|json (default md). nullopt after saying why on `err`.
std::optional<std::string> table_format(const ParsedArgs& args, std::ostream& err);

}  // namespace perftriage::cli
