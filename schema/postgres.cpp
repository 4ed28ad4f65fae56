#include "schema/postgres.hpp"

#include <algorithm>
#include <cctype>
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

}  // namespace

bool is_postgres_url(std::string_view path) noexcept {
  return path.starts_with("postgresql://") || path.starts_with("postgres://");
}

namespace {

// The two SQLite idioms the store's SQL uses that no PostgreSQL function can stand in for (postgres.hpp).
constexpr std::string_view kIdListSqlite = "SELECT value FROM json_each(";
constexpr std::string_view kIdListPostgres = "SELECT CAST(value AS BIGINT) FROM json_array_elements_text(";

bool word_at(std::string_view sql, std::size_t i, std::string_view word) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return sql.substr(i, word.size()) == word && (i == 0 || !ident(sql[i - 1])) &&
         (i + word.size() == sql.size() || !ident(sql[i + word.size()]));
}

// SQLite's `CROSS JOIN t ON ...` (a join order it keeps) is a plain JOIN to PostgreSQL, which takes no ON after a
// CROSS JOIN: true when an ON comes before the next JOIN or WHERE.
bool cross_join_with_on(std::string_view sql, std::size_t after) {
  for (std::size_t k = after; k < sql.size(); ++k) {
    if (word_at(sql, k, "ON")) return true;
    if (word_at(sql, k, "JOIN") || word_at(sql, k, "WHERE")) return false;
  }
  return false;
}

}  // namespace

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

std::string to_postgres(std::string_view sql, int* count, std::vector<bool>* used) {
  std::string out;
  out.reserve(sql.size() + 8);
  int largest = 0;
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      out.push_back(c);
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out.push_back(c);
      continue;
    }
    if (sql.substr(i, kIdListSqlite.size()) == kIdListSqlite) {
      out += kIdListPostgres;
      i += kIdListSqlite.size() - 1;
      continue;
    }
    if (word_at(sql, i, "CROSS") && sql.substr(i, 10) == "CROSS JOIN" && cross_join_with_on(sql, i + 10)) {
      out += "JOIN";
      i += 9;
      continue;
    }
    if (word_at(sql, i, "rowid")) {  // the physical row address: a tie-break and a delete target, as in SQLite
      out += "ctid";
      i += 4;
      continue;
    }
    if (c != '?') {
      out.push_back(c);
      continue;
    }
    std::size_t j = i + 1;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') ++j;
    int n = largest + 1;
    if (j > i + 1) std::from_chars(sql.data() + i + 1, sql.data() + j, n);
    largest = std::max(largest, n);
    if (used) {
      if (used->size() <= static_cast<std::size_t>(n)) used->resize(static_cast<std::size_t>(n) + 1, false);
      (*used)[static_cast<std::size_t>(n)] = true;
    }
    const std::string param = "$" + std::to_string(n);
    // SQLite reads a negative LIMIT as none; PostgreSQL refuses it and reads NULL as none.
    const bool limit = out.size() >= 6 && std::string_view(out).substr(out.size() - 6) == "LIMIT ";
    out += limit ? "nullif(greatest(" + param + ", -1), -1)" : param;
    i = j - 1;
  }
  if (count) *count = largest;
  return out;
}

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

PgStatement::PgStatement(PgConnection* conn, std::string sql, int params, std::vector<bool> used)
    : conn_(conn), sql_(std::move(sql)), params_(static_cast<std::size_t>(params)), used_(std::move(used)) {}

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

void PgStatement::bind_text(int i, std::string_view v) {
  auto& p = slot(i);
  // PostgreSQL text cannot hold NUL; SQLite's can. Cut there, as a C string would be.
  p = {std::string(v.substr(0, std::min(v.size(), v.find('\0')))), 0, 0};
}

void PgStatement::bind_blob(int i, std::string_view v) {
  auto& p = slot(i);
  p = {std::string(v), kBytea, 1};
}

void PgStatement::bind_null(int i) {
  auto& p = slot(i);
  p = {std::nullopt, p.type, p.format};
}

namespace {

// A write outside a transaction (a token created, an outbox claim) bumps the data generation in the same statement,
// as a write transaction does before COMMIT (schema/sqlite.cpp), so no committed change leaves it where it was.
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
    // A number the text skips (SQLite lets `?2` stand alone) has no context to take a type from: text, and unread.
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
