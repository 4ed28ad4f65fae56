#include "analyzers/labeler/vocab.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "analyzers/labeler/text.hpp"

namespace perftriage::analyzers::labeler {
namespace {

// Longest spellings first: amp_bf16 before bf16.
// clang-format off
constexpr std::array<std::pair<std::string_view, std::string_view>, 47> kDtypes{{
    {"amp_bf16", "amp_bf16"},   {"amp_bfloat16", "amp_bf16"}, {"ampbf16", "amp_bf16"},
    {"amp_fp16", "amp_fp16"},   {"amp_float16", "amp_fp16"},  {"ampfp16", "amp_fp16"},
    {"bfloat16", "bfloat16"},   {"bf16", "bfloat16"},         {"float16", "float16"},
    {"fp16", "float16"},        {"half", "float16"},          {"float32", "float32"},
    {"fp32", "float32"},        {"tf32", "float32"},          {"float", "float32"},
    {"float64", "float64"},     {"fp64", "float64"},          {"double", "float64"},
    {"float8", "float8"},       {"fp8", "float8"},            {"float8_e4m3fn", "float8"},
    {"float8_e5m2", "float8"},  {"e4m3fn", "float8"},         {"e5m2", "float8"},
    {"e4m3fnuz", "float8"},     {"e5m2fnuz", "float8"},       {"float4", "float4"},
    {"fp4", "float4"},          {"float4_e2m1fn_x2", "float4"}, {"mxfp8", "mxfp8"},
    {"mxfp4", "mxfp4"},         {"complex64", "complex"},     {"complex128", "complex"},
    {"complex32", "complex"},   {"chalf", "complex"},         {"cfloat", "complex"},
    {"cdouble", "complex"},     {"complex", "complex"},       {"int64", "int64"},
    {"long", "int64"},          {"int32", "int32"},           {"int16", "int16"},
    {"int8", "int8"},           {"int4", "int4"},             {"qint8", "int8"},
    {"w4a16", "int4"},          {"int", "int32"},
}};
// clang-format on

std::string amp_form(std::string s) {
  // amp-bf16, amp bf16, amp/bf16 -> amp_bf16
  for (auto& c : s)
    if (c == '-' || c == ' ' || c == '/') c = '_';
  return s;
}

}  // namespace

std::string normalize_suite(std::string_view token) {
  auto t = lower(trim(token));
  if (t == "huggingface" || t == "hugging_face") return "huggingface";
  if (t == "timm" || t == "timm_models" || t == "timm_model" || t == "timms") return "timm_models";
  if (t == "torchbench" || t == "torch_bench") return "torchbench";
  return "";
}

std::string normalize_dtype(std::string_view token) {
  auto t = amp_form(lower(trim(token)));
  for (auto [spelling, key] : kDtypes)
    if (t == spelling) return std::string(key);
  return "";
}

std::string normalize_mode(std::string_view token) {
  auto t = lower(trim(token));
  if (t == "inference" || t == "infer" || t == "eval" || t == "inf") return "inference";
  if (t == "training" || t == "train") return "training";
  return "";
}

Combined parse_combined(std::string_view cell) {
  Combined c;
  auto t = lower(trim(cell));
  // Tokenise on everything that is not a letter or a digit, but keep "amp" glued to the dtype after it.
  std::vector<std::string> tokens;
  std::string cur;
  for (char ch : t) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
      cur += ch;
    } else if (!cur.empty()) {
      tokens.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  std::vector<std::string> suites, dtypes, modes;
  auto add = [](std::vector<std::string>& v, std::string s) {
    if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto& tok = tokens[i];
    if (tok == "amp" && i + 1 < tokens.size()) {
      auto d = normalize_dtype("amp_" + tokens[i + 1]);
      if (!d.empty()) {
        add(dtypes, d);
        ++i;
        continue;
      }
    }
    if (tok == "timm" && i + 1 < tokens.size() && tokens[i + 1] == "models") ++i;
    add(suites, normalize_suite(tok));
    if (tok != "int" && tok != "float" && tok != "long" && tok != "half" && tok != "double" && tok != "complex")
      add(dtypes, normalize_dtype(tok));
    add(modes, normalize_mode(tok));
  }
  if (suites.size() == 1) c.suite = suites[0];
  if (dtypes.size() == 1) c.dtype = dtypes[0];
  if (modes.size() == 1) c.mode = modes[0];
  return c;
}

std::string dtype_from_test_name(std::string_view name) {
  auto parts = split(lower(name), '_');
  // Scan from the end: the dtype is the last dtype-looking token (test_x_xpu_float8_e4m3fn -> float8).
  for (std::size_t i = parts.size(); i-- > 1;) {
    const auto& p = parts[i];
    if (p == "xpu" || p == "cpu" || p == "cuda") break;  // the device comes before the dtype
    if (p == "int" || p == "long" || p == "half" || p == "double" || p == "float") continue;
    if (auto d = normalize_dtype(p); !d.empty()) return d;
  }
  if (!parts.empty()) {
    // test_x_xpu_float64 has the dtype after "xpu": look right after the device token.
    for (std::size_t i = 0; i + 1 < parts.size(); ++i)
      if (parts[i] == "xpu" || parts[i] == "cpu" || parts[i] == "cuda") {
        if (auto d = normalize_dtype(parts[i + 1]); !d.empty()) return d;
        if (i + 2 < parts.size())
          if (auto d2 = normalize_dtype(parts[i + 1] + "_" + parts[i + 2]); !d2.empty()) return d2;
      }
  }
  return "";
}

bool is_e2e_status(std::string_view token) {
  auto t = lower(trim(token));
  static constexpr std::array<std::string_view, 14> kStatuses{"fail_accuracy",
                                                              "fail_to_run",
                                                              "eager_fail_to_run",
                                                              "eager_1st_run_fail",
                                                              "eager_2nd_run_fail",
                                                              "eager_two_runs_differ",
                                                              "eager_1st_run_oom",
                                                              "eager_variation",
                                                              "timeout",
                                                              "model_fail_to_load",
                                                              "infra_error",
                                                              "fail_exception",
                                                              "pass",
                                                              "pass_due_to_skip"};
  for (auto s : kStatuses)
    if (t == s) return true;
  return false;
}

bool is_failing_e2e_status(std::string_view token) {
  // Every failing status has an underscore (pass and timeout have none): a plain word costs no lower-casing.
  if (token.find('_') == std::string_view::npos || !is_e2e_status(token)) return false;
  return lower(trim(token)) != "pass_due_to_skip";
}

bool is_eager_status(std::string_view status) { return lower(status).starts_with("eager_"); }

}  // namespace perftriage::analyzers::labeler
