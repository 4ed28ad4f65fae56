#include <gtest/gtest.h>

#include <set>

#include "analyzers/flags/slow_table.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using testing::fixture;
using testing::read_tree;

constexpr std::string_view kHeader16 =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";

class IngestServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  static UploadMeta bmg(const std::string& run = "bmg-release-2.12") {
    UploadMeta m;
    m.run = run;
    m.platform = "BMG";
    m.torch_version = "2.12.0+xpu";
    return m;
  }
  std::int64_t count(const std::string& table) {
    auto st = schema::Statement::prepare(store_->db(), "SELECT count(*) FROM " + table);
    EXPECT_TRUE(st && *st->step());
    return st->int64(0);
  }
  std::optional<schema::Store> store_;
};

// The seed issue's table, row for row (tracker's "Representative Cases").
const std::set<std::string> kSeedRows = {
    "| huggingface | bfloat16 | inference | ElectraForQuestionAnswering | 128 | 0.662224 | "
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |",
    "| huggingface | bfloat16 | inference | BertForQuestionAnswering | 32 | 0.732601 | "
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |",
    "| huggingface | bfloat16 | inference | BartForConditionalGeneration | 4 | 0.741895 | "
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |",
    "| huggingface | bfloat16 | inference | MBartForConditionalGeneration | 4 | 0.723328 | "
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |",
    "| huggingface | bfloat16 | inference | PLBartForConditionalGeneration | 8 | 0.829213 | "
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |",
    "| huggingface | amp_bf16 | inference | BertForQuestionAnswering | 32 | 0.893284 | "
    "huggingface/amp_bf16/inference/performance/inductor-results-huggingface-amp_bf16-inference-xpu-performance.csv |",
    "| huggingface | float16 | inference | ElectraForQuestionAnswering | 128 | 0.646220 | "
    "huggingface/float16/inference/performance/inductor-results-huggingface-float16-inference-xpu-performance.csv |",
    "| huggingface | bfloat16 | training | OPTForCausalLM | 2 | 0.876858 | "
    "huggingface/bfloat16/training/performance/inductor-results-huggingface-bfloat16-training-xpu-performance.csv |",
    "| torchbench | bfloat16 | inference | lennard_jones | 1000 | 0.671808 | "
    "torchbench/bfloat16/inference/performance/inductor-results-torchbench-bfloat16-inference-xpu-performance.csv |",
    "| torchbench | bfloat16 | inference | maml | 1 | 0.664822 | "
    "torchbench/bfloat16/inference/performance/inductor-results-torchbench-bfloat16-inference-xpu-performance.csv |",
    "| torchbench | bfloat16 | inference | soft_actor_critic | 256 | 0.865522 | "
    "torchbench/bfloat16/inference/performance/inductor-results-torchbench-bfloat16-inference-xpu-performance.csv |",
};

TEST_F(IngestServiceTest, SeedRunPrintsExactlyTheSeedTable) {
  auto summary = ingest_files(*store_, bmg(), read_tree(fixture("seed_bmg_2.12")));
  ASSERT_TRUE(summary) << summary.error().message << " " << summary.error().file;
  ASSERT_EQ(summary->files.size(), 5u);
  std::int64_t slow = 0, failed = 0;
  for (const auto& f : summary->files) {
    EXPECT_EQ(f.status, FileStatus::stored);
    EXPECT_EQ(f.kind, "performance");
    EXPECT_EQ(f.device, "xpu");
    slow += f.slow;
    failed += f.failed;
  }
  EXPECT_EQ(slow, 11);
  EXPECT_EQ(failed, 5);  // one failed (speedup 0) model per file

  auto runs = resolve_runs(*store_, "", "BMG");
  ASSERT_TRUE(runs);
  auto rows = slow_cases(*store_, *runs, 1.0);
  ASSERT_TRUE(rows);
  const std::string md = analyzers::slow_table_markdown(*rows);
  std::istringstream lines(md);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "| suite | dtype | mode | model | batch_size | speedup | source csv |");
  std::getline(lines, line);  // separator
  std::set<std::string> got;
  std::vector<std::string> order;
  while (std::getline(lines, line)) {
    got.insert(line);
    order.push_back(line);
  }
  EXPECT_EQ(got, kSeedRows);
  EXPECT_EQ(order.size(), kSeedRows.size());
  // Worst first within one suite/dtype/mode.
  EXPECT_NE(order.front().find("| amp_bf16 |"), std::string::npos);
}

