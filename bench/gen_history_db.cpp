// Builds a history database for the compare/history benchmark: RUNS runs of one platform (default 1,000), each a
// full nightly of 3 suites x 5 dtypes x 2 modes x 2 kinds x MODELS models (default 170: 10,200 rows a run, 10.2M
// in all), through the real schema (Store::open runs the migrations). One prepared statement, one transaction
// per run, with the results indexes dropped during the load and rebuilt from their own stored SQL at the end
// (a sorted build instead of 10M random index inserts). huggingface_model_000 bfloat16 inference gets a persistent 20%
// step down from the middle run on, so the history has something to detect.
//   gen_history_db --db /tmp/history.sqlite [--runs 1000] [--models 170]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "schema/sqlite.hpp"
#include "schema/backlog_store.hpp"
#include "schema/store.hpp"

namespace {

using namespace perftriage;

constexpr std::string_view kInsertRun =
    "INSERT INTO runs(key, platform, device, torch_version, created_at, tags) VALUES(?1, 'BMG', 'xpu', ?2, ?3, ?4)";
constexpr std::string_view kInsertFile =
    "INSERT INTO result_files(run_id, path, format, suite, dtype, mode, kind, device, sha256, size, raw_deflate, "
    "uploaded_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?3, 'xpu', ?7, 0, x'', ?8)";
constexpr std::string_view kInsertResult =
    "INSERT INTO results(run_id, file_id, suite, dtype, mode, kind, model, line, dev, batch_size, speedup, "
    "speedup_text, abs_latency_ms, eager_latency_ms, compilation_latency_s, accuracy, failed, accuracy_failed) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'xpu', ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

constexpr std::string_view kResultIndexes =
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'results' AND sql IS NOT NULL";

std::string iso_time(int run) {
  std::time_t t = 1704067200 + static_cast<std::time_t>(run) * 86400 / 2;  // 2024-01-01, two runs a day
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int fail(const Error& e) {
  std::cerr << "gen_history_db: " << e.message << " (" << e.code << ")\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 1000, models = 170;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--db") path = argv[i + 1];
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
    if (a == "--models") models = std::atoi(argv[i + 1]);
  }
  if (path.empty() || runs <= 0 || models <= 0) {
    std::cerr << "usage: gen_history_db --db PATH [--runs 1000] [--models 170]\n";
    return 2;
  }
  std::filesystem::remove(path);
  auto store = schema::Store::open(path);
  if (!store) return fail(store.error());
  auto& db = store->db();
  if (auto r = db.exec("PRAGMA synchronous = OFF; PRAGMA cache_size = -1000000"); !r) return fail(r.error());
  std::vector<std::pair<std::string, std::string>> indexes;  // name, sql
  {
    auto st = schema::Statement::prepare(db, kResultIndexes);
    if (!st) return fail(st.error());
    while (true) {
      auto row = st->step();
      if (!row) return fail(row.error());
      if (!*row) break;
      indexes.emplace_back(st->text(0), st->text(1));
    }
  }
  for (const auto& [name, sql] : indexes) {
    if (auto r = db.exec("DROP INDEX " + name); !r) return fail(r.error());
  }
  auto run_st = schema::Statement::prepare(db, kInsertRun);
  auto file_st = schema::Statement::prepare(db, kInsertFile);
  auto row_st = schema::Statement::prepare(db, kInsertResult);
  if (!run_st || !file_st || !row_st)
    return fail(!run_st ? run_st.error() : !file_st ? file_st.error() : row_st.error());

  std::mt19937 rng(11);
  std::uniform_real_distribution<double> speed(0.55, 2.6), lat(1.0, 400.0), comp(5.0, 200.0), noise(-0.01, 0.01);
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t rows = 0;
  for (int run = 0; run < runs; ++run) {
    auto tx = schema::Transaction::begin(db);
    if (!tx) return fail(tx.error());
    run_st->reset();
    run_st->bind(1, fmt::format("bmg-nightly-{:04d}", run)).bind(2, "2.13.0.dev+xpu").bind(3, iso_time(run));
    run_st->bind(4, run % 100 == 0 ? fmt::format(R"(["nightly","release-{}"])", run / 100) : R"(["nightly"])");
    if (auto r = run_st->run(); !r) return fail(r.error());
    const std::int64_t run_id = db.last_insert_rowid();
    for (const char* suite : {"huggingface", "timm_models", "torchbench"}) {
      for (const char* dtype : {"float32", "bfloat16", "float16", "amp_bf16", "amp_fp16"}) {
        for (const char* mode : {"inference", "training"}) {
          for (const char* kind : {"performance", "accuracy"}) {
            file_st->reset();
            file_st->bind(1, run_id)
                .bind(2,
                      fmt::format("{0}/{1}/{2}/{3}/inductor-results-{0}-{1}-{2}-xpu-{3}.csv", suite, dtype, mode, kind))
                .bind(3, kind)
                .bind(4, suite)
                .bind(5, dtype)
                .bind(6, mode)
                .bind(7, fmt::format("{:064x}", run_id))
                .bind(8, iso_time(run));
            if (auto r = file_st->run(); !r) return fail(r.error());
            const std::int64_t file_id = db.last_insert_rowid();
            const bool perf = kind[0] == 'p';
            for (int m = 0; m < models; ++m) {
              // A stable per-model level with 1% nightly noise, so a history looks like a history.
              std::mt19937 level_rng(static_cast<unsigned>(m * 131 + dtype[1] * 7 + mode[0] + suite[0]));
              double s = speed(level_rng) * (1 + noise(rng));
              const bool step = m == 0 && suite[0] == 'h' && dtype == std::string("bfloat16") && mode[0] == 'i';
              if (step && run >= runs / 2) s *= 0.8;
              const double l = lat(level_rng);
              row_st->reset();
              row_st->bind(1, run_id).bind(2, file_id).bind(3, suite).bind(4, dtype).bind(5, mode).bind(6, kind);
              row_st->bind(7, fmt::format("{}_model_{:03d}", suite, m)).bind(8, m + 2).bind(9, 1 << (m % 8));
              if (perf) {
                row_st->bind(10, s).bind(11, fmt::format("{:.6f}", s)).bind(12, l).bind(13, s * l);
                row_st->bind(14, comp(rng)).bind(15, "");
              } else {
                row_st->bind_null(10).bind(11, "").bind_null(12).bind_null(13).bind(14, comp(rng)).bind(15, "pass");
              }
              row_st->bind(16, 0).bind(17, 0);
              if (auto r = row_st->run(); !r) return fail(r.error());
              ++rows;
            }
          }
        }
      }
    }
    if (auto r = tx->commit(); !r) return fail(r.error());
    if ((run + 1) % 100 == 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cout << fmt::format("{} runs, {} rows, {:.1f} s\n", run + 1, rows, s) << std::flush;
    }
  }
  for (const auto& [name, sql] : indexes) {
    std::cout << sql << "\n" << std::flush;
    if (auto r = db.exec(sql); !r) return fail(r.error());
  }
  // Rows went in without the ingest path, so the maintained backlog is replayed once, after the indexes.
  if (auto r = db.exec("INSERT OR IGNORE INTO maintenance(task) VALUES('rebuild_backlog')"); !r) return fail(r.error());
  if (auto r = schema::rebuild_backlog_if_pending(db); !r) return fail(r.error());
  if (auto r = db.exec("ANALYZE; PRAGMA wal_checkpoint(TRUNCATE)"); !r) return fail(r.error());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << fmt::format("done: {} runs, {} rows in {:.1f} s -> {}\n", runs, rows, s, path);
  return 0;
}
