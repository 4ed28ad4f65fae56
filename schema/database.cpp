#include "schema/database.hpp"

#include "schema/postgres.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {

bool is_postgres_url(std::string_view path) noexcept {
  return path.starts_with("postgresql://") || path.starts_with("postgres://");
}

std::string printable_db_path(std::string_view path) {
  std::string out(path);
  if (!is_postgres_url(path)) return out;
  const auto scheme = out.find("://") + 3;
  const auto at = out.find('@', scheme);
  const auto colon = out.find(':', scheme);
  if (at != std::string::npos && colon != std::string::npos && colon < at)
    out.replace(colon + 1, at - colon - 1, "***");
  for (auto p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    const auto end = out.find('&', p);
    out.replace(p + 9, (end == std::string::npos ? out.size() : end) - p - 9, "***");
  }
  return out;
}

Result<Database> Database::open(const std::string& path, int busy_timeout_ms) {
  std::unique_ptr<Connection> conn;
  if (is_postgres_url(path)) {
    PT_ASSIGN(conn, connect_postgres(path));
  } else {
    PT_ASSIGN(conn, open_sqlite(path, busy_timeout_ms));
  }
  Database db(std::move(conn));
  db.set_busy_timeout(busy_timeout_ms);
  return db;
}

Result<Statement> Statement::prepare(const Database& db, std::string_view sql) {
  PT_ASSIGN(auto impl, db.connection().prepare(sql));
  return Statement(std::move(impl));
}

Result<void> Statement::run() {
  for (;;) {
    PT_ASSIGN(const bool row, step());
    if (!row) return {};
  }
}

Result<std::int64_t> data_version(Database& db, std::optional<Statement>& prepared) {
  if (!prepared) {
    PT_ASSIGN(auto st, Statement::prepare(db, db.connection().data_version_sql()));
    prepared.emplace(std::move(st));
  }
  auto value = scalar(*prepared);
  prepared->rewind();  // ends the read transaction at once
  return value;
}

Result<std::int64_t> data_version(Database& db) {
  std::optional<Statement> once;
  return data_version(db, once);
}

Result<Transaction> Transaction::begin(Database& db, Mode mode) {
  const bool writes = mode == Mode::immediate;
  PT_TRY(db.connection().begin(writes));
  return Transaction(&db, writes);
}

Transaction::~Transaction() { rollback(); }

Result<void> Transaction::commit() {
  if (!db_) return make_error(ErrorKind::internal, "tx_closed", "transaction already closed");
  auto r = db_->connection().commit(writes_);
  if (r) db_ = nullptr;
  return r;
}

void Transaction::rollback() noexcept {
  if (db_) db_->connection().rollback();
  db_ = nullptr;
}

}  // namespace perftriage::schema
