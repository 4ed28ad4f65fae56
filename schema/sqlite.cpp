#include "schema/sqlite.hpp"

#include <charconv>
#include <mutex>
#include <utility>
#include <vector>

namespace perftriage::schema {
namespace {

class SqliteStatement final : public StatementBackend {
 public:
  SqliteStatement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) { map_parameters(); }
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }

  void bind_int(int i, std::int64_t v) override { sqlite3_bind_int64(stmt_, index(i), v); }
  void bind_real(int i, double v) override { sqlite3_bind_double(stmt_, index(i), v); }
  void bind_text(int i, std::string_view v, bool copy) override {
    sqlite3_bind_text64(stmt_, index(i), v.data(), v.size(), copy ? SQLITE_TRANSIENT : SQLITE_STATIC, SQLITE_UTF8);
  }
  void bind_blob(int i, std::string_view v, bool copy) override {
    sqlite3_bind_blob64(stmt_, index(i), v.data(), v.size(), copy ? SQLITE_TRANSIENT : SQLITE_STATIC);
  }
  void bind_null(int i) override { sqlite3_bind_null(stmt_, index(i)); }
  Result<bool> step() override;
  void rewind() noexcept override { sqlite3_reset(stmt_); }
  void clear() noexcept override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  [[nodiscard]] bool is_null(int col) const noexcept override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  [[nodiscard]] std::int64_t int64(int col) const noexcept override { return sqlite3_column_int64(stmt_, col); }
  [[nodiscard]] double real(int col) const noexcept override { return sqlite3_column_double(stmt_, col); }
  [[nodiscard]] std::string_view text(int col) const noexcept override {
    const auto* p = sqlite3_column_text(stmt_, col);
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string_view{};
  }
  [[nodiscard]] std::string blob(int col) const override {
    const void* p = sqlite3_column_blob(stmt_, col);
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string{};
  }

 private:
  // `$N` is a named parameter to SQLite, indexed in order of first appearance: index_[N] is that index (0: the text
  // does not name $N, and a bind to it is ignored). Empty while every $N stands at index N, the usual case.
  void map_parameters();
  [[nodiscard]] int index(int i) const noexcept {
    if (index_.empty()) return i;
    return i > 0 && static_cast<std::size_t>(i) < index_.size() ? index_[static_cast<std::size_t>(i)] : 0;
  }
  sqlite3_stmt* stmt_;
  sqlite3* db_;
  std::vector<int> index_;
};

void SqliteStatement::map_parameters() {
  const int count = sqlite3_bind_parameter_count(stmt_);
  std::vector<int> index(static_cast<std::size_t>(count) + 1, 0);
  bool identity = true;
  for (int k = 1; k <= count; ++k) {
    const char* name = sqlite3_bind_parameter_name(stmt_, k);
    int n = k;  // an anonymous `?` keeps its position
    if (name != nullptr && (name[0] == '$' || name[0] == '?')) {
      const std::string_view digits(name + 1);
      std::from_chars(digits.data(), digits.data() + digits.size(), n);
    }
    if (static_cast<std::size_t>(n) >= index.size()) index.resize(static_cast<std::size_t>(n) + 1, 0);
    index[static_cast<std::size_t>(n)] = k;
    identity = identity && n == k;
  }
  if (!identity) index_ = std::move(index);
}

Result<bool> SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const int ext = sqlite3_extended_errcode(db_);
  std::string msg = std::string("sqlite step: ") + sqlite3_errmsg(db_);
  if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return make_error(ErrorKind::conflict, "constraint", msg);
  }
  if (rc == SQLITE_BUSY) return make_error(ErrorKind::internal, "db_busy", msg);
  return make_error(ErrorKind::internal, "db_error", msg);
}

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  [[nodiscard]] Dialect dialect() const noexcept override { return Dialect::sqlite; }
  [[nodiscard]] sqlite3* handle() const noexcept { return db_; }
  Result<void> exec(std::string_view sql) override;
  Result<std::unique_ptr<StatementBackend>> prepare(std::string_view sql) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
      return error("prepare '" + std::string(sql.substr(0, 60)) + "'");
    }
    return std::unique_ptr<StatementBackend>(std::make_unique<SqliteStatement>(stmt, db_));
  }
  [[nodiscard]] int changes() const noexcept override { return sqlite3_changes(db_); }
  [[nodiscard]] bool in_transaction() const noexcept override { return sqlite3_get_autocommit(db_) == 0; }
  [[nodiscard]] bool usable() const noexcept override { return true; }
  [[nodiscard]] Error error(std::string_view what) const override {
    return make_error(ErrorKind::internal, "db_error", std::string(what) + ": " + sqlite3_errmsg(db_));
  }
  void set_busy_timeout(int ms) noexcept override { sqlite3_busy_timeout(db_, ms); }
  // BEGIN IMMEDIATE for writes: it takes the write lock up front, so busy_timeout applies at the start instead of
  // the transaction failing on the upgrade from read to write midway; DEFERRED gives reads one snapshot.
  Result<void> begin(bool write) override { return exec(write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"); }
  Result<void> commit(bool /*write*/) override { return exec("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  [[nodiscard]] std::string_view data_version_sql() const noexcept override { return "PRAGMA data_version"; }

 private:
  sqlite3* db_;
};

Result<void> SqliteConnection::exec(std::string_view sql) {
  char* msg = nullptr;
  const std::string owned(sql);
  if (sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return make_error(ErrorKind::internal, "db_error", "sqlite: " + text);
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Connection>> open_sqlite(const std::string& path, int busy_timeout_ms) {
  // SQLite counts every allocation under one global mutex unless told not to (SQLITE_CONFIG_MEMSTATUS, on by
  // default); nothing here reads those counters, and a 1M-row ingest spent 3.6% of its time in that mutex. Must come
  // before SQLite initialises, so before the first connection; a later call would only answer SQLITE_MISUSE.
  static std::once_flag configured;
  std::call_once(configured, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  auto conn = std::make_unique<SqliteConnection>(raw);  // owns raw even on failure
  if (rc != SQLITE_OK) {
    return make_error(ErrorKind::internal, "db_open",
                      "cannot open database '" + path + "': " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(raw, 1);
  // Before the first statement: the PRAGMAs below read the file header, and while another connection recovers the
  // WAL index (the first to open after the last one closed) that read answers SQLITE_BUSY at once unless a busy
  // handler waits.
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  // WAL lets readers (dashboard) run while an upload writes; NORMAL sync is durable in WAL mode
  // except for the last transactions on power loss, which is acceptable for re-uploadable CI data.
  PT_TRY(
      conn->exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                 "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"));
  return std::unique_ptr<Connection>(std::move(conn));
}

sqlite3* sqlite_handle(const Database& db) noexcept {
  const auto* conn = dynamic_cast<const SqliteConnection*>(&db.connection());
  return conn ? conn->handle() : nullptr;
}

}  // namespace perftriage::schema
