#include "ingest/artifact_path.hpp"

#include <gtest/gtest.h>

namespace pi = perftriage::ingest;

TEST(Normalize, Suites) {
  EXPECT_EQ(pi::normalize_suite("huggingface"), "huggingface");
  EXPECT_EQ(pi::normalize_suite("timm"), "timm_models");
  EXPECT_EQ(pi::normalize_suite("TIMM_MODELS"), "timm_models");
  EXPECT_EQ(pi::normalize_suite("torchbench"), "torchbench");
  EXPECT_EQ(pi::normalize_suite("MyBench"), "mybench");
  EXPECT_EQ(pi::normalize_suite(""), "");
}

TEST(Normalize, Dtypes) {
  EXPECT_EQ(pi::normalize_dtype("fp32"), "float32");
  EXPECT_EQ(pi::normalize_dtype("float32"), "float32");
  EXPECT_EQ(pi::normalize_dtype("bf16"), "bfloat16");
  EXPECT_EQ(pi::normalize_dtype("BFloat16"), "bfloat16");
  EXPECT_EQ(pi::normalize_dtype("fp16"), "float16");
  EXPECT_EQ(pi::normalize_dtype("amp-bf16"), "amp_bf16");
  EXPECT_EQ(pi::normalize_dtype("amp_bfloat16"), "amp_bf16");
  EXPECT_EQ(pi::normalize_dtype("amp-fp16"), "amp_fp16");
  EXPECT_EQ(pi::normalize_dtype("amp_float16"), "amp_fp16");
  EXPECT_EQ(pi::normalize_dtype("amp"), "amp");
  EXPECT_EQ(pi::normalize_dtype("Int8"), "int8");
  EXPECT_EQ(pi::normalize_dtype(""), "");
}

TEST(Normalize, ModesAndKinds) {
  EXPECT_EQ(pi::normalize_mode("Inference"), "inference");
  EXPECT_EQ(pi::normalize_mode("train"), "training");
  EXPECT_EQ(pi::normalize_kind("performance"), "performance");
  EXPECT_EQ(pi::normalize_kind("perf"), "performance");
  EXPECT_EQ(pi::normalize_kind("accuracy"), "accuracy");
  EXPECT_EQ(pi::normalize_kind(""), "");
}

TEST(AxesFromPath, TorchXpuOpsInductorLog) {
  auto a =
      pi::axes_from_path("inductor_log/huggingface/amp_bf16/inductor_huggingface_amp_bf16_training_xpu_accuracy.csv");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.dtype, "amp_bf16");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.device, "xpu");
  EXPECT_EQ(a.kind, "accuracy");
  EXPECT_EQ(a.config, "");
}

TEST(AxesFromPath, SeedIssueLayout) {
  auto a = pi::axes_from_path(
      "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.dtype, "bfloat16");
  EXPECT_EQ(a.mode, "inference");
  EXPECT_EQ(a.device, "xpu");
  EXPECT_EQ(a.kind, "performance");
  EXPECT_EQ(a.config, "");
}

TEST(AxesFromPath, SeedIssueLayoutTimmAndAmpDashes) {
  auto a = pi::axes_from_path(
      "timm_models/amp_fp16/training/accuracy/inductor-results-timm_models-amp_fp16-training-xpu-accuracy.csv");
  EXPECT_EQ(a.suite, "timm_models");
  EXPECT_EQ(a.dtype, "amp_fp16");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.kind, "accuracy");
}

TEST(AxesFromPath, PytorchCiNames) {
  auto a = pi::axes_from_path("test/test-reports/inductor_no_cudagraphs_huggingface_amp_training_cuda_performance.csv");
  EXPECT_EQ(a.config, "no_cudagraphs");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.dtype, "amp");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.device, "cuda");
  EXPECT_EQ(a.kind, "performance");

  auto b = pi::axes_from_path("inductor_with_cudagraphs_timm_models_bfloat16_inference_cuda_accuracy.csv");
  EXPECT_EQ(b.config, "with_cudagraphs");
  EXPECT_EQ(b.suite, "timm_models");
  EXPECT_EQ(b.dtype, "bfloat16");
  EXPECT_EQ(b.kind, "accuracy");

  auto c = pi::axes_from_path("inductor_cpp_wrapper_max_autotune_torchbench_amp_bf16_inference_cpu_performance.csv");
  EXPECT_EQ(c.config, "cpp_wrapper_max_autotune");
  EXPECT_EQ(c.suite, "torchbench");
  EXPECT_EQ(c.dtype, "amp_bf16");
  EXPECT_EQ(c.device, "cpu");
}

TEST(AxesFromPath, ReferenceNames) {
  auto a = pi::axes_from_path("benchmarks/dynamo/ci_expected_accuracy/inductor_huggingface_training.csv");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.config, "inductor");
  EXPECT_EQ(a.dtype, "");
  EXPECT_EQ(a.kind, "");

  auto d = pi::axes_from_path("ci_expected_accuracy/dynamic_inductor_timm_training.csv");
  EXPECT_EQ(d.suite, "timm_models");
  EXPECT_EQ(d.mode, "training");
  EXPECT_EQ(d.config, "dynamic_inductor");

  auto l = pi::axes_from_path("ci_expected_accuracy/inference_huggingface0.csv");
  EXPECT_EQ(l.suite, "huggingface");
  EXPECT_EQ(l.mode, "inference");
  EXPECT_EQ(l.config, "");
}

TEST(AxesFromPath, WindowsBackslashesAndDirectories) {
  auto a = pi::axes_from_path("C:\\runs\\torchbench\\float16\\training\\results.csv");
  EXPECT_EQ(a.suite, "torchbench");
  EXPECT_EQ(a.dtype, "float16");
  EXPECT_EQ(a.mode, "training");
  EXPECT_EQ(a.kind, "");
  EXPECT_EQ(a.device, "");
}

TEST(AxesFromPath, ConflictsAndUnknownsStayEmpty) {
  // the directory says float16, the file name bfloat16: ambiguous
  auto a = pi::axes_from_path("huggingface/float16/inductor_huggingface_bfloat16_inference_xpu_performance.csv");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.dtype, "");
  EXPECT_EQ(a.mode, "inference");

  auto b = pi::axes_from_path("inductor_huggingface_int3_inference_xpu_performance.csv");
  EXPECT_EQ(b.dtype, "");  // not a known dtype
  EXPECT_EQ(b.suite, "huggingface");

  auto c = pi::axes_from_path("results.csv");
  EXPECT_EQ(c.suite, "");
  EXPECT_EQ(c.mode, "");
  EXPECT_EQ(c.kind, "");

  EXPECT_EQ(pi::axes_from_path("").suite, "");
  EXPECT_EQ(pi::axes_from_path("/").suite, "");
  EXPECT_EQ(pi::axes_from_path("huggingface/").suite, "huggingface");
}
