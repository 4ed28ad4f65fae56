#pragma once
// Thin RAII wrappers over the SQLite C API: a move-only Database and Statement, and a
// Transaction that rolls back in its noexcept destructor unless committed. The same classes speak PostgreSQL when
// opened on a postgresql:// URL (schema/postgres.hpp says how): store code is written once, in SQLite's dialect
// where the two agree, with dialect_sql where they do not.
#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace perftriage::schema {

class PgConnection;
class PgStatement;

enum class Dialect { sqlite, postgres };

// True for the URLs libpq takes (postgresql://..., postgres://...): the --db value that selects PostgreSQL.
bool is_postgres_url(std::string_view path) noexcept;
// `path` fit for a log line: a URL's password (user:PASSWORD@, password=...) replaced by "***".
std::string printable_db_path(std::string_view path);

class Database {
 public:
  // Opens (creating if needed) a file or ":memory:", with WAL, busy_timeout and foreign keys on; or connects to
  // the PostgreSQL server of a postgresql:// URL.
  static Result<Database> open(const std::string& path, int busy_timeout_ms = 5000);

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  [[nodiscard]] Dialect dialect() const noexcept { return pg_ ? Dialect::postgres : Dialect::sqlite; }
  [[nodiscard]] sqlite3* handle() const noexcept { return db_; }  // nullptr on PostgreSQL
  [[nodiscard]] PgConnection* pg() const noexcept { return pg_.get(); }
  Result<void> exec(std::string_view sql);  // one or more statements, no results
  // Rows changed by the last statement (SQLite's sqlite3_changes, PostgreSQL's command tag).
  [[nodiscard]] int changes() const noexcept;
  [[nodiscard]] bool in_transaction() const noexcept;
  // False once a PostgreSQL connection is lost (a server restart, a failover): a pool drops it instead of reusing it.
  // A SQLite connection is always usable.
  [[nodiscard]] bool usable() const noexcept;
  [[nodiscard]] Error error(std::string_view what) const;  // an internal Error carrying sqlite3_errmsg
  // How long a statement waits for another connection's lock before failing with db_busy (0 = not at all).
  void set_busy_timeout(int ms) noexcept;
  [[nodiscard]] int busy_timeout_ms() const noexcept { return busy_timeout_ms_; }

 private:
  explicit Database(sqlite3* db);
  explicit Database(std::unique_ptr<PgConnection> pg);
  sqlite3* db_ = nullptr;
  std::unique_ptr<PgConnection> pg_;
  int busy_timeout_ms_ = 0;
};

// The statement text for this database's dialect: `postgres` where the two differ (json_each, scalar max, ...).
inline std::string_view dialect_sql(const Database& db, std::string_view sqlite, std::string_view postgres) {
  return db.dialect() == Dialect::postgres ? postgres : sqlite;
}

class Statement {
 public:
  static Result<Statement> prepare(const Database& db, std::string_view sql);

  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binding: 1-based positions. Text is copied by SQLite (SQLITE_TRANSIENT) unless bind_static.
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view v);
  Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Statement& bind_blob(int i, std::string_view bytes);
  // No copy: the caller keeps `v` alive until the statement is stepped and reset (hot insert loops).
  Statement& bind_static(int i, std::string_view v);
  Statement& bind_blob_static(int i, std::string_view bytes);  // the same for a blob (a file's compressed bytes)
  Statement& bind_null(int i);
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  // Returns true while a row is available, false when done; an Error on failure.
  Result<bool> step();
  // Runs to completion (for writes).
  Result<void> run();
  void reset() noexcept;   // reset + clear bindings, for reuse
  void rewind() noexcept;  // reset only: every parameter will be bound again

  [[nodiscard]] bool is_null(int col) const {
    return pg_ ? pg_is_null(col) : sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }
  [[nodiscard]] std::int64_t int64(int col) const { return pg_ ? pg_int64(col) : sqlite3_column_int64(stmt_, col); }
  [[nodiscard]] double real(int col) const { return pg_ ? pg_real(col) : sqlite3_column_double(stmt_, col); }
  [[nodiscard]] std::string text(int col) const;
  [[nodiscard]] std::string_view text_view(int col) const;  // valid until the next step/reset
  [[nodiscard]] std::string blob(int col) const;
  [[nodiscard]] std::optional<double> opt_real(int col) const {
    return is_null(col) ? std::nullopt : std::optional<double>(real(col));
  }
  [[nodiscard]] std::optional<std::int64_t> opt_int64(int col) const {
    return is_null(col) ? std::nullopt : std::optional<std::int64_t>(int64(col));
  }

 private:
  Statement(sqlite3_stmt* stmt, sqlite3* db);
  explicit Statement(std::unique_ptr<PgStatement> pg);
  [[nodiscard]] bool pg_is_null(int col) const;
  [[nodiscard]] std::int64_t pg_int64(int col) const;
  [[nodiscard]] double pg_real(int col) const;
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
  std::unique_ptr<PgStatement> pg_;
};

// Steps a statement to the end, turning each row into a T with `read(const Statement&)`.
template <class T, class Reader>
Result<std::vector<T>> collect(Statement& st, Reader read) {
  std::vector<T> out;
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) return out;
    out.push_back(read(st));
  }
}

// Steps a statement once: the first row read with `read(const Statement&)`, nullopt when there is none.
template <class Reader>
auto first(Statement& st, Reader read) -> Result<std::optional<decltype(read(st))>> {
  PT_ASSIGN(const bool row, st.step());
  if (!row) return std::optional<decltype(read(st))>{};
  return std::optional<decltype(read(st))>{read(st)};
}

// Steps a statement once: column 0 of its first row as an integer (a count, an id), 0 when there is no row.
inline Result<std::int64_t> scalar(Statement& st) {
  PT_ASSIGN(const bool row, st.step());
  return row ? st.int64(0) : 0;
}

// PRAGMA data_version of this connection: a number that changes whenever ANY other connection (of this process or
// another one) has committed to the database since the last call; this connection's own commits do not move it.
// `prepared` keeps the statement between calls (empty: prepared on first use). The read transaction it takes ends
// before it returns, so a connection that only watches never holds a snapshot (nor blocks a checkpoint).
Result<std::int64_t> data_version(Database& db, std::optional<Statement>& prepared);
Result<std::int64_t> data_version(Database& db);

// BEGIN IMMEDIATE for writes (takes the write lock up front, so busy_timeout applies at the start
// instead of failing on upgrade mid-transaction); BEGIN DEFERRED for consistent multi-query reads.
class Transaction {
 public:
  enum class Mode { immediate, deferred };
  static Result<Transaction> begin(Database& db, Mode mode = Mode::immediate);

  Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)), writes_(other.writes_) {}
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();  // rolls back if neither committed nor rolled back

  Result<void> commit();
  void rollback() noexcept;

 private:
  Transaction(Database* db, bool writes) : db_(db), writes_(writes) {}
  Database* db_ = nullptr;
  bool writes_ = true;
};

}  // namespace perftriage::schema
