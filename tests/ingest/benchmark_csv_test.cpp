#include "ingest/benchmark_csv.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/files.hpp"

namespace pi = perftriage::ingest;
using perftriage::testing::read_fixture;

namespace {

pi::ParsedResults parse_ok(const std::string& bytes, const std::string& name = "f.csv") {
  auto r = pi::parse_results_csv(bytes, name);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().code + ": " + r.error().message);
  if (!r.ok()) return {};
  return std::move(r).value();
}

const pi::ResultRow* find(const pi::ParsedResults& p, const std::string& model, const std::string& dev = {}) {
  for (const auto& r : p.rows)
    if (r.model == model && (dev.empty() || r.dev == dev)) return &r;
  return nullptr;
}

std::string extra(const pi::ResultRow& r, const std::string& key) {
  for (const auto& [k, v] : r.extra)
    if (k == key) return v;
  return "<absent>";
}

constexpr const char* kH16 =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips";

}  // namespace

TEST(BenchmarkCsv, SevenColumn2023FileWithShortFailureRows) {
  auto p = parse_ok(read_fixture("ingest/perf_2023_7col.csv"));
  EXPECT_EQ(p.kind, "performance");
  ASSERT_EQ(p.rows.size(), 5u);
  EXPECT_EQ(p.header.size(), 7u);
  EXPECT_EQ(p.duplicates_dropped, 0);

  const auto* d = find(p, "DebertaV2ForMaskedLM");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->dev, "cuda");
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->batch_size, 8);
  EXPECT_EQ(d->speedup_text, "0.6026");
  EXPECT_DOUBLE_EQ(*d->speedup, 0.6026);
  EXPECT_DOUBLE_EQ(*d->abs_latency_ms, 143.5671);
  EXPECT_DOUBLE_EQ(*d->compilation_latency_s, 52.8855);
  EXPECT_DOUBLE_EQ(*d->compression_ratio, 0.9855);
  EXPECT_NEAR(*d->eager_latency_ms(), 0.6026 * 143.5671, 1e-9);
  EXPECT_FALSE(d->short_row);
  EXPECT_FALSE(d->eager_peak_mem_gb.has_value());
  EXPECT_FALSE(d->graph_breaks.has_value());  // column absent in 2023 files

  const auto* v = find(p, "volo_d1_224");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->short_row);
  EXPECT_EQ(v->line, 6);
  EXPECT_EQ(v->batch_size, 0);
  EXPECT_EQ(v->speedup_text, "0.0000");
  EXPECT_DOUBLE_EQ(*v->speedup, 0.0);
  EXPECT_FALSE(v->abs_latency_ms.has_value());
  EXPECT_FALSE(v->compression_ratio.has_value());
  EXPECT_FALSE(v->eager_latency_ms().has_value());
  EXPECT_TRUE(find(p, "doctr_det_predictor")->short_row);
}

TEST(BenchmarkCsv, Current16ColumnXpuFileMemoryNotMeasuredAndPaddedFailures) {
  auto p = parse_ok(read_fixture("ingest/xpu_16col_bf16_inference.csv"));
  EXPECT_EQ(p.kind, "performance");
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.content_axes.device, "xpu");
  EXPECT_EQ(p.content_axes.kind, "performance");
  EXPECT_EQ(p.content_axes.suite, "");

  const auto* e = find(p, "ElectraForQuestionAnswering");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->batch_size, 128);
  EXPECT_EQ(e->speedup_text, "0.662224");
  EXPECT_DOUBLE_EQ(*e->speedup, 0.662224);
  EXPECT_DOUBLE_EQ(*e->abs_latency_ms, 25.0);
  EXPECT_NEAR(*e->eager_latency_ms(), 16.5556, 1e-9);
  // XPU: both memories 0 => not measured, compression ratio too
  EXPECT_FALSE(e->eager_peak_mem_gb.has_value());
  EXPECT_FALSE(e->dynamo_peak_mem_gb.has_value());
  EXPECT_FALSE(e->compression_ratio.has_value());
  EXPECT_EQ(e->calls_captured, 1);
  EXPECT_EQ(e->cudagraph_skips, 0);
  EXPECT_FALSE(e->fallbacks_to_eager.has_value());

  const auto* g = find(p, "GoogleFnet");  // failure row padded with 0 up to the header width
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->short_row);
  EXPECT_EQ(g->batch_size, 0);
  EXPECT_DOUBLE_EQ(*g->speedup, 0.0);
  EXPECT_DOUBLE_EQ(*g->abs_latency_ms, 0.0);
  EXPECT_FALSE(g->eager_latency_ms().has_value());

  const auto* t = find(p, "T5Small");
  EXPECT_EQ(t->graph_breaks, 1);
  EXPECT_EQ(t->unique_graphs, 2);
  EXPECT_TRUE(t->extra.empty());
}

