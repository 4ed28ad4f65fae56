#include "schema/copy_store.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "common/strings.hpp"
#include "schema/migrate.hpp"
#include "schema/multi_row.hpp"

namespace perftriage::schema {
namespace {

// Every table of schema version 20, parents before children (foreign keys hold at every insert).
constexpr std::array<std::string_view, 31> kTables = {
    "runs",           "result_files",    "file_blobs",     "expectations",       "artifacts",
    "artifact_blobs", "case_groups",     "case_models",    "result_rows",        "run_groups",
    "data_stamps",    "backlog",         "triage",         "triage_history",     "tracking_queue",
    "tracking_state", "tracking_issues", "notifications",  "webhook_deliveries", "outbox",
    "issue_labels",   "bot_comments",    "labeled_issues", "maintenance",        "api_tokens",
    "audit_log",      "tracker_issues",  "tracker_sync",   "issue_cases",        "app_installations",
    "label_models"};
// Tables whose id is an identity column on PostgreSQL: its counter continues after the copied ids.
constexpr std::array<std::string_view, 10> kIdentityTables = {
    "runs",        "result_files", "expectations", "artifacts", "case_groups",
    "case_models", "outbox",       "api_tokens",   "audit_log", "triage_history"};
constexpr int kCopiedVersion = 20;

enum class Type { integer, real, text, blob };
struct Column {
  std::string name;
  Type type;
};

// SQLite's type affinity rules, as far as the schema's declared types need them.
Type type_of(std::string_view declared) {
  const std::string type = lower(declared);
  if (type.find("int") != std::string::npos) return Type::integer;
  if (type.find("real") != std::string::npos || type.find("doub") != std::string::npos) return Type::real;
  if (type.find("blob") != std::string::npos) return Type::blob;
  return Type::text;
}

// The columns as SQLite declares them (the source of truth: the PostgreSQL schema mirrors it).
Result<std::vector<Column>> columns_of(Database& sqlite, std::string_view table) {
  PT_ASSIGN(auto st, Statement::prepare(sqlite, "SELECT name, type FROM pragma_table_info($1) ORDER BY cid"));
  st.bind(1, table);
  return collect<Column>(st, [](const Statement& s) { return Column{s.text(0), type_of(s.text(1))}; });
}

std::string column_list(const std::vector<Column>& columns) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

std::string select_all(std::string_view table, const std::vector<Column>& columns) {
  return "SELECT " + column_list(columns) + " FROM " + std::string(table);
}

// One value as the same bytes on both sides: integers in decimal, reals in their shortest exact form, text and
// blobs as they are, NULL apart from every one of them.
void append_value(std::string& row, const Statement& st, int i, Type type) {
  if (st.is_null(i)) {
    row += '\x01';
    return;
  }
  switch (type) {
    case Type::integer: row += std::to_string(st.int64(i)); break;
    case Type::real: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", st.real(i));
      row += buf;
      break;
    }
    case Type::text: row += st.text_view(i); break;
    case Type::blob: row += st.blob(i); break;
  }
  row += '\x00';
}

// rows, and the sum (mod 2^64, per 64-bit lane) of each row's SHA-256: the same whatever order the rows come in.
Result<std::pair<std::int64_t, std::string>> checksum(Database& db, std::string_view table,
                                                      const std::vector<Column>& columns) {
  PT_ASSIGN(auto st, Statement::prepare(db, select_all(table, columns)));
  std::array<std::uint64_t, 4> sum{};
  std::int64_t rows = 0;
  std::string row;
  for (;;) {
    PT_ASSIGN(const bool more, st.step());
    if (!more) break;
    row.clear();
    for (std::size_t i = 0; i < columns.size(); ++i) append_value(row, st, static_cast<int>(i), columns[i].type);
    unsigned char digest[32];
    unsigned int n = 0;
    EVP_Digest(row.data(), row.size(), digest, &n, EVP_sha256(), nullptr);
    for (int lane = 0; lane < 4; ++lane) {
      std::uint64_t v = 0;
      for (int b = 0; b < 8; ++b) v = (v << 8) | digest[lane * 8 + b];
      sum[static_cast<std::size_t>(lane)] += v;
    }
    ++rows;
  }
  char hex[65];
  for (int lane = 0; lane < 4; ++lane) {
    std::snprintf(hex + lane * 16, 17, "%016llx", static_cast<unsigned long long>(sum[static_cast<std::size_t>(lane)]));
  }
  return std::pair{rows, std::string(hex, 64)};
}

// One value read from the source, kept until its batch is sent (the source's buffers change at the next step).
struct Value {
  bool null = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string bytes;  // text or blob
};

std::string insert_rows(std::string_view table, const std::vector<Column>& columns, std::size_t rows) {
  return "INSERT INTO " + std::string(table) + "(" + column_list(columns) + ") VALUES" +
         multi_row_values(rows, columns.size());
}

// Sends the buffered rows as one multi-row INSERT: a round trip per batch, not per row (PostgreSQL answers each
// statement over the network; 2.14M rows one by one took minutes).
Result<void> flush_rows(Database& to, std::string_view table, const std::vector<Column>& columns,
                        std::vector<Value>& values) {
  if (values.empty()) return {};
  PT_ASSIGN(auto write, Statement::prepare(to, insert_rows(table, columns, values.size() / columns.size())));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int p = static_cast<int>(i) + 1;
    const Value& v = values[i];
    if (v.null) {
      write.bind_null(p);
      continue;
    }
    switch (columns[i % columns.size()].type) {
      case Type::integer: write.bind(p, v.integer); break;
      case Type::real: write.bind(p, v.real); break;
      case Type::text: write.bind(p, std::string_view(v.bytes)); break;
      case Type::blob: write.bind_blob(p, v.bytes); break;
    }
  }
  PT_TRY(write.run());
  values.clear();
  return {};
}

