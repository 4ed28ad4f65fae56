// Store v2 (migration 010): a database made by the schema before it is carried forward (cases, result_rows, blobs in
// side tables, run summaries), the summaries equal the counts from the rows, and GET /runs pages by cursor.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "schema/artifact_store.hpp"
#include "schema/blob_codec.hpp"
#include "schema/dashboard_queries.hpp"
#include "schema/history_store.hpp"
#include "schema/migrate.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/retention_store.hpp"
#include "schema/run_delete.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};
const ingest::Axes kAcc{"huggingface", "bfloat16", "inference", "accuracy", "xpu", ""};

std::int64_t count(Database& db, const std::string& sql) {
  auto st = Statement::prepare(db, sql);
  EXPECT_TRUE(st) << sql;
  auto n = scalar(*st);
  EXPECT_TRUE(n) << sql;
  return n ? *n : -1;
}

ingest::ResultRow row(std::string model, std::optional<double> speedup, std::string accuracy = "") {
  ingest::ResultRow r;
  r.line = 2;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 8;
  r.speedup = speedup;
  r.speedup_text = speedup ? std::to_string(*speedup) : "";
  r.abs_latency_ms = speedup ? std::optional<double>(10) : std::nullopt;
  r.accuracy = std::move(accuracy);
  return r;
}

// A version-9 database holding what the schema before store v2 stored: two runs, a live and a superseded file, rows
// of both kinds, a file whose raw bytes retention dropped, and an artifact.
void make_v9_database(const std::string& path, const std::string& raw) {
  auto db = Database::open(path);
  ASSERT_TRUE(db) << db.error().message;
  for (const auto& m : kMigrations) {
    if (m.version >= 10) break;
    ASSERT_TRUE(db->exec(m.sql)) << m.name;
  }
  ASSERT_TRUE(db->exec("PRAGMA user_version = 9"));
  auto file = Statement::prepare(*db,
                                 "INSERT INTO result_files(id, run_id, path, format, suite, dtype, mode, kind, sha256,"
                                 " size, raw_deflate, uploaded_at) VALUES($1, $2, $3, $4, 'huggingface', 'bfloat16',"
                                 " 'inference', $4, 'x', $5, $6, '2026-01-01T00:00:00Z')");
  ASSERT_TRUE(file);
  ASSERT_TRUE(
      db->exec("INSERT INTO runs(id, key, platform, created_at) VALUES(1, 'r1', 'A100', '2026-01-01T00:00:00Z'),"
               " (2, 'r2', 'A100', '2026-01-02T00:00:00Z')"));
  const std::string deflated = deflate_bytes(raw);
  struct F {
    int id, run;
    const char* path;
    const char* kind;
    bool raw;
  };
  for (const F& f : {F{1, 1, "p.csv", "performance", true}, F{2, 1, "a.csv", "accuracy", false},
                     F{3, 2, "p.csv", "performance", true}}) {
    file->reset();
    file->bind(1, f.id).bind(2, f.run).bind(3, f.path).bind(4, f.kind).bind(5, static_cast<std::int64_t>(raw.size()));
    file->bind_blob(6, std::string_view(deflated.data(), f.raw ? deflated.size() : 0));
    ASSERT_TRUE(file->run());
  }
  ASSERT_TRUE(db->exec(
      "INSERT INTO results(run_id, file_id, suite, dtype, mode, kind, model, line, batch_size, speedup, speedup_text,"
      " abs_latency_ms, eager_latency_ms, failed, accuracy, accuracy_failed, unreliable) VALUES"
      " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'Bert', 2, 8, 0.5, '0.500000', 10, 5, 0, '', 0,"
      "  1),"
      " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'T5', 3, 8, 1.5, '1.500000', 4, 6, 0, '', 0, 0),"
      " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'Gone', 4, 0, 0, '0.000000', 0, NULL, 1, '', 0,"
      "  0),"
      " (1, 2, 'huggingface', 'bfloat16', 'inference', 'accuracy', 'Bert', 2, 8, NULL, '', NULL, NULL, 0,"
      "  'fail_accuracy', 1, 0),"
      " (2, 3, 'huggingface', 'bfloat16', 'inference', 'performance', 'Bert', 2, 8, 0.8, '0.800000', 10, 8, 0, '', 0,"
      "  0);"
      "INSERT INTO artifacts(id, run_id, suite, dtype, mode, model, name, kind, sha256, size, compression, raw,"
      " findings, created_at) VALUES(1, 1, 'huggingface', 'bfloat16', 'inference', 'Bert', 't.json', 'kineto', 's',"
      " 5, 'gzip', x'1f8b0001', '{\"findings\":[]}', '2026-01-01T00:00:00Z')"));
}

