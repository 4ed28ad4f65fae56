// Parser of dynamo benchmark harness result CSVs (see shared/domain/benchmark-csv.md).
//
// Decisions (documented here because callers and tests rely on them):
// - Columns are read by header name; a header may start with '#', which is stripped.
// - Full-line '#' comments and blank lines (also lines made only of empty cells) are skipped.
// - Numbers: std::from_chars, locale-free. An empty cell is nullopt. "nan"/"inf" are accepted and stored as
//   nullopt (the harness writes them when a ratio has no value); any other non-numeric text in a numeric column
//   is an Error "bad_number" naming file, 1-based physical line and column (header name).
// - eager_peak_mem == 0 and dynamo_peak_mem == 0 together (XPU: memory not measured): both memories and the
//   compression_ratio are nullopt.
// - A row shorter than the header is a short row (short_row = true, missing cells nullopt). Cells beyond the
//   header are kept in `extra` as ("col<N>", text), N = 1-based cell position in the row.
// - Columns without a ResultRow field (tag, baseline, speedup_vs_baseline, cache_lookup_latency, elapsed, the
//   prefix columns scenario/suite/dtype/mode, anything unknown) are kept in `extra` as (header name, text).
// - A last header cell ending in ".csv" is the CI-appended file-name column: it is dropped from every row
//   (any trailing cell ending in ".csv"), and kept in ParsedResults::header as written.
// - A data line whose cells contain both "name" and "dev" is a new header: the rows after it use it (the
//   kind must stay the same, else Error "mixed_kinds"). ParsedResults::header is the last header seen.
// - content_axes: suite/dtype/mode/kind(scenario)/device(dev) are set when every row that states them states
//   the same value; kind falls back to the kind recognised from the header when there is no scenario column.
// - Duplicates (same dev and model): one row is kept, chosen by (1) a passing row (performance: speedup > 0,
//   batch_size > 0, not short; accuracy: pass / pass_due_to_skip / eager_variation), then (2) the smallest
//   positive abs_latency, then (3) the first in the file. Kept rows stay in file order; duplicates_dropped
//   counts the others.
#include "ingest/benchmark_csv.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/artifact_path.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

enum class Col : std::uint8_t {
  extra,
  dev,
  name,
  batch_size,
  speedup,
  abs_latency,
  compilation_latency,
  compression_ratio,
  eager_peak_mem,
  dynamo_peak_mem,
  calls_captured,
  unique_graphs,
  graph_breaks,
  unique_graph_breaks,
  autograd_captures,
  autograd_compiles,
  cudagraph_skips,
  fallbacks_to_eager,
  accuracy,
  suite,
  dtype,
  mode,
  scenario,
};

struct ColName {
  std::string_view name;
  Col col;
};

constexpr std::array<ColName, 22> kColumns{{
    {"dev", Col::dev},
    {"name", Col::name},
    {"batch_size", Col::batch_size},
    {"speedup", Col::speedup},
    {"abs_latency", Col::abs_latency},
    {"compilation_latency", Col::compilation_latency},
    {"compression_ratio", Col::compression_ratio},
    {"eager_peak_mem", Col::eager_peak_mem},
    {"dynamo_peak_mem", Col::dynamo_peak_mem},
    {"calls_captured", Col::calls_captured},
    {"unique_graphs", Col::unique_graphs},
    {"graph_breaks", Col::graph_breaks},
    {"unique_graph_breaks", Col::unique_graph_breaks},
    {"autograd_captures", Col::autograd_captures},
    {"autograd_compiles", Col::autograd_compiles},
    {"cudagraph_skips", Col::cudagraph_skips},
    {"fallbacks_to_eager", Col::fallbacks_to_eager},
    {"accuracy", Col::accuracy},
    {"suite", Col::suite},
    {"dtype", Col::dtype},
    {"mode", Col::mode},
    {"scenario", Col::scenario},
}};

Col column_of(std::string_view name) {
  for (const auto& c : kColumns)
    if (c.name == name) return c.col;
  return Col::extra;
}

std::string_view strip_hash(std::string_view cell) {
  while (!cell.empty() && cell.front() == '#') cell.remove_prefix(1);
  return csv::trim(cell);
}

bool contains_cell(const std::vector<std::string_view>& cells, std::string_view what) {
  for (auto c : cells)
    if (c == what) return true;
  return false;
}

