// Ingest benchmark: a generated full nightly (60 files, ~12k rows).
//   1. parse alone (MB/s, rows/s)
//   2. parse + insert into a fresh on-disk SQLite database, one transaction (rows/s)
//   3. sqlite3's own `.import --csv` of the same rows, same machine, same run (rows/s)
//   4. the whole nightly as one tar.gz over HTTP to the real server (ms)
//   5. a 1M-row CSV (the nightly's performance rows, 1M models) through the CLI, `perftriage ingest` as a
//      subprocess into a fresh database, against `sqlite3 .import --csv` of the same file into a table with the same
//      columns (median of 3 each)
// Targets (2-core machine): parse >= 200 MB/s; (2) within 2x of (3); (4) < 300 ms; (5) <= 2.0x, goal <= 1.0x.
//   ingest_bench [--big-rows N]      (N rows for 5, default 1,000,000; 0 skips it)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "bench/nightly.hpp"
#include "common/strings.hpp"
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

// One performance CSV of `rows` rows in the nightly's format (its header, one model a row), in the layout the CLI
// reads the axes from: dir/huggingface/bfloat16/inference/performance/...csv. Returns the file's path.
fs::path write_big_csv(const fs::path& dir, std::size_t rows) {
  const auto sample = bench::make_nightly(1);
  const std::string& perf = sample.front().bytes;  // huggingface float32 inference performance: its header
  const fs::path path = dir / "huggingface/bfloat16/inference/performance" /
                        "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv";
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << perf.substr(0, perf.find('\n') + 1);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> speed(0.55, 2.6), lat(1.0, 400.0), comp(5.0, 200.0);
  std::uniform_int_distribution<int> calls(50, 2000);
  std::string chunk;
  for (std::size_t i = 0; i < rows; ++i) {
    chunk += fmt::format("xpu,model_{:07d},{},{:.6f},{:.6f},{:.6f},0.000000,0,0,{},1,0,0,0,0,0\n", i, 1 << (i % 8),
                         speed(rng), lat(rng), comp(rng), calls(rng));
    if (chunk.size() > (1u << 20)) {
      out << chunk;
      chunk.clear();
    }
  }
  out << chunk;
  return path;
}

// Wall time of a shell command, or a negative number when it fails.
double time_command(const std::string& cmd) {
  const auto t0 = Clock::now();
  const int rc = std::system(cmd.c_str());
  return rc == 0 ? ms_since(t0) : -1;
}

// 5. `perftriage ingest` of a big CSV vs `sqlite3 .import` of the same file into a table with the same columns.
bool cli_ratio(const fs::path& dir, std::size_t rows) {
  const fs::path tree = dir / "big";
  const fs::path csv = write_big_csv(tree, rows);
  const fs::path db = dir / "cli.sqlite", imported = dir / "import.sqlite";
  std::string columns;  // the CSV's own header: dev, name TEXT; the numbers NUMERIC, as the values are
  {
    std::ifstream in(csv);
    std::string header;
    std::getline(in, header);
    for (const auto& name : split(header, ',', EmptyParts::keep))
      columns += fmt::format("{}{} {}", columns.empty() ? "" : ", ", name,
                             name == "dev" || name == "name" ? "TEXT" : "NUMERIC");
  }
  std::vector<double> cli_ms, import_ms;
  for (int i = 0; i < 3; ++i) {
    for (const auto& f : {db, imported})
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(f.string() + suffix);
    cli_ms.push_back(time_command(fmt::format("'{}' ingest --db '{}' --platform BMG --run big '{}' >/dev/null",
                                              PERFTRIAGE_BINARY, db.string(), tree.string())));
    import_ms.push_back(
        time_command(fmt::format("sqlite3 '{}' -cmd 'PRAGMA journal_mode=WAL' -cmd 'PRAGMA synchronous=NORMAL' "
                                 "'CREATE TABLE perf({})' '.import --csv --skip 1 {} perf' >/dev/null",
                                 imported.string(), columns, csv.string())));
    if (cli_ms.back() < 0 || import_ms.back() < 0) {
      fmt::print("{} failed\n", cli_ms.back() < 0 ? "perftriage ingest" : "sqlite3 .import");
      return false;
    }
  }
  const double cli = median(cli_ms), imp = median(import_ms);
  fmt::print(
      "{}-row CSV ({:.0f} MB): perftriage ingest (CLI) {:.0f} ms, sqlite3 .import {:.0f} ms: {:.2f}x  "
      "(target <= 2.0x, goal <= 1.0x)\n",
      rows, fs::file_size(csv) / 1e6, cli, imp, cli / imp);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const auto nightly = bench::make_nightly();
  std::size_t big_rows = 1000000;  // --big-rows N: the CLI ratio's file (0 = skip it)
  if (argc > 2 && std::string_view(argv[1]) == "--big-rows") big_rows = std::strtoull(argv[2], nullptr, 10);
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
  // 5. the CLI on a 1M-row file
  const bool big_ok = big_rows == 0 || cli_ratio(dir, big_rows);
  fs::remove_all(dir);
  return big_ok ? 0 : 1;
}
