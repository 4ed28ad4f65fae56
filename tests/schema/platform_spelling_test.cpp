// Platform keys are case-insensitive: one platform, stored in the spelling of its first run, found in any spelling by
// every lookup; migration 009 unifies the spellings a database written before holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "schema/artifact_store.hpp"
#include "schema/backlog_store.hpp"
#include "schema/blob_codec.hpp"
#include "schema/dashboard_queries.hpp"
#include "schema/history_store.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};

ingest::ResultRow perf_row(std::string model, double speedup) {
  ingest::ResultRow r;
  r.line = 2;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 8;
  r.speedup = speedup;
  r.speedup_text = std::to_string(speedup);
  r.abs_latency_ms = 10;
  return r;
}

class PlatformSpelling : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  Database& db() { return store_->db(); }

  // A run of `platform` with one slow performance row, stored as an upload stores it (backlog included).
  std::int64_t ingest(const std::string& key, const std::string& platform, const std::string& created) {
    auto tx = Transaction::begin(db());
    EXPECT_TRUE(tx);
    auto run = ensure_run(db(), {key, platform, "xpu", "2.12", "", created, {}, "{}"});
    EXPECT_TRUE(run) << run.error().message;
    if (!run) return 0;
    NewFile f{key + ".csv", "performance", kPerf, key, sha256_hex(key), "dev,name", 1, 0, ""};
    auto file = insert_file(db(), *run, f);
    EXPECT_TRUE(file);
    EXPECT_TRUE(insert_results(db(), *run, *file, kPerf, {perf_row("Bert", 0.5)}, {model::RowFlags{}}));
    EXPECT_TRUE(update_backlog(db(), *run, {*file}));
    EXPECT_TRUE(tx->commit());
    return *run;
  }

  std::optional<Store> store_;
};

TEST_F(PlatformSpelling, TheFirstRunsSpellingIsStoredForEveryLaterRun) {
  ingest("a", "A100", "2026-01-01T00:00:00Z");
  ingest("b", "a100", "2026-01-02T00:00:00Z");
  ingest("c", "pvc", "2026-01-03T00:00:00Z");
  auto b = find_run(db(), "b");
  ASSERT_TRUE(b && *b);
  EXPECT_EQ((*b)->meta.platform, "A100");
  auto platforms = dashboard::platforms(db());
  ASSERT_TRUE(platforms);
  EXPECT_EQ(*platforms, (std::vector<std::string>{"A100", "pvc"}));
}

TEST_F(PlatformSpelling, EveryLookupTakesAnySpelling) {
  ingest("a", "A100", "2026-01-01T00:00:00Z");
  ingest("b", "a100", "2026-01-02T00:00:00Z");
  ingest("p", "PVC", "2026-01-03T00:00:00Z");
  for (const std::string spelling : {"A100", "a100"}) {
    SCOPED_TRACE(spelling);
    EXPECT_EQ(stored_platform(db(), spelling).value(), "A100");
    auto runs = list_runs(db(), spelling);
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 2u);
    EXPECT_EQ(runs->front().meta.key, "b");
    auto latest = latest_run(db(), spelling);
    ASSERT_TRUE(latest && *latest);
    EXPECT_EQ((*latest)->meta.key, "b");
    auto briefs = dashboard::list_runs(db(), spelling, 0);
    ASSERT_TRUE(briefs);
    EXPECT_EQ(briefs->size(), 2u);
    EXPECT_EQ(count_platform_runs(db(), spelling).value(), 2);
    auto backlog = read_backlog(db(), spelling);
    ASSERT_TRUE(backlog);
    ASSERT_EQ(backlog->size(), 1u);  // one case, slow in both runs: one platform
    EXPECT_EQ(backlog->front().runs_slow, 2);
    auto history = case_history(db(), {spelling, "huggingface", "Bert", "", "", std::nullopt});
    ASSERT_TRUE(history);
    EXPECT_EQ(history->size(), 2u);
    auto recomputed = backlog_rows(db(), spelling, 1.0);
    ASSERT_TRUE(recomputed);
    EXPECT_EQ(recomputed->runs.size(), 2u);
    auto latest_case = latest_case_measurement(db(), {"huggingface", "bfloat16", "inference", "Bert", ""}, spelling);
    ASSERT_TRUE(latest_case && *latest_case);
    EXPECT_EQ((*latest_case)->run_key, "b");
    EXPECT_TRUE(model_artifact_findings(db(), spelling, "huggingface", "Bert").value().empty());
  }
  EXPECT_EQ(stored_platform(db(), "H100").value(), "H100");  // unknown: as given
  EXPECT_TRUE(list_runs(db(), "h100").value().empty());
}

