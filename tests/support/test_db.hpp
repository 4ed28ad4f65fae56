#pragma once
// The database a test's store lives in. By default ":memory:" (SQLite). When PERFTRIAGE_TEST_PG names a file holding
// a PostgreSQL URL (tools/pg_test_server.sh writes one; CTest's `pg:` tests set it), each call gives a schema of
// its own in that database instead, so the same test body runs on both backends (issue 16).
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

#include "schema/sqlite.hpp"
#include "schema/store.hpp"

namespace perftriage::testing_support {

inline std::string postgres_test_url() {
  const char* file = std::getenv("PERFTRIAGE_TEST_PG");
  if (!file || !*file) return {};
  std::ifstream in(file);
  std::string url;
  std::getline(in, url);
  return url;
}

inline bool on_postgres() { return !postgres_test_url().empty(); }

// ":memory:", or the URL of a new, empty schema on the test server (search_path set to it by the URL).
inline std::string fresh_test_db() {
  const std::string url = postgres_test_url();
  if (url.empty()) return ":memory:";
  static std::atomic<int> counter{0};
  const std::string name = "t" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  auto admin = schema::Database::open(url);
  if (!admin) return "postgresql://invalid-test-server/" + admin.error().message;
  (void)admin->exec("DROP SCHEMA IF EXISTS " + name + " CASCADE; CREATE SCHEMA " + name);
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + name;
}

inline Result<schema::Store> open_test_store() { return schema::Store::open(fresh_test_db()); }

// The database of a test that opens it more than once (an AppContext, a CLI run): the file `path` on SQLite, a new
// schema's URL on PostgreSQL.
inline std::string test_db_file(const std::string& path) { return on_postgres() ? fresh_test_db() : path; }

}  // namespace perftriage::testing_support
