#pragma once
// Move-only RAII handles over one storage engine: a Database (a connection), a Statement (prepared on it) and a
// Transaction that rolls back in its noexcept destructor unless committed. Database::open picks the engine from the
// path — a file or ":memory:" is SQLite (schema/sqlite.hpp), a postgresql:// URL is PostgreSQL
// (schema/postgres.hpp) — and everything above talks to it through these three classes (schema/backend.hpp).
// SQL numbers its parameters `$1`, `$2`, ... which both engines read natively: PostgreSQL's own syntax, one of
// SQLite's named-parameter forms. Where the dialects differ a store function gives each its own text
// (dialect_sql); the migrations are per dialect (schema/migrations/ and schema/migrations/postgres/).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "schema/backend.hpp"

namespace perftriage::schema {

// True for the URLs libpq takes (postgresql://..., postgres://...): the --db value that selects PostgreSQL.
bool is_postgres_url(std::string_view path) noexcept;
// `path` fit for a log line: a URL's password (user:PASSWORD@, password=...) replaced by "***".
std::string printable_db_path(std::string_view path);

class Database {
 public:
  // Opens (creating if needed) a file or ":memory:", with WAL, busy_timeout and foreign keys on; or connects to
  // the PostgreSQL server of a postgresql:// URL.
  static Result<Database> open(const std::string& path, int busy_timeout_ms = 5000);
  explicit Database(std::unique_ptr<Connection> conn) : conn_(std::move(conn)) {}

  Database(Database&& other) noexcept = default;
  Database& operator=(Database&& other) noexcept = default;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() = default;

  [[nodiscard]] Dialect dialect() const noexcept { return conn_->dialect(); }
  // The engine's own connection, for its backend's files (sqlite_handle, postgres_connection).
  [[nodiscard]] Connection& connection() const noexcept { return *conn_; }
  Result<void> exec(std::string_view sql) { return conn_->exec(sql); }  // one or more statements, no results
  // Rows changed by the last statement (SQLite's sqlite3_changes, PostgreSQL's command tag).
  [[nodiscard]] int changes() const noexcept { return conn_->changes(); }
  [[nodiscard]] bool in_transaction() const noexcept { return conn_->in_transaction(); }
  // False once a PostgreSQL connection is lost (a server restart, a failover): a pool drops it instead of reusing it.
  // A SQLite connection is always usable.
  [[nodiscard]] bool usable() const noexcept { return conn_->usable(); }
  [[nodiscard]] Error error(std::string_view what) const { return conn_->error(what); }
  // How long a statement waits for another connection's lock before failing with db_busy (0 = not at all).
  void set_busy_timeout(int ms) noexcept {
    conn_->set_busy_timeout(ms);
    busy_timeout_ms_ = ms;
  }
  [[nodiscard]] int busy_timeout_ms() const noexcept { return busy_timeout_ms_; }

 private:
  std::unique_ptr<Connection> conn_;
  int busy_timeout_ms_ = 0;
};

// The statement text for this database's dialect: `postgres` where the two differ.
inline std::string_view dialect_sql(const Database& db, std::string_view sqlite, std::string_view postgres) {
  return db.dialect() == Dialect::postgres ? postgres : sqlite;
}
// A statement written once per dialect, kept together.
struct DialectSql {
  std::string_view sqlite;
  std::string_view postgres;
};
inline std::string_view dialect_sql(const Database& db, const DialectSql& sql) {
  return dialect_sql(db, sql.sqlite, sql.postgres);
}

// Spellings the dialects do not share, for statements written as a macro of the dialect (PT_SQLITE / PT_POSTGRES
// below name one each). An id list bound as one JSON array of integers ($N); a join SQLite must keep in the order
// written (its CROSS JOIN, which PostgreSQL takes only without ON); a row's physical address as the last tie-break.
#define PT_SQLITE_ID_LIST(param) "SELECT value FROM json_each(" param ")"
#define PT_POSTGRES_ID_LIST(param) \
  "SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text(CAST(" param " AS jsonb))"
#define PT_SQLITE_ORDERED_JOIN "CROSS JOIN"
#define PT_POSTGRES_ORDERED_JOIN "JOIN"
#define PT_SQLITE_ROW_ADDRESS "rowid"
#define PT_POSTGRES_ROW_ADDRESS "ctid"
// Both texts of a statement macro `M(dialect)`, where the macro spells each difference as PT_##dialect##_... .
#define PT_DIALECT_SQL(M) \
  ::perftriage::schema::DialectSql { M(SQLITE), M(POSTGRES) }

// The value bound to an ID_LIST parameter: the ids as one JSON array ("[3,7]").
inline std::string id_list(const std::vector<std::int64_t>& ids) {
  std::string out = "[";
  for (const auto id : ids) out += (out.size() > 1 ? "," : "") + std::to_string(id);
  return out + "]";
}

// A LIMIT's value: a negative count means no limit, as the store's callers use it; both engines take the largest
// integer as none.
inline std::int64_t sql_limit(std::int64_t n) noexcept { return n < 0 ? std::numeric_limits<std::int64_t>::max() : n; }

class Statement {
 public:
  static Result<Statement> prepare(const Database& db, std::string_view sql);

