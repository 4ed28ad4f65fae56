// Builds a history database for the benchmarks through the real ingest path (server::ingest_files: parse, judge,
// store with the raw files, flags, summaries, backlog), so that what the benchmarks read is what the service writes.
// PLATFORMS platforms (default 1) x RUNS nightlies each (default 1,000), one nightly a day per platform, each a full
// nightly of 3 suites x 5 dtypes x 2 modes x 2 kinds x MODELS models (default 170: 10,200 rows a run). Models keep a
// stable level from night to night with 1% noise (bench/nightly.hpp, stable), so a history looks like one. Prints the
// generation + ingest time, rows per second and the database's size.
//   gen_history_db --db /tmp/history.sqlite [--runs 1000] [--models 170] [--platforms 1]
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "bench/nightly.hpp"
#include "server/app/ingest_service.hpp"

namespace {

using namespace perftriage;

constexpr const char* kPlatforms[] = {"BMG", "A100", "PVC", "H100", "MI300X", "LNL", "ARC-A770", "L40S", "B580", "SPR"};

std::string iso_day(int day, int platform) {
  std::time_t t = 1704067200 + static_cast<std::time_t>(day) * 86400 + platform * 60;  // 2024-01-01, one a day
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

std::uintmax_t db_bytes(const std::string& path) {
  std::uintmax_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path + suffix, ec);
    if (!ec) total += n;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 1000, models = 170, platforms = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--db") path = argv[i + 1];
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
    if (a == "--models") models = std::atoi(argv[i + 1]);
    if (a == "--platforms") platforms = std::atoi(argv[i + 1]);
  }
  if (path.empty() || runs <= 0 || models <= 0 || platforms <= 0 || platforms > 10) {
    std::cerr << "usage: gen_history_db --db PATH [--runs 1000] [--models 170] [--platforms 1..10]\n";
    return 2;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  auto store = schema::Store::open(path);
  if (!store) return fail(store.error());
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t rows = 0;
  for (int day = 0; day < runs; ++day) {
    for (int p = 0; p < platforms; ++p) {
      server::UploadMeta meta;
      meta.platform = kPlatforms[p];
      meta.run = fmt::format("{}-nightly-{:04d}", meta.platform, day);
      meta.device = "xpu";
      meta.torch_version = "2.13.0.dev+xpu";
      meta.created_at = iso_day(day, p);
      meta.tags = {"nightly"};
      if (day % 100 == 0) meta.tags.push_back(fmt::format("release-{}", day / 100));
      auto files = bench::make_nightly(models, static_cast<unsigned>(day * 16 + p), 1.0, /*stable=*/true);
      auto summary = server::ingest_files(*store, meta, std::move(files));
      if (!summary) return fail(summary.error());
      for (const auto& f : summary->files) rows += f.rows;
    }
    if ((day + 1) % 50 == 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cout << fmt::format("{} nightlies, {} rows, {:.1f} s\n", (day + 1) * platforms, rows, s) << std::flush;
    }
  }
  if (auto r = store->db().exec("PRAGMA wal_checkpoint(TRUNCATE)"); !r) return fail(r.error());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto bytes = db_bytes(path);
  std::cout << fmt::format(
      "done: {} runs, {} rows in {:.1f} s ({:.0f} rows/s) -> {}: {:.1f} MB, {:.1f} bytes a row (raw files included)\n",
      runs * platforms, rows, s, static_cast<double>(rows) / s, path, static_cast<double>(bytes) / 1e6,
      rows > 0 ? static_cast<double>(bytes) / static_cast<double>(rows) : 0.0);
  return 0;
}