struct Header {
  std::vector<std::string> names;  // as written (leading '#' stripped), file-name column included
  std::vector<Col> cols;           // per used column
  std::size_t width = 0;           // used columns (file-name column excluded)
  bool filename_col = false;
  std::string kind;                // "performance" / "accuracy" / "" (neither)
  bool has_name = false;
  std::size_t name_idx = 0;
  std::int64_t line = 0;
};

Header make_header(const std::vector<std::string_view>& cells, std::int64_t line) {
  Header h;
  h.line = line;
  h.names.reserve(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) h.names.emplace_back(i == 0 ? strip_hash(cells[i]) : cells[i]);
  h.width = h.names.size();
  if (h.width > 1 && csv::iends_with(h.names.back(), ".csv") && column_of(h.names.back()) == Col::extra) {
    h.filename_col = true;
    --h.width;
  }
  h.cols.assign(h.width, Col::extra);
  std::array<bool, 32> seen{};
  bool speedup = false;
  bool accuracy = false;
  for (std::size_t i = 0; i < h.width; ++i) {
    Col c = column_of(h.names[i]);
    auto idx = static_cast<std::size_t>(c);
    if (c != Col::extra && seen[idx]) c = Col::extra;  // a repeated column: first one wins, others are extra
    seen[idx] = true;
    h.cols[i] = c;
    if (c == Col::name) {
      h.has_name = true;
      h.name_idx = i;
    }
    if (c == Col::speedup) speedup = true;
    if (c == Col::accuracy) accuracy = true;
  }
  h.kind = speedup ? "performance" : (accuracy ? "accuracy" : "");
  return h;
}

// A value of a content axis (prefix columns, dev) that must be the same on every row to be reported.
struct UniformAxis {
  std::string value;
  bool seen = false;
  bool conflict = false;
  void add(std::string_view v) {
    if (v.empty() || conflict) return;
    if (!seen) {
      value.assign(v);
      seen = true;
    } else if (value != v) {
      conflict = true;
    }
  }
  [[nodiscard]] std::string get() const { return (seen && !conflict) ? value : std::string(); }
};

bool is_passing(const ResultRow& r, bool performance) {
  if (performance) return r.speedup && *r.speedup > 0 && r.batch_size > 0 && !r.short_row;
  return r.accuracy == "pass" || r.accuracy == "pass_due_to_skip" || r.accuracy == "eager_variation";
}

// Whether candidate `b` should replace the kept row `a` (rule in the file comment).
bool better(const ResultRow& a, const ResultRow& b, bool performance) {
  const bool pa = is_passing(a, performance);
  const bool pb = is_passing(b, performance);
  if (pa != pb) return pb;
  const bool la = a.abs_latency_ms && *a.abs_latency_ms > 0;
  const bool lb = b.abs_latency_ms && *b.abs_latency_ms > 0;
  if (la && lb) return *b.abs_latency_ms < *a.abs_latency_ms;
  if (la != lb) return lb;
  return false;
}

// Word-at-a-time multiplicative hash of (dev, model): cheap, and good enough for grouping (equal keys are
// still compared as strings).
std::uint64_t mix(std::uint64_t h, std::string_view s) {
  constexpr std::uint64_t k = 0x9E3779B97F4A7C15ULL;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  std::uint64_t w = 0;
  if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);
  h = (h ^ w ^ (static_cast<std::uint64_t>(s.size()) << 56)) * k;
  return h ^ (h >> 32);
}

std::uint64_t key_hash(std::string_view dev, std::string_view model) { return mix(mix(0x12345678, dev), model); }

