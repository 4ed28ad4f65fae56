#include "ingest/reference_csv.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ingest/artifact_path.hpp"
#include "tests/support/files.hpp"

namespace pi = perftriage::ingest;
using perftriage::testing::read_fixture;

namespace {

pi::ParsedReference parse_ok(const std::string& bytes, const pi::Axes& axes, const std::string& name = "r.csv") {
  auto r = pi::parse_reference_csv(bytes, name, axes);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().code + ": " + r.error().message);
  if (!r.ok()) return {};
  return std::move(r).value();
}

const pi::Expectation* find(const pi::ParsedReference& p, const std::string& model, const std::string& dtype = {},
                            const std::string& mode = {}) {
  for (const auto& e : p.rows)
    if (e.model == model && (dtype.empty() || e.dtype == dtype) && (mode.empty() || e.mode == mode)) return &e;
  return nullptr;
}

}  // namespace

TEST(ReferenceCsv, PytorchAccuracyWithBlankLinesAxesFromPath) {
  const pi::Axes axes = pi::axes_from_path("benchmarks/dynamo/ci_expected_accuracy/dynamic_inductor_timm_training.csv");
  auto p = parse_ok(read_fixture("ingest/ref_dynamic_inductor_timm_training.csv"), axes);
  EXPECT_EQ(p.format, "pytorch_accuracy");
  ASSERT_EQ(p.rows.size(), 3u);
  const auto& a = p.rows[0];
  EXPECT_EQ(a.model, "adv_inception_v3");
  EXPECT_EQ(a.line, 5);
  EXPECT_EQ(a.suite, "timm_models");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.config, "dynamic_inductor");
  EXPECT_EQ(a.dtype, "");
  EXPECT_EQ(a.accuracy, "pass");
  EXPECT_EQ(a.graph_breaks, 6);
  EXPECT_EQ(p.rows[2].accuracy, "pass_due_to_skip");
  EXPECT_EQ(p.rows[2].graph_breaks, 7);
  EXPECT_EQ(p.rows[2].line, 13);
}

TEST(ReferenceCsv, LegacyGraphBreaksOnly) {
  const pi::Axes axes = pi::axes_from_path("ci_expected_accuracy/inference_huggingface0.csv");
  auto p = parse_ok(read_fixture("ingest/ref_inference_huggingface0.csv"), axes);
  EXPECT_EQ(p.format, "pytorch_graph_breaks");
  ASSERT_EQ(p.rows.size(), 3u);
  const auto* d = find(p, "DebertaForMaskedLM");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->graph_breaks, 47);
  EXPECT_EQ(d->accuracy, "");
  EXPECT_EQ(d->suite, "huggingface");
  EXPECT_EQ(d->mode, "inference");
}

TEST(ReferenceCsv, XpuWideOnePerModelAndDtypeSkippingComments) {
  pi::Axes axes;
  axes.suite = "torchbench";
  axes.mode = "training";
  auto p = parse_ok(read_fixture("ingest/ref_xpu_wide_inductor_torchbench_training.csv"), axes);
  EXPECT_EQ(p.format, "xpu_wide");
  // torchrec_dlrm 5 + BERT_pytorch 5 + yolov3 4 (one empty cell); the commented vision_maskrcnn row is skipped
  EXPECT_EQ(p.rows.size(), 14u);
  EXPECT_EQ(find(p, "vision_maskrcnn"), nullptr);
  const auto* t = find(p, "torchrec_dlrm", "bfloat16");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->accuracy, "eager_fail_to_run");
  EXPECT_EQ(t->suite, "torchbench");
  EXPECT_EQ(t->mode, "training");
  EXPECT_EQ(t->line, 3);
  EXPECT_EQ(find(p, "yolov3", "amp_fp16")->accuracy, "fail_accuracy");
  EXPECT_EQ(find(p, "yolov3", "float16"), nullptr);
  EXPECT_FALSE(t->graph_breaks.has_value());
}

