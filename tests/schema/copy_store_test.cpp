// perftriage migrate's copy (schema/copy_store.hpp): a SQLite database into PostgreSQL, checked table by table.
// Needs the test server: it runs among the `pg:` tests and is skipped in the SQLite-only run.
#include <gtest/gtest.h>

#include "schema/backlog_store.hpp"
#include "schema/blob_codec.hpp"
#include "schema/bot_store.hpp"
#include "schema/copy_store.hpp"
#include "schema/store.hpp"
#include "schema/token_store.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};

ingest::ResultRow row(std::string model, std::optional<double> speedup, std::int64_t line) {
  ingest::ResultRow r;
  r.line = line;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 8;
  r.speedup = speedup;
  r.speedup_text = speedup ? std::to_string(*speedup) : "";
  r.abs_latency_ms = 0.1 + line / 3.0;  // reals that need all 17 digits
  return r;
}

// Three runs with rows (one of 1,201), a raw file, the backlog, a token and an outbox action, in a SQLite file.
void fill(Database& db) {
  auto tx = Transaction::begin(db);
  ASSERT_TRUE(tx);
  for (const auto& [key, created] : {std::pair{"n1", "2026-01-01T00:00:00Z"}, {"n2", "2026-01-02T00:00:00Z"}}) {
    auto run = ensure_run(db, {key, "A100", "xpu", "2.12", "", created, {"nightly"}, "{\"driver\": \"1\"}"});
    ASSERT_TRUE(run) << run.error().message;
    const std::string bytes = std::string("dev,name\n") + key;
    NewFile f{"perf.csv", "performance", kPerf, bytes, sha256_hex(bytes), "dev,name", 3, 0, ""};
    auto file = insert_file(db, *run, f);
    ASSERT_TRUE(file) << file.error().message;
    std::vector<ingest::ResultRow> rows{row("Bert", 0.5, 2), row("T5", 1.25, 3), row("Opt", std::nullopt, 4)};
    std::vector<model::RowFlags> flags(rows.size());
    flags[2].failed = true;
    ASSERT_TRUE(insert_results(db, *run, *file, kPerf, rows, flags));
    ASSERT_TRUE(update_backlog(db, *run, {*file}));
  }
  // A run of 1,201 rows: the copy sends rows 500 at a time and then the rest (schema/copy_store.cpp).
  auto big = ensure_run(db, {"n3", "A100", "xpu", "2.12", "", "2026-01-03T00:00:00Z", {"nightly"}, "{}"});
  ASSERT_TRUE(big) << big.error().message;
  const std::string big_bytes = "dev,name\nbig";
  auto big_file = insert_file(
      db, *big, {"big.csv", "performance", kPerf, big_bytes, sha256_hex(big_bytes), "dev,name", 1201, 0, ""});
  ASSERT_TRUE(big_file) << big_file.error().message;
  std::vector<ingest::ResultRow> many;
  for (int i = 0; i < 1201; ++i) many.push_back(row("M" + std::to_string(i), 0.25 + i / 997.0, i + 2));
  ASSERT_TRUE(insert_results(db, *big, *big_file, kPerf, many, std::vector<model::RowFlags>(many.size())));
  ASSERT_TRUE(create_token(db, "ci", {"upload"}, std::nullopt));
  ASSERT_TRUE(enqueue(db, {"o/r", 7, OutboxKind::add_labels, {{"labels", {"hw: PVC"}}}}, OutboxState::pending, 5));
  ASSERT_TRUE(tx->commit());
}

class CopyStore : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::on_postgres()) GTEST_SKIP() << "needs the PostgreSQL test server (the pg: tests)";
    auto from = Store::open(dir_.file("source.sqlite"));
    ASSERT_TRUE(from) << from.error().message;
    from_.emplace(std::move(*from));
    auto to = testing_support::open_test_store();
    ASSERT_TRUE(to) << to.error().message;
    to_.emplace(std::move(*to));
  }
  testing::TempDir dir_{"perftriage-copy"};
  std::optional<Store> from_, to_;  // after dir_: closed before it is removed
};

TEST_F(CopyStore, EveryTableArrivesTheSameAndTheCopyWorksAsAStore) {
  fill(from_->db());
  auto copied = copy_database(from_->db(), to_->db());
  ASSERT_TRUE(copied) << copied.error().message;
  std::int64_t rows = 0;
  for (const auto& t : *copied) {
    EXPECT_TRUE(t.same()) << t.table << ": " << t.rows_from << " vs " << t.rows_to;
    rows += t.rows_to;
  }
  EXPECT_GT(rows, 1201);
  // The copy is a working store: its runs list, its slow cases, and its counters continue after the copied ids.
  auto runs = list_runs(to_->db(), "a100");
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ(runs->front().meta.key, "n3");
  auto next = ensure_run(to_->db(), {"n4", "A100", "xpu", "2.12", "", "2026-01-04T00:00:00Z", {}, "{}"});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(*next, runs->front().id + 1);
}

TEST_F(CopyStore, TheCheckSeesAChangedValueAndASecondCopyIsRefused) {
  fill(from_->db());
  ASSERT_TRUE(copy_database(from_->db(), to_->db()));
  ASSERT_TRUE(to_->db().exec("UPDATE result_rows SET abs_latency_ms = abs_latency_ms + 1e-12 WHERE line = 3"));
  auto checked = compare_databases(from_->db(), to_->db());
  ASSERT_TRUE(checked);
  for (const auto& t : *checked) EXPECT_EQ(t.same(), t.table != "result_rows") << t.table;
  auto again = copy_database(from_->db(), to_->db());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, "target_not_empty");
}

TEST_F(CopyStore, OnlySqliteIntoPostgres) {
  auto backwards = copy_database(to_->db(), from_->db());
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().kind, ErrorKind::invalid_input);
}

}  // namespace
}  // namespace perftriage::schema
