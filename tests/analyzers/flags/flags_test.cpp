#include <gtest/gtest.h>

#include "analyzers/flags/flags.hpp"
#include "analyzers/flags/slow_table.hpp"

namespace perftriage::analyzers {
namespace {

ingest::ResultRow row(std::optional<double> speedup, std::int64_t batch, bool short_row = false) {
  ingest::ResultRow r;
  r.model = "m";
  r.speedup = speedup;
  r.batch_size = batch;
  r.short_row = short_row;
  return r;
}

TEST(Flags, SlowIsStrictlyBetweenZeroAndThreshold) {
  EXPECT_TRUE(is_slow(0.662224));
  EXPECT_FALSE(is_slow(1.0));
  EXPECT_FALSE(is_slow(0.0));
  EXPECT_FALSE(is_slow(std::nullopt));
  EXPECT_FALSE(is_slow(0.96, 0.95));
  EXPECT_TRUE(is_slow(0.94, 0.95));
}

TEST(Flags, FailedPerformanceRows) {
  EXPECT_TRUE(is_failed(row(0.0, 0), "performance"));
  EXPECT_TRUE(is_failed(row(1.2, 0), "performance"));
  EXPECT_TRUE(is_failed(row(std::nullopt, 8), "performance"));
  EXPECT_TRUE(is_failed(row(0.0, 0, true), "performance"));
  EXPECT_FALSE(is_failed(row(0.5, 8), "performance"));
  const auto v = judge_row(row(0.0, 0), "performance", 1.0);
  EXPECT_TRUE(v.failed);
  EXPECT_FALSE(v.slow);  // a failure is never "slow"
}

TEST(Flags, AccuracyStatusesOutsideThePassingSetFail) {
  auto acc = [](std::string s) {
    ingest::ResultRow r;
    r.accuracy = std::move(s);
    return r;
  };
  for (const char* s : {"pass", "pass_due_to_skip", "eager_variation"}) {
    EXPECT_FALSE(is_accuracy_failed(acc(s), "accuracy")) << s;
  }
  for (const char* s : {"fail_accuracy", "fail_to_run", "OOM", "fail_to_run_at_batch_4", "crashed", "brand_new", ""}) {
    EXPECT_TRUE(is_accuracy_failed(acc(s), "accuracy")) << s;
  }
  EXPECT_FALSE(is_accuracy_failed(acc("fail_accuracy"), "performance"));
}

TEST(Flags, CountsPerFile) {
  const auto c = count_flags({row(1.5, 8), row(0.7, 8), row(0.9, 8), row(0.0, 0), row(0.0, 0, true)}, "performance");
  EXPECT_EQ(c.rows, 5);
  EXPECT_EQ(c.slow, 2);
  EXPECT_EQ(c.failed, 2);
  EXPECT_EQ(count_flags({row(1.5, 8), row(0.7, 8), row(0.9, 8)}, "performance", 0.8).slow, 1);
}

TEST(SlowTable, MarkdownEscapesPipesAndKeepsSpeedupText) {
  model::ResultRecord r;
  r.suite = "huggingface";
  r.dtype = "bfloat16";
  r.mode = "inference";
  r.model = "Weird|Model";
  r.batch_size = 4;
  r.speedup = 0.6026;
  r.speedup_text = "0.6026";
  r.source = "a.csv";
  const auto md = slow_table_markdown({r});
  EXPECT_NE(md.find("| Weird\\|Model | 4 | 0.6026 | a.csv |"), std::string::npos);
  EXPECT_EQ(slow_table_csv({r}),
            "suite,dtype,mode,model,batch_size,speedup,source\nhuggingface,bfloat16,inference,"
            "Weird|Model,4,0.6026,a.csv\n");
  const auto j = slow_table_json({r});
  ASSERT_EQ(j.size(), 1u);
  EXPECT_DOUBLE_EQ(j[0]["speedup"].get<double>(), 0.6026);
  EXPECT_EQ(j[0]["source"], "a.csv");
}

// One number formatting for every encoding of the table: the file's text, else 6 decimals; JSON keeps the number.
TEST(SlowTable, SpeedupWithoutTextHasSixDecimalsInMarkdownAndCsv) {
  model::ResultRecord r;
  r.suite = "timm_models", r.dtype = "float16", r.mode = "training", r.model = "m", r.batch_size = 2;
  r.speedup = 0.5;
  r.source = "s.csv";
  EXPECT_EQ(speedup_cell(r), "0.500000");
  EXPECT_NE(slow_table_markdown({r}).find("| m | 2 | 0.500000 | s.csv |\n"), std::string::npos);
  EXPECT_EQ(slow_table_csv({r}).substr(slow_table_csv({r}).find('\n') + 1),
            "timm_models,float16,training,m,2,0.500000,s.csv\n");
  EXPECT_DOUBLE_EQ(slow_table_json({r})[0]["speedup"].get<double>(), 0.5);
  r.speedup.reset();
  EXPECT_EQ(speedup_cell(r), "");
}

TEST(SlowTable, AnExtraColumnIsAddedToTheSameTable) {
  model::ResultRecord r;
  r.suite = "huggingface", r.dtype = "bfloat16", r.mode = "inference", r.model = "a", r.batch_size = 1;
  r.speedup_text = "0.7";
  r.source = "x.csv";
  auto b = r;
  b.model = "b";
  const ExtraColumn findings{"findings", {"host_bound: yes", ""}};
  const auto md = slow_table_markdown({r, b}, &findings);
  EXPECT_EQ(md,
            "| suite | dtype | mode | model | batch_size | speedup | source csv | findings |\n"
            "|---|---|---|---|---:|---:|---|---|\n"
            "| huggingface | bfloat16 | inference | a | 1 | 0.7 | x.csv | host_bound: yes |\n"
            "| huggingface | bfloat16 | inference | b | 1 | 0.7 | x.csv | |\n");
  // Without the column, every other byte is the same.
  EXPECT_EQ(slow_table_markdown({r, b}),
            "| suite | dtype | mode | model | batch_size | speedup | source csv |\n|---|---|---|---|---:|---:|---|\n"
            "| huggingface | bfloat16 | inference | a | 1 | 0.7 | x.csv |\n"
            "| huggingface | bfloat16 | inference | b | 1 | 0.7 | x.csv |\n");
}

TEST(SlowTable, SortsBySuiteDtypeModeThenWorstFirst) {
  std::vector<model::ResultRecord> rows(3);
  rows[0].suite = "torchbench", rows[0].speedup = 0.5;
  rows[1].suite = "huggingface", rows[1].speedup = 0.9, rows[1].model = "b";
  rows[2].suite = "huggingface", rows[2].speedup = 0.7, rows[2].model = "a";
  sort_slow_cases(rows);
  EXPECT_EQ(rows[0].model, "a");
  EXPECT_EQ(rows[1].model, "b");
  EXPECT_EQ(rows[2].suite, "torchbench");
}

}  // namespace
}  // namespace perftriage::analyzers