TEST(ReferenceCsv, XpuCombinedOnePerModelModeDtype) {
  auto p = parse_ok(read_fixture("ingest/ref_xpu_combined.csv"), pi::Axes{});
  EXPECT_EQ(p.format, "xpu_combined");
  EXPECT_EQ(p.rows.size(), 30u);
  const auto* v = find(p, "vision_maskrcnn", "amp_fp16", "training");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->accuracy, "fail_to_run");
  EXPECT_EQ(v->suite, "torchbench");
  const auto* vi = find(p, "vision_maskrcnn", "amp_bf16", "inference");
  ASSERT_NE(vi, nullptr);
  EXPECT_EQ(vi->accuracy, "fail_accuracy");
  const auto* adv = find(p, "adv_inception_v3", "amp_fp16", "inference");
  EXPECT_EQ(adv->accuracy, "eager_variation");
  EXPECT_EQ(adv->suite, "timm_models");
  EXPECT_EQ(adv->line, 4);
}

TEST(ReferenceCsv, SpeedupTargetsHashHeaderAndCommentedRows) {
  pi::Axes axes = pi::axes_from_path("benchmarks/dynamo/expected_ci_speedup_inductor_torchbench_cpu.csv");
  EXPECT_EQ(axes.suite, "torchbench");
  auto p = parse_ok(read_fixture("ingest/ref_speedup_targets_cpu.csv"), axes);
  EXPECT_EQ(p.format, "speedup_targets");
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(find(p, "timm_vision_transformer"), nullptr);
  const auto* ph = find(p, "phlippe_densenet");
  ASSERT_NE(ph, nullptr);
  EXPECT_DOUBLE_EQ(*ph->speedup_target, 1.3988316);
  EXPECT_EQ(ph->dtype, "float32");
  EXPECT_EQ(ph->config, "static_default");
  EXPECT_EQ(ph->suite, "torchbench");
  EXPECT_EQ(ph->line, 3);
  EXPECT_EQ(find(p, "mobilenet_v3_large")->config, "static_cpp");
  EXPECT_EQ(find(p, "basic_gnn_gcn")->config, "dynamic_default");
  EXPECT_EQ(find(p, "vgg16")->dtype, "amp");
}

TEST(ReferenceCsvErrors, UnknownAxesNamesWhatIsMissing) {
  auto r = pi::parse_reference_csv(read_fixture("ingest/ref_inference_huggingface0.csv"), "upload.csv", pi::Axes{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "unknown_axes");
  EXPECT_EQ(r.error().file, "upload.csv");
  EXPECT_EQ(r.error().line, 0);
  EXPECT_EQ(r.error().column, "suite and mode");
  EXPECT_NE(r.error().message.find("upload.csv"), std::string::npos);

  pi::Axes only_suite;
  only_suite.suite = "huggingface";
  auto m = pi::parse_reference_csv("name,float32\nm,pass\n", "w.csv", only_suite);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "unknown_axes");
  EXPECT_EQ(m.error().column, "mode");
}

TEST(ReferenceCsvErrors, BadGraphBreaks) {
  pi::Axes axes{"huggingface", "", "inference", "", "", ""};
  auto r = pi::parse_reference_csv("name,accuracy,graph_breaks\n\n\n\nm,pass,many\n", "r.csv", axes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().line, 5);
  EXPECT_EQ(r.error().column, "graph_breaks");
  EXPECT_EQ(r.error().file, "r.csv");
}

TEST(ReferenceCsvErrors, BadSpeedupTarget) {
  pi::Axes axes{"torchbench", "", "", "", "", ""};
  auto r = pi::parse_reference_csv("#name,data_type,shape,wrapper,perf_speedup_target_x\nm,float32,static,cpp,fast\n",
                                   "t.csv", axes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_number");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().column, "perf_speedup_target_x");
}

TEST(ReferenceCsvErrors, UnknownFormat) {
  auto r = pi::parse_reference_csv("\nfoo,bar\n1,2\n", "r.csv", pi::Axes{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "unknown_reference_format");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_EQ(r.error().file, "r.csv");
}

TEST(ReferenceCsvErrors, EmptyFile) {
  auto r = pi::parse_reference_csv("\n# nothing\n", "r.csv", pi::Axes{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "no_header");
  EXPECT_EQ(r.error().line, 0);
}