TEST_F(PlatformSpelling, AShardOfARunMayNameItsPlatformInAnotherSpelling) {
  ingest("a", "BMG", "2026-01-01T00:00:00Z");
  auto again = ensure_run(db(), {"a", "bmg", "", "", "", "", {"shard2"}, "{}"});
  ASSERT_TRUE(again) << again.error().message;
  auto clash = ensure_run(db(), {"a", "PVC", "", "", "", "", {}, "{}"});
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, "run_platform_mismatch");
}

TEST(PlatformSpellingMigration, RunsTakeTheFirstSpellingAndTheBacklogIsReplayed) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("perftriage-platform-migration-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  {
    auto db = Database::open(path.string());
    ASSERT_TRUE(db) << db.error().message;
    for (const auto& m : kMigrations) {
      if (m.version >= 9) break;
      ASSERT_TRUE(db->exec(m.sql)) << m.name;
    }
    ASSERT_TRUE(db->exec("PRAGMA user_version = 8"));
    // Two spellings of one platform, each with its own backlog row, as a database written before held them.
    ASSERT_TRUE(db->exec(
        "INSERT INTO runs(id, key, platform, created_at) VALUES(1, 'r1', 'a100', '2026-01-01T00:00:00Z'),"
        " (2, 'r2', 'A100', '2026-01-02T00:00:00Z'), (3, 'r3', 'PVC', '2026-01-03T00:00:00Z');"
        "INSERT INTO result_files(id, run_id, path, format, suite, dtype, mode, kind, sha256, size, raw_deflate,"
        " uploaded_at) VALUES(1, 1, 'a.csv', 'performance', 'huggingface', 'bfloat16', 'inference', 'performance',"
        " 'x', 1, x'00', '2026-01-01T00:00:00Z'), (2, 2, 'a.csv', 'performance', 'huggingface', 'bfloat16',"
        " 'inference', 'performance', 'y', 1, x'00', '2026-01-02T00:00:00Z');"
        "INSERT INTO results(run_id, file_id, suite, dtype, mode, kind, model, line, batch_size, speedup,"
        " speedup_text, abs_latency_ms, failed) VALUES"
        " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'Bert', 2, 8, 0.5, '0.5', 10, 0),"
        " (2, 2, 'huggingface', 'bfloat16', 'inference', 'performance', 'Bert', 2, 8, 0.6, '0.6', 10, 0);"
        "INSERT INTO backlog VALUES('a100', 'huggingface', 'bfloat16', 'inference', '', 'Bert', 1, 'o1', 1, 'o1',"
        " NULL, NULL, 1, 'o1', 0.5, '0.5', 0, 0.5, 1),"
        " ('A100', 'huggingface', 'bfloat16', 'inference', '', 'Bert', 2, 'o2', 2, 'o2', NULL, NULL, 2, 'o2', 0.6,"
        " '0.6', 0, 0.6, 1);"));
  }
  {
    auto s = Store::open(path.string());  // migrates to the latest version, then replays the backlog
    ASSERT_TRUE(s) << s.error().message;
    auto platforms = dashboard::platforms(s->db());
    ASSERT_TRUE(platforms);
    EXPECT_EQ(*platforms, (std::vector<std::string>{"PVC", "a100"}));  // run 1 came first
    auto runs = list_runs(s->db(), "A100");
    ASSERT_TRUE(runs);
    EXPECT_EQ(runs->size(), 2u);
    auto backlog = read_backlog(s->db(), "A100");
    ASSERT_TRUE(backlog);
    ASSERT_EQ(backlog->size(), 1u);
    EXPECT_EQ(backlog->front().runs_slow, 2);
    EXPECT_EQ(backlog->front().first_seen, "r1");
    EXPECT_EQ(backlog->front().latest_run, "r2");
  }
  std::filesystem::remove(path);
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
}  // namespace perftriage::schema
