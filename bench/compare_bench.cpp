// Compare/history benchmark.
//   1. compare of two full generated nightlies (~12k rows each) in an on-disk database: load both runs (SQL),
//      per-case comparison + aggregates, the JSON body; target < 30 ms for the whole use case, cold (the first
//      iteration, printed beside the median). --dump PATH writes the first body, to diff it across changes.
//      Then one compare of a third nightly, a pair never compared before, in the now warm process: what the
//      server does for a compare its response cache does not hold (the first iteration also pays the process's
//      first touch of ~30 MB of heap, which a running server has paid long before).
//   2. with --history-db PATH (built by scripts/gen_history_db.sh, >= 10M rows): one case's history across
//      the platform's 1,000 runs (SQL) + change detection; target < 20 ms.
// The heap is kept as `perftriage serve` keeps it (common/heap_tuning.hpp) unless --glibc-heap is given.
// Numbers are the first (cold) run, the min and the median of repeated runs, printed; nothing here asserts a time.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <sys/resource.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/change_detection.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "bench/nightly.hpp"
#include "common/heap_tuning.hpp"
#include "schema/history_store.hpp"
#include "server/app/ingest_service.hpp"

namespace fs = std::filesystem;
using namespace perftriage;
using Clock = std::chrono::steady_clock;
namespace cmp = analyzers::compare;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Stats {
  std::vector<double> v;
  void add(double x) { v.push_back(x); }
  [[nodiscard]] double median() const {
    auto s = v;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
  [[nodiscard]] double max() const { return *std::max_element(v.begin(), v.end()); }
  [[nodiscard]] double min() const { return *std::min_element(v.begin(), v.end()); }
};

int compare_nightlies(int iterations, const std::string& dump_path) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("perftriage-compare-bench-{}", getpid());
  fs::create_directories(dir);
  auto store = schema::Store::open((dir / "db.sqlite").string());
  if (!store) return std::cerr << store.error().message << "\n", 1;
  for (auto [key, seed, drift, day] : {std::tuple{"nightly-a", 7u, 1.0, "01"}, std::tuple{"nightly-b", 8u, 0.97, "02"},
                                       std::tuple{"nightly-c", 9u, 0.99, "03"}}) {
    server::UploadMeta meta;
    meta.run = key;
    meta.platform = "BMG";
    meta.created_at = fmt::format("2026-01-{}T00:00:00Z", day);
    auto s = server::ingest_files(*store, meta, bench::make_nightly(200, seed, drift));
    if (!s) return std::cerr << s.error().message << "\n", 1;
  }
  Stats load, compare, render, total;
  std::vector<long> faults;  // minor page faults of each iteration: first-touch heap is most of a first compare's extra
  const auto minor_faults = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  };
  std::size_t rows = 0, cases = 0, bytes = 0;
  for (int i = 0; i <= iterations; ++i) {
    // The last pass compares the third nightly: a pair never compared before, in a warm process.
    const char* target = i == iterations ? "nightly-c" : "nightly-b";
    const long faults_before = minor_faults();
    const auto t0 = Clock::now();
    // As the server does (server/app/comparison.cpp): rows are folded into cases as SQLite returns them.
    cmp::CaseComparer comparer;
    std::size_t read = 0;
    auto runs = schema::stream_comparison(
        store->db(), "previous", target, [&](const model::ResultRecord& r) { comparer.add_base(r), ++read; },
        [&](const model::ResultRecord& r) { comparer.add_target(r), ++read; });
    if (!runs) return std::cerr << runs.error().message << "\n", 1;
    load.add(ms_since(t0));
    const auto t1 = Clock::now();
    const auto list = std::move(comparer).finish();
    const auto agg = cmp::aggregate(list);
    compare.add(ms_since(t1));
    const auto t2 = Clock::now();
    const std::string body = cmp::compare_json_text(runs->base.meta.key, target, {}, list, agg);
    render.add(ms_since(t2));
    total.add(ms_since(t0));
    faults.push_back(minor_faults() - faults_before);
    rows = read;
    cases = list.size();
    bytes = body.size();
    if (i == 0 && !dump_path.empty()) std::ofstream(dump_path, std::ios::binary) << body;
  }
  std::cout << fmt::format("compare of two nightlies: {} rows, {} cases, JSON {} KB, {} iterations\n", rows, cases,
                           bytes / 1024, iterations);
  std::cout << fmt::format("  minor page faults: first {}, second {}, new pair {}\n", faults.front(),
                           faults.size() > 2 ? faults[1] : 0, faults.back());
  const auto line = [](const char* what, Stats s) {
    const double fresh = s.v.back();  // the new pair, warm process
    s.v.pop_back();
    std::cout << fmt::format(
        "  {:<21} first {:7.2f} ms   min {:7.2f} ms   median {:7.2f} ms   max {:7.2f} ms   new pair {:7.2f} ms\n", what,
        s.v.front(), s.min(), s.median(), s.max(), fresh);
  };
  line("load + fold (SQL)", load);
  line("verdicts + aggregates", compare);
  line("JSON text", render);
  line("total", total);
  std::cout << "  (target: total < 30 ms cold. first: the process's first compare; new pair: a compare never made\n"
               "   before, in a process that has made others: what an uncached request costs in a running server)\n";
  fs::remove_all(dir);
  return 0;
}

