#include "schema/sqlite.hpp"

#include <mutex>
#include <utility>

#include "schema/postgres.hpp"

namespace perftriage::schema {
namespace {

// Every write transaction on PostgreSQL takes this advisory lock first (pg_advisory_xact_lock, released at COMMIT or
// ROLLBACK): writers run one at a time across every replica, as BEGIN IMMEDIATE makes them on SQLite, so the store's
// read-then-write steps (ensure_run, replace_file, the backlog) keep the meaning they have there. Readers never wait.
constexpr std::string_view kPgBeginWrite = "BEGIN; SELECT pg_advisory_xact_lock(7250001)";
// One snapshot for every query of a read, as a deferred SQLite transaction gives.
constexpr std::string_view kPgBeginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ";
// The data generation every replica sees: bumped by each write transaction before it commits, in it, so it becomes
// visible with the data it stands for (migration postgres/014 creates the row). Read together with the global data
// stamp, which the triggers move on any change to a run or a triage state even outside a write transaction: both
// only grow, so their sum moves whenever either does.
constexpr std::string_view kPgBumpGeneration = "UPDATE pt_generation SET n = n + 1";
constexpr std::string_view kPgGeneration =
    "SELECT g.n + s.stamp FROM pt_generation g, data_stamps s WHERE s.scope = '*'";

}  // namespace

Database::Database(sqlite3* db) : db_(db) {}
Database::Database(std::unique_ptr<PgConnection> pg) : pg_(std::move(pg)) {}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), pg_(std::move(other.pg_)), busy_timeout_ms_(other.busy_timeout_ms_) {}

int Database::changes() const noexcept { return pg_ ? pg_->changes() : sqlite3_changes(db_); }

bool Database::usable() const noexcept { return !pg_ || pg_->usable(); }

bool Database::in_transaction() const noexcept {
  return pg_ ? pg_->in_transaction() : sqlite3_get_autocommit(db_) == 0;
}