TEST(BenchmarkCsv, Fallbacks17ColumnByName) {
  auto p = parse_ok(read_fixture("ingest/perf_17col_fallbacks.csv"));
  ASSERT_EQ(p.rows.size(), 2u);
  const auto& b = p.rows[0];
  EXPECT_EQ(b.model, "BERT_pytorch");
  EXPECT_DOUBLE_EQ(*b.eager_peak_mem_gb, 250.866893);
  EXPECT_DOUBLE_EQ(*b.dynamo_peak_mem_gb, 271.536947);
  EXPECT_DOUBLE_EQ(*b.compression_ratio, 0.923878);
  EXPECT_EQ(b.calls_captured, 545);
  EXPECT_EQ(b.fallbacks_to_eager, 0);
  EXPECT_EQ(b.cudagraph_skips, 1);
  const auto& l = p.rows[1];
  EXPECT_EQ(l.model, "lennard_jones");
  EXPECT_EQ(l.batch_size, 1000);
  EXPECT_EQ(l.unique_graphs, 2);
  EXPECT_EQ(l.fallbacks_to_eager, 4);  // inserted between unique_graphs and graph_breaks
  EXPECT_EQ(l.graph_breaks, 5);
  EXPECT_EQ(l.unique_graph_breaks, 2);
  EXPECT_EQ(l.speedup_text, "0.671808");
}

TEST(BenchmarkCsv, PrefixColumnsScenarioSuiteDtypeMode) {
  auto p = parse_ok(read_fixture("ingest/prefix_scenario_suite.csv"));
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.header.size(), 20u);
  EXPECT_EQ(p.content_axes.suite, "huggingface");
  EXPECT_EQ(p.content_axes.dtype, "bfloat16");  // "bf16" normalised
  EXPECT_EQ(p.content_axes.mode, "inference");
  EXPECT_EQ(p.content_axes.kind, "performance");
  EXPECT_EQ(p.content_axes.device, "xpu");
  const auto& a = p.rows[0];
  EXPECT_EQ(a.model, "AlbertForMaskedLM");
  EXPECT_EQ(a.dev, "xpu");
  EXPECT_DOUBLE_EQ(*a.speedup, 1.412345);
  EXPECT_EQ(extra(a, "suite"), "huggingface");
  EXPECT_EQ(extra(a, "dtype"), "bf16");
}

TEST(BenchmarkCsv, PrefixColumnsDevElapsedMixedSuitesLeaveAxesEmpty) {
  auto p = parse_ok(read_fixture("ingest/prefix_dev_elapsed.csv"));
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.content_axes.suite, "");  // torchbench and timm_models differ across rows
  EXPECT_EQ(p.content_axes.dtype, "float32");
  EXPECT_EQ(p.content_axes.mode, "training");
  EXPECT_EQ(p.content_axes.kind, "performance");
  const auto& r = p.rows[0];
  EXPECT_EQ(r.model, "resnet50");
  EXPECT_EQ(r.batch_size, 32);
  EXPECT_DOUBLE_EQ(*r.speedup, 1.3);
  EXPECT_DOUBLE_EQ(*r.eager_peak_mem_gb, 4.4);
  EXPECT_EQ(extra(r, "elapsed"), "120.5");
  EXPECT_EQ(extra(p.rows[1], "suite"), "timm_models");
}