TEST(StoreV2, MigrationCarriesADatabaseMadeByTheSchemaBefore) {
  const auto path = std::filesystem::temp_directory_path() / ("perftriage-v2-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  const std::string raw = "dev,name,batch_size,speedup\nxpu,Bert,8,0.5\n";
  make_v9_database(path.string(), raw);
  {
    auto s = Store::open(path.string());
    ASSERT_TRUE(s) << s.error().message;
    auto& db = s->db();
    EXPECT_EQ(count(db, "PRAGMA user_version"), latest_schema_version());
    EXPECT_EQ(count(db, "SELECT count(*) FROM cases"), 4);  // Bert, T5, Gone (performance), Bert (accuracy)
    EXPECT_EQ(count(db, "SELECT count(*) FROM result_rows"), 5);
    // The view reads as the table did, eager latency computed from speedup x compiled latency.
    auto rows = results(db, ResultFilter{{1}, "", "", "", "performance", "", ""});
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 3u);
    EXPECT_EQ((*rows)[0].model, "Bert");
    EXPECT_TRUE((*rows)[0].unreliable);
    EXPECT_DOUBLE_EQ(*(*rows)[0].eager_latency_ms, 5.0);
    EXPECT_DOUBLE_EQ(*(*rows)[1].eager_latency_ms, 6.0);
    EXPECT_FALSE((*rows)[2].eager_latency_ms.has_value());  // failed: no eager latency, as ingest stores it
    // Raw bytes moved beside the files; a dropped one stays dropped.
    auto back = file_bytes(db, 1);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, raw);
    auto dropped = file_bytes(db, 2);
    ASSERT_FALSE(dropped);
    EXPECT_EQ(dropped.error().code, "raw_dropped");
    EXPECT_EQ(count(db, "SELECT count(*) FROM result_files WHERE raw_kept = 1"), 2);
    // The artifact's bytes too.
    auto art = artifact_bytes(db, 1);
    ASSERT_TRUE(art) << art.error().message;
    ASSERT_TRUE(art->has_value());
    EXPECT_EQ(art->value(), std::string("\x1f\x8b\x00\x01", 4));
    // Summaries were counted from the rows: run 1 has 4 rows, one slow (Bert 0.5), one failed, one accuracy fail.
    auto counts = run_counts(db, 1, 1.0);
    ASSERT_TRUE(counts);
    EXPECT_EQ(counts->rows, 4);
    EXPECT_EQ(counts->slow, 1);
    EXPECT_EQ(counts->failed, 1);
    EXPECT_EQ(counts->accuracy_failed, 1);
    EXPECT_EQ(counts->unreliable, 1);
    EXPECT_EQ(counts->files, 2);  // both files of run 1 are live
    // A case's history on its platform, through cases -> runs -> result_rows.
    auto history = case_history(db, HistoryQuery{"a100", "huggingface", "Bert", "bfloat16", "inference", {}});
    ASSERT_TRUE(history) << history.error().message;
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].accuracy, "fail_accuracy");
    EXPECT_DOUBLE_EQ(*(*history)[1].speedup, 0.8);
  }
  std::filesystem::remove(path);
  for (const char* suffix : {"-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

class StoreV2Store : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  Database& db() { return store_->db(); }

  // One upload as ingest stores it: rows through ResultWriter, then the run's flags and summaries.
  std::int64_t upload(const std::string& key, const std::string& platform, const std::string& created,
                      const std::vector<ingest::ResultRow>& perf, const std::vector<ingest::ResultRow>& acc) {
    auto tx = Transaction::begin(db());
    EXPECT_TRUE(tx);
    auto run = ensure_run(db(), {key, platform, "xpu", "2.12", "", created, {}, "{}"});
    EXPECT_TRUE(run) << run.error().message;
    for (const auto& [axes, rows] : {std::pair{kPerf, perf}, std::pair{kAcc, acc}}) {
      if (rows.empty()) continue;
      NewFile f{axes.kind + ".csv", axes.kind, axes, "bytes", sha256_hex(key + axes.kind), "dev,name", 1, 0, ""};
      auto file = insert_file(db(), *run, f);
      EXPECT_TRUE(file) << file.error().message;
      auto writer = ResultWriter::open(db(), *run, *file, axes);
      EXPECT_TRUE(writer);
      for (const auto& r : rows) {
        model::RowFlags flags;
        flags.failed = r.speedup && *r.speedup == 0;
        flags.accuracy_failed = !r.accuracy.empty() && r.accuracy != "pass";
        EXPECT_TRUE(writer->add(r, flags));
      }
      EXPECT_TRUE(writer->finish());
    }
    EXPECT_TRUE(refresh_run_flags(db(), *run));
    EXPECT_TRUE(tx->commit());
    return *run;
  }

  std::optional<Store> store_;
};

TEST_F(StoreV2Store, StoredSummariesEqualTheCountsFromTheRows) {
  const auto run = upload("r1", "A100", "2026-01-01T00:00:00Z",
                          {row("Bert", 0.5), row("T5", 1.5), row("Gone", 0.0), row("Opt", 0.97)},
                          {row("Bert", std::nullopt, "fail_accuracy"), row("T5", std::nullopt, "pass")});
  // Just above 1.0 the counts come from the rows (no row sits between 1.0 and it); at 1.0 from the summaries.
  auto stored = run_counts(db(), run, 1.0);
  auto live = run_counts(db(), run, std::nextafter(1.0, 2.0));
  ASSERT_TRUE(stored && live);
  EXPECT_EQ(stored->rows, 6);
  EXPECT_EQ(stored->slow, 2);
  EXPECT_EQ(stored->unreliable, 1);  // Bert: slow, and failing accuracy in the same run
  for (auto field : {&model::RunCounts::files, &model::RunCounts::rows, &model::RunCounts::slow,
                     &model::RunCounts::failed, &model::RunCounts::accuracy_failed, &model::RunCounts::unreliable,
                     &model::RunCounts::deviates, &model::RunCounts::invalid}) {
    EXPECT_EQ((*stored).*field, (*live).*field);
  }
  auto groups = dashboard::run_group_stats(db(), run, 1.0);
  auto groups_live = dashboard::run_group_stats(db(), run, std::nextafter(1.0, 2.0));
  ASSERT_TRUE(groups && groups_live);
  ASSERT_EQ(groups->size(), 2u);
  ASSERT_EQ(groups->size(), groups_live->size());
  for (std::size_t i = 0; i < groups->size(); ++i) {
    EXPECT_EQ((*groups)[i].kind, (*groups_live)[i].kind);
    EXPECT_EQ((*groups)[i].measured, (*groups_live)[i].measured);
    EXPECT_EQ((*groups)[i].slow, (*groups_live)[i].slow);
    EXPECT_DOUBLE_EQ((*groups)[i].log_sum, (*groups_live)[i].log_sum);
    EXPECT_DOUBLE_EQ((*groups)[i].log_sum_clipped, (*groups_live)[i].log_sum_clipped);
  }
  // The same case in a second run reuses its case id: cases grow with what is measured, not with runs.
  const auto cases = count(db(), "SELECT count(*) FROM cases");
  upload("r2", "A100", "2026-01-02T00:00:00Z", {row("Bert", 0.6), row("T5", 1.4)}, {});
  EXPECT_EQ(count(db(), "SELECT count(*) FROM cases"), cases);
  // Deleting a run takes its rows, summaries and blobs with it.
  const auto deleted = delete_run(db(), "r1", "test");
  ASSERT_TRUE(deleted) << deleted.error().message;
  EXPECT_EQ(count(db(), "SELECT count(*) FROM result_rows WHERE run_id = " + std::to_string(run)), 0);
  EXPECT_EQ(count(db(), "SELECT count(*) FROM run_groups WHERE run_id = " + std::to_string(run)), 0);
  EXPECT_EQ(count(db(), "SELECT count(*) FROM file_blobs"), 1);
}

TEST_F(StoreV2Store, RunsArePagedNewestFirstByCursor) {
  for (int i = 0; i < 5; ++i) {
    upload("a" + std::to_string(i), "A100", "2026-01-0" + std::to_string(i + 1) + "T00:00:00Z", {row("Bert", 0.5)}, {});
  }
  upload("p0", "PVC", "2026-01-03T12:00:00Z", {row("Bert", 0.5)}, {});
  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  do {
    auto page = list_runs_page(db(), "a100", 2, cursor);  // any spelling of the platform
    ASSERT_TRUE(page) << page.error().message;
    for (const auto& r : page->runs) seen.push_back(r.meta.key);
    cursor = page->next_cursor;
    ++pages;
  } while (!cursor.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"a4", "a3", "a2", "a1", "a0"}));
  auto all = list_runs_page(db(), "", 3, "");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->runs.size(), 3u);
  EXPECT_EQ(all->runs[2].meta.key, "p0");  // across platforms by time
  // A run stored after a page was read does not shift the next page.
  upload("a9", "A100", "2026-02-01T00:00:00Z", {row("Bert", 0.5)}, {});
  auto next = list_runs_page(db(), "", 3, all->next_cursor);
  ASSERT_TRUE(next);
  ASSERT_FALSE(next->runs.empty());
  EXPECT_EQ(next->runs.front().meta.key, "a2");
  for (const std::string bad : {"garbage", "2026-01-01~", "~12", "2026~12x"}) {
    auto refused = list_runs_page(db(), "", 3, bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().code, "invalid_cursor");
    EXPECT_EQ(refused.error().column, "cursor");
  }
}

TEST_F(StoreV2Store, RetentionDropsTheBlobAndTheFileLeavesTheIndex) {
  upload("r1", "A100", "2026-01-01T00:00:00Z", {row("Bert", 0.5)}, {});
  auto dropped = drop_raw_files(db(), "9999-01-01T00:00:00Z", 10);
  ASSERT_TRUE(dropped) << dropped.error().message;
  EXPECT_EQ(dropped->files, 1);
  EXPECT_EQ(count(db(), "SELECT count(*) FROM file_blobs"), 0);
  auto again = drop_raw_files(db(), "9999-01-01T00:00:00Z", 10);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->files, 0);
  auto files = run_files(db(), 1);
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 1u);
  EXPECT_TRUE(files->front().raw_dropped);
}

}  // namespace
}  // namespace perftriage::schema