Result<Database> Database::open(const std::string& path, int busy_timeout_ms) {
  if (is_postgres_url(path)) {
    PT_ASSIGN(auto conn, PgConnection::connect(path));
    Database db(std::move(conn));
    db.busy_timeout_ms_ = busy_timeout_ms;
    return db;
  }
  // SQLite counts every allocation under one global mutex unless told not to (SQLITE_CONFIG_MEMSTATUS, on by
  // default); nothing here reads those counters, and a 1M-row ingest spent 3.6% of its time in that mutex. Must come
  // before SQLite initialises, so before the first connection; a later call would only answer SQLITE_MISUSE.
  static std::once_flag configured;
  std::call_once(configured, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Database db(raw);  // owns raw even on failure
  if (rc != SQLITE_OK) {
    return make_error(ErrorKind::internal, "db_open",
                      "cannot open database '" + path + "': " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  db.set_busy_timeout(busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  // WAL lets readers (dashboard) run while an upload writes; NORMAL sync is durable in WAL mode
  // except for the last transactions on power loss, which is acceptable for re-uploadable CI data.
  PT_TRY(
      db.exec("PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
              "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;"));
  return db;
}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    pg_ = std::move(other.pg_);
    busy_timeout_ms_ = other.busy_timeout_ms_;
  }
  return *this;
}

void Database::set_busy_timeout(int ms) noexcept {
  if (db_) sqlite3_busy_timeout(db_, ms);
  busy_timeout_ms_ = ms;
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Result<void> Database::exec(std::string_view sql) {
  if (pg_) return pg_->exec(sql);
  char* msg = nullptr;
  const std::string owned(sql);
  if (sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string text = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return make_error(ErrorKind::internal, "db_error", "sqlite: " + text);
  }
  return {};
}

Error Database::error(std::string_view what) const {
  if (pg_) return pg_->error(what, nullptr);
  return make_error(ErrorKind::internal, "db_error", std::string(what) + ": " + sqlite3_errmsg(db_));
}

Statement::Statement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
Statement::Statement(std::unique_ptr<PgStatement> pg) : pg_(std::move(pg)) {}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(other.db_), pg_(std::move(other.pg_)) {}

bool Statement::pg_is_null(int col) const { return pg_->is_null(col); }
std::int64_t Statement::pg_int64(int col) const { return pg_->int64(col); }
double Statement::pg_real(int col) const { return pg_->real(col); }

Result<Statement> Statement::prepare(const Database& db, std::string_view sql) {
  if (db.pg()) {
    int params = 0;
    std::vector<bool> used;
    std::string text = to_postgres(sql, &params, &used);
    return Statement(std::make_unique<PgStatement>(db.pg(), std::move(text), params, std::move(used)));
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    return db.error("prepare '" + std::string(sql.substr(0, 60)) + "'");
  }
  return Statement(stmt, db.handle());
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
    pg_ = std::move(other.pg_);
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int i, std::int64_t v) {
  if (pg_) {
    pg_->bind_int(i, v);
    return *this;
  }
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  if (pg_) {
    pg_->bind_real(i, v);
    return *this;
  }
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::bind(int i, std::string_view v) {
  if (pg_) {
    pg_->bind_text(i, v);
    return *this;
  }
  sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}
Statement& Statement::bind_blob(int i, std::string_view bytes) {
  if (pg_) {
    pg_->bind_blob(i, bytes);
    return *this;
  }
  sqlite3_bind_blob64(stmt_, i, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::bind_blob_static(int i, std::string_view bytes) {
  if (pg_) {
    pg_->bind_blob(i, bytes);
    return *this;
  }
  sqlite3_bind_blob64(stmt_, i, bytes.data(), bytes.size(), SQLITE_STATIC);
  return *this;
}
Statement& Statement::bind_static(int i, std::string_view v) {
  if (pg_) {
    pg_->bind_text(i, v);
    return *this;
  }
  sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
  return *this;
}
Statement& Statement::bind_null(int i) {
  if (pg_) {
    pg_->bind_null(i);
    return *this;
  }
  sqlite3_bind_null(stmt_, i);
  return *this;
}

Result<bool> Statement::step() {
  if (pg_) return pg_->step();
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

Result<void> Statement::run() {
  for (;;) {
    PT_ASSIGN(const bool row, step());
    if (!row) return {};
  }
}

void Statement::rewind() noexcept {
  if (pg_) return pg_->rewind();
  sqlite3_reset(stmt_);
}

void Statement::reset() noexcept {
  if (pg_) return pg_->clear();
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::text(int col) const { return std::string(text_view(col)); }

std::string_view Statement::text_view(int col) const {
  if (pg_) return pg_->text(col);
  const auto* p = sqlite3_column_text(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string_view{};
}

std::string Statement::blob(int col) const {
  if (pg_) return pg_->blob(col);
  const void* p = sqlite3_column_blob(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string{};
}

Result<std::int64_t> data_version(Database& db, std::optional<Statement>& prepared) {
  if (!prepared) {
    PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, "PRAGMA data_version", kPgGeneration)));
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
  if (db.pg()) {
    PT_TRY(db.exec(mode == Mode::immediate ? kPgBeginWrite : kPgBeginRead));
    return Transaction(&db, mode == Mode::immediate);
  }
  PT_TRY(db.exec(mode == Mode::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"));
  return Transaction(&db, mode == Mode::immediate);
}

Transaction::~Transaction() { rollback(); }

Result<void> Transaction::commit() {
  if (!db_) return make_error(ErrorKind::internal, "tx_closed", "transaction already closed");
  if (db_->pg() && writes_) PT_TRY(db_->exec(kPgBumpGeneration));
  auto r = db_->exec("COMMIT");
  if (r) db_ = nullptr;
  return r;
}

void Transaction::rollback() noexcept {
  if (db_) {
    if (db_->pg()) {
      (void)db_->exec("ROLLBACK");
    } else {
      sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
    db_ = nullptr;
  }
}

}  // namespace perftriage::schema
