// Parser of dynamo benchmark harness result CSVs (see shared/domain/benchmark-csv.md).
//
// Decisions (documented here because callers and tests rely on them):
// - Columns are read by header name; a header may start with '#', which is stripped.
// - Full-line '#' comments and blank lines (also lines made only of empty cells) are skipped.
// - Numbers: std::from_chars, locale-free. An empty cell is nullopt. "nan"/"inf" are accepted and stored as
//   nullopt (the harness writes them when a ratio has no value); any other non-numeric text in a numeric column
//   is an Error "bad_number" naming file, 1-based physical line and column (header name).
// - nan / inf / out-of-range in speedup, abs_latency, compilation_latency or batch_size set ResultRow::non_finite;
//   with a negative value in one of them the row holds_impossible_value(): it is never the passing row of a
//   duplicate group, and analyzers/flags flags it `invalid` (neither passing nor slow). Values stay as written.
// - eager_peak_mem == 0 and dynamo_peak_mem == 0 together (XPU: memory not measured): both memories and the
//   compression_ratio are nullopt.
// - A row shorter than the header is a short row (short_row = true, missing cells nullopt). Non-empty cells
//   beyond the header are kept in `extra` as ("col<N>", text), N = 1-based cell position in the row, within the
//   CsvLimits below; EMPTY cells beyond the header are never kept (a row padded with commas stores nothing).
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
// - Limits (CsvLimits, records.hpp; unbounded, a row of 10 MB of commas cost 2.7 GB, and every later read of it
//   79 MB of JSON). Real harness files have <= 30 columns, cells <= ~100 bytes and at most one CI-appended cell.
//   * max_columns 512: a header line with more cells is refused ("too_many_columns", file, line). Also bounds the
//     cells materialised per line (512 + 1 views); cells past them are only counted by the reader, so a line of
//     ten million commas costs one scan.
//   * max_cell_bytes 4096: a longer cell (trimmed / unescaped) on a header or data line is refused
//     ("cell_too_long", file, line, column = header name or col<N>). Comment and blank lines are not checked.
//   * max_extra_cells 16 and max_extra_bytes 1024 per row: non-empty cells past the header are kept in order
//     until either bound is reached; the rest of the row's extra cells are dropped and counted in one
//     ParsedResults::warnings entry per file ("extra_cells_dropped": rows affected, cells dropped, first line),
//     which the upload summary lists. Dropping is a warning, not an error: the measured columns are intact.
//   Unknown NAMED columns (inside the header) are kept whole: at most 512 x 4 KiB, proportional to the row.
// - Two ways to read: parse_results_csv() materialises every kept row (tests, small callers); scan_results_csv()
//   validates the same way but keeps 24 bytes a kept row (offset, line, header) and for_each_result_row() reads
//   the kept rows again one at a time, so ingest never holds a ResultRow per row (a ResultRow is ~400 bytes plus
//   its strings: 4x the CSV text). Re-reading costs one more parse of the kept rows (~300 MB/s) at insert time.
//   Header lines are remembered by location too; a header followed by no row replaces the previous one.
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
#include <type_traits>
#include <utility>
#include <vector>

#include "common/strings.hpp"
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
  std::string kind;  // "performance" / "accuracy" / "" (neither)
  bool has_name = false;
  std::size_t name_idx = 0;
  std::int64_t line = 0;
};

