#pragma once
// PostgreSQL behind the storage seam (schema/backend.hpp), over libpq, chosen for a `postgresql://` URL:
//  - The store's SQL reaches the server as written: `$N` parameters are PostgreSQL's own, and where the dialects
//    differ the store gives this engine its own text (dialect_sql); the migrations are per dialect
//    (schema/migrations/postgres/). Nothing is rewritten and no SQLite function is emulated.
//  - Write transactions take an advisory lock first, so writers run one at a time across replicas, as BEGIN
//    IMMEDIATE makes them on SQLite; reads take one REPEATABLE READ snapshot.
//  - Statements are prepared on the server the first time they run and kept per connection (at most
//    kPreparedCacheSize, oldest dropped first), keyed by their text and parameter types, so a statement built for
//    each request costs one parse per connection, not one per call.
//  - Parameters: integers go as int8, reals as float8, blobs as bytea (binary), text and NULL untyped (PostgreSQL
//    infers them from where they stand, as SQLite would take any value). Results come as text and are read by type
//    at the accessor (booleans 't'/'f' read as 1/0).
//  - Errors keep their meaning: unique violations are conflicts ("constraint"), lock and serialization failures
//    are "db_busy", as SQLite's SQLITE_CONSTRAINT_UNIQUE and SQLITE_BUSY.
#include <libpq-fe.h>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "schema/backend.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// Which parameters `sql` names, outside quotes: used[N] is true for each `$N` (1-based; [0] unused); its size is
// one past the largest number.
std::vector<bool> postgres_parameters(std::string_view sql);

class PgConnection final : public Connection {
 public:
  static Result<std::unique_ptr<PgConnection>> connect(const std::string& url);
  ~PgConnection() override;

  [[nodiscard]] Dialect dialect() const noexcept override { return Dialect::postgres; }
  Result<void> exec(std::string_view sql) override;  // one or more statements, no results (simple query protocol)
  Result<std::unique_ptr<StatementBackend>> prepare(std::string_view sql) override;
  // `COPY ... FROM STDIN` fed with `data` (whole lines of COPY's format); the rows it stored.
  Result<std::int64_t> copy_in(std::string_view copy_sql, std::string_view data);
  // The server-side name of `sql` prepared with these parameter types, preparing it if this connection has not.
  Result<std::string> prepared(const std::string& sql, const std::vector<Oid>& types);
  [[nodiscard]] PGconn* raw() const noexcept { return conn_; }
  [[nodiscard]] bool in_transaction() const noexcept override;
  // Connected, and not inside a transaction a failed statement aborted.
  [[nodiscard]] bool usable() const noexcept override;
  [[nodiscard]] int changes() const noexcept override { return changes_; }
  void set_changes(int n) noexcept { changes_ = n; }
  [[nodiscard]] Error error(std::string_view what) const override { return error(what, nullptr); }
  [[nodiscard]] Error error(std::string_view what, const PGresult* res) const;
  void set_busy_timeout(int /*ms*/) noexcept override {}  // lock waits end in db_busy by PostgreSQL's own timeouts
  Result<void> begin(bool write) override;
  Result<void> commit(bool write) override;
  void rollback() noexcept override { (void)exec("ROLLBACK"); }
  [[nodiscard]] std::string_view data_version_sql() const noexcept override;

  static constexpr std::size_t kPreparedCacheSize = 512;

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  PGconn* conn_ = nullptr;
  int changes_ = 0;
  std::uint64_t next_name_ = 0;
  std::unordered_map<std::string, std::string> names_;  // sql + '\0' + types -> server-side name
  std::list<std::string> order_;                        // keys, oldest first
};

// The PostgreSQL connection under `db`, for the files that use libpq's own API (COPY in the result writer);
// nullptr when `db` is not PostgreSQL.
PgConnection* postgres_connection(const Database& db) noexcept;
Result<std::unique_ptr<Connection>> connect_postgres(const std::string& url);

// One statement's parameters, its result and the row being read.
class PgStatement final : public StatementBackend {
 public:
  // `used`: which parameters the text names (postgres_parameters); one it skips still counts and is sent as text.
  PgStatement(PgConnection* conn, std::string sql, std::vector<bool> used);
  ~PgStatement() override;

  void bind_int(int i, std::int64_t v) override;
  void bind_real(int i, double v) override;
  void bind_text(int i, std::string_view v, bool copy) override;
  void bind_blob(int i, std::string_view v, bool copy) override;
  void bind_null(int i) override;
  Result<bool> step() override;
  void rewind() noexcept override;  // drops the result; the bindings stay
  void clear() noexcept override;   // rewind, and every parameter NULL again

  [[nodiscard]] bool is_null(int col) const noexcept override;
  [[nodiscard]] std::int64_t int64(int col) const noexcept override;
  [[nodiscard]] double real(int col) const noexcept override;
  [[nodiscard]] std::string_view text(int col) const noexcept override;
  [[nodiscard]] std::string blob(int col) const override;

 private:
  Result<void> execute();
  struct Param {
    std::optional<std::string> value;
    Oid type = 0;
    int format = 0;  // 1: binary (bytea)
  };
  Param& slot(int i);
  PgConnection* conn_;
  std::string sql_;
  std::vector<Param> params_;
  std::vector<bool> used_;
  PGresult* result_ = nullptr;
  int row_ = -1;
  bool executed_ = false;
};

}  // namespace perftriage::schema
