#pragma once
// Backup, restore and checks of the database file, through SQLite's online backup API.
//
// backup_database copies a live database (the server keeps serving and writing) into a new file: the copy is read in
// ONE read transaction on the source, so it is the database as of one commit (WAL lets writers go on meanwhile, and
// the backup is never restarted by them), written to DEST.tmp, checked with PRAGMA integrity_check and renamed over
// DEST, so DEST is either the previous file or a complete, checked copy, never half a file. The copy is a single file
// in rollback-journal mode (no -wal beside it).
//
// restore_database puts such a file in place of a database: the file is verified first (integrity_check, a schema
// this binary knows), copied into DB.tmp through the backup API, stale DB-wal / DB-shm are removed and DB.tmp is
// renamed over DB; then it is migrated to this binary's schema and an audit_log row ("restore") is written.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace perftriage::schema {

struct DatabaseInfo {
  std::string path;
  std::int64_t bytes = 0;  // size of the database file
  int schema_version = 0;  // PRAGMA user_version
  std::int64_t runs = 0;
  std::string integrity;  // "ok", or the first problems PRAGMA integrity_check reported
};

// Copies `source` (which must exist) into `dest`. Fails without touching `dest` when the copy does not pass
// integrity_check. `pages_per_step` bounds one sqlite3_backup_step call (tests use small steps).
Result<DatabaseInfo> backup_database(const std::string& source, const std::string& dest, int pages_per_step = 4096);

// What restore checks before using a file: a SQLite database whose PRAGMA integrity_check is "ok", with a schema
// version from 1 to latest_schema_version(), holding the core tables (runs, result_files, results) and no table our
// migrations do not create. Opens the file read-only.
Result<DatabaseInfo> verify_database(const std::string& path);

// PRAGMA integrity_check(max_errors) on the file at `path`, opened read-write (never created) so that a WAL left by a
// crash is recovered first, as the server would see it. The lines SQLite reported: {"ok"} when the file is sound (or
// does not exist: a new database). An error when it cannot be opened or read at all (not a database, corrupt header).
// integrity_check rather than quick_check: it also verifies that every index matches its table, which is what a torn
// write or a copied-while-open file breaks; it reads the whole file (about a second per GB).
// `serve --integrity-check` refuses to start on anything but {"ok"}.
Result<std::vector<std::string>> integrity_check_file(const std::string& path, int max_errors = 100);

// Whether another process has the database open. Cheap and specific to WAL mode (the only mode this service opens a
// database in): every open connection holds a shared lock on the dead-man-switch byte (offset 128) of DB-shm; this
// asks fcntl(F_GETLK) whether a write lock there would conflict. Locks held by this process are not seen.
bool database_in_use(const std::string& path);

struct RestoreOptions {
  bool force = false;         // replace an existing database
  std::string actor = "cli";  // audit_log.actor
};

struct RestoreResult {
  DatabaseInfo backup;           // the verified file
  bool replaced = false;         // a database existed at the target and was replaced
  int schema_version_after = 0;  // after migrating
  std::int64_t runs = 0;
};

// Refuses (conflict) when the target is in use by another process, or exists and !options.force.
Result<RestoreResult> restore_database(const std::string& backup, const std::string& target,
                                       const RestoreOptions& options);

}  // namespace perftriage::schema
