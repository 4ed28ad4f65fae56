#include "schema/postgres.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/strings.hpp"

namespace perftriage::schema {
namespace {

// Type OIDs from PostgreSQL's catalog (pg_type.dat); stable across versions.
constexpr Oid kInt8 = 20;
constexpr Oid kFloat8 = 701;
constexpr Oid kBytea = 17;
constexpr Oid kText = 25;

void ignore_notice(void* /*arg*/, const char* /*message*/) {}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

std::string type_key(const std::string& sql, const std::vector<Oid>& types) {
  std::string key = sql;
  key.push_back('\0');
  for (const Oid t : types) key += std::to_string(t) + ",";
  return key;
}

// Every write transaction takes this advisory lock first (pg_advisory_xact_lock, released at COMMIT or ROLLBACK):
// writers run one at a time across every replica, as BEGIN IMMEDIATE makes them on SQLite, so the store's
// read-then-write steps (ensure_run, replace_file, the backlog) keep the meaning they have there. Readers never wait.
constexpr std::string_view kBeginWrite = "BEGIN; SELECT pg_advisory_xact_lock(7250001)";
// One snapshot for every query of a read, as a deferred SQLite transaction gives.
constexpr std::string_view kBeginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ";
// The data generation every replica sees: bumped by each write transaction before it commits, in it, so it becomes
// visible with the data it stands for (migration postgres/014 creates the row). Read together with the global data
// stamp, which the triggers move on any change to a run or a triage state even outside a write transaction: both
// only grow, so their sum moves whenever either does.
constexpr std::string_view kBumpGeneration = "UPDATE pt_generation SET n = n + 1";
constexpr std::string_view kGeneration = "SELECT g.n + s.stamp FROM pt_generation g, data_stamps s WHERE s.scope = '*'";

}  // namespace

std::vector<bool> postgres_parameters(std::string_view sql) {
  std::vector<bool> used(1, false);
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c != '$') continue;
    std::size_t j = i + 1;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') ++j;
    if (j == i + 1) continue;
    std::size_t n = 0;
    std::from_chars(sql.data() + i + 1, sql.data() + j, n);
    if (n >= used.size()) used.resize(n + 1, false);
    used[n] = true;
    i = j - 1;
  }
  return used;
}

Result<std::unique_ptr<Connection>> connect_postgres(const std::string& url) {
  PT_ASSIGN(auto conn, PgConnection::connect(url));
  return std::unique_ptr<Connection>(std::move(conn));
}

PgConnection* postgres_connection(const Database& db) noexcept { return dynamic_cast<PgConnection*>(&db.connection()); }

Result<std::unique_ptr<StatementBackend>> PgConnection::prepare(std::string_view sql) {
  return std::unique_ptr<StatementBackend>(
      std::make_unique<PgStatement>(this, std::string(sql), postgres_parameters(sql)));
}

Result<void> PgConnection::begin(bool write) { return exec(write ? kBeginWrite : kBeginRead); }

Result<void> PgConnection::commit(bool write) {
  if (write) PT_TRY(exec(kBumpGeneration));
  return exec("COMMIT");
}

std::string_view PgConnection::data_version_sql() const noexcept { return kGeneration; }

Result<std::unique_ptr<PgConnection>> PgConnection::connect(const std::string& url) {
  PGconn* raw = PQconnectdb(url.c_str());
  std::unique_ptr<PgConnection> conn(new PgConnection(raw));
  if (!raw || PQstatus(raw) != CONNECTION_OK) {
    const std::string_view why = raw ? PQerrorMessage(raw) : "out of memory";
    return make_error(ErrorKind::internal, "db_open", "cannot connect to PostgreSQL: " + std::string(trim(why)));
  }
  PQsetNoticeProcessor(raw, ignore_notice, nullptr);
  // UTC timestamps and UTF-8 text whatever the server's defaults; warnings not sent at all.
  PT_TRY(conn->exec("SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'; SET client_min_messages = warning"));
  return conn;
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

bool PgConnection::usable() const noexcept {
  return PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_INERROR;
}

bool PgConnection::in_transaction() const noexcept { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }

Error PgConnection::error(std::string_view what, const PGresult* res) const {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  const std::string msg =
      std::string(what) + ": " + std::string(trim(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_)));
  const std::string_view code = state ? state : "";
  if (code == "23505") return make_error(ErrorKind::conflict, "constraint", msg);  // unique_violation
  // serialization_failure, deadlock_detected, lock_not_available: another writer won; try again.
  if (code == "40001" || code == "40P01" || code == "55P03") return make_error(ErrorKind::internal, "db_busy", msg);
  return make_error(ErrorKind::internal, "db_error", msg);
}

