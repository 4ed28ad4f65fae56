#include "schema/migrate.hpp"

#include <string>

#include <span>

#include "schema/migrations_embedded.hpp"
#include "schema/postgres_migrations_embedded.hpp"

namespace perftriage::schema {
namespace {

// SQLite keeps the version in the file header (PRAGMA user_version); PostgreSQL in a one-row table, absent before
// the first migration.
constexpr std::string_view kPgVersionTable = "SELECT to_regclass('pt_schema_version') IS NOT NULL";
constexpr std::string_view kPgVersion = "SELECT coalesce(max(version), 0) FROM pt_schema_version";

std::span<const EmbeddedMigration> migrations_of(const Database& db) {
  if (db.dialect() == Dialect::postgres) return kPostgresMigrations;
  return kMigrations;
}

std::string set_version_sql(const Database& db, int version) {
  if (db.dialect() == Dialect::sqlite) return "PRAGMA user_version = " + std::to_string(version);
  return "CREATE TABLE IF NOT EXISTS pt_schema_version (version BIGINT NOT NULL); DELETE FROM pt_schema_version; "
         "INSERT INTO pt_schema_version VALUES (" +
         std::to_string(version) + ")";
}

}  // namespace

int latest_schema_version() noexcept { return kMigrations.empty() ? 0 : kMigrations.back().version; }

Result<int> schema_version(Database& db) {
  if (db.dialect() == Dialect::postgres) {
    PT_ASSIGN(auto exists, Statement::prepare(db, kPgVersionTable));
    PT_ASSIGN(const std::int64_t known, scalar(exists));
    if (known == 0) return 0;
  }
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, "PRAGMA user_version", kPgVersion)));
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
  for (const auto& m : migrations_of(db)) {
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
    PT_TRY(db.exec(set_version_sql(db, m.version)));
    PT_TRY(tx.commit());
    version = m.version;
  }
  return version;
}

}  // namespace perftriage::schema