Result<void> copy_table(Database& from, Database& to, std::string_view table, const std::vector<Column>& columns) {
  // At most 500 rows, and within PostgreSQL's 65,535 parameters of one statement.
  const std::size_t batch = std::max<std::size_t>(1, std::min<std::size_t>(500, 65535 / columns.size()));
  PT_ASSIGN(auto read, Statement::prepare(from, select_all(table, columns)));
  std::vector<Value> values;
  values.reserve(batch * columns.size());
  for (;;) {
    PT_ASSIGN(const bool more, read.step());
    if (!more) return flush_rows(to, table, columns, values);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const int c = static_cast<int>(i);
      Value& v = values.emplace_back();
      v.null = read.is_null(c);
      if (v.null) continue;
      switch (columns[i].type) {
        case Type::integer: v.integer = read.int64(c); break;
        case Type::real: v.real = read.real(c); break;
        case Type::text: v.bytes = read.text_view(c); break;
        case Type::blob: v.bytes = read.blob(c); break;
      }
    }
    if (values.size() == batch * columns.size()) PT_TRY(flush_rows(to, table, columns, values));
  }
}

Result<void> check_versions(Database& from, Database& to) {
  PT_ASSIGN(const int source, schema_version(from));
  PT_ASSIGN(const int target, schema_version(to));
  if (source != kCopiedVersion || target != kCopiedVersion) {
    return make_error(ErrorKind::invalid_input, "schema_version",
                      "migrate copies schema version " + std::to_string(kCopiedVersion) + "; the source is at " +
                          std::to_string(source) + " and the target at " + std::to_string(target) +
                          " (open each with this binary first: it migrates them)");
  }
  return {};
}

Result<void> require_empty(Database& to) {
  for (const auto table : {"runs", "api_tokens", "outbox", "webhook_deliveries", "tracker_issues"}) {
    PT_ASSIGN(auto st, Statement::prepare(to, "SELECT count(*) FROM " + std::string(table)));
    PT_ASSIGN(const std::int64_t n, scalar(st));
    if (n != 0) {
      return make_error(ErrorKind::conflict, "target_not_empty",
                        "the target database already holds " + std::to_string(n) + " rows of " + table +
                            "; migrate copies into an empty one");
    }
  }
  return {};
}

}  // namespace

Result<std::vector<TableCopy>> compare_databases(Database& from, Database& to) {
  if (from.dialect() != Dialect::sqlite) {
    return make_error(ErrorKind::invalid_input, "source_dialect", "migrate reads from a SQLite database");
  }
  std::vector<TableCopy> out;
  for (const auto table : kTables) {
    PT_ASSIGN(const auto columns, columns_of(from, table));
    TableCopy t;
    t.table = std::string(table);
    PT_ASSIGN(std::tie(t.rows_from, t.checksum_from), checksum(from, table, columns));
    PT_ASSIGN(std::tie(t.rows_to, t.checksum_to), checksum(to, table, columns));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<TableCopy>> copy_database(Database& from, Database& to) {
  if (from.dialect() != Dialect::sqlite || to.dialect() != Dialect::postgres) {
    return make_error(ErrorKind::invalid_input, "migrate_direction",
                      "migrate copies a SQLite database (--from sqlite:PATH) into PostgreSQL (--to postgresql://...)");
  }
  PT_TRY(check_versions(from, to));
  {
    PT_ASSIGN(auto read, Transaction::begin(from, Transaction::Mode::deferred));  // one snapshot of the source
    PT_ASSIGN(auto tx, Transaction::begin(to));
    PT_TRY(require_empty(to));
    PT_TRY(to.exec("DELETE FROM data_stamps"));  // the migration's '*' row: the source's comes instead
    for (const auto table : kTables) {
      PT_ASSIGN(const auto columns, columns_of(from, table));
      PT_TRY(to.exec("ALTER TABLE " + std::string(table) + " DISABLE TRIGGER USER"));
      PT_TRY(copy_table(from, to, table, columns));
      PT_TRY(to.exec("ALTER TABLE " + std::string(table) + " ENABLE TRIGGER USER"));
    }
    for (const auto table : kIdentityTables) {
      const std::string t(table);
      PT_TRY(to.exec("SELECT setval(pg_get_serial_sequence('" + t + "', 'id'), coalesce(max(id), 0) + 1, false) FROM " +
                     t));
    }
    PT_TRY(tx.commit());
  }
  return compare_databases(from, to);
}

}  // namespace perftriage::schema
