// Axes from artifact paths. Only what the path states: a field whose sources (file name, directories) disagree,
// or that is not stated, stays empty.
//
// File names are split into tokens on '_' and '-' and matched by finding the known suite token, the known mode
// token, the device token and the scenario token; what lies between suite and mode is the dtype (kept only when it
// is a known dtype), what lies before the suite is the config:
//   results names  `[inductor[-results]]_<config>_<suite>_<dtype>_<mode>_<device>_<scenario>`: config = tokens
//                  between the leading backend "inductor" (and "results") and the suite, e.g. "no_cudagraphs";
//   reference names `<config>_<suite>_<mode>` (PyTorch ci_expected_accuracy, torch-xpu-ops): config = every token
//                  before the suite, e.g. "inductor", "dynamic_inductor";
//   legacy reference `<mode>_<suite><shard>` (inference_huggingface0): suite and mode only.
// Directory segments that are exactly a known suite / dtype / mode / scenario spelling add to the evidence.
#include "ingest/artifact_path.hpp"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

struct Alias {
  std::string_view spelling;
  std::string_view canonical;
};

constexpr std::array<Alias, 4> kSuites{{
    {"huggingface", "huggingface"},
    {"timm_models", "timm_models"},
    {"timm", "timm_models"},
    {"torchbench", "torchbench"},
}};

constexpr std::array<Alias, 13> kDtypes{{
    {"float32", "float32"},
    {"fp32", "float32"},
    {"bfloat16", "bfloat16"},
    {"bf16", "bfloat16"},
    {"float16", "float16"},
    {"fp16", "float16"},
    {"amp_bf16", "amp_bf16"},
    {"amp_bfloat16", "amp_bf16"},
    {"ampbf16", "amp_bf16"},
    {"amp_fp16", "amp_fp16"},
    {"amp_float16", "amp_fp16"},
    {"ampfp16", "amp_fp16"},
    {"amp", "amp"},
}};

constexpr std::array<Alias, 4> kModes{{
    {"inference", "inference"},
    {"infer", "inference"},
    {"training", "training"},
    {"train", "training"},
}};

constexpr std::array<Alias, 4> kKinds{{
    {"performance", "performance"},
    {"perf", "performance"},
    {"accuracy", "accuracy"},
    {"acc", "accuracy"},
}};

constexpr std::array<std::string_view, 6> kDevices{{"cuda", "xpu", "cpu", "hpu", "mps", "rocm"}};

template <std::size_t N>
std::optional<std::string> lookup(const std::array<Alias, N>& table, std::string_view s) {
  std::string key = lower(trim_if(s, csv::is_pad));
  for (char& c : key)
    if (c == '-') c = '_';
  for (const auto& a : table)
    if (a.spelling == key) return std::string(a.canonical);
  return std::nullopt;
}

template <std::size_t N>
std::string normalize(const std::array<Alias, N>& table, std::string_view s) {
  if (auto v = lookup(table, s)) return *v;
  return lower(trim_if(s, csv::is_pad));
}

bool is_device(std::string_view t) {
  for (auto d : kDevices)
    if (d == t) return true;
  return false;
}

// Evidence for one field: a value is reported only when every source that states it agrees.
struct Evidence {
  std::string value;
  bool conflict = false;
  void add(const std::string& v) {
    if (v.empty() || conflict) return;
    if (value.empty())
      value = v;
    else if (value != v)
      conflict = true;
  }
  [[nodiscard]] std::string get() const { return conflict ? std::string() : value; }
};

// Suite spelled by tokens starting at i: returns the canonical suite and sets `end` past it.
std::optional<std::string> suite_at(const std::vector<std::string>& t, std::size_t i, std::size_t& end) {
  std::string_view tok = t[i];
  if (tok == "timm" && i + 1 < t.size() && t[i + 1] == "models") {
    end = i + 2;
    return std::string("timm_models");
  }
  // shard suffix: "huggingface0"
  while (!tok.empty() && tok.back() >= '0' && tok.back() <= '9') tok.remove_suffix(1);
  if (tok == "huggingface" || tok == "torchbench" || tok == "timm") {
    end = i + 1;
    return lookup(kSuites, tok);
  }
  return std::nullopt;
}