TEST_F(IngestServiceTest, ExplicitAxesOverridePathAndMissingAxesAreRefused) {
  std::string csv(kHeader16);
  csv += "xpu,M,8,0.5,10,1,0,0,0,1,1,0,0,0,0,0\n";
  auto refused = ingest_files(*store_, bmg(), {{"results/run.csv", csv}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "unknown_axes");
  EXPECT_EQ(refused.error().file, "results/run.csv");
  EXPECT_NE(refused.error().message.find("suite"), std::string::npos);

  auto meta = bmg();
  meta.axes = {"timm", "bf16", "inference", "", "", ""};
  auto ok = ingest_files(*store_, meta, {{"results/run.csv", csv}});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->files.at(0).suite, "timm_models");
  EXPECT_EQ(ok->files.at(0).dtype, "bfloat16");
  EXPECT_EQ(ok->files.at(0).slow, 1);
}

TEST_F(IngestServiceTest, OneMalformedFileStoresNothingOfTheUpload) {
  auto files = read_tree(fixture("seed_bmg_2.12"));
  std::string bad(kHeader16);
  bad += "xpu,Good,8,1.5,10,1,0,0,0,1,1,0,0,0,0,0\n";
  bad += "xpu,Bad,8,fast,10,1,0,0,0,1,1,0,0,0,0,0\n";
  files.push_back(
      {"timm_models/bfloat16/inference/performance/inductor-results-timm_models-bfloat16-inference-xpu-"
       "performance.csv",
       bad});
  auto r = ingest_files(*store_, bmg(), files);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().line, 3);
  EXPECT_EQ(r.error().column, "speedup");
  EXPECT_NE(r.error().file.find("timm_models"), std::string::npos);
  EXPECT_EQ(count("runs"), 0);
  EXPECT_EQ(count("results"), 0);
  EXPECT_EQ(count("result_files"), 0);
}

TEST_F(IngestServiceTest, SameBytesAreDuplicateDifferentBytesConflictUnlessReplace) {
  const auto files = read_tree(fixture("seed_bmg_2.12"));
  ASSERT_TRUE(ingest_files(*store_, bmg(), files));
  const auto rows_before = count("results");

  auto again = ingest_files(*store_, bmg(), files);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->stored_anything());
  for (const auto& f : again->files) EXPECT_EQ(f.status, FileStatus::duplicate);
  EXPECT_EQ(count("results"), rows_before);

  auto changed = files;
  changed[0].bytes += "xpu,NewModel,8,0.5,10,1,0,0,0,1,1,0,0,0,0,0\n";
  auto conflict = ingest_files(*store_, bmg(), {changed[0]});
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().kind, ErrorKind::conflict);
  EXPECT_EQ(conflict.error().file, changed[0].path);
  EXPECT_EQ(count("results"), rows_before);

  auto meta = bmg();
  meta.replace = true;
  auto replaced = ingest_files(*store_, meta, {changed[0]});
  ASSERT_TRUE(replaced) << replaced.error().message;
  EXPECT_EQ(replaced->files.at(0).status, FileStatus::replaced);
  EXPECT_EQ(count("results"), rows_before + 1);
  EXPECT_EQ(count("result_files"), static_cast<std::int64_t>(files.size()) + 1);  // the old one kept for audit
}

TEST_F(IngestServiceTest, ShardsAddFilesToTheSameRunAndPlatformMustMatch) {
  auto files = read_tree(fixture("seed_bmg_2.12"));
  ASSERT_TRUE(ingest_files(*store_, bmg(), {files[0]}));
  ASSERT_TRUE(ingest_files(*store_, bmg(), {files[1]}));
  auto run = schema::find_run(store_->db(), "bmg-release-2.12");
  ASSERT_TRUE(run && *run);
  auto run_files = schema::run_files(store_->db(), (*run)->id);
  ASSERT_TRUE(run_files);
  EXPECT_EQ(run_files->size(), 2u);

  auto meta = bmg();
  meta.platform = "PVC";
  auto clash = ingest_files(*store_, meta, {files[2]});
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, "run_platform_mismatch");
}

TEST_F(IngestServiceTest, RefusesEmptyUploadsMissingPlatformAndHeaderlessFiles) {
  auto none = ingest_files(*store_, bmg(), {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, "empty_upload");

  auto meta = bmg();
  meta.platform.clear();
  auto no_platform = ingest_files(*store_, meta, read_tree(fixture("seed_bmg_2.12")));
  ASSERT_FALSE(no_platform);
  EXPECT_EQ(no_platform.error().code, "missing_platform");

  auto headerless = ingest_files(*store_, bmg(), {{"huggingface/x.csv", "hello,world\n1,2\n"}});
  ASSERT_FALSE(headerless);
  EXPECT_EQ(headerless.error().code, "no_header");
  EXPECT_EQ(headerless.error().file, "huggingface/x.csv");
  EXPECT_EQ(headerless.error().line, 1);

  auto empty = ingest_files(*store_, bmg(), {{"a.csv", ""}});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, "empty_file");
  EXPECT_EQ(count("runs"), 0);
}