  Statement(Statement&& other) noexcept = default;
  Statement& operator=(Statement&& other) noexcept = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() = default;

  // Binding: `$i`, from 1. Text is copied unless bind_static.
  Statement& bind(int i, std::int64_t v) {
    impl_->bind_int(i, v);
    return *this;
  }
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v) {
    impl_->bind_real(i, v);
    return *this;
  }
  Statement& bind(int i, std::string_view v) {
    impl_->bind_text(i, v, true);
    return *this;
  }
  Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Statement& bind_blob(int i, std::string_view bytes) {
    impl_->bind_blob(i, bytes, true);
    return *this;
  }
  // No copy: the caller keeps `v` alive until the statement is stepped and reset (hot insert loops).
  Statement& bind_static(int i, std::string_view v) {
    impl_->bind_text(i, v, false);
    return *this;
  }
  Statement& bind_blob_static(int i, std::string_view bytes) {  // the same for a blob (a file's compressed bytes)
    impl_->bind_blob(i, bytes, false);
    return *this;
  }
  Statement& bind_null(int i) {
    impl_->bind_null(i);
    return *this;
  }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind_null(i);
  }

  // Returns true while a row is available, false when done; an Error on failure.
  Result<bool> step() { return impl_->step(); }
  // Runs to completion (for writes).
  Result<void> run();
  void reset() noexcept { impl_->clear(); }    // reset + clear bindings, for reuse
  void rewind() noexcept { impl_->rewind(); }  // reset only: every parameter will be bound again

  [[nodiscard]] bool is_null(int col) const { return impl_->is_null(col); }
  [[nodiscard]] std::int64_t int64(int col) const { return impl_->int64(col); }
  [[nodiscard]] double real(int col) const { return impl_->real(col); }
  [[nodiscard]] std::string text(int col) const { return std::string(impl_->text(col)); }
  [[nodiscard]] std::string_view text_view(int col) const { return impl_->text(col); }  // valid until next step
  [[nodiscard]] std::string blob(int col) const { return impl_->blob(col); }
  [[nodiscard]] std::optional<double> opt_real(int col) const {
    return is_null(col) ? std::nullopt : std::optional<double>(real(col));
  }
  [[nodiscard]] std::optional<std::int64_t> opt_int64(int col) const {
    return is_null(col) ? std::nullopt : std::optional<std::int64_t>(int64(col));
  }

 private:
  explicit Statement(std::unique_ptr<StatementBackend> impl) : impl_(std::move(impl)) {}
  std::unique_ptr<StatementBackend> impl_;
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

// A number that changes whenever ANY other connection (of this process or another one) has committed to the
// database since the last call; this connection's own commits do not move it (SQLite's PRAGMA data_version;
// PostgreSQL's generation row). `prepared` keeps the statement between calls (empty: prepared on first use). The
// read transaction it takes ends before it returns, so a connection that only watches never holds a snapshot (nor
// blocks a checkpoint).
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
