// Case extraction: the seven E2E shapes and the UT forms.
#include "analyzers/labeler/cases.hpp"
#include "analyzers/labeler/text.hpp"
#include "analyzers/labeler/vocab.hpp"
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

CaseScan scan(const std::string& body, const std::string& title = "") {
  return extract_cases(preprocess(body).lines, title);
}

TEST(LabelerCases, CombinedCells) {
  auto a = parse_combined("huggingface_amp_bf16_training");
  EXPECT_EQ(a.suite, "huggingface");
  EXPECT_EQ(a.dtype, "amp_bf16");
  EXPECT_EQ(a.mode, "training");
  auto b = parse_combined("inference_amp-bf16");
  EXPECT_EQ(b.dtype, "amp_bf16");
  EXPECT_EQ(b.mode, "inference");
  auto c = parse_combined("amp_bf16 / inference");
  EXPECT_EQ(c.dtype, "amp_bf16");
  EXPECT_EQ(c.mode, "inference");
  auto d = parse_combined("timm_models float16 training");
  EXPECT_EQ(d.suite, "timm_models");
  EXPECT_EQ(parse_combined("bf16 and fp16").dtype, "");  // ambiguous: no value
}

TEST(LabelerCases, UnitTestDtypeSuffix) {
  EXPECT_EQ(dtype_from_test_name("test_compare_cpu_nn_functional_conv3d_xpu_float64"), "float64");
  EXPECT_EQ(dtype_from_test_name("test_x_xpu_float8_e4m3fn"), "float8");
  EXPECT_EQ(dtype_from_test_name("test_sum_xpu_complex64"), "complex");
  EXPECT_EQ(dtype_from_test_name("test_sdpa_xpu"), "");
}

TEST(LabelerCases, MarkdownTable) {
  auto s = scan(
      "| suite | dtype | mode | model | batch_size | speedup |\n|---|---|---|---|---|---|\n"
      "| huggingface | bfloat16 | inference | BertForMaskedLM | 8 | 0.71 |\n");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].display(), "huggingface/BertForMaskedLM/inference/bfloat16");
  EXPECT_DOUBLE_EQ(s.cases[0].speedup.value_or(0), 0.71);
  EXPECT_TRUE(s.e2e_table);
}

TEST(LabelerCases, ExcelPaste) {
  auto s = scan(
      "Suite | Dtype | Mode | Model | speedup\n-- | -- | -- | -- | --\n"
      "timm_models | float16 | training | levit_128 | 0.8\n");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].model, "levit_128");
  EXPECT_EQ(s.table_shape, "Excel paste table");
}

TEST(LabelerCases, ContextFillsMissingColumns) {
  auto s = scan("### torchbench amp_fp16 training\n\n| model | speedup |\n| --- | --- |\n| resnet50 | 0.9 |\n");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].display(), "torchbench/resnet50/training/amp_fp16");
}

TEST(LabelerCases, SummaryLogAndStatuses) {
  auto s = scan(
      "Summary for torchbench bfloat16 inference accuracy\n"
      "  Real failed models: 2 [['hf_T5', 'fail_accuracy'], ['hf_Bert', 'eager_fail_to_run']]\n");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].display(), "torchbench/hf_T5/inference/bfloat16");
  EXPECT_EQ(s.cases[1].status, "eager_fail_to_run");
  auto lines = scan(
      "Summary for huggingface float16 training accuracy\nxpu  train  T5Small  fail_accuracy\n"
      "xpu  train  GPT2  pass\n");
  ASSERT_EQ(lines.cases.size(), 1u);
  EXPECT_EQ(lines.cases[0].model, "T5Small");
}

TEST(LabelerCases, BenchmarkCommands) {
  auto s = scan(
      "python benchmarks/dynamo/huggingface.py --accuracy --amp --amp-dtype bfloat16 -d xpu \\\n"
      "    --training --only T5Small\n");
  ASSERT_EQ(s.cases.size(), 1u);
  EXPECT_EQ(s.cases[0].display(), "huggingface/T5Small/training/amp_bf16");
  auto plain = scan("python benchmarks/dynamo/torchbench.py --performance --bfloat16 --inference --only=alexnet");
  ASSERT_EQ(plain.cases.size(), 1u);
  EXPECT_EQ(plain.cases[0].display(), "torchbench/alexnet/inference/bfloat16");
  auto amp_only = scan("python benchmarks/dynamo/timm_models.py --amp --training --only beit");
  ASSERT_EQ(amp_only.cases.size(), 1u);
  EXPECT_EQ(amp_only.cases[0].dtype, "");  // --amp without --amp-dtype: unknown
}