TEST_F(IngestServiceTest, AccuracyFilesMarkSpeedupsUnreliableAndReferencesFlagDeviations) {
  auto files = read_tree(fixture("seed_bmg_2.12"));
  const std::string acc =
      "dev,name,batch_size,accuracy,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
      "autograd_compiles,cudagraph_skips,compilation_latency\n"
      "xpu,lennard_jones,1000,fail_accuracy,1,1,0,0,0,0,0,10\n"
      "xpu,maml,1,pass,1,1,0,0,0,0,0,10\n"
      "xpu,alexnet,8,some_new_status,1,1,0,0,0,0,0,10\n";
  files.push_back(
      {"torchbench/bfloat16/inference/accuracy/inductor-results-torchbench-bfloat16-inference-xpu-accuracy.csv", acc});
  files.push_back({"inductor_torchbench_inference.csv",
                   "name,float32,bfloat16,float16,amp_bf16,amp_fp16\n"
                   "# https://github.com/intel/torch-xpu-ops/issues/1\n"
                   "lennard_jones,pass,pass,pass,pass,pass\n"
                   "maml,pass,pass,pass,pass,pass\n"
                   "alexnet,pass,pass,pass,pass,pass\n"
                   "resnet50,pass,pass,pass,pass,pass\n"});
  auto summary = ingest_files(*store_, bmg(), files);
  ASSERT_TRUE(summary) << summary.error().message << " " << summary.error().file;
  const auto& acc_summary = summary->files.at(5);
  EXPECT_EQ(acc_summary.kind, "accuracy");
  EXPECT_EQ(acc_summary.accuracy_failed, 2);  // fail_accuracy and the unknown status
  EXPECT_EQ(summary->files.at(6).format.rfind("reference:", 0), 0u);
  EXPECT_EQ(summary->files.at(6).expectations, 20);

  schema::ResultFilter f;
  f.flag = schema::ResultFlag::unreliable;
  auto unreliable = schema::results(store_->db(), f);
  ASSERT_TRUE(unreliable);
  ASSERT_EQ(unreliable->size(), 2u);  // fail_accuracy and the unknown status both make the speedup unreliable
  EXPECT_EQ(unreliable->at(0).model, "alexnet");
  EXPECT_EQ(unreliable->at(1).model, "lennard_jones");

  f.flag = schema::ResultFlag::deviates;
  auto deviates = schema::results(store_->db(), f);
  ASSERT_TRUE(deviates);
  ASSERT_EQ(deviates->size(), 2u);

  auto run = schema::find_run(store_->db(), "bmg-release-2.12");
  auto missing = schema::missing(store_->db(), **run);
  ASSERT_TRUE(missing);
  ASSERT_EQ(missing->size(), 1u);  // resnet50 is expected but has no accuracy row
  EXPECT_EQ(missing->front().model, "resnet50");
}

TEST_F(IngestServiceTest, APlatformInAnotherCaseIsTheSamePlatform) {
  const auto files = read_tree(fixture("seed_bmg_2.12"));
  auto first = bmg("bmg-a");
  first.created_at = "2026-01-01T00:00:00Z";
  ASSERT_TRUE(ingest_files(*store_, first, {files[0]}));
  auto second = bmg("bmg-b");
  second.platform = "bmg";
  second.created_at = "2026-01-02T00:00:00Z";
  ASSERT_TRUE(ingest_files(*store_, second, {files[0]}));
  auto shard = bmg("bmg-a");
  shard.platform = "Bmg";
  ASSERT_TRUE(ingest_files(*store_, shard, {files[1]})) << "a shard naming the platform in another case";

  auto runs = schema::list_runs(store_->db(), "bmg");
  ASSERT_TRUE(runs);
  ASSERT_EQ(runs->size(), 2u);
  for (const auto& r : *runs) EXPECT_EQ(r.meta.platform, "BMG") << r.meta.key;  // the first run's spelling
  auto latest = resolve_runs(*store_, "", "bmg");
  ASSERT_TRUE(latest) << latest.error().message;
  ASSERT_EQ(latest->size(), 1u);
  EXPECT_EQ(latest->front().meta.key, "bmg-b");
  auto named = resolve_runs(*store_, "bmg-a", "bmg");
  ASSERT_TRUE(named) << named.error().message;
  auto per_platform = resolve_runs(*store_, "", "");
  ASSERT_TRUE(per_platform);
  EXPECT_EQ(per_platform->size(), 1u) << "one platform, one latest run";
}

}  // namespace
}  // namespace perftriage::server