Result<void> PgConnection::exec(std::string_view sql) {
  const std::string owned(sql);
  PGresult* res = PQexec(conn_, owned.c_str());
  const auto status = PQresultStatus(res);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
    auto err = error("postgres", res);
    PQclear(res);
    return err;
  }
  PQclear(res);
  return {};
}

Result<std::int64_t> PgConnection::copy_in(std::string_view copy_sql, std::string_view data) {
  const std::string owned(copy_sql);
  PGresult* start = PQexec(conn_, owned.c_str());
  if (PQresultStatus(start) != PGRES_COPY_IN) {
    auto err = error("postgres copy", start);
    PQclear(start);
    return err;
  }
  PQclear(start);
  // libpq buffers what it is given and sends it as the socket takes it; chunks keep each call's int length in range.
  constexpr std::size_t kChunk = 1u << 20;
  const char* failed = nullptr;
  for (std::size_t at = 0; at < data.size() && !failed; at += kChunk) {
    const auto n = static_cast<int>(std::min(kChunk, data.size() - at));
    if (PQputCopyData(conn_, data.data() + at, n) != 1) failed = "sending the rows failed";
  }
  if (PQputCopyEnd(conn_, failed) != 1 && !failed) failed = "ending the copy failed";
  std::optional<Error> err;
  std::int64_t rows = 0;
  while (PGresult* res = PQgetResult(conn_)) {
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      if (!err) err = error("postgres copy", res);
    } else {
      std::from_chars(PQcmdTuples(res), PQcmdTuples(res) + std::strlen(PQcmdTuples(res)), rows);
    }
    PQclear(res);
  }
  if (err) return *err;
  if (failed) return make_error(ErrorKind::internal, "db_error", std::string("postgres copy: ") + failed);
  changes_ = static_cast<int>(std::min<std::int64_t>(rows, std::numeric_limits<int>::max()));
  return rows;
}

Result<std::string> PgConnection::prepared(const std::string& sql, const std::vector<Oid>& types) {
  std::string key = type_key(sql, types);
  if (const auto it = names_.find(key); it != names_.end()) return it->second;
  if (names_.size() >= kPreparedCacheSize) {
    const auto oldest = names_.find(order_.front());
    PQclear(PQexec(conn_, ("DEALLOCATE " + oldest->second).c_str()));
    names_.erase(oldest);
    order_.pop_front();
  }
  std::string name = "pt" + std::to_string(++next_name_);
  PGresult* res = PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(types.size()),
                            types.empty() ? nullptr : types.data());
  if (PQresultStatus(res) != PGRES_COMMAND_OK) {
    auto err = error("prepare '" + sql.substr(0, 60) + "'", res);
    PQclear(res);
    return err;
  }
  PQclear(res);
  order_.push_back(key);
  names_.emplace(std::move(key), name);
  return name;
}

PgStatement::PgStatement(PgConnection* conn, std::string sql, std::vector<bool> used)
    : conn_(conn), sql_(std::move(sql)), params_(used.size() - 1), used_(std::move(used)) {}

PgStatement::~PgStatement() { rewind(); }

PgStatement::Param& PgStatement::slot(int i) {
  rewind();
  if (i < 1) i = 1;
  if (static_cast<std::size_t>(i) > params_.size()) params_.resize(static_cast<std::size_t>(i));
  return params_[static_cast<std::size_t>(i - 1)];
}

void PgStatement::bind_int(int i, std::int64_t v) {
  auto& p = slot(i);
  p = {std::to_string(v), kInt8, 0};
}

void PgStatement::bind_real(int i, double v) {
  auto& p = slot(i);
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  p = {std::string(buf, r.ptr), kFloat8, 0};
}

void PgStatement::bind_text(int i, std::string_view v, bool /*copy*/) {
  auto& p = slot(i);
  // PostgreSQL text cannot hold NUL; SQLite's can. Cut there, as a C string would be.
  p = {std::string(v.substr(0, std::min(v.size(), v.find('\0')))), 0, 0};
}

