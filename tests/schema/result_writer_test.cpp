// ResultWriter on each backend (this suite runs once on SQLite and once, as `pg:`, on PostgreSQL, where the rows go
// through COPY's text format): every value a row can hold reads back as written, new models become cases in the order
// the file names them, and a file larger than one batch is stored whole.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <vector>

#include "schema/blob_codec.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"timm_models", "float16", "training", "performance", "xpu", ""};

class ResultWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  Database& db() { return store_->db(); }

  // Stores `rows` as one file of run `key` through ResultWriter, in one transaction, as ingest does.
  std::int64_t store(const std::string& key, const std::vector<ingest::ResultRow>& rows,
                     const std::vector<model::RowFlags>& flags = {}) {
    auto tx = Transaction::begin(db());
    EXPECT_TRUE(tx);
    auto run = ensure_run(db(), {key, "BMG", "xpu", "2.12", "", "2026-11-01T00:00:00Z", {}, "{}"});
    EXPECT_TRUE(run) << run.error().message;
    NewFile f{"perf.csv", "performance", kPerf, "bytes", sha256_hex(key), "dev,name", 1, 0, ""};
    auto file = insert_file(db(), *run, f);
    EXPECT_TRUE(file) << file.error().message;
    auto writer = ResultWriter::open(db(), *run, *file, kPerf);
    EXPECT_TRUE(writer) << writer.error().message;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      auto added = writer->add(rows[i], i < flags.size() ? flags[i] : model::RowFlags{});
      EXPECT_TRUE(added) << added.error().message;
    }
    auto finished = writer->finish();
    EXPECT_TRUE(finished) << finished.error().message;
    EXPECT_TRUE(refresh_run_flags(db(), *run));
    EXPECT_TRUE(tx->commit());
    return *run;
  }

  std::vector<model::ResultRecord> read(std::int64_t run) {
    ResultFilter filter;
    filter.run_ids = {run};
    auto rows = results(db(), filter);
    EXPECT_TRUE(rows) << rows.error().message;
    return rows ? *rows : std::vector<model::ResultRecord>{};
  }

  std::optional<Store> store_;
};

ingest::ResultRow full_row(std::int64_t line, std::string model) {
  ingest::ResultRow r;
  r.line = line;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 64;
  r.speedup = 0.1 + 0.2;  // a double with no short decimal form
  r.speedup_text = "0.30000000000000004";
  r.abs_latency_ms = 1e-300;
  r.compilation_latency_s = 123456.789;
  r.compression_ratio = 0.97;
  r.eager_peak_mem_gb = std::numeric_limits<double>::max();
  r.dynamo_peak_mem_gb = -2.5;
  r.calls_captured = std::numeric_limits<std::int64_t>::max();
  r.unique_graphs = std::numeric_limits<std::int64_t>::min();
  r.graph_breaks = 0;
  r.unique_graph_breaks = 3;
  r.autograd_captures = 4;
  r.autograd_compiles = 5;
  r.cudagraph_skips = 6;
  r.fallbacks_to_eager = 7;
  r.accuracy = "pass";
  r.short_row = true;
  r.extra = {{"note", "tab\there, newline\nthere, back\\slash, \"quoted\", carriage\rreturn"}, {"ünï", "çødé"}};
  return r;
}

