#include "schema/migrate.hpp"

#include <string>

#include "schema/migrations_embedded.hpp"

namespace perftriage::schema {

int latest_schema_version() noexcept { return kMigrations.empty() ? 0 : kMigrations.back().version; }

static Result<int> user_version(Database& db) {
  auto st = Statement::prepare(db, "PRAGMA user_version");
  if (!st) return std::move(st).error();
  auto row = st->step();
  if (!row) return std::move(row).error();
  return static_cast<int>(st->int64(0));
}

Result<int> migrate(Database& db) {
  auto current = user_version(db);
  if (!current) return current;
  if (*current > latest_schema_version()) {
    return make_error(ErrorKind::internal, "schema_too_new",
                      "database schema version " + std::to_string(*current) + " is newer than this binary (" +
                          std::to_string(latest_schema_version()) + ")");
  }
  int version = *current;
  for (const auto& m : kMigrations) {
    if (m.version <= version) continue;
    auto tx = Transaction::begin(db);
    if (!tx) return std::move(tx).error();
    // Another connection may have migrated while we waited for the write lock.
    auto now = user_version(db);
    if (!now) return now;
    if (*now >= m.version) {
      version = *now;
      continue;
    }
    if (auto r = db.exec(m.sql); !r) {
      return make_error(ErrorKind::internal, "migration_failed",
                        "migration " + std::string(m.name) + " failed: " + r.error().message);
    }
    PT_TRY(db.exec("PRAGMA user_version = " + std::to_string(m.version)));
    PT_TRY(tx->commit());
    version = m.version;
  }
  return version;
}

}  // namespace perftriage::schema
