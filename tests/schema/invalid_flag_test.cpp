// The `invalid` flag (migration 006) in the store: insert path, filter, counts, and the backfill of
// rows stored before the migration.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "schema/blob_codec.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};

ingest::ResultRow perf_row(std::string model, double speedup, std::int64_t batch, std::int64_t line) {
  ingest::ResultRow r;
  r.line = line;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = batch;
  r.speedup = speedup;
  r.speedup_text = std::to_string(speedup);
  r.abs_latency_ms = 10.0;
  return r;
}

TEST(InvalidFlag, StoredWithoutASpeedupSoNoQueryCountsItSlowOrPassing) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s) << s.error().message;
  auto& store = *s;
  auto run = ensure_run(store.db(), {"r", "BMG", "xpu", "", "", "2026-01-01T00:00:00Z", {}, "{}"});
  ASSERT_TRUE(run);
  NewFile nf{"a.csv", "performance", kPerf, "x", sha256_hex("x"), "dev,name", 2, 0, ""};
  auto file = insert_file(store.db(), *run, nf);
  ASSERT_TRUE(file);
  auto writer = ResultWriter::open(store.db(), *run, *file, kPerf);
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE(writer->add(perf_row("slow", 0.5, 8, 2), model::RowFlags{}));
  ASSERT_TRUE(writer->add(perf_row("neg_batch", 0.5, -8, 3), model::RowFlags{false, false, true}));
  ASSERT_TRUE(writer->finish());
  ASSERT_TRUE(refresh_run_flags(store.db(), *run));  // as ingest ends: flags, then the run's summaries

  ResultFilter filter;
  filter.run_ids = {*run};
  filter.flag = ResultFlag::slow;
  auto slow = results(store.db(), filter);
  ASSERT_TRUE(slow);
  ASSERT_EQ(slow->size(), 1u);
  EXPECT_EQ(slow->front().model, "slow");
  EXPECT_FALSE(slow->front().invalid);

  filter.flag = ResultFlag::invalid;
  auto invalid = results(store.db(), filter);
  ASSERT_TRUE(invalid);
  ASSERT_EQ(invalid->size(), 1u);
  const auto& r = invalid->front();
  EXPECT_EQ(r.model, "neg_batch");
  EXPECT_TRUE(r.invalid);
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_FALSE(r.eager_latency_ms.has_value());
  EXPECT_EQ(r.speedup_text, "0.500000");
  EXPECT_EQ(r.batch_size, -8);
  EXPECT_DOUBLE_EQ(*r.abs_latency_ms, 10.0);

  auto counts = run_counts(store.db(), *run, 1.0);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->rows, 2);
  EXPECT_EQ(counts->slow, 1);
  EXPECT_EQ(counts->invalid, 1);
}

TEST(InvalidFlag, MigrationMarksRowsStoredBeforeItAndRebuildsTheBacklog) {
  const auto path =
      std::filesystem::temp_directory_path() / ("perftriage-invalid-migration-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  {
    auto db = Database::open(path.string());
    ASSERT_TRUE(db) << db.error().message;
    for (const auto& m : kMigrations) {
      if (m.version >= 6) break;
      ASSERT_TRUE(db->exec(m.sql)) << m.name;
    }
    ASSERT_TRUE(db->exec("PRAGMA user_version = 5"));
    ASSERT_TRUE(db->exec(
        "INSERT INTO runs(id, key, platform, created_at) VALUES(1, 'r', 'BMG', '2026-01-01T00:00:00Z');"
        "INSERT INTO result_files(id, run_id, path, format, suite, dtype, mode, kind, sha256, size, raw_deflate,"
        " uploaded_at) VALUES(1, 1, 'a.csv', 'performance', 'huggingface', 'bfloat16', 'inference', 'performance',"
        " 'x', 1, x'00', '2026-01-01T00:00:00Z');"
        "INSERT INTO results(run_id, file_id, suite, dtype, mode, kind, model, line, batch_size, speedup,"
        " speedup_text, abs_latency_ms, eager_latency_ms, failed) VALUES"
        " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'ok', 2, 8, 0.5, '0.5', 10, 5, 0),"
        " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'negbatch', 3, -8, 0.5, '0.5', 10, 5, 0),"
        " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'neg', 4, 8, -1.5, '-1.5', 10, NULL, 0),"
        " (1, 1, 'huggingface', 'bfloat16', 'inference', 'performance', 'nan', 5, 8, NULL, 'nan', 10, NULL, 1);"
        "INSERT INTO backlog VALUES('BMG', 'huggingface', 'bfloat16', 'inference', '', 'negbatch', 1, 'o', 1, 'o',"
        " NULL, NULL, 1, 'o', 0.5, '0.5', 0, 0.5, 1);"));
  }
  {
    auto s = Store::open(path.string());  // migrates to 6, then replays the backlog
    ASSERT_TRUE(s) << s.error().message;
    ResultFilter filter;
    filter.flag = ResultFlag::invalid;
    auto invalid = results(s->db(), filter);
    ASSERT_TRUE(invalid);
    std::vector<std::string> models;
    for (const auto& r : *invalid) {
      models.push_back(r.model);
      EXPECT_FALSE(r.speedup.has_value()) << r.model;
      EXPECT_FALSE(r.failed) << r.model;
    }
    EXPECT_EQ(models, (std::vector<std::string>{"negbatch", "neg", "nan"}));
    filter.flag = ResultFlag::slow;
    auto slow = results(s->db(), filter);
    ASSERT_TRUE(slow);
    ASSERT_EQ(slow->size(), 1u);
    EXPECT_EQ(slow->front().model, "ok");
    auto st =
        Statement::prepare(s->db(), "SELECT group_concat(c.model) FROM backlog b JOIN cases c ON c.id = b.case_id");
    ASSERT_TRUE(st && *st->step());
    EXPECT_EQ(st->text(0), "ok");  // the rebuilt backlog no longer holds the invalid row as slow
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
}

}  // namespace
}  // namespace perftriage::schema
