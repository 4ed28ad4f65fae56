#include "schema/backup.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "schema/audit_store.hpp"
#include "schema/migrate.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

namespace fs = std::filesystem;

struct CloseDb {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
using RawDb = std::unique_ptr<sqlite3, CloseDb>;

Error sqlite_error(sqlite3* db, const std::string& what) {
  return make_error(ErrorKind::internal, "db_error", what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// A connection of our own, without Database::open's pragmas: reading a backup must not switch it to WAL, and the
// destination of a copy must stay in rollback-journal mode until it is complete.
Result<RawDb> open_raw(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  RawDb db(raw);
  if (rc != SQLITE_OK) return sqlite_error(raw, "cannot open '" + path + "'");
  sqlite3_busy_timeout(raw, 5000);
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Result<void> exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : sqlite3_errmsg(db);
    sqlite3_free(msg);
    return make_error(ErrorKind::internal, "db_error", "sqlite: " + text);
  }
  return {};
}

// Every row's first column as text.
Result<std::vector<std::string>> column(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    const int code = sqlite3_errcode(db);
    if (code == SQLITE_NOTADB) {
      return make_error(ErrorKind::invalid_input, "not_a_database", "not a SQLite database");
    }
    return sqlite_error(db, "prepare '" + sql + "'");
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
  std::vector<std::string> out;
  for (;;) {
    const int rc = sqlite3_step(raw);
    if (rc == SQLITE_DONE) return out;
    if (rc != SQLITE_ROW) {
      if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
        return make_error(ErrorKind::invalid_input, "not_a_database",
                          std::string("not a usable SQLite database: ") + sqlite3_errmsg(db));
      }
      return sqlite_error(db, "step '" + sql + "'");
    }
    const auto* text = sqlite3_column_text(raw, 0);
    out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
}

Result<std::int64_t> integer(sqlite3* db, const std::string& sql) {
  PT_ASSIGN(const auto rows, column(db, sql));
  if (rows.empty()) return make_error(ErrorKind::internal, "db_error", "no result for '" + sql + "'");
  return static_cast<std::int64_t>(std::stoll(rows.front().empty() ? "0" : rows.front()));
}

// "ok" or the first problems found, joined.
Result<std::string> integrity(sqlite3* db) {
  PT_ASSIGN(const auto rows, column(db, "PRAGMA integrity_check(20)"));
  std::string out;
  for (const auto& r : rows) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// The tables our migrations create, from a migrated in-memory database.
const std::set<std::string>& known_tables() {
  static const std::set<std::string> tables = [] {
    // Every table of every schema version: a backup made before a migration renamed one (010: results became
    // result_rows) is still ours, and Store::open migrates it after the restore.
    std::set<std::string> out;
    auto db = Database::open(":memory:");
    if (!db) return out;
    for (const auto& m : kMigrations) {
      if (!db->exec(m.sql)) return out;
      auto st = Statement::prepare(*db, "SELECT name FROM sqlite_schema WHERE type = 'table'");
      if (!st) return out;
      while (true) {
        auto row = st->step();
        if (!row || !*row) break;
        out.insert(st->text(0));
      }
    }
    return out;
  }();
  return tables;
}

void remove_quietly(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

// Whatever SQLite may have left beside a file: journal, WAL, wal-index.
void remove_companions(const std::string& path) {
  for (const char* suffix : {"-journal", "-wal", "-shm"}) remove_quietly(path + suffix);
}

void fsync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string parent_dir(const std::string& path) {
  auto parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Every page of `src`, as of one read transaction, into a new file at `tmp`.
Result<void> copy_pages(sqlite3* src, const std::string& tmp, int pages_per_step) {
  PT_ASSIGN(auto dest, open_raw(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  // One read transaction over the whole copy: every step reads the same snapshot, so writes by other connections
  // (the server) neither show up half-way nor restart the backup; WAL lets them commit meanwhile.
  PT_TRY(exec(src, "BEGIN DEFERRED"));
  struct EndRead {
    sqlite3* db;
    ~EndRead() { sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr); }
  } end_read{src};
  PT_TRY(column(src, "SELECT count(*) FROM sqlite_schema"));
  sqlite3_backup* backup = sqlite3_backup_init(dest.get(), "main", src, "main");
  if (!backup) return sqlite_error(dest.get(), "backup_init");
  int rc = SQLITE_OK;
  int busy_retries = 0;
  do {
    rc = sqlite3_backup_step(backup, pages_per_step);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
      if (++busy_retries > 500) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      rc = SQLITE_OK;
    }
  } while (rc == SQLITE_OK);
  const int finished = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE || finished != SQLITE_OK) {
    return make_error(ErrorKind::internal, "backup_failed",
                      std::string("backup: ") + sqlite3_errstr(rc != SQLITE_DONE ? rc : finished));
  }
  return {};
}

// Switches a copy to a rollback journal (the copied header still says WAL when the source was), so that it is one
// self-contained file, checks it and returns what it holds.
Result<DatabaseInfo> seal_copy(const std::string& tmp) {
  PT_ASSIGN(auto dest, open_raw(tmp, SQLITE_OPEN_READWRITE));
  PT_TRY(exec(dest.get(), "PRAGMA journal_mode=DELETE"));
  DatabaseInfo info;
  PT_ASSIGN(info.integrity, integrity(dest.get()));
  if (info.integrity != "ok") {
    return make_error(ErrorKind::internal, "backup_corrupt", "the copy fails integrity_check: " + info.integrity);
  }
  PT_ASSIGN(const std::int64_t version, integer(dest.get(), "PRAGMA user_version"));
  info.schema_version = static_cast<int>(version);
  PT_ASSIGN(const std::int64_t has_runs,
            integer(dest.get(), "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'runs'"));
  if (has_runs) {
    PT_ASSIGN(info.runs, integer(dest.get(), "SELECT count(*) FROM runs"));
  }
  return info;
}

// Copies every page of `src` (as of one read transaction) into a new file at `tmp`, leaves it in rollback-journal
// mode (a single self-contained file) and returns what it holds. `tmp` is removed on failure.
Result<DatabaseInfo> copy_into(sqlite3* src, const std::string& tmp, int pages_per_step) {
  remove_quietly(tmp);
  remove_companions(tmp);
  auto copied = copy_pages(src, tmp, pages_per_step);
  auto info = copied ? seal_copy(tmp) : Result<DatabaseInfo>(std::move(copied).error());
  if (!info) {
    remove_quietly(tmp);
    remove_companions(tmp);
    return info;
  }
  remove_companions(tmp);
  fsync_path(tmp, false);
  return info;
}

}  // namespace

Result<DatabaseInfo> backup_database(const std::string& source, const std::string& dest, int pages_per_step) {
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) {
    return make_error(ErrorKind::not_found, "no_database", "no database at '" + source + "'");
  }
  if (dest.empty()) return make_error(ErrorKind::invalid_input, "no_destination", "backup needs --to FILE");
  if (fs::exists(dest, ec) && fs::equivalent(source, dest, ec)) {
    return make_error(ErrorKind::invalid_input, "same_file", "the backup cannot overwrite the database itself");
  }
  if (const auto parent = fs::path(dest).parent_path(); !parent.empty()) fs::create_directories(parent, ec);
  PT_ASSIGN(auto src, open_raw(source, SQLITE_OPEN_READONLY));
  const std::string tmp = dest + ".tmp";
  auto info = copy_into(src.get(), tmp, pages_per_step);
  if (!info) return info;
  if (std::rename(tmp.c_str(), dest.c_str()) != 0) {
    remove_quietly(tmp);
    return make_error(ErrorKind::internal, "backup_rename", "cannot rename '" + tmp + "' to '" + dest + "'");
  }
  remove_companions(dest);  // a previous file's leftovers must not be replayed into the new one
  fsync_path(parent_dir(dest), true);
  info->path = dest;
  info->bytes = static_cast<std::int64_t>(fs::file_size(dest, ec));
  return info;
}

Result<DatabaseInfo> verify_database(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return make_error(ErrorKind::not_found, "no_backup", "no file at '" + path + "'");
  PT_ASSIGN(auto db, open_raw(path, SQLITE_OPEN_READONLY));
  auto tables = column(db.get(), "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  if (!tables) {
    auto e = std::move(tables).error();
    e.message = "'" + path + "': " + e.message;
    return e;
  }
  PT_ASSIGN(const std::int64_t version, integer(db.get(), "PRAGMA user_version"));
  DatabaseInfo info;
  info.path = path;
  info.bytes = static_cast<std::int64_t>(fs::file_size(path, ec));
  info.schema_version = static_cast<int>(version);
  if (info.schema_version < 1) {
    return make_error(ErrorKind::invalid_input, "not_perftriage",
                      "'" + path + "' is not a perftriage database (schema version 0)");
  }
  if (info.schema_version > latest_schema_version()) {
    return make_error(ErrorKind::invalid_input, "schema_too_new",
                      "'" + path + "' has schema version " + std::to_string(info.schema_version) +
                          ", newer than this binary (" + std::to_string(latest_schema_version()) + ")");
  }
  const std::set<std::string> present(tables->begin(), tables->end());
  for (const char* core : {"runs", "result_files", info.schema_version >= 10 ? "result_rows" : "results"}) {
    if (!present.count(core)) {
      return make_error(ErrorKind::invalid_input, "not_perftriage",
                        "'" + path + "' is not a perftriage database (no table " + core + ")");
    }
  }
  for (const auto& t : present) {
    if (!known_tables().count(t)) {
      return make_error(ErrorKind::invalid_input, "unknown_table",
                        "'" + path + "' has a table this binary does not know: " + t);
    }
  }
  PT_ASSIGN(info.integrity, integrity(db.get()));
  if (info.integrity != "ok") {
    return make_error(ErrorKind::invalid_input, "integrity_check_failed",
                      "'" + path + "' fails integrity_check: " + info.integrity);
  }
  PT_ASSIGN(info.runs, integer(db.get(), "SELECT count(*) FROM runs"));
  return info;
}

Result<std::vector<std::string>> integrity_check_file(const std::string& path, int max_errors) {
  std::error_code ec;
  if (path == ":memory:" || !fs::exists(path, ec)) return std::vector<std::string>{"ok"};
  // Read-write (never create) so that a WAL left by a crash is recovered first, as the server would see it.
  PT_ASSIGN(auto db, open_raw(path, SQLITE_OPEN_READWRITE));
  return column(db.get(), "PRAGMA integrity_check(" + std::to_string(std::max(max_errors, 1)) + ")");
}

bool database_in_use(const std::string& path) {
  const std::string shm = path + "-shm";
  const int fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no wal-index: no connection in WAL mode
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 128;  // os_unix.c: UNIX_SHM_DMS = (22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK
  lock.l_len = 1;
  const bool busy = ::fcntl(fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
  ::close(fd);
  return busy;
}

Result<RestoreResult> restore_database(const std::string& backup, const std::string& target,
                                       const RestoreOptions& options) {
  RestoreResult result;
  PT_ASSIGN(result.backup, verify_database(backup));
  std::error_code ec;
  const bool exists = fs::exists(target, ec);
  if (exists && fs::equivalent(backup, target, ec)) {
    return make_error(ErrorKind::invalid_input, "same_file", "the backup is the target database itself");
  }
  if (database_in_use(target)) {
    return make_error(ErrorKind::conflict, "database_in_use",
                      "'" + target + "' is open in another process (a running server?): stop it before restoring");
  }
  if (exists && !options.force) {
    return make_error(ErrorKind::conflict, "target_exists",
                      "'" + target + "' exists: pass --force to replace it (take a backup of it first)");
  }
  const auto parent = fs::path(target).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string tmp = target + ".tmp";
  {
    PT_ASSIGN(auto src, open_raw(backup, SQLITE_OPEN_READONLY));
    PT_TRY(copy_into(src.get(), tmp, -1));
  }
  // The old database's WAL and wal-index belong to the old file: replayed into the new one they would corrupt it.
  remove_companions(target);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    remove_quietly(tmp);
    return make_error(ErrorKind::internal, "restore_rename", "cannot rename '" + tmp + "' to '" + target + "'");
  }
  fsync_path(parent_dir(target), true);
  result.replaced = exists;
  PT_ASSIGN(auto store, Store::open(target));  // migrates to this binary's schema (and WAL mode)
  PT_ASSIGN(result.schema_version_after, schema_version(store.db()));
  PT_ASSIGN(result.runs, count_runs(store.db()));
  const nlohmann::json detail = {{"from", backup},
                                 {"replaced", exists},
                                 {"schema_version_before", result.backup.schema_version},
                                 {"schema_version_after", result.schema_version_after},
                                 {"runs", result.runs}};
  PT_TRY(append_audit(store.db(), options.actor, "restore", target, detail.dump()));
  return result;
}

}  // namespace perftriage::schema
