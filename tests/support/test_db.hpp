#pragma once
// The database a test's store lives in. By default ":memory:" (SQLite). When PERFTRIAGE_TEST_PG names a file holding
// a PostgreSQL URL (tools/pg_test_server.sh writes one; CTest's `pg:` tests set it), each call gives a schema of
// its own in that database instead, so the same test body runs on both backends.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

#include "schema/database.hpp"
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

// A new, empty database on the test server, named by a URL with no shell metacharacters (the end-to-end tests pass
// `--db` through a shell): the socket directory of the server's `host=` parameter percent-encoded as the URL's host,
// as libpq reads it (postgresql://perftriage@%2Ftmp%2Fperftriage-pg.X/e123_4).
inline std::string fresh_test_database() {
  const std::string url = postgres_test_url();
  const auto at = url.find("host=");
  if (at == std::string::npos) return "postgresql://invalid-test-server/no-host-in-" + url;
  const std::string host = url.substr(at + 5, url.find('&', at) - (at + 5));
  std::string encoded;
  for (const char c : host) encoded += c == '/' ? std::string("%2F") : std::string(1, c);
  static std::atomic<int> counter{0};
  const std::string name = "e" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  auto admin = schema::Database::open(url);
  if (!admin) return "postgresql://invalid-test-server/" + name;
  (void)admin->exec("DROP DATABASE IF EXISTS " + name);
  (void)admin->exec("CREATE DATABASE " + name);
  return "postgresql://perftriage@" + encoded + "/" + name;
}

// The database of an end-to-end test (the real binary, often through a shell): the file `path` on SQLite, a new
// database's URL on PostgreSQL.
inline std::string e2e_db(const std::string& path) { return on_postgres() ? fresh_test_database() : path; }

}  // namespace perftriage::testing_support
