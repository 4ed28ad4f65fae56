#include "schema/migrate.hpp"

#include <string>

#include "schema/migrations_embedded.hpp"

namespace perftriage::schema {

int latest_schema_version() noexcept { return kMigrations.empty() ? 0 : kMigrations.back().version; }

Result<int> schema_version(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, "PRAGMA user_version"));
  PT_ASSIGN(const std::int64_t version, scalar(st));
  return static_cast<int>(version);
}

Result<int> migrate(Database& db) {
  PT_ASSIGN(int version, schema_version(db));
  if (version > latest_schema_version()) {
    return make_error(ErrorKind::internal, "schema_too_new",
                      "database schema version " + std::to_string(version) + " is newer than this binary (" +
                          std::to_string(latest_schema_version()) + ")");
  }
  for (const auto& m : kMigrations) {
    if (m.version <= version) continue;
    PT_ASSIGN(auto tx, Transaction::begin(db));
    // Another connection may have migrated while we waited for the write lock.
    PT_ASSIGN(const int now, schema_version(db));
    if (now >= m.version) {
      version = now;
      continue;
    }
    if (auto r = db.exec(m.sql); !r) {
      return make_error(ErrorKind::internal, "migration_failed",
                        "migration " + std::string(m.name) + " failed: " + r.error().message);
    }
    PT_TRY(db.exec("PRAGMA user_version = " + std::to_string(m.version)));
    PT_TRY(tx.commit());
    version = m.version;
  }
  return version;
}

}  // namespace perftriage::schema