// Rows of a big file take hundreds of MB (a ResultRow is ~400 bytes); with 4 KiB pages, page faults cost as much
// as the parsing. Where transparent huge pages are in "madvise" mode, ask for them on the (untouched) row buffer.
// Only a hint: contents and ownership are unchanged, failure is ignored.
void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = 2u << 20;
  if (bytes < 4 * kHuge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

std::string shorten(std::string_view v) {
  constexpr std::size_t kMax = 60;
  std::string out;
  for (char c : v.substr(0, kMax)) out.push_back((static_cast<unsigned char>(c) < 0x20) ? '?' : c);
  if (v.size() > kMax) out += "...";
  return out;
}

class Parser {
 public:
  Parser(std::string_view bytes, std::string_view file) : bytes_(bytes), file_(file), reader_(bytes) {}

  Result<ParsedResults> run() {
    // one pass of memchr to size the row vector and the duplicate index (no reallocation while parsing)
    std::size_t lines = 1;
    for (const char* p = bytes_.empty() ? nullptr : bytes_.data(); p != nullptr;) {
      const std::size_t off = static_cast<std::size_t>(p - bytes_.data());
      p = static_cast<const char*>(std::memchr(p, '\n', bytes_.size() - off));
      if (p != nullptr) {
        ++lines;
        ++p;
      }
    }
    lines = std::min(lines, bytes_.size() / 40 + 16);  // a real row is longer than 40 bytes; vectors still grow
    out_.rows.reserve(lines);
    keys_.reserve(lines);
    advise_huge_pages(out_.rows.data(), out_.rows.capacity() * sizeof(ResultRow));
    csv::Record rec;
    bool have_header = false;
    while (reader_.next_split(rec, cells_, scratch_)) {
      if (rec.unterminated_quote)
        return make_error(ErrorKind::invalid_input, "unterminated_quote",
                          fmt::format("{}: line {}: a quoted cell is never closed", file_, rec.line), std::string(file_),
                          rec.line);
      const std::string_view t = csv::trim(rec.text);
      if (t.empty()) continue;
      if (!have_header) {
        if (t.front() == '#') {
          std::vector<std::string_view> probe = cells_;
          probe[0] = strip_hash(probe[0]);
          if (!contains_cell(probe, "name")) continue;  // an ordinary comment before the header
        }
        header_ = make_header(cells_, rec.line);
        if (!header_.has_name || header_.kind.empty()) return no_header(rec.line);
        have_header = true;
        out_.kind = header_.kind;
        performance_ = header_.kind == "performance";
        continue;
      }
      if (t.front() == '#') continue;
      if (all_empty()) continue;
      if (looks_like_header()) {
        Header h = make_header(cells_, rec.line);
        if (h.has_name && !h.kind.empty()) {
          if (h.kind != header_.kind)
            return make_error(ErrorKind::invalid_input, "mixed_kinds",
                              fmt::format("{}: line {}: a {} header follows the {} header of line {}", file_, rec.line,
                                          h.kind, header_.kind, header_.line),
                              std::string(file_), rec.line);
          header_ = std::move(h);
          continue;
        }
      }
      if (!add_row(rec.line)) return std::move(*err_);
    }
    if (!have_header) return no_header(0);
    finish();
    return std::move(out_);
  }

 private:
  Error no_header(std::int64_t line) const {
    if (line == 0)
      return make_error(ErrorKind::invalid_input, "no_header",
                        fmt::format("{}: no header line (the file is empty or only comments)", file_),
                        std::string(file_), 0);
    return make_error(ErrorKind::invalid_input, "no_header",
                      fmt::format("{}: line {}: not a benchmark result header (needs a 'name' column and a 'speedup' "
                                  "or 'accuracy' column)",
                                  file_, line),
                      std::string(file_), line);
  }

  Error bad_number(std::int64_t line, std::size_t col, std::string_view value) const {
    const std::string& name = header_.names[col];
    return make_error(
        ErrorKind::invalid_input, "bad_number",
        fmt::format("{}: line {}: column '{}' holds '{}', which is not a number", file_, line, name, shorten(value)),
        std::string(file_), line, name);
  }

  bool all_empty() const {
    for (auto c : cells_)
      if (!c.empty()) return false;
    return true;
  }

  bool looks_like_header() const {
    // cheap pre-check on the cells where a header would say so, then the full check
    const bool candidate = cells_[0] == "dev" || cells_[0] == "scenario" ||
                           (header_.name_idx < cells_.size() && cells_[header_.name_idx] == "name");
    return candidate && contains_cell(cells_, "name") && contains_cell(cells_, "dev");
  }


  // false on error (then err_ holds it): a Result<void> per row would construct and destroy an Error each time
  bool add_row(std::int64_t line) {
    std::size_t n = cells_.size();
    if (header_.filename_col && n > 1 && csv::iends_with(cells_[n - 1], ".csv")) --n;
    ResultRow& row = out_.rows.emplace_back();  // in place; popped again when it is a dropped duplicate
    row.line = line;
    row.short_row = n < header_.width;
    std::string_view dev;
    std::string_view model;
    std::optional<double> eager_mem;
    std::optional<double> dynamo_mem;
    const std::size_t used = n < header_.width ? n : header_.width;
    for (std::size_t i = 0; i < used; ++i) {
      const std::string_view v = cells_[i];
      switch (header_.cols[i]) {
        case Col::dev: dev = v; break;
        case Col::name: model = v; break;
        case Col::batch_size: {
          std::optional<std::int64_t> b;
          if (csv::parse_int(v, b) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          row.batch_size = b.value_or(0);
          break;
        }
        case Col::speedup:
          if (csv::parse_double(v, row.speedup) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          row.speedup_text.assign(v);
          break;
        case Col::abs_latency:
          if (csv::parse_double(v, row.abs_latency_ms) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::compilation_latency:
          if (csv::parse_double(v, row.compilation_latency_s) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::compression_ratio:
          if (csv::parse_double(v, row.compression_ratio) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::eager_peak_mem:
          if (csv::parse_double(v, eager_mem) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::dynamo_peak_mem:
          if (csv::parse_double(v, dynamo_mem) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::calls_captured:
          if (csv::parse_int(v, row.calls_captured) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::unique_graphs:
          if (csv::parse_int(v, row.unique_graphs) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::graph_breaks:
          if (csv::parse_int(v, row.graph_breaks) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::unique_graph_breaks:
          if (csv::parse_int(v, row.unique_graph_breaks) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::autograd_captures:
          if (csv::parse_int(v, row.autograd_captures) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::autograd_compiles:
          if (csv::parse_int(v, row.autograd_compiles) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::cudagraph_skips:
          if (csv::parse_int(v, row.cudagraph_skips) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::fallbacks_to_eager:
          if (csv::parse_int(v, row.fallbacks_to_eager) != csv::NumStatus::ok) return fail(bad_number(line, i, v));
          break;
        case Col::accuracy: row.accuracy.assign(v); break;
        case Col::suite:
          suite_.add(v);
          row.extra.emplace_back(header_.names[i], v);
          break;
        case Col::dtype:
          dtype_.add(v);
          row.extra.emplace_back(header_.names[i], v);
          break;
        case Col::mode:
          mode_.add(v);
          row.extra.emplace_back(header_.names[i], v);
          break;
        case Col::scenario:
          scenario_.add(v);
          row.extra.emplace_back(header_.names[i], v);
          break;
        case Col::extra: row.extra.emplace_back(header_.names[i], v); break;
      }
    }
    for (std::size_t i = header_.width; i < n; ++i) row.extra.emplace_back(fmt::format("col{}", i + 1), cells_[i]);

    if (model.empty())
      return fail(make_error(ErrorKind::invalid_input, "missing_name",
                             fmt::format("{}: line {}: the row has no model name", file_, line), std::string(file_),
                             line, "name"));
    if (eager_mem && dynamo_mem && *eager_mem == 0.0 && *dynamo_mem == 0.0) {
      row.compression_ratio.reset();  // "not measured" (XPU), not zero
    } else {
      row.eager_peak_mem_gb = eager_mem;
      row.dynamo_peak_mem_gb = dynamo_mem;
    }
    row.dev.assign(dev);
    row.model.assign(model);
    device_.add(dev);

    // duplicates are resolved after the last row (sorting hashes beats probing a table that misses the cache)
    keys_.push_back(Key{key_hash(dev, model), out_.rows.size() - 1});
    return true;
  }

  bool fail(Error e) {
    err_ = std::move(e);
    return false;
  }


  // Marks every duplicate but the one the rule keeps, then compacts the rows (file order is kept).
  void drop_duplicates() {
    auto& rows = out_.rows;
    std::sort(keys_.begin(), keys_.end(),
              [](const Key& a, const Key& b) { return a.hash != b.hash ? a.hash < b.hash : a.row < b.row; });
    std::vector<bool> dropped;
    std::vector<std::size_t> group;
    for (std::size_t i = 0; i < keys_.size();) {
      std::size_t j = i + 1;
      while (j < keys_.size() && keys_[j].hash == keys_[i].hash) ++j;
      if (j - i > 1) {
        if (dropped.empty()) dropped.assign(rows.size(), false);
        group.clear();
        for (std::size_t k = i; k < j; ++k) group.push_back(keys_[k].row);  // in file order
        // a hash group may (rarely) hold different keys: resolve each key among its equals
        for (std::size_t a = 0; a < group.size(); ++a) {
          const std::size_t first = group[a];
          if (first == kTaken) continue;
          std::size_t kept = first;
          for (std::size_t b = a + 1; b < group.size(); ++b) {
            const std::size_t other = group[b];
            if (other == kTaken || rows[other].model != rows[first].model || rows[other].dev != rows[first].dev)
              continue;
            group[b] = kTaken;
            ++out_.duplicates_dropped;
            if (better(rows[kept], rows[other], performance_)) {
              dropped[kept] = true;
              kept = other;
            } else {
              dropped[other] = true;
            }
          }
        }
      }
      i = j;
    }
    if (out_.duplicates_dropped == 0) return;
    std::size_t w = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (dropped[r]) continue;
      if (w != r) rows[w] = std::move(rows[r]);
      ++w;
    }
    rows.resize(w);
  }

  void finish() {
    drop_duplicates();
    out_.header = header_.names;
    Axes& a = out_.content_axes;
    a.suite = normalize_suite(suite_.get());
    a.dtype = normalize_dtype(dtype_.get());
    a.mode = normalize_mode(mode_.get());
    a.kind = scenario_.seen ? normalize_kind(scenario_.get()) : header_.kind;
    a.device = csv::lower(device_.get());
  }

  std::string_view bytes_;
  std::string_view file_;
  csv::RecordReader reader_;
  std::vector<std::string_view> cells_;
  std::string scratch_;
  Header header_;
  bool performance_ = true;
  ParsedResults out_;
  struct Key {
    std::uint64_t hash;
    std::size_t row;
  };
  static constexpr std::size_t kTaken = ~std::size_t{0};
  std::vector<Key> keys_;
  std::optional<Error> err_;
  UniformAxis suite_, dtype_, mode_, scenario_, device_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// sniff_csv

namespace {

bool has_prefix_cell(const std::vector<std::string_view>& cells, std::string_view prefix) {
  for (auto c : cells)
    if (c.size() > prefix.size() && c.substr(0, prefix.size()) == prefix) return true;
  return false;
}

bool has_dtype_cell(const std::vector<std::string_view>& cells) {
  for (auto c : cells)
    if (c == "float32" || c == "bfloat16" || c == "float16" || c == "amp_bf16" || c == "amp_fp16" || c == "amp" ||
        c == "fp32" || c == "bf16" || c == "fp16")
      return true;
  return false;
}

}  // namespace

CsvFlavor sniff_csv(std::string_view bytes) {
  csv::RecordReader reader(bytes);
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
  while (reader.next(rec)) {
    const std::string_view t = csv::trim(rec.text);
    if (t.empty()) continue;
    csv::split(rec, cells, scratch);
    const bool hashed = t.front() == '#';
    cells[0] = strip_hash(cells[0]);
    const bool name = contains_cell(cells, "name");
    if (hashed && !name) continue;  // a comment line
    if (!name) return CsvFlavor::unknown;
    const bool dev = contains_cell(cells, "dev");
    if (contains_cell(cells, "speedup")) return CsvFlavor::results;
    if (contains_cell(cells, "accuracy")) return dev ? CsvFlavor::results : CsvFlavor::reference;
    if (dev) return CsvFlavor::unknown;
    if (contains_cell(cells, "graph_breaks")) return CsvFlavor::reference;
    if (has_dtype_cell(cells)) return CsvFlavor::reference;
    if (contains_cell(cells, "suite") && (has_prefix_cell(cells, "training_") || has_prefix_cell(cells, "inference_")))
      return CsvFlavor::reference;
    if (contains_cell(cells, "data_type") && has_prefix_cell(cells, "perf_speedup_target")) return CsvFlavor::reference;
    return CsvFlavor::unknown;
  }
  return CsvFlavor::unknown;
}

Result<ParsedResults> parse_results_csv(std::string_view bytes, std::string_view file_name) {
  Parser p(bytes, file_name);
  return p.run();
}

}  // namespace perftriage::ingest