Axes axes_from_file_name(std::string_view stem) {
  Axes a;
  std::vector<std::string> t;
  std::string cur;
  for (char c : stem) {
    if (c == '_' || c == '-' || c == '.' || c == ' ') {
      if (!cur.empty()) t.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ascii_lower(c));
    }
  }
  if (!cur.empty()) t.push_back(cur);

  std::size_t s = t.size();
  std::size_t s_end = t.size();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (auto suite = suite_at(t, i, s_end)) {
      a.suite = *suite;
      s = i;
      break;
    }
  }
  std::size_t m = t.size();
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "inference" || t[i] == "training") {
      m = i;
      a.mode = t[i];
      break;
    }
  }
  if (s == t.size()) {
    return a;  // no suite: whatever mode said stays, nothing else is reliable
  }
  if (m == t.size() || m < s) {
    // no mode after the suite (speedup-target names, legacy "inference_huggingface0"): a device after the suite
    for (std::size_t i = s_end; i < t.size(); ++i)
      if (is_device(t[i])) {
        a.device = t[i];
        break;
      }
    return a;
  }
  if (m > s_end) {
    if (auto d = lookup(kDtypes, join(std::span(t).subspan(s_end, m - s_end), "_"))) a.dtype = *d;
  }
  std::size_t k = m + 1;
  if (k < t.size() && is_device(t[k])) a.device = t[k++];
  for (std::size_t i = k; i < t.size(); ++i) {
    if (t[i] == "performance" || t[i] == "accuracy") {
      a.kind = t[i];
      break;
    }
  }
  if (!a.device.empty() || !a.kind.empty()) {
    std::size_t from = 0;
    if (from < s && t[from] == "inductor") ++from;
    if (from < s && t[from] == "results") ++from;
    a.config = join(std::span(t).subspan(from, s - from), "_");
  } else if (m + 1 == t.size() && m == s_end) {
    a.config = join(std::span(t).first(s), "_");  // reference name <config>_<suite>_<mode>
  }
  return a;
}

}  // namespace

std::string normalize_suite(std::string_view s) { return normalize(kSuites, s); }
std::string normalize_dtype(std::string_view s) { return normalize(kDtypes, s); }
std::string normalize_mode(std::string_view s) { return normalize(kModes, s); }
std::string normalize_kind(std::string_view s) { return normalize(kKinds, s); }

Axes axes_from_path(std::string_view path) {
  std::string p(path);
  for (char& c : p)
    if (c == '\\') c = '/';
  std::vector<std::string_view> segs;
  std::string_view rest(p);
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    if (!seg.empty() && seg != ".") segs.push_back(seg);
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  if (segs.empty()) return {};
  if (p.back() == '/') segs.push_back("");  // a directory: no file name

  std::string_view stem = segs.back();
  if (iends_with(stem, ".gz")) stem.remove_suffix(3);
  if (iends_with(stem, ".csv")) stem.remove_suffix(4);
  const Axes from_name = axes_from_file_name(stem);

  Evidence suite, dtype, mode, kind;
  suite.add(from_name.suite);
  dtype.add(from_name.dtype);
  mode.add(from_name.mode);
  kind.add(from_name.kind);
  for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
    if (auto v = lookup(kSuites, segs[i])) suite.add(*v);
    if (auto v = lookup(kDtypes, segs[i])) dtype.add(*v);
    // directories: only the full words (a folder named "train" or "perf" says too little)
    const std::string low = lower(segs[i]);
    if (low == "inference" || low == "training") mode.add(low);
    if (low == "performance" || low == "accuracy") kind.add(low);
  }
  Axes a;
  a.suite = suite.get();
  a.dtype = dtype.get();
  a.mode = mode.get();
  a.kind = kind.get();
  a.device = from_name.device;
  a.config = from_name.config;
  return a;
}

}  // namespace perftriage::ingest
