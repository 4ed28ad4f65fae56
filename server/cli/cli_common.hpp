#pragma once
#include <iosfwd>
#include <string>

#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::cli {

inline constexpr const char* kDefaultDb = "var/perftriage.sqlite";

// Opens the store, creating the parent directory of a file path.
Result<schema::Store> open_store(const std::string& path);
// "perftriage: FILE:LINE: column COLUMN: message (code)" on one line.
void print_error(std::ostream& err, const Error& e);

}  // namespace perftriage::cli