TEST(BenchmarkCsv, AppendedFileNameColumnIsDropped) {
  auto p = parse_ok(read_fixture("ingest/appended_filename.csv"));
  EXPECT_EQ(p.header.size(), 17u);
  EXPECT_EQ(p.header.back(), "inductor_huggingface_bfloat16_inference_xpu_performance.csv");
  ASSERT_EQ(p.rows.size(), 2u);
  const auto& a = p.rows[0];
  EXPECT_FALSE(a.short_row);
  EXPECT_EQ(a.cudagraph_skips, 0);
  EXPECT_TRUE(a.extra.empty());
  EXPECT_DOUBLE_EQ(*a.compression_ratio, 1.1);
  const auto& g = p.rows[1];
  EXPECT_EQ(g.model, "GoogleFnet");
  EXPECT_TRUE(g.short_row);
  EXPECT_TRUE(g.extra.empty());
  EXPECT_DOUBLE_EQ(*g.abs_latency_ms, 0.0);
  EXPECT_FALSE(g.compilation_latency_s.has_value());
}

TEST(BenchmarkCsv, CrlfBlankLinesAndComments) {
  auto p = parse_ok(read_fixture("ingest/crlf_blank_comments.csv"));
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.header.back(), "compression_ratio");  // no '\r' left
  EXPECT_EQ(p.rows[0].model, "AlbertForMaskedLM");
  EXPECT_EQ(p.rows[0].line, 4);
  EXPECT_DOUBLE_EQ(*p.rows[0].compression_ratio, 1.2647);
  EXPECT_EQ(p.rows[1].model, "BertForMaskedLM");
  EXPECT_EQ(p.rows[1].line, 7);
  EXPECT_EQ(p.rows[1].speedup_text, "1.5350");
}

TEST(BenchmarkCsv, RaggedRowsHeaderSwitchAndQuotedFields) {
  auto p = parse_ok(read_fixture("ingest/ragged_header_switch.csv"));
  ASSERT_EQ(p.rows.size(), 5u);
  EXPECT_EQ(p.header.size(), 13u);  // the last header seen

  const auto* dcgan = find(p, "dcgan");  // longer than the 7-column header
  ASSERT_NE(dcgan, nullptr);
  ASSERT_EQ(dcgan->extra.size(), 2u);
  EXPECT_EQ(dcgan->extra[0].first, "col8");
  EXPECT_EQ(dcgan->extra[0].second, "1.5");
  EXPECT_EQ(dcgan->extra[1].first, "col9");
  EXPECT_FALSE(dcgan->eager_peak_mem_gb.has_value());

  const auto* drq = find(p, "drq");  // shorter
  ASSERT_NE(drq, nullptr);
  EXPECT_TRUE(drq->short_row);
  EXPECT_DOUBLE_EQ(*drq->speedup, 0.95);
  EXPECT_EQ(drq->batch_size, 1);
  EXPECT_FALSE(drq->abs_latency_ms.has_value());

  const auto* vgg = find(p, "vgg16");  // after the longer header of line 5
  ASSERT_NE(vgg, nullptr);
  EXPECT_EQ(vgg->line, 6);
  EXPECT_DOUBLE_EQ(*vgg->eager_peak_mem_gb, 3.0);
  EXPECT_EQ(vgg->calls_captured, 10);
  EXPECT_EQ(vgg->unique_graph_breaks, 1);
  EXPECT_TRUE(vgg->extra.empty());

  const auto* q = find(p, "model,with \"quotes\"");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->batch_size, 2);
  EXPECT_EQ(q->line, 7);
}

TEST(BenchmarkCsv, DuplicatesKeepPassingThenFastestThenFirst) {
  auto p = parse_ok(read_fixture("ingest/duplicates.csv"));
  EXPECT_EQ(p.duplicates_dropped, 4);
  ASSERT_EQ(p.rows.size(), 4u);
  // file order of the kept rows
  EXPECT_EQ(p.rows[0].model, "resnet50");
  EXPECT_EQ(p.rows[0].line, 5);  // passing, 48.0 < 50.0; the 0.0-latency row does not count as fastest
  EXPECT_DOUBLE_EQ(*p.rows[0].abs_latency_ms, 48.0);
  EXPECT_EQ(p.rows[1].model, "alexnet");
  EXPECT_EQ(p.rows[1].line, 6);  // failure row of line 2 loses to passing rows; 8.5 < 9.0
  EXPECT_EQ(p.rows[1].speedup_text, "1.12");
  EXPECT_EQ(p.rows[2].model, "vgg16");
  EXPECT_EQ(p.rows[2].dev, "cuda");
  EXPECT_EQ(p.rows[3].model, "vgg16");  // another device is not a duplicate
  EXPECT_EQ(p.rows[3].dev, "xpu");
  EXPECT_EQ(p.content_axes.device, "");  // cuda and xpu
}

