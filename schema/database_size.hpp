#pragma once
// The database's size as /metrics reports it (perftriage_database_bytes).
#include <cstdint>
#include <optional>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// PostgreSQL's own count (pg_database_size of the connection's database), or nullopt on SQLite, whose size is its
// file's (and its -wal file's): the caller reads those.
Result<std::optional<std::int64_t>> server_database_bytes(Database& db);

}  // namespace perftriage::schema