TEST(LabelerCases, UnitTestForms) {
  auto s = scan(
      "Cases:\nop_ut,third_party.torch-xpu-ops.test.xpu.test_ops_xpu.TestCommonXPU,test_foo_xpu_float32\n\n"
      "test/test_nn.py::TestNNDeviceTypeXPU::test_bar_xpu_bfloat16\n"
      "FAILED test/test_torch.py::TestTorchXPU::test_baz_xpu_int64 - RuntimeError: not implemented\n");
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_EQ(s.cases[0].suite, "op_ut");
  EXPECT_EQ(s.cases[0].test_id, "third_party.torch-xpu-ops.test.xpu.test_ops_xpu.TestCommonXPU::test_foo_xpu_float32");
  EXPECT_EQ(s.cases[0].dtype, "float32");
  EXPECT_EQ(s.cases[1].dtype, "bfloat16");
  EXPECT_EQ(s.cases[2].error, "RuntimeError: not implemented");
  EXPECT_FALSE(s.cases[2].e2e);
}

TEST(LabelerCases, UrlIsNotACase) {
  auto s = scan("See https://huggingface.co/bert-base-uncased and https://github.com/pytorch/benchmark");
  EXPECT_TRUE(s.cases.empty());
  auto r = label("Loading bert-base fails", "See https://huggingface.co/bert-base-uncased\nRuntimeError: x\n");
  EXPECT_EQ(value_of(r, "test"), "test: ut");
}

// Titles of real torch-xpu-ops issues the tracker labels `test: ut` (#4279, #5454, #5041, #4071): a rule's decision
// with the title's words as its reason, not the taxonomy's default (which the learned layer may withdraw).
TEST(LabelerCases, AUnitTestTitleDecidesUt) {
  const std::pair<const char*, const char*> titles[] = {
      {"UT RuntimeError: MKL FFT doesn't support tensor of type", "Title names unit tests."},
      {"[Bug Skip]: [BMG] upstream_inductor UT failures (130 cases)",
       "Title tag [Bug Skip] (skipped unit-test cases)."},
      {"[release/2.14] test_linalg_xpu.py::TestLinalgXPU::test_cond_errors_and_warnings_xpu_float32 Windows",
       "Title names a test class."},
      {"[release/2.13] dynamo\\test_higher_order_ops_xpu.py AssertionError",
       "Title names the test file `test_higher_order_ops_xpu.py`."},
  };
  for (const auto& [title, why] : titles) {
    auto r = label(title, "");
    EXPECT_EQ(value_of(r, "test"), "test: ut") << title;
    if (const auto* a = row(r, "test")) {
      EXPECT_EQ(a->reason, why) << title;
      EXPECT_EQ(a->layer, Origin::rules) << title;
    }
  }
  // Words that only contain the letters, or a .py file that is not a test, decide nothing.
  for (const char* title : {"Outstanding crash in utils", "setup.py fails to build", "butterfly kernel hangs"}) {
    auto r = label(title, "");
    if (const auto* a = row(r, "test")) {
      EXPECT_EQ(a->layer, Origin::fallback) << title;
    }
  }
  // An E2E title still wins: the suite named first.
  EXPECT_EQ(value_of(label("[Bug Skip]: timm_models accuracy fail_accuracy", ""), "test"), "test: e2e");
}

// The traceback of real torch-xpu-ops #1612 (tracker: `module: ut`): a frame in a test file and test function decides
// `test: ut` as a rule. A frame in a benchmark script, or in a test file outside a test function, does not.
TEST(LabelerCases, ATracebackInATestDecidesUt) {
  const char* body =
      "```\n"
      "  File \"/home/sdp/pytorch/third_party/torch-xpu-ops/test/xpu/../../../../test/test_ops.py\", line 393, in "
      "test_compare_cpu\n"
      "    cuda_results = op(sample.input, *sample.args, **sample.kwargs)\n"
      "RuntimeError: could not create a primitive descriptor for the matmul primitive.\n"
      "```\n";
  auto r = label("[oneDNN] RuntimeError: could not create a primitive descriptor for the matmul primitive", body);
  EXPECT_EQ(value_of(r, "test"), "test: ut");
  if (const auto* a = row(r, "test")) {
    EXPECT_EQ(a->reason, "Traceback frame in the test `test_ops.py::test_compare_cpu`.");
    EXPECT_EQ(a->layer, Origin::rules);
  }
  for (const char* frame : {"  File \"benchmarks/dynamo/common.py\", line 2100, in test_run\n",
                            "  File \"/w/test/contest_ops.py\", line 12, in test_x\n",
                            "  File \"/w/test/test_ops.py\", line 12, in helper\n"}) {
    auto other = label("RuntimeError: could not create a primitive descriptor",
                       std::string("```\nTraceback (most recent call last):\n") + frame + "RuntimeError: boom\n```\n");
    if (const auto* a = row(other, "test")) {
      EXPECT_NE(a->layer, Origin::rules) << frame;
    }
  }
}