TEST(BenchmarkCsv, DuplicatesAllFailingKeepFirst) {
  auto p = parse_ok("dev,name,batch_size,speedup\ncuda,m,0,0\ncuda,m,0,0.0\n");
  EXPECT_EQ(p.duplicates_dropped, 1);
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].line, 2);
}

TEST(BenchmarkCsv, AccuracyFileKeepsUnknownStatusAndPrefersPassingDuplicate) {
  auto p = parse_ok(read_fixture("ingest/accuracy_unknown_status.csv"));
  EXPECT_EQ(p.kind, "accuracy");
  EXPECT_EQ(p.content_axes.kind, "accuracy");
  EXPECT_EQ(p.duplicates_dropped, 1);
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0].accuracy, "pass");
  EXPECT_DOUBLE_EQ(*p.rows[0].compilation_latency_s, 25.5);
  EXPECT_FALSE(p.rows[0].speedup.has_value());
  EXPECT_EQ(p.rows[1].accuracy, "fail_to_run_at_batch_8");
  EXPECT_EQ(p.rows[2].model, "XGLMForCausalLM");
  EXPECT_EQ(p.rows[2].accuracy, "killed_by_watchdog");
  EXPECT_EQ(p.rows[3].model, "BartForCausalLM");
  EXPECT_EQ(p.rows[3].accuracy, "pass");  // line 6 pass beats line 3 fail_accuracy
  EXPECT_EQ(p.rows[3].line, 6);
  EXPECT_EQ(p.rows[3].graph_breaks, 1);
}

TEST(BenchmarkCsv, HashHeaderIsStripped) {
  auto p = parse_ok("#dev,name,batch_size,speedup\ncuda,m,2,1.5\n");
  EXPECT_EQ(p.header.front(), "dev");
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].dev, "cuda");
}

TEST(BenchmarkCsv, NanAndInfAreNotMeasured) {
  auto p = parse_ok(std::string(kH16) + "\nxpu,m,2,1.5,10.0,3.0,nan,1.0,inf,1,1,0,0,0,0,0\n");
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_FALSE(p.rows[0].compression_ratio.has_value());
  EXPECT_FALSE(p.rows[0].dynamo_peak_mem_gb.has_value());
  EXPECT_DOUBLE_EQ(*p.rows[0].eager_peak_mem_gb, 1.0);
  EXPECT_EQ(p.rows[0].speedup_text, "1.5");
}

TEST(BenchmarkCsv, EmptyCellsAreNullopt) {
  auto p = parse_ok("dev,name,batch_size,speedup,abs_latency,graph_breaks\ncuda,m,,,,\n");
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].batch_size, 0);
  EXPECT_FALSE(p.rows[0].speedup.has_value());
  EXPECT_FALSE(p.rows[0].graph_breaks.has_value());
  EXPECT_FALSE(p.rows[0].short_row);
}

TEST(BenchmarkCsv, OptionalColumnsGoToExtra) {
  auto p = parse_ok(
      "dev,name,batch_size,tag,speedup,abs_latency,baseline,speedup_vs_baseline,compilation_latency\n"
      "cuda,m,4,nightly,1.2,3.0,2.5,1.1,9.0\n");
  ASSERT_EQ(p.rows.size(), 1u);
  const auto& r = p.rows[0];
  EXPECT_EQ(extra(r, "tag"), "nightly");
  EXPECT_EQ(extra(r, "baseline"), "2.5");
  EXPECT_EQ(extra(r, "speedup_vs_baseline"), "1.1");
  EXPECT_DOUBLE_EQ(*r.compilation_latency_s, 9.0);
  EXPECT_DOUBLE_EQ(*r.abs_latency_ms, 3.0);
}

// ---- errors ------------------------------------------------------------------------------------------------