TEST_F(ResultWriterTest, EveryValueReadsBackAsWritten) {
  const std::string model = "weird\tmodel\\name\nwith \xE2\x9C\x93 and \\N";
  ingest::ResultRow empty;
  empty.line = 3;
  empty.model = "Bare";  // every optional column NULL, every text empty
  const auto run = store("r1", {full_row(2, model), empty}, {model::RowFlags{true, true, false}, {}});
  const auto rows = read(run);
  ASSERT_EQ(rows.size(), 2u);
  const auto& a = rows[0].model == model ? rows[0] : rows[1];
  const auto& b = rows[0].model == model ? rows[1] : rows[0];
  const auto w = full_row(2, model);
  EXPECT_EQ(a.model, model);
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(a.dev, "xpu");
  EXPECT_EQ(a.batch_size, 64);
  EXPECT_EQ(a.speedup, w.speedup);  // bit for bit
  EXPECT_EQ(a.speedup_text, w.speedup_text);
  EXPECT_EQ(a.abs_latency_ms, w.abs_latency_ms);
  EXPECT_EQ(a.compilation_latency_s, w.compilation_latency_s);
  EXPECT_EQ(a.compression_ratio, w.compression_ratio);
  EXPECT_EQ(a.eager_peak_mem_gb, w.eager_peak_mem_gb);
  EXPECT_EQ(a.dynamo_peak_mem_gb, w.dynamo_peak_mem_gb);
  EXPECT_EQ(a.calls_captured, w.calls_captured);
  EXPECT_EQ(a.unique_graphs, w.unique_graphs);
  EXPECT_EQ(a.graph_breaks, std::optional<std::int64_t>(0));
  EXPECT_EQ(a.unique_graph_breaks, 3);
  EXPECT_EQ(a.autograd_captures, 4);
  EXPECT_EQ(a.autograd_compiles, 5);
  EXPECT_EQ(a.cudagraph_skips, 6);
  EXPECT_EQ(a.fallbacks_to_eager, 7);
  EXPECT_EQ(a.accuracy, "pass");
  EXPECT_TRUE(a.short_row);
  EXPECT_TRUE(a.failed);
  EXPECT_TRUE(a.accuracy_failed);
  EXPECT_FALSE(a.invalid);
  const auto extra = nlohmann::json::parse(a.extra_json);
  EXPECT_EQ(extra.at("note"), w.extra[0].second);
  EXPECT_EQ(extra.at("ünï"), "çødé");

  EXPECT_EQ(b.model, "Bare");
  EXPECT_EQ(b.dev, "");
  EXPECT_FALSE(b.speedup);
  EXPECT_EQ(b.speedup_text, "");
  for (const auto* v : {&b.abs_latency_ms, &b.compilation_latency_s, &b.compression_ratio, &b.eager_peak_mem_gb,
                        &b.dynamo_peak_mem_gb}) {
    EXPECT_FALSE(*v);
  }
  for (const auto* v : {&b.calls_captured, &b.unique_graphs, &b.graph_breaks, &b.unique_graph_breaks,
                        &b.autograd_captures, &b.autograd_compiles, &b.cudagraph_skips, &b.fallbacks_to_eager}) {
    EXPECT_FALSE(*v);
  }
  EXPECT_FALSE(b.short_row || b.failed || b.accuracy_failed || b.invalid);
  EXPECT_EQ(b.extra_json, "");
}

TEST_F(ResultWriterTest, AnInvalidRowIsStoredWithoutItsSpeedup) {
  auto r = full_row(2, "Inf");
  const auto run = store("r1", {r}, {model::RowFlags{false, false, true}});
  const auto rows = read(run);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].invalid);
  EXPECT_FALSE(rows[0].speedup);
  EXPECT_EQ(rows[0].speedup_text, r.speedup_text);  // the text as written stays
}

// New models become cases in the order the file first names them; a model measured on two devices is one case; a
// second file of the same group reuses the cases and adds only its new one.
TEST_F(ResultWriterTest, NewModelsBecomeCasesInFileOrder) {
  auto on = [](std::int64_t line, std::string model, std::string dev) {
    auto r = full_row(line, std::move(model));
    r.dev = std::move(dev);
    return r;
  };
  store("r1", {on(2, "Zeta", "xpu:0"), on(3, "Alpha", "xpu:0"), on(4, "Zeta", "xpu:1"), on(5, "Mid", "xpu:0")});
  store("r2", {on(2, "Alpha", "xpu"), on(3, "New", "xpu"), on(4, "Zeta", "xpu")});
  auto st = Statement::prepare(db(), "SELECT model FROM case_models ORDER BY id");
  ASSERT_TRUE(st);
  auto models = collect<std::string>(*st, [](const Statement& s) { return s.text(0); });
  ASSERT_TRUE(models);
  EXPECT_EQ(*models, (std::vector<std::string>{"Zeta", "Alpha", "Mid", "New"}));
  auto rows = Statement::prepare(db(), "SELECT count(*) FROM result_rows");
  ASSERT_TRUE(rows);
  EXPECT_EQ(*scalar(*rows), 7);
}

// More rows than one batch of COPY text (8 MiB): every row is stored once, with its own values.
TEST_F(ResultWriterTest, AFileOfSeveralBatchesIsStoredWhole) {
  std::vector<ingest::ResultRow> rows;
  const std::string filler(700, 'x');  // 15,000 rows of ~750 bytes: two batches
  for (int i = 0; i < 15000; ++i) {
    ingest::ResultRow r;
    r.line = i + 2;
    r.dev = "xpu";
    r.model = "M" + std::to_string(i);
    r.speedup = i / 1000.0;
    r.speedup_text = std::to_string(i);
    r.extra = {{"pad", filler}};
    rows.push_back(std::move(r));
  }
  const auto run = store("big", rows);
  auto st = Statement::prepare(db(),
                               "SELECT count(*), count(DISTINCT case_id), sum(line), min(speedup), max(speedup) "
                               "FROM result_rows WHERE run_id = $1");
  ASSERT_TRUE(st);
  st->bind(1, run);
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->int64(0), 15000);
  EXPECT_EQ(st->int64(1), 15000);
  EXPECT_EQ(st->int64(2), (2LL + 15001) * 15000 / 2);  // lines 2 .. 15001
  EXPECT_DOUBLE_EQ(st->real(3), 0.0);
  EXPECT_DOUBLE_EQ(st->real(4), 14.999);
}

}  // namespace
}  // namespace perftriage::schema
