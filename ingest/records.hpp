#pragma once
// Typed records produced by the pure parsers in ingest/ and consumed by schema/.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace perftriage::ingest {

// Accuracy statuses that count as passing (PyTorch HUD and the harness). Every other status,
// unknown ones included, counts as a failure.
inline constexpr std::array<std::string_view, 3> kPassingAccuracy{"pass", "pass_due_to_skip", "eager_variation"};
inline bool accuracy_passes(std::string_view status) {
  return std::find(kPassingAccuracy.begin(), kPassingAccuracy.end(), status) != kPassingAccuracy.end();
}

// Bounds on what one CSV file (result or reference) may hold; the decision log of ingest/benchmark_csv.cpp says
// why these numbers. A file over a hard bound is refused (Error naming file, line, column); extra cells past the
// header are kept up to the soft bounds, the rest dropped and counted in a CsvWarning.
struct CsvLimits {
  std::size_t max_columns = 512;       // cells of a header line (hard: "too_many_columns")
  std::size_t max_cell_bytes = 4096;   // one cell, trimmed / unescaped (hard: "cell_too_long")
  std::size_t max_extra_cells = 16;    // non-empty cells past the header kept per row (soft)
  std::size_t max_extra_bytes = 1024;  // text of those kept cells per row (soft)
};

// Something a parser accepted but did not keep as written (the upload summary lists them per file).
struct CsvWarning {
  std::string code;             // "extra_cells_dropped"
  std::string message;          // one sentence, naming the file
  std::int64_t rows = 0;        // rows affected
  std::int64_t cells = 0;       // cells dropped
  std::int64_t first_line = 0;  // first affected line (1-based)
};

// The axes of one result file. An empty string means "not known (yet)".
// Values are normalised: suite in {huggingface, timm_models, torchbench, ...},
// dtype in {float32, bfloat16, float16, amp_bf16, amp_fp16, amp, ...}, mode in {inference, training},
// kind in {performance, accuracy}, config e.g. "no_cudagraphs" (empty = default).
struct Axes {
  std::string suite;
  std::string dtype;
  std::string mode;
  std::string kind;
  std::string device;
  std::string config;
  bool operator==(const Axes&) const = default;
};

// Fills every empty field of `into` from `from` (explicit values win over derived ones).
inline void fill_missing(Axes& into, const Axes& from) {
  auto fill = [](std::string& a, const std::string& b) {
    if (a.empty()) a = b;
  };
  fill(into.suite, from.suite);
  fill(into.dtype, from.dtype);
  fill(into.mode, from.mode);
  fill(into.kind, from.kind);
  fill(into.device, from.device);
  fill(into.config, from.config);
}

// One data row of a harness result file (performance or accuracy), read by header name.
struct ResultRow {
  std::int64_t line = 0;  // 1-based physical line in the file
  std::string dev;
  std::string model;
  std::int64_t batch_size = 0;

  // performance columns; nullopt = column absent, empty, or "not measured" (XPU memory zeros)
  std::optional<double> speedup;
  std::string speedup_text;  // exactly as written in the file ("0.662224", "0.6026")
  std::optional<double> abs_latency_ms;
  std::optional<double> compilation_latency_s;
  std::optional<double> compression_ratio;
  std::optional<double> eager_peak_mem_gb;
  std::optional<double> dynamo_peak_mem_gb;

  // dynamo statistics (both kinds)
  std::optional<std::int64_t> calls_captured;
  std::optional<std::int64_t> unique_graphs;
  std::optional<std::int64_t> graph_breaks;
  std::optional<std::int64_t> unique_graph_breaks;
  std::optional<std::int64_t> autograd_captures;
  std::optional<std::int64_t> autograd_compiles;
  std::optional<std::int64_t> cudagraph_skips;
  std::optional<std::int64_t> fallbacks_to_eager;

  std::string accuracy;    // accuracy status as written (accuracy files only)
  bool short_row = false;  // fewer cells than the header: a failure row of old harnesses
  // speedup, abs_latency, compilation_latency or batch_size held nan / inf / an out-of-range number (the field
  // itself is then nullopt / 0): a value no measurement has (see holds_impossible_value)
  bool non_finite = false;

  // Columns this version does not know, kept as (header name, raw text).
  std::vector<std::pair<std::string, std::string>> extra;

  // Eager time per iteration in ms, derived: speedup x abs_latency (nullopt unless both > 0).
  [[nodiscard]] std::optional<double> eager_latency_ms() const {
    if (speedup && abs_latency_ms && *speedup > 0 && *abs_latency_ms > 0) return *speedup * *abs_latency_ms;
    return std::nullopt;
  }
};

// Whether a row holds a value no measurement can have: a negative or non-finite speedup, abs_latency,
// compilation_latency or batch_size. Such a row is neither passing nor slow (analyzers/flags: `invalid`).
inline bool holds_impossible_value(const ResultRow& r) {
  auto negative = [](const std::optional<double>& v) { return v && *v < 0.0; };
  return r.non_finite || r.batch_size < 0 || negative(r.speedup) || negative(r.abs_latency_ms) ||
         negative(r.compilation_latency_s);
}

// A parsed harness result file.
struct ParsedResults {
  std::string kind;                 // "performance" or "accuracy", recognised from the header
  std::vector<std::string> header;  // header names as written (file-name column and prefixes included)
  Axes content_axes;                // axes stated by prefix columns (scenario,suite,dtype,mode,...) when uniform
  std::vector<ResultRow> rows;      // after duplicate removal, in file order
  std::int64_t duplicates_dropped = 0;
  std::vector<CsvWarning> warnings;  // what was accepted but not kept as written (extra cells dropped)
};

// One expectation from a reference ("expected") file.
struct Expectation {
  std::int64_t line = 0;
  std::string suite;
  std::string mode;
  std::string dtype;  // empty = applies to every dtype of the suite/mode (PyTorch's files)
  std::string model;
  std::string accuracy;                      // expected status; empty = not stated
  std::optional<std::int64_t> graph_breaks;  // expected graph breaks; nullopt = not stated
  std::optional<double> speedup_target;      // CPU speedup-target files
  std::string config;                        // e.g. "inductor", "dynamic_inductor" from PyTorch's file names
};

struct ParsedReference {
  // "pytorch_accuracy" (name,accuracy,graph_breaks), "pytorch_graph_breaks" (name,graph_breaks),
  // "xpu_wide" (name,float32,bfloat16,...), "xpu_combined" (suite,name,training_<dtype>,...),
  // "speedup_targets" (#name,data_type,shape,wrapper,perf_speedup_target_*)
  std::string format;
  std::vector<Expectation> rows;
};

// One file as handed to the service: the path it was uploaded as and its bytes, owned (`bytes`) or, to avoid a
// copy of a large request body, borrowed (`borrowed`: the caller keeps them alive for the call; used only when
// `bytes` is empty). Read them with data().
struct InputFile {
  std::string path;
  std::string bytes;
  std::string_view borrowed = {};
  [[nodiscard]] std::string_view data() const noexcept { return bytes.empty() ? borrowed : std::string_view(bytes); }
};

}  // namespace perftriage::ingest
