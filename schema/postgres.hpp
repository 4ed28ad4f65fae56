#pragma once
// The PostgreSQL side of Database and Statement (schema/sqlite.hpp), over libpq. Store code is written once against
// Database/Statement; this file is what makes the same calls work on a `postgresql://` URL:
//  - SQL is written with SQLite's `?N` / `?` parameters and translated to `$N` once, at prepare (to_postgres);
//    where the dialects differ a statement gives both texts (dialect_sql), and the migrations are per dialect
//    (schema/migrations/postgres/).
//    Two SQLite idioms no PostgreSQL function can stand for are rewritten there too: an id list
//    `SELECT value FROM json_each(?N)` (a JSON array of integers bound as text) and `rowid`, which becomes ctid;
//    `LIMIT ?N` reads a negative number as no limit, as SQLite does; and `CROSS JOIN t ON ...` (SQLite's way to keep
//    a join order) is a plain JOIN.
//    SQLite's scalar functions the store calls (printf, two-argument max/min, total, sum of a condition, json_*)
//    are defined with SQLite's meaning by the PostgreSQL migration.
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

namespace perftriage::schema {

// `?N` -> `$N` and `?` -> `$k` (the next number after the largest so far, as SQLite numbers them), outside quotes;
// and the two idioms above.
// `count` receives the number of parameters (the largest number used).
// `used`, when given, receives which numbers (1-based; [0] unused) the text refers to.
std::string to_postgres(std::string_view sql, int* count = nullptr, std::vector<bool>* used = nullptr);

class PgConnection {
 public:
  static Result<std::unique_ptr<PgConnection>> connect(const std::string& url);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Result<void> exec(std::string_view sql);  // one or more statements, no results (the simple query protocol)
  // `COPY ... FROM STDIN` fed with `data` (whole lines of COPY's format); the rows it stored.
  Result<std::int64_t> copy_in(std::string_view copy_sql, std::string_view data);
  // The server-side name of `sql` prepared with these parameter types, preparing it if this connection has not.
  Result<std::string> prepared(const std::string& sql, const std::vector<Oid>& types);
  [[nodiscard]] PGconn* raw() const noexcept { return conn_; }
  [[nodiscard]] bool in_transaction() const noexcept;
  [[nodiscard]] bool usable() const noexcept;  // connected, and not inside a transaction a failed statement aborted
  [[nodiscard]] int changes() const noexcept { return changes_; }
  void set_changes(int n) noexcept { changes_ = n; }
  [[nodiscard]] Error error(std::string_view what, const PGresult* res) const;

  static constexpr std::size_t kPreparedCacheSize = 512;

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  PGconn* conn_ = nullptr;
  int changes_ = 0;
  std::uint64_t next_name_ = 0;
  std::unordered_map<std::string, std::string> names_;  // sql + '\0' + types -> server-side name
  std::list<std::string> order_;                        // keys, oldest first
};

// One statement's parameters, its result and the row being read.
class PgStatement {
 public:
  // `used`: which parameters the text names (to_postgres); one it skips still counts and is sent typed as text.
  PgStatement(PgConnection* conn, std::string sql, int params, std::vector<bool> used = {});
  ~PgStatement();
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  void bind_int(int i, std::int64_t v);
  void bind_real(int i, double v);
  void bind_text(int i, std::string_view v);
  void bind_blob(int i, std::string_view v);
  void bind_null(int i);
  Result<bool> step();
  void rewind() noexcept;  // drops the result; the bindings stay
  void clear() noexcept;   // rewind, and every parameter NULL again

  [[nodiscard]] bool is_null(int col) const noexcept;
  [[nodiscard]] std::int64_t int64(int col) const noexcept;
  [[nodiscard]] double real(int col) const noexcept;
  [[nodiscard]] std::string_view text(int col) const noexcept;
  [[nodiscard]] std::string blob(int col) const;

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