Header make_header(const std::vector<std::string_view>& cells, std::int64_t line) {
  Header h;
  h.line = line;
  h.names.reserve(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) h.names.emplace_back(i == 0 ? csv::strip_hash(cells[i]) : cells[i]);
  h.width = h.names.size();
  if (h.width > 1 && iends_with(h.names.back(), ".csv") && column_of(h.names.back()) == Col::extra) {
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
  if (holds_impossible_value(r)) return false;
  if (performance) return r.speedup && *r.speedup > 0 && r.batch_size > 0 && !r.short_row;
  return r.accuracy == "pass" || r.accuracy == "pass_due_to_skip" || r.accuracy == "eager_variation";
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

// At most max_columns + 1 cells of a line are materialised: enough to see that a header has too many, and more
// than a row can use (cells past the header are extra cells, of which at most max_extra_cells are kept).
csv::CellLimits cell_limits(const CsvLimits& l) { return csv::CellLimits{l.max_columns + 1, l.max_cell_bytes}; }

void clear_row(ResultRow& r) {  // keeps the strings' capacity: no allocation per row when rows are not kept
  r.line = 0;
  r.dev.clear();
  r.model.clear();
  r.batch_size = 0;
  r.speedup.reset();
  r.speedup_text.clear();
  r.abs_latency_ms.reset();
  r.compilation_latency_s.reset();
  r.compression_ratio.reset();
  r.eager_peak_mem_gb.reset();
  r.dynamo_peak_mem_gb.reset();
  r.calls_captured.reset();
  r.unique_graphs.reset();
  r.graph_breaks.reset();
  r.unique_graph_breaks.reset();
  r.autograd_captures.reset();
  r.autograd_compiles.reset();
  r.cudagraph_skips.reset();
  r.fallbacks_to_eager.reset();
  r.accuracy.clear();
  r.short_row = false;
  r.non_finite = false;
  r.extra.clear();
}

class Parser {
 public:
  // rows: every kept row materialised (parse_results_csv); scan: validate everything, keep locations
  // (scan_results_csv); replay: read kept rows again from their locations (for_each_result_row).
  enum class Mode { rows, scan, replay };

  Parser(std::string_view bytes, std::string_view file, const CsvLimits& limits, Mode mode)
      : bytes_(bytes), file_(file), limits_(limits), mode_(mode), reader_(bytes, cell_limits(limits)) {}

  Result<ParsedResults> parse() {
    PT_TRY(read_all());
    finish();
    return std::move(out_);
  }

  Result<ScannedResults> scan() {
    PT_TRY(read_all());
    finish();
    ScannedResults s;
    s.summary = std::move(out_);
    s.rows = std::move(locations_);
    s.headers.reserve(header_locs_.size());
    for (const auto& h : header_locs_) s.headers.push_back(RecordLocation{h.offset, h.line, 0});
    s.limits = limits_;
    return s;
  }

  Result<void> replay(const ScannedResults& scan, const std::function<bool(const ResultRow&)>& fn) {
    csv::Record rec;
    std::uint32_t current = ~std::uint32_t{0};
    for (const auto& loc : scan.rows) {
      if (loc.header != current) {
        if (loc.header >= scan.headers.size()) return changed();
        reader_.seek(scan.headers[loc.header].offset, scan.headers[loc.header].line);
        if (!reader_.next_split(rec, cells_, scratch_)) return changed();
        header_ = make_header(cells_, rec.line);
        if (!header_.has_name || header_.kind.empty()) return changed();
        performance_ = header_.kind == "performance";
        current = loc.header;
      }
      reader_.seek(loc.offset, loc.line);
      if (!reader_.next_split(rec, cells_, scratch_)) return changed();
      if (!add_row(rec, loc.offset)) return std::move(*err_);
      if (!fn(cur_)) break;
    }
    return {};
  }

 private:
  // A header line rows are read with: where it is, and what dedup needs to find (dev, name) of a row again.
  struct HeaderLoc {
    std::uint64_t offset = 0;
    std::int64_t line = 0;
    std::size_t name_idx = 0;
    std::size_t dev_idx = 0;  // csv::kNoCell when the header has no dev column
    std::size_t width = 0;
    bool filename_col = false;
  };
  // What duplicate resolution needs of a row (the rule in the file comment), and where it is.
  struct RowRef {
    std::uint64_t offset;
    std::int64_t line;
    double latency;  // abs_latency when > 0, else 0
    std::uint32_t header;
    bool passing;
  };

  Result<void> read_all() {
    // one pass of memchr to size the row vectors and the duplicate index (no reallocation while parsing)
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
    if (mode_ == Mode::rows) {
      out_.rows.reserve(lines);
      advise_huge_pages(out_.rows.data(), out_.rows.capacity() * sizeof(ResultRow));
    }
    refs_.reserve(lines);
    keys_.reserve(lines);
    csv::Record rec;
    bool have_header = false;
    for (;;) {
      const std::size_t at = reader_.pos();
      if (!reader_.next_split(rec, cells_, scratch_)) break;
      if (rec.unterminated_quote)
        return make_error(ErrorKind::invalid_input, "unterminated_quote",
                          fmt::format("{}: line {}: a quoted cell is never closed", file_, rec.line),
                          std::string(file_), rec.line);
      const std::string_view t = trim_if(rec.text, csv::is_pad);
      if (t.empty()) continue;
      if (!have_header) {
        if (t.front() == '#') {
          std::vector<std::string_view> probe = cells_;
          probe[0] = csv::strip_hash(probe[0]);
          if (!contains_cell(probe, "name")) continue;  // an ordinary comment before the header
        }
        PT_TRY(check_header_line(rec, true));
        header_ = make_header(cells_, rec.line);
        if (!header_.has_name || header_.kind.empty()) return no_header(rec.line);
        adopt_header(at, rec.line);
        have_header = true;
        out_.kind = header_.kind;
        performance_ = header_.kind == "performance";
        continue;
      }
      if (t.front() == '#') continue;
      if (all_empty(rec)) continue;
      if (looks_like_header()) {
        Header h = make_header(cells_, rec.line);
        if (h.has_name && !h.kind.empty()) {
          PT_TRY(check_header_line(rec, true));
          if (h.kind != header_.kind)
            return make_error(ErrorKind::invalid_input, "mixed_kinds",
                              fmt::format("{}: line {}: a {} header follows the {} header of line {}", file_, rec.line,
                                          h.kind, header_.kind, header_.line),
                              std::string(file_), rec.line);
          header_ = std::move(h);
          adopt_header(at, rec.line);
          continue;
        }
      }
      if (rec.long_cell != csv::kNoCell) return cell_too_long(rec, false);
      if (!add_row(rec, at)) return std::move(*err_);
    }
    if (!have_header) return no_header(0);
    return {};
  }

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

  Error changed() const {
    return make_error(ErrorKind::internal, "file_changed",
                      fmt::format("{}: the bytes differ from the ones scanned", file_), std::string(file_));
  }

  // A header line: at most max_columns cells, none longer than max_cell_bytes.
  Result<void> check_header_line(const csv::Record& rec, bool header_line) const {
    if (rec.cells_total > limits_.max_columns)
      return make_error(ErrorKind::invalid_input, "too_many_columns",
                        fmt::format("{}: line {}: the header has {} columns; at most {} are accepted", file_, rec.line,
                                    rec.cells_total, limits_.max_columns),
                        std::string(file_), rec.line);
    if (rec.long_cell != csv::kNoCell) return cell_too_long(rec, header_line);
    return {};
  }

  // A cell over max_cell_bytes: the column is the header name of the cell, or col<N> (1-based) past the header
  // and on header lines.
  Error cell_too_long(const csv::Record& rec, bool header_line) const {
    const std::string column = !header_line && rec.long_cell < header_.names.size()
                                   ? header_.names[rec.long_cell]
                                   : fmt::format("col{}", rec.long_cell + 1);
    return make_error(ErrorKind::invalid_input, "cell_too_long",
                      fmt::format("{}: line {}: column '{}' holds {} bytes; a cell may hold at most {}", file_,
                                  rec.line, column, rec.long_cell_bytes, limits_.max_cell_bytes),
                      std::string(file_), rec.line, column);
  }

  Error bad_number(std::int64_t line, std::size_t col, std::string_view value) const {
    const std::string& name = header_.names[col];
    return make_error(
        ErrorKind::invalid_input, "bad_number",
        fmt::format("{}: line {}: column '{}' holds '{}', which is not a number", file_, line, name, shorten(value)),
        std::string(file_), line, name);
  }

  bool all_empty(const csv::Record& rec) const {
    if (rec.overflow_nonempty != 0) return false;
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

  // Rows refer to their header by index; a header followed by no row is replaced by the next one, so that a file
  // of header lines keeps one.
  void adopt_header(std::size_t at, std::int64_t line) {
    HeaderLoc h{at, line, header_.name_idx, csv::kNoCell, header_.width, header_.filename_col};
    for (std::size_t i = 0; i < header_.width; ++i) {
      if (header_.cols[i] == Col::dev) {
        h.dev_idx = i;
        break;
      }
    }
    if (!header_locs_.empty() && rows_under_header_ == 0) {
      header_locs_.back() = h;
    } else {
      header_locs_.push_back(h);
    }
    rows_under_header_ = 0;
  }

  // What add_row keeps of a row's cells besides the ResultRow fields.
  struct RowCells {
    std::string_view dev;
    std::string_view model;
    std::optional<double> eager_mem;
    std::optional<double> dynamo_mem;
  };

  // A number cell into `out`; false (err_ set) when it is not a number.
  template <class T>
  bool number(std::int64_t line, std::size_t col, std::string_view v, std::optional<T>& out) {
    csv::NumStatus st;
    if constexpr (std::is_same_v<T, double>) {
      st = csv::parse_double(v, out);
    } else {
      st = csv::parse_int(v, out);
    }
    return st == csv::NumStatus::ok || fail(bad_number(line, col, v));
  }

  // A number cell that may say nan / inf: parsed into `out`, and the row marked non_finite when it did.
  template <class T>
  bool finite_number(ResultRow& row, std::int64_t line, std::size_t col, std::string_view v, std::optional<T>& out) {
    if (!number(line, col, v, out)) return false;
    if (!out && !v.empty()) row.non_finite = true;
    return true;
  }

  // An axis column (suite, dtype, mode, scenario): evidence for the file's axis, and kept as an extra column.
  void axis_cell(ResultRow& row, UniformAxis& axis, std::size_t col, std::string_view v, bool keep_text) {
    if (mode_ != Mode::replay) axis.add(v);
    if (keep_text) row.extra.emplace_back(header_.names[col], v);
  }

  // The first `used` cells into `row` and `c`, by their header column; false (err_ set) on a bad number.
  bool read_cells(ResultRow& row, RowCells& c, std::int64_t line, std::size_t used, bool keep_text) {
    for (std::size_t i = 0; i < used; ++i) {
      const std::string_view v = cells_[i];
      bool ok = true;
      switch (header_.cols[i]) {
        case Col::dev: c.dev = v; break;
        case Col::name: c.model = v; break;
        case Col::batch_size: {
          std::optional<std::int64_t> b;
          ok = finite_number(row, line, i, v, b);
          row.batch_size = b.value_or(0);
          break;
        }
        case Col::speedup:
          ok = finite_number(row, line, i, v, row.speedup);
          if (keep_text) row.speedup_text.assign(v);
          break;
        case Col::abs_latency: ok = finite_number(row, line, i, v, row.abs_latency_ms); break;
        case Col::compilation_latency: ok = finite_number(row, line, i, v, row.compilation_latency_s); break;
        case Col::compression_ratio: ok = number(line, i, v, row.compression_ratio); break;
        case Col::eager_peak_mem: ok = number(line, i, v, c.eager_mem); break;
        case Col::dynamo_peak_mem: ok = number(line, i, v, c.dynamo_mem); break;
        case Col::calls_captured: ok = number(line, i, v, row.calls_captured); break;
        case Col::unique_graphs: ok = number(line, i, v, row.unique_graphs); break;
        case Col::graph_breaks: ok = number(line, i, v, row.graph_breaks); break;
        case Col::unique_graph_breaks: ok = number(line, i, v, row.unique_graph_breaks); break;
        case Col::autograd_captures: ok = number(line, i, v, row.autograd_captures); break;
        case Col::autograd_compiles: ok = number(line, i, v, row.autograd_compiles); break;
        case Col::cudagraph_skips: ok = number(line, i, v, row.cudagraph_skips); break;
        case Col::fallbacks_to_eager: ok = number(line, i, v, row.fallbacks_to_eager); break;
        case Col::accuracy: row.accuracy.assign(v); break;
        case Col::suite: axis_cell(row, suite_, i, v, keep_text); break;
        case Col::dtype: axis_cell(row, dtype_, i, v, keep_text); break;
        case Col::mode: axis_cell(row, mode_axis_, i, v, keep_text); break;
        case Col::scenario: axis_cell(row, scenario_, i, v, keep_text); break;
        case Col::extra:
          if (keep_text) row.extra.emplace_back(header_.names[i], v);
          break;
      }
      if (!ok) return false;
    }
    return true;
  }

  // false on error (then err_ holds it): a Result<void> per row would construct and destroy an Error each time
  bool add_row(const csv::Record& rec, std::size_t at) {
    const std::int64_t line = rec.line;
    std::size_t n = cells_.size();
    const bool overflow = rec.cells_total > n;  // cells past max_columns + 1 were only counted
    if (header_.filename_col && !overflow && n > 1 && iends_with(cells_[n - 1], ".csv")) --n;
    ResultRow* rp = &cur_;
    if (mode_ == Mode::rows) {
      rp = &out_.rows.emplace_back();  // in place; dropped again when it is a duplicate
    } else {
      clear_row(cur_);
    }
    ResultRow& row = *rp;
    const bool keep_text = mode_ != Mode::scan;  // a scan keeps no row: only what validation and dedup need
    row.line = line;
    row.short_row = n < header_.width;
    RowCells c;
    if (!read_cells(row, c, line, n < header_.width ? n : header_.width, keep_text)) return false;
    if (n > header_.width || overflow) add_extra_cells(row, rec, n, keep_text);

    if (c.model.empty())
      return fail(make_error(ErrorKind::invalid_input, "missing_name",
                             fmt::format("{}: line {}: the row has no model name", file_, line), std::string(file_),
                             line, "name"));
    if (c.eager_mem && c.dynamo_mem && *c.eager_mem == 0.0 && *c.dynamo_mem == 0.0) {
      row.compression_ratio.reset();  // "not measured" (XPU), not zero
    } else {
      row.eager_peak_mem_gb = c.eager_mem;
      row.dynamo_peak_mem_gb = c.dynamo_mem;
    }
    if (keep_text) {
      row.dev.assign(c.dev);
      row.model.assign(c.model);
    }
    if (mode_ == Mode::replay) return true;
    device_.add(c.dev);

    // duplicates are resolved after the last row (sorting hashes beats probing a table that misses the cache)
    const double latency = row.abs_latency_ms && *row.abs_latency_ms > 0 ? *row.abs_latency_ms : 0.0;
    refs_.push_back(
        RowRef{at, line, latency, static_cast<std::uint32_t>(header_locs_.size() - 1), is_passing(row, performance_)});
    keys_.push_back(Key{key_hash(c.dev, c.model), refs_.size() - 1});
    ++rows_under_header_;
    return true;
  }

  // Cells past the header: empty ones are never kept (trailing commas cost nothing); the first max_extra_cells
  // non-empty ones are kept while their text fits in max_extra_bytes; the others are dropped and counted.
  void add_extra_cells(ResultRow& row, const csv::Record& rec, std::size_t n, bool keep_text) {
    std::size_t kept = 0;
    std::size_t bytes = 0;
    auto dropped = static_cast<std::int64_t>(rec.overflow_nonempty);
    bool full = false;
    for (std::size_t i = header_.width; i < n; ++i) {
      const std::string_view v = cells_[i];
      if (v.empty()) continue;
      if (!full && kept < limits_.max_extra_cells && bytes + v.size() <= limits_.max_extra_bytes) {
        if (keep_text) row.extra.emplace_back(fmt::format("col{}", i + 1), v);
        ++kept;
        bytes += v.size();
      } else {
        full = true;
        ++dropped;
      }
    }
    if (dropped == 0 || mode_ == Mode::replay) return;
    ++extra_rows_;
    extra_cells_ += dropped;
    if (extra_first_line_ == 0) extra_first_line_ = rec.line;
  }

  bool fail(Error e) {
    err_ = std::move(e);
    return false;
  }

  // (dev, model) of a row, read again from its location when rows are not kept (only for rows whose hash equals
  // another's).
  std::pair<std::string, std::string> key_at(std::size_t r) const {
    if (mode_ == Mode::rows) return {out_.rows[r].dev, out_.rows[r].model};
    const RowRef& ref = refs_[r];
    const HeaderLoc& h = header_locs_[ref.header];
    csv::RecordReader reader(bytes_, cell_limits(limits_));
    reader.seek(ref.offset, ref.line);
    csv::Record rec;
    std::vector<std::string_view> cells;
    std::string scratch;
    if (!reader.next_split(rec, cells, scratch)) return {};
    std::size_t n = cells.size();
    if (h.filename_col && rec.cells_total == n && n > 1 && iends_with(cells[n - 1], ".csv")) --n;
    n = std::min(n, h.width);
    auto cell = [&](std::size_t i) { return i < n ? std::string(cells[i]) : std::string(); };
    return {cell(h.dev_idx), cell(h.name_idx)};
  }

  static bool better(const RowRef& a, const RowRef& b) {  // whether b should replace the kept a (file comment)
    if (a.passing != b.passing) return b.passing;
    const bool la = a.latency > 0;
    const bool lb = b.latency > 0;
    if (la && lb) return b.latency < a.latency;
    if (la != lb) return lb;
    return false;
  }

  // Marks every duplicate but the one the rule keeps (callers keep file order). Empty when there is none.
  std::vector<bool> drop_duplicates() {
    std::vector<bool> dropped;
    std::sort(keys_.begin(), keys_.end(),
              [](const Key& a, const Key& b) { return a.hash != b.hash ? a.hash < b.hash : a.row < b.row; });
    std::vector<std::size_t> group;
    std::vector<std::pair<std::string, std::string>> group_keys;
    for (std::size_t i = 0; i < keys_.size();) {
      std::size_t j = i + 1;
      while (j < keys_.size() && keys_[j].hash == keys_[i].hash) ++j;
      if (j - i > 1) {
        if (dropped.empty()) dropped.assign(refs_.size(), false);
        group.clear();
        group_keys.clear();
        for (std::size_t k = i; k < j; ++k) {  // in file order
          group.push_back(keys_[k].row);
          group_keys.push_back(key_at(keys_[k].row));
        }
        // a hash group may (rarely) hold different keys: resolve each key among its equals
        for (std::size_t a = 0; a < group.size(); ++a) {
          if (group[a] == kTaken) continue;
          std::size_t kept = group[a];
          for (std::size_t b = a + 1; b < group.size(); ++b) {
            const std::size_t other = group[b];
            if (other == kTaken || group_keys[b] != group_keys[a]) continue;
            group[b] = kTaken;
            ++out_.duplicates_dropped;
            if (better(refs_[kept], refs_[other])) {
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
    keys_.clear();
    keys_.shrink_to_fit();
    return dropped;
  }

  void finish() {
    const std::vector<bool> dropped = drop_duplicates();
    if (mode_ == Mode::rows) {
      if (out_.duplicates_dropped != 0) {
        auto& rows = out_.rows;
        std::size_t w = 0;
        for (std::size_t r = 0; r < rows.size(); ++r) {
          if (dropped[r]) continue;
          if (w != r) rows[w] = std::move(rows[r]);
          ++w;
        }
        rows.resize(w);
      }
    } else {
      locations_.reserve(refs_.size() - static_cast<std::size_t>(out_.duplicates_dropped));
      for (std::size_t r = 0; r < refs_.size(); ++r) {
        if (!dropped.empty() && dropped[r]) continue;
        locations_.push_back(RecordLocation{refs_[r].offset, refs_[r].line, refs_[r].header});
      }
    }
    refs_.clear();
    refs_.shrink_to_fit();
    out_.header = header_.names;
    Axes& a = out_.content_axes;
    a.suite = normalize_suite(suite_.get());
    a.dtype = normalize_dtype(dtype_.get());
    a.mode = normalize_mode(mode_axis_.get());
    a.kind = scenario_.seen ? normalize_kind(scenario_.get()) : header_.kind;
    a.device = lower(device_.get());
    if (extra_rows_ > 0) {
      out_.warnings.push_back(CsvWarning{
          "extra_cells_dropped",
          fmt::format("{}: {} non-empty cells past the header dropped from {} rows (first on line {}); a row keeps "
                      "at most {} of them and {} bytes of their text",
                      file_, extra_cells_, extra_rows_, extra_first_line_, limits_.max_extra_cells,
                      limits_.max_extra_bytes),
          extra_rows_, extra_cells_, extra_first_line_});
    }
  }

  std::string_view bytes_;
  std::string_view file_;
  CsvLimits limits_;
  Mode mode_;
  csv::RecordReader reader_;
  std::vector<std::string_view> cells_;
  std::string scratch_;
  Header header_;
  bool performance_ = true;
  ParsedResults out_;
  ResultRow cur_;  // the row being read when rows are not kept
  std::vector<HeaderLoc> header_locs_;
  std::size_t rows_under_header_ = 0;
  std::vector<RowRef> refs_;
  std::vector<RecordLocation> locations_;
  struct Key {
    std::uint64_t hash;
    std::size_t row;
  };
  static constexpr std::size_t kTaken = ~std::size_t{0};
  std::vector<Key> keys_;
  std::optional<Error> err_;
  UniformAxis suite_, dtype_, mode_axis_, scenario_, device_;
  std::int64_t extra_rows_ = 0, extra_cells_ = 0, extra_first_line_ = 0;
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

CsvFlavor sniff_csv(std::string_view bytes, const CsvLimits& limits) {
  csv::RecordReader reader(bytes, cell_limits(limits));
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
  while (reader.next(rec)) {
    const std::string_view t = trim_if(rec.text, csv::is_pad);
    if (t.empty()) continue;
    csv::split(rec, cells, scratch, cell_limits(limits));
    const bool hashed = t.front() == '#';
    cells[0] = csv::strip_hash(cells[0]);
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

Result<ParsedResults> parse_results_csv(std::string_view bytes, std::string_view file_name, const CsvLimits& limits) {
  Parser p(bytes, file_name, limits, Parser::Mode::rows);
  return p.parse();
}

Result<ScannedResults> scan_results_csv(std::string_view bytes, std::string_view file_name, const CsvLimits& limits) {
  Parser p(bytes, file_name, limits, Parser::Mode::scan);
  return p.scan();
}

Result<void> for_each_result_row(const ScannedResults& scan, std::string_view bytes, std::string_view file_name,
                                 const std::function<bool(const ResultRow&)>& fn) {
  Parser p(bytes, file_name, scan.limits, Parser::Mode::replay);
  return p.replay(scan, fn);
}

}  // namespace perftriage::ingest
