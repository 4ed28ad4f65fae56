// Ingest benchmark: a generated full nightly (60 files, ~12k rows).
//   1. parse alone (MB/s, rows/s)
//   2. parse + insert into a fresh on-disk SQLite database, one transaction (rows/s)
//   3. sqlite3's own `.import --csv` of the same rows, same machine, same run (rows/s)
//   4. the whole nightly as one tar.gz over HTTP to the real server (ms)
// Targets (2-core machine): parse >= 200 MB/s; (2) within 2x of (3); (4) < 300 ms.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/nightly.hpp"
#include "ingest/benchmark_csv.hpp"
#include "server/app/app_context.hpp"
#include "server/http/http_server.hpp"
#include "server/app/ingest_service.hpp"
#include "schema/token_store.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/archive_writer.hpp"
#include "tests/support/server_process.hpp"

namespace fs = std::filesystem;
using namespace perftriage;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The same rows as two plain CSVs (performance, accuracy), one header each, for sqlite3's .import.
void write_import_csvs(const std::vector<ingest::InputFile>& nightly, const fs::path& dir) {
  std::ofstream perf(dir / "perf.csv"), acc(dir / "acc.csv");
  bool perf_header = false, acc_header = false;
  for (const auto& f : nightly) {
    const bool is_perf = f.path.find("performance") != std::string::npos;
    auto& out = is_perf ? perf : acc;
    bool& header_written = is_perf ? perf_header : acc_header;
    const auto body_start = header_written ? f.bytes.find('\n') + 1 : 0;
    out << f.bytes.substr(body_start);
    header_written = true;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto nightly = bench::make_nightly();
  // --import-csv DIR: write the rows sqlite3 .import gets, for profiling it the same way.
  if (argc > 2 && std::string_view(argv[1]) == "--import-csv") {
    write_import_csvs(nightly, argv[2]);
    return 0;
  }
  // --insert-once: one parse + insert into a fresh database and nothing else (for callgrind profiles).
  if (argc > 1 && std::string_view(argv[1]) == "--insert-once") {
    const auto db = fs::temp_directory_path() / fmt::format("perftriage-profile-{}.sqlite", getpid());
    auto store = schema::Store::open(db.string());
    if (!store) return 1;
    server::UploadMeta meta;
    meta.run = "profile";
    meta.platform = "BMG";
    auto summary = server::ingest_files(*store, meta, nightly);
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
    return summary ? 0 : 1;
  }
  std::size_t bytes = 0, rows = 0;
  for (const auto& f : nightly) {
    bytes += f.bytes.size();
    rows += static_cast<std::size_t>(std::count(f.bytes.begin(), f.bytes.end(), '\n')) - 1;
  }
  fmt::print("nightly: {} files, {} rows, {:.2f} MB\n", nightly.size(), rows, bytes / 1e6);

  // 1. parse alone
  {
    const int reps = 50;
    std::size_t parsed_rows = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) {
      for (const auto& f : nightly) {
        auto r = ingest::parse_results_csv(f.bytes, f.path);
        if (!r) {
          fmt::print("parse failed: {}\n", r.error().message);
          return 1;
        }
        parsed_rows += r->rows.size();
      }
    }
    const double s = ms_since(t0) / 1000.0;
    fmt::print("parse alone:        {:8.1f} MB/s  {:10.0f} rows/s   (target >= 200 MB/s)\n", bytes * reps / 1e6 / s,
               parsed_rows / s);
  }

  const fs::path dir = fs::temp_directory_path() / fmt::format("perftriage-bench-{}", getpid());
  fs::create_directories(dir);

  // 2. parse + insert, one transaction, fresh database each time
  std::vector<double> insert_ms;
  for (int i = 0; i < 5; ++i) {
    const auto db = dir / fmt::format("ingest-{}.sqlite", i);
    auto store = schema::Store::open(db.string());
    if (!store) return 1;
    server::UploadMeta meta;
    meta.run = "bench";
    meta.platform = "BMG";
    auto files = nightly;
    const auto t0 = Clock::now();
    auto summary = server::ingest_files(*store, meta, std::move(files));
    insert_ms.push_back(ms_since(t0));
    if (!summary) {
      fmt::print("ingest failed: {} {}\n", summary.error().message, summary.error().file);
      return 1;
    }
  }
  const double ingest_ms = median(insert_ms);
  fmt::print("parse + insert:     {:8.1f} ms    {:10.0f} rows/s\n", ingest_ms, rows / (ingest_ms / 1000));

  // 3. sqlite3 .import of the same rows (performance and accuracy rows, two tables)
  {
    write_import_csvs(nightly, dir);
    std::vector<double> import_ms;
    for (int i = 0; i < 5; ++i) {
      const auto db = dir / fmt::format("import-{}.sqlite", i);
      const std::string cmd = fmt::format(
          "sqlite3 {} -cmd 'PRAGMA journal_mode=WAL' -cmd 'PRAGMA synchronous=NORMAL' '.import --csv {} perf' "
          "'.import --csv {} acc' >/dev/null",
          db.string(), (dir / "perf.csv").string(), (dir / "acc.csv").string());
      const auto t0 = Clock::now();
      if (std::system(cmd.c_str()) != 0) {
        fmt::print("sqlite3 .import failed (is the sqlite3 package installed?)\n");
        return 1;
      }
      import_ms.push_back(ms_since(t0));
    }
    const double imp = median(import_ms);
    fmt::print("sqlite3 .import:    {:8.1f} ms    {:10.0f} rows/s\n", imp, rows / (imp / 1000));
    fmt::print("parse + insert / .import = {:.2f}x  (target <= 2x)\n", ingest_ms / imp);
  }

  // 4. the whole nightly over HTTP (one tar.gz) to the real server, in-process on loopback
  {
    server::Settings settings;
    settings.db_path = (dir / "http.sqlite").string();
    std::string token;  // uploads need a token with scope upload (docs/auth.md)
    {
      auto s = schema::Store::open(settings.db_path);
      if (!s) return 1;
      auto created = schema::create_token(s->db(), "bench", {"upload"}, std::nullopt);
      if (!created) return 1;
      token = created->token;
    }
    server::AppContext app(settings);
    const auto router = server::make_router();
    server::HttpServer http(app, router);
    auto port = http.listen("127.0.0.1", 0);
    if (!port) return 1;
    testing::server_tokens()[*port] = token;  // http_call sends it
    std::thread runner([&] { http.run(2); });
    const std::string body = testing::make_archive(nightly, testing::ArchiveFormat::tar_gz);
    std::vector<double> http_ms;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = Clock::now();
      auto reply = testing::http_call(*port, "POST", fmt::format("/api/v1/uploads?run=http-{}&platform=BMG", i),
                                      "application/gzip", body);
      http_ms.push_back(ms_since(t0));
      if (reply.status != 201) {
        fmt::print("HTTP upload failed: {} {}\n", reply.status, reply.body.substr(0, 300));
        http.stop();
        runner.join();
        return 1;
      }
    }
    http.stop();
    runner.join();
    fmt::print("nightly over HTTP:  {:8.1f} ms  (tar.gz {:.2f} MB; target < 300 ms)\n", median(http_ms),
               body.size() / 1e6);
  }
  fs::remove_all(dir);
  return 0;
}