TEST(BenchmarkCsvErrors, BadNumberNamesFileLineAndColumn) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup,abs_latency\n\ncuda,a,1,1.0,2.0\ncuda,b,1,1.0,fast\n",
                                 "x/perf.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().kind, perftriage::ErrorKind::invalid_input);
  EXPECT_EQ(r.error().file, "x/perf.csv");
  EXPECT_EQ(r.error().line, 4);
  EXPECT_EQ(r.error().column, "abs_latency");
  EXPECT_NE(r.error().message.find("fast"), std::string::npos);
  EXPECT_NE(r.error().message.find("x/perf.csv"), std::string::npos);
}

TEST(BenchmarkCsvErrors, BadBatchSize) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup\ncuda,a,sixteen,1.0\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().column, "batch_size");
}

TEST(BenchmarkCsvErrors, BadIntegerStat) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup,graph_breaks\ncuda,a,1,1.0,1.5\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().column, "graph_breaks");
}

TEST(BenchmarkCsvErrors, NoHeaderWithoutNameOrKind) {
  auto r = pi::parse_results_csv("\n\ncuda,alexnet,128,1.1\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "no_header");
  EXPECT_EQ(r.error().file, "p.csv");
  EXPECT_EQ(r.error().line, 3);
  EXPECT_EQ(r.error().column, "");
}

TEST(BenchmarkCsvErrors, NoHeaderWhenNameMissing) {
  auto r = pi::parse_results_csv("dev,model,batch_size,speedup\ncuda,a,1,1.0\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "no_header");
  EXPECT_EQ(r.error().line, 1);
}

TEST(BenchmarkCsvErrors, NoHeaderWhenNeitherSpeedupNorAccuracy) {
  auto r = pi::parse_results_csv("name,graph_breaks\nalexnet,0\n", "ref.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "no_header");
  EXPECT_EQ(r.error().line, 1);
}

TEST(BenchmarkCsvErrors, EmptyFile) {
  for (std::string bytes : {"", "\n\n", "# only a comment\n", "\xEF\xBB\xBF"}) {
    auto r = pi::parse_results_csv(bytes, "e.csv");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "no_header");
    EXPECT_EQ(r.error().file, "e.csv");
    EXPECT_EQ(r.error().line, 0);
  }
}

TEST(BenchmarkCsvErrors, MissingModelName) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup\ncuda,,1,1.0\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "missing_name");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().column, "name");
}

TEST(BenchmarkCsvErrors, UnterminatedQuote) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup\ncuda,\"open,1,1.0\ncuda,b,1,1.0\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "unterminated_quote");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().file, "p.csv");
}

TEST(BenchmarkCsvErrors, MixedKindsHeader) {
  auto r = pi::parse_results_csv("dev,name,batch_size,speedup\ncuda,a,1,1.0\ndev,name,batch_size,accuracy\n", "p.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "mixed_kinds");
  EXPECT_EQ(r.error().line, 3);
}

// ---- sniff --------------------------------------------------------------------------------------------------

TEST(SniffCsv, Flavors) {
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/perf_2023_7col.csv")), pi::CsvFlavor::results);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/accuracy_unknown_status.csv")), pi::CsvFlavor::results);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/prefix_scenario_suite.csv")), pi::CsvFlavor::results);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/crlf_blank_comments.csv")), pi::CsvFlavor::results);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/ref_dynamic_inductor_timm_training.csv")), pi::CsvFlavor::reference);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/ref_inference_huggingface0.csv")), pi::CsvFlavor::reference);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/ref_xpu_wide_inductor_torchbench_training.csv")),
            pi::CsvFlavor::reference);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/ref_xpu_combined.csv")), pi::CsvFlavor::reference);
  EXPECT_EQ(pi::sniff_csv(read_fixture("ingest/ref_speedup_targets_cpu.csv")), pi::CsvFlavor::reference);
  EXPECT_EQ(pi::sniff_csv(""), pi::CsvFlavor::unknown);
  EXPECT_EQ(pi::sniff_csv("a,b,c\n1,2,3\n"), pi::CsvFlavor::unknown);
  EXPECT_EQ(pi::sniff_csv("{\"traceEvents\": []}"), pi::CsvFlavor::unknown);
  EXPECT_EQ(pi::sniff_csv("dev,name,batch_size\n"), pi::CsvFlavor::unknown);
}