void PgStatement::bind_blob(int i, std::string_view v, bool /*copy*/) {
  auto& p = slot(i);
  p = {std::string(v), kBytea, 1};
}

void PgStatement::bind_null(int i) {
  auto& p = slot(i);
  p = {std::nullopt, p.type, p.format};
}

namespace {

// A write outside a transaction (a token created, an outbox claim) bumps the data generation in the same statement,
// as a write transaction does before COMMIT (kBumpGeneration), so no committed change leaves it where it was.
constexpr std::string_view kBumpInStatement = "WITH pt_generation_bump AS (UPDATE pt_generation SET n = n + 1) ";

bool is_write(std::string_view sql) {
  const std::string_view text = trim(sql);
  return istarts_with(text, "INSERT") || istarts_with(text, "UPDATE") || istarts_with(text, "DELETE");
}

}  // namespace

Result<void> PgStatement::execute() {
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto& p = params_[i];
    // A number the text skips (`$2` named alone) has no context to take a type from: text, and unread.
    const bool skipped = !used_.empty() && (i + 1 >= used_.size() || !used_[i + 1]);
    types.push_back(skipped && p.type == 0 ? kText : p.type);
    values.push_back(p.value ? p.value->c_str() : nullptr);
    lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
    formats.push_back(p.format);
  }
  const bool bump = !conn_->in_transaction() && is_write(sql_);
  PT_ASSIGN(const std::string name, conn_->prepared(bump ? std::string(kBumpInStatement) + sql_ : sql_, types));
  result_ = PQexecPrepared(conn_->raw(), name.c_str(), static_cast<int>(params_.size()), values.data(), lengths.data(),
                           formats.data(), 0);
  const auto status = PQresultStatus(result_);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    auto err = conn_->error("postgres step", result_);
    rewind();
    return err;
  }
  const char* tuples = PQcmdTuples(result_);
  conn_->set_changes(tuples && *tuples ? std::atoi(tuples) : 0);
  executed_ = true;
  row_ = -1;
  return {};
}

Result<bool> PgStatement::step() {
  if (!executed_) PT_TRY(execute());
  ++row_;
  return row_ < PQntuples(result_);
}

void PgStatement::rewind() noexcept {
  if (result_) PQclear(result_);
  result_ = nullptr;
  executed_ = false;
  row_ = -1;
}

void PgStatement::clear() noexcept {
  rewind();
  for (auto& p : params_) p.value.reset();
}

bool PgStatement::is_null(int col) const noexcept {
  return !result_ || row_ < 0 || col >= PQnfields(result_) || PQgetisnull(result_, row_, col);
}

std::int64_t PgStatement::int64(int col) const noexcept {
  if (is_null(col)) return 0;
  const char* v = PQgetvalue(result_, row_, col);
  if (v[0] == 't' && v[1] == '\0') return 1;  // a boolean expression
  if (v[0] == 'f' && v[1] == '\0') return 0;
  // As SQLite reads a real as an integer: its integer part ("2.0", a numeric sum).
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  if (*end == '.' || *end == 'e' || *end == 'E') return static_cast<std::int64_t>(std::strtod(v, nullptr));
  return n;
}

double PgStatement::real(int col) const noexcept {
  if (is_null(col)) return 0.0;
  const char* v = PQgetvalue(result_, row_, col);
  if (v[0] == 't' && v[1] == '\0') return 1.0;
  return std::strtod(v, nullptr);
}

std::string_view PgStatement::text(int col) const noexcept {
  if (is_null(col)) return {};
  return {PQgetvalue(result_, row_, col), static_cast<std::size_t>(PQgetlength(result_, row_, col))};
}

std::string PgStatement::blob(int col) const {
  const std::string_view v = text(col);
  if (PQftype(result_, col) != kBytea || !v.starts_with("\\x")) return std::string(v);
  std::string out;
  out.reserve((v.size() - 2) / 2);
  for (std::size_t i = 2; i + 1 < v.size(); i += 2) {
    out.push_back(static_cast<char>(hex_value(v[i]) * 16 + hex_value(v[i + 1])));
  }
  return out;
}

}  // namespace perftriage::schema
