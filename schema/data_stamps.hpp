#pragma once
// Data stamps (migration 011): which results each committed write changed. The triggers of the migration keep them;
// the response cache reads them (server/http/response_cache.hpp) to drop only the answers that read what changed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// The scope every result write moves; its stamp is the newest of all.
inline constexpr std::string_view kStampAll = "*";
// The scope of one run: its metadata, files, rows, summaries and artifacts.
std::string stamp_scope_run(std::int64_t run_id);
// The scope of a platform: its list of runs (latest, previous, history, backlog) and everything in them.
std::string stamp_scope_platform(std::string_view platform);
// The scope of a tag on a platform: which runs of the platform carry it (a compare base names a tag or a key).
std::string stamp_scope_tag(std::string_view platform, std::string_view tag);

// Every scope whose stamp is above `after`, with its stamp (the '*' scope among them when anything changed).
// `prepared` is kept for the next call on the same connection.
Result<std::vector<std::pair<std::string, std::int64_t>>> stamps_since(Database& db, std::int64_t after,
                                                                       std::optional<Statement>& prepared);

}  // namespace perftriage::schema