namespace perftriage::analyzers {
namespace {

// A negative or non-finite speedup, latency or batch size used to count as passing (or slow).
TEST(Flags, ImpossibleValuesAreInvalidNeitherPassingNorSlowNorFailed) {
  auto with = [](auto change) {
    ingest::ResultRow r = row(0.5, 8);
    r.abs_latency_ms = 10.0;
    change(r);
    return r;
  };
  const std::vector<ingest::ResultRow> rows = {
      with([](ingest::ResultRow& r) { r.speedup = -1.5; }),
      with([](ingest::ResultRow& r) { r.batch_size = -8; }),
      with([](ingest::ResultRow& r) { r.abs_latency_ms = -10.0; }),
      with([](ingest::ResultRow& r) { r.compilation_latency_s = -1.0; }),
      with([](ingest::ResultRow& r) {  // "nan" in the speedup cell: no value, and marked non-finite
        r.speedup.reset();
        r.non_finite = true;
      }),
  };
  for (const auto& r : rows) {
    const auto v = judge_row(r, "performance", 1.0);
    EXPECT_TRUE(v.invalid);
    EXPECT_TRUE(is_invalid(r));
    EXPECT_FALSE(v.slow);
    EXPECT_FALSE(v.failed);
    EXPECT_FALSE(v.accuracy_failed);
  }
  const auto c = count_flags(rows, "performance");
  EXPECT_EQ(c.invalid, 5);
  EXPECT_EQ(c.slow, 0);
  EXPECT_EQ(c.failed, 0);

  const auto fine = judge_row(with([](ingest::ResultRow&) {}), "performance", 1.0);
  EXPECT_FALSE(fine.invalid);
  EXPECT_TRUE(fine.slow);

  // an accuracy row with an impossible batch size does not pass
  ingest::ResultRow acc;
  acc.accuracy = "pass";
  acc.batch_size = -1;
  const auto a = judge_row(acc, "accuracy", 1.0);
  EXPECT_TRUE(a.invalid);
  EXPECT_TRUE(a.accuracy_failed);
  acc.batch_size = 4;
  EXPECT_FALSE(judge_row(acc, "accuracy", 1.0).accuracy_failed);
}

}  // namespace
}  // namespace perftriage::analyzers