int history(const std::string& path, int iterations) {
  auto store = schema::Store::open(path);
  if (!store) return std::cerr << store.error().message << "\n", 1;
  auto count =
      schema::Statement::prepare(store->db(), "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM result_rows)");
  if (!count || !*count->step()) return 1;
  std::cout << fmt::format("history database {}: {} runs, {} result rows\n", path, count->int64(0), count->int64(1));
  schema::HistoryQuery q{"BMG", "huggingface", "huggingface_model_000", "bfloat16", "inference", std::string{}};
  Stats sql, detect;
  std::size_t points = 0, changes = 0;
  for (int i = 0; i < iterations; ++i) {
    const auto t0 = Clock::now();
    auto h = schema::case_history(store->db(), q);
    if (!h) return std::cerr << h.error().message << "\n", 1;
    sql.add(ms_since(t0));
    const auto t1 = Clock::now();
    std::vector<std::optional<double>> values;
    for (const auto& p : *h) values.push_back(p.speedup);
    changes = cmp::detect_steps(values).size();
    detect.add(ms_since(t1));
    points = h->size();
  }
  std::cout << fmt::format("one case's history: {} points, {} change point(s), {} iterations\n", points, changes,
                           iterations);
  std::cout << fmt::format("  history (SQL)         median {:7.2f} ms   max {:7.2f} ms   (target < 20 ms)\n",
                           sql.median(), sql.max());
  std::cout << fmt::format("  change detection      median {:7.2f} ms   max {:7.2f} ms\n", detect.median(),
                           detect.max());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string history_db, dump_path;
  int iterations = 15;
  bool server_heap = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--glibc-heap") server_heap = false;
    if (!value) continue;
    if (arg == "--history-db") history_db = value;
    if (arg == "--dump") dump_path = value;
    if (arg == "--iterations") iterations = std::max(1, std::atoi(value));
  }
  // As `perftriage serve` runs (common/heap_tuning.hpp); --glibc-heap keeps glibc's defaults, to see the difference.
  const bool kept = server_heap && keep_freed_heap();
  std::cout << (kept ? "heap: freed memory kept, as perftriage serve does\n" : "heap: glibc's defaults\n");
  if (int rc = compare_nightlies(iterations, dump_path)) return rc;
  if (!history_db.empty()) return history(history_db, iterations + 6);
  std::cout << "(history benchmark skipped: build its database with scripts/gen_history_db.sh)\n";
  return 0;
}