// Real torch-xpu-ops issues of the training history that the tracker labels `test: e2e` (#1385, #4379, #2150) and
// `module: ao` (#1833, #3887): the word E2E in a title, an E2E status anywhere in the issue, a benchmark command run
// on Windows, and the PT2E quantization flow's tag.
TEST(LabelerCases, E2EWordsStatusesAndWindowsCommands) {
  const auto test_reason = [](const LabelResult& r) {
    const auto* a = row(r, "test");
    return a ? a->reason : std::string{};
  };
  auto word = label("Most of E2E models failed with torch._inductor.exc.InductorError on BMG windows", "");
  EXPECT_EQ(value_of(word, "test"), "test: e2e");
  auto status = label("[Triton 3.8.0] Track Triton 3.8.0 upgrade issues on B60 Linux",
                      "Platform: B60 Linux\nTriton bad: 3.8.0\nfail_to_run\ntimeout\n");
  EXPECT_EQ(value_of(status, "test"), "test: e2e");
  EXPECT_EQ(test_reason(status), "Benchmark status `fail_to_run`.");
  EXPECT_EQ(value_of(label("convit_base bfloat16 training accuracy got eager_fail_to_run", ""), "test"), "test: e2e");
  // A unit test's timeout or pass is no benchmark status.
  EXPECT_EQ(value_of(label("test_foo hangs", "FAILED test_foo.py::test_foo - timeout\n"), "test"), "test: ut");

  auto windows = label("[Windows] Triton error on BMG",
                       "python benchmarks\\dynamo\\huggingface.py --accuracy -d xpu -n10 --backend=inductor "
                       "--inference --float32 --output=C:\\logs\\out.csv\n");
  EXPECT_EQ(value_of(windows, "test"), "test: e2e");
  EXPECT_NE(test_reason(windows).find("benchmarks/dynamo/huggingface.py"), std::string::npos) << test_reason(windows);

  EXPECT_EQ(value_of(label("[Linux][PT2E] performance test got failed, int8 ASYMM and int8 SYMM",
                           "python run_benchmark.py xpu --torchdynamo inductor -m demucs --quantization pt2e\n"),
                     "module"),
            "module: ao");
}

// One platform tag decides hw whatever else the title names (history #2662, tracker `hw: BMG`); two platforms
// without a tag, or two tags, decide nothing.
TEST(LabelerCases, OnePlatformTagDecidesHw) {
  auto tagged = label("[release/2.10][Windows][BMG] New failed test cases and 2.9 also failed but pvc passed", "");
  EXPECT_EQ(value_of(tagged, "hw"), "hw: BMG");
  EXPECT_EQ(value_of(label("Models got fail accuracy on BMG but passed on PVC", ""), "hw"), "");
  EXPECT_EQ(value_of(label("[Windows][LNL][BMG] PyTorch 2.9 UT regression summary", ""), "hw"), "");
  EXPECT_EQ(value_of(label("Softmax slow on BMG", ""), "hw"), "hw: BMG");
}

TEST(LabelerCases, RegressionNeedsABeforeAfterPair) {
  EXPECT_FALSE(has_label(label("[regression] hf_T5 slower", "speedup 0.8"), "regression"));
  EXPECT_TRUE(has_label(label("[regression] hf_T5 slower", "speedup 0.8 with 2.13 vs 2.12"), "regression"));
  EXPECT_TRUE(has_label(label("hf_T5 slower", "last good: 2.12, current: 2.13, speedup 0.8"), "regression"));
  EXPECT_FALSE(has_label(label("hf_T5 slower", "inductor compared with eager: speedup 0.8"), "regression"));
}

TEST(LabelerCases, PriorityHumanValueWins) {
  auto r = label("[BMG] feature: add foo", "would be nice", {"P0"});
  EXPECT_EQ(value_of(r, "priority"), "Urgent");
  EXPECT_FALSE(has_label(r, "Urgent"));  // priority is a field, not a label
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
