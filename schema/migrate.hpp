#pragma once
#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// Applies every embedded migration newer than PRAGMA user_version, each in its own
// transaction together with the version bump. Returns the resulting version. A database
// written by a newer binary (user_version above the newest migration) is refused.
Result<int> migrate(Database& db);

int latest_schema_version() noexcept;

// The database's schema version: PRAGMA user_version, the number of the last migration applied.
Result<int> schema_version(Database& db);

}  // namespace perftriage::schema
