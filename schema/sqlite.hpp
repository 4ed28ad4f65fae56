#pragma once
// SQLite behind the storage seam (schema/backend.hpp): a connection opened with WAL, busy_timeout and foreign keys,
// statements over sqlite3_stmt. Parameters are written `$1`, `$2`, ... in the store's SQL, which SQLite reads as
// named parameters; a statement maps each number to SQLite's own index once, at prepare.
#include <sqlite3.h>

#include <memory>
#include <string>

#include "schema/backend.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// busy_timeout_ms holds from the connection's first statement on.
Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path, int busy_timeout_ms);

// The SQLite handle under `db`, for the files that use SQLite's own API (the result writer, the WAL-index probe,
// backups); nullptr when `db` is not SQLite.
sqlite3* sqlite_handle(const Database& db) noexcept;

}  // namespace perftriage::schema
