// Reference ("expected") files. Formats, recognised by header:
//   pytorch_accuracy      name,accuracy,graph_breaks          suite/mode/config from `axes`; dtype empty (= any)
//   pytorch_graph_breaks  name,graph_breaks                   same
//   xpu_wide              name,<dtype>...                     one Expectation per (model, dtype); suite/mode from axes
//   xpu_combined          suite,name,<mode>_<dtype>...        one per (model, mode, dtype); suite from the row
//   speedup_targets       #name,data_type,shape,wrapper,perf_speedup_target_<machine>
//                         dtype from data_type, config "<shape>_<wrapper>" (e.g. "static_default", "dynamic_cpp"),
//                         speedup_target from the last perf_speedup_target_* column; suite from axes (required),
//                         mode from axes (optional: empty = any).
// Blank lines and full-line '#' comments are skipped (the header line may itself start with '#'). An empty status
// cell states nothing and gives no Expectation. Missing suite or mode where the format needs them: Error
// "unknown_axes" naming the file and what is missing.
// Limits (CsvLimits, as for result files: see the decision log of benchmark_csv.cpp): a header of more than
// max_columns cells is refused ("too_many_columns"), a header or data cell longer than max_cell_bytes too
// ("cell_too_long"); cells past the header are ignored, and only max_columns + 1 cells of a line are materialised.
#include "ingest/reference_csv.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/strings.hpp"
#include "ingest/artifact_path.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

bool is_dtype_column(std::string_view c) {
  const std::string n = normalize_dtype(c);
  return n == "float32" || n == "bfloat16" || n == "float16" || n == "amp_bf16" || n == "amp_fp16" || n == "amp";
}

int index_of(const std::vector<std::string>& h, std::string_view name) {
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i] == name) return static_cast<int>(i);
  return -1;
}

struct DtypeColumn {
  std::size_t index;
  std::string mode;  // xpu_combined only
  std::string dtype;
};

// The reference format a header makes, and where its columns are (-1: absent).
struct Layout {
  std::string format;  // empty: not a known reference header
  int name = -1;
  int suite = -1;
  int accuracy = -1;
  int graph_breaks = -1;
  int data_type = -1;
  int target = -1;  // speedup_targets: the perf_speedup_target_* column (the last one), else the last column
  std::vector<DtypeColumn> dtypes;
};

// The record reader and the buffers its records reuse.
struct Lines {
  csv::CellLimits cell_limits;
  csv::RecordReader reader;
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
};

Error unterminated_quote(const std::string& file, std::int64_t line) {
  return make_error(ErrorKind::invalid_input, "unterminated_quote",
                    fmt::format("{}: line {}: a quoted cell is never closed", file, line), file, line);
}

Error cell_too_long(const std::string& file, const csv::Record& rec, const std::string& column,
                    const CsvLimits& limits) {
  return make_error(ErrorKind::invalid_input, "cell_too_long",
                    fmt::format("{}: line {}: column '{}' holds {} bytes; a cell may hold at most {}", file, rec.line,
                                column, rec.long_cell_bytes, limits.max_cell_bytes),
                    file, rec.line, column);
}

// The header: the first non-blank line; '#' lines before it are comments unless they hold a "name" cell. On
// return `in.rec` is the header's record.
Result<std::vector<std::string>> read_header(Lines& in, const std::string& file, const CsvLimits& limits) {
  csv::Record& rec = in.rec;
  while (in.reader.next(rec)) {
    if (rec.unterminated_quote) return unterminated_quote(file, rec.line);
    const std::string_view t = trim_if(rec.text, csv::is_pad);
    if (t.empty()) continue;
    csv::split(rec, in.cells, in.scratch, in.cell_limits);
    in.cells[0] = csv::strip_hash(in.cells[0]);
    bool name = false;
    for (auto c : in.cells) name = name || c == "name";
    if (t.front() == '#' && !name) continue;
    if (rec.cells_total > limits.max_columns)
      return make_error(ErrorKind::invalid_input, "too_many_columns",
                        fmt::format("{}: line {}: the header has {} columns; at most {} are accepted", file, rec.line,
                                    rec.cells_total, limits.max_columns),
                        file, rec.line);
    if (rec.long_cell != csv::kNoCell) return cell_too_long(file, rec, fmt::format("col{}", rec.long_cell + 1), limits);
    return std::vector<std::string>(in.cells.begin(), in.cells.end());
  }
  return make_error(ErrorKind::invalid_input, "no_header",
                    fmt::format("{}: no header line (the file is empty or only comments)", file), file, 0);
}

Layout layout_of(const std::vector<std::string>& header) {
  Layout l;
  l.name = index_of(header, "name");
  l.suite = index_of(header, "suite");
  l.accuracy = index_of(header, "accuracy");
  l.graph_breaks = index_of(header, "graph_breaks");
  l.data_type = index_of(header, "data_type");
  if (l.name >= 0 && l.data_type >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i].rfind("perf_speedup_target", 0) == 0) l.target = static_cast<int>(i);
    if (l.target < 0 && header.size() > 1) l.target = static_cast<int>(header.size()) - 1;
    l.format = "speedup_targets";
  } else if (l.name >= 0 && l.suite >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      for (std::string_view mode : {"training_", "inference_"}) {
        if (header[i].size() > mode.size() && header[i].compare(0, mode.size(), mode) == 0) {
          std::string_view d = std::string_view(header[i]).substr(mode.size());
          l.dtypes.push_back({i, std::string(mode.substr(0, mode.size() - 1)), normalize_dtype(d)});
        }
      }
    }
    if (!l.dtypes.empty()) l.format = "xpu_combined";
  } else if (l.name >= 0 && l.accuracy >= 0) {
    l.format = "pytorch_accuracy";
  } else if (l.name >= 0 && l.graph_breaks >= 0) {
    l.format = "pytorch_graph_breaks";
  } else if (l.name >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (is_dtype_column(header[i])) l.dtypes.push_back({i, {}, normalize_dtype(header[i])});
    if (!l.dtypes.empty()) l.format = "xpu_wide";
  }
  return l;
}

// What `format` needs from the axes and they do not state: "suite", "mode", "suite and mode" or "".
std::string missing_axes(const std::string& format, const std::string& suite, const std::string& mode) {
  const bool needs_suite = format != "xpu_combined";
  const bool needs_mode = format == "pytorch_accuracy" || format == "pytorch_graph_breaks" || format == "xpu_wide";
  std::string missing;
  if (needs_suite && suite.empty()) missing = "suite";
  if (needs_mode && mode.empty()) missing += missing.empty() ? "mode" : " and mode";
  return missing;
}

// One data row's Expectations, appended to `out.rows`. `e` holds what every Expectation of the row shares.
class RowReader {
 public:
  RowReader(const std::string& file, const std::vector<std::string>& header, const Layout& layout,
            const std::vector<std::string_view>& cells, std::int64_t line)
      : file_(file), header_(header), l_(layout), cells_(cells), line_(line) {}

  std::string_view cell(int i) const {
    return (i >= 0 && static_cast<std::size_t>(i) < cells_.size()) ? cells_[static_cast<std::size_t>(i)]
                                                                   : std::string_view();
  }

  Result<void> add(Expectation e, ParsedReference& out) const {
    if (l_.format == "pytorch_accuracy" || l_.format == "pytorch_graph_breaks") {
      e.accuracy.assign(cell(l_.accuracy));
      if (csv::parse_int(cell(l_.graph_breaks), e.graph_breaks) != csv::NumStatus::ok)
        return bad_number(l_.graph_breaks);
      out.rows.push_back(std::move(e));
    } else if (l_.format == "speedup_targets") {
      e.dtype = normalize_dtype(cell(l_.data_type));
      const std::string shape = lower(cell(index_of(header_, "shape")));
      const std::string wrapper = lower(cell(index_of(header_, "wrapper")));
      if (!shape.empty() || !wrapper.empty()) e.config = shape + "_" + wrapper;
      if (csv::parse_double(cell(l_.target), e.speedup_target) != csv::NumStatus::ok) return bad_number(l_.target);
      out.rows.push_back(std::move(e));
    } else {
      if (l_.format == "xpu_combined") {
        const std::string suite = normalize_suite(cell(l_.suite));
        if (!suite.empty()) e.suite = suite;
        if (e.suite.empty())
          return make_error(ErrorKind::invalid_input, "unknown_axes",
                            fmt::format("{}: line {}: the row has no suite", file_, line_), file_, line_, "suite");
      }
      for (const auto& dc : l_.dtypes) {
        const std::string_view status = cell(static_cast<int>(dc.index));
        if (status.empty()) continue;
        Expectation x = e;
        if (!dc.mode.empty()) x.mode = dc.mode;
        x.dtype = dc.dtype;
        x.accuracy.assign(status);
        out.rows.push_back(std::move(x));
      }
    }
    return {};
  }

 private:
  Error bad_number(int col) const {
    const auto c = static_cast<std::size_t>(col);
    return make_error(ErrorKind::invalid_input, "bad_number",
                      fmt::format("{}: line {}: column '{}' holds '{}', which is not a number", file_, line_,
                                  header_[c], cell(col).substr(0, 60)),
                      file_, line_, header_[c]);
  }

  const std::string& file_;
  const std::vector<std::string>& header_;
  const Layout& l_;
  const std::vector<std::string_view>& cells_;
  std::int64_t line_;
};

}  // namespace

Result<ParsedReference> parse_reference_csv(std::string_view bytes, std::string_view file_name, const Axes& axes,
                                            const CsvLimits& limits) {
  const std::string file(file_name);
  const csv::CellLimits cell_limits{limits.max_columns + 1, limits.max_cell_bytes};
  Lines in{cell_limits, csv::RecordReader(bytes, cell_limits), {}, {}, {}};
  PT_ASSIGN(const std::vector<std::string> header, read_header(in, file, limits));
  const std::int64_t header_line = in.rec.line;

  const Layout layout = layout_of(header);
  if (layout.format.empty())
    return make_error(ErrorKind::invalid_input, "unknown_reference_format",
                      fmt::format("{}: line {}: not a known reference header (name,accuracy,graph_breaks / "
                                  "name,<dtype>... / suite,name,<mode>_<dtype>... / #name,data_type,...)",
                                  file, header_line),
                      file, header_line);
  ParsedReference out;
  out.format = layout.format;

  const std::string suite = normalize_suite(axes.suite);
  const std::string mode = normalize_mode(axes.mode);
  if (const std::string missing = missing_axes(out.format, suite, mode); !missing.empty())
    return make_error(ErrorKind::invalid_input, "unknown_axes",
                      fmt::format("{}: {} reference file does not state its {}; give it explicitly or upload it under "
                                  "a name like inductor_<suite>_<mode>.csv",
                                  file, out.format, missing),
                      file, 0, missing);

  csv::Record& rec = in.rec;
  while (in.reader.next(rec)) {
    if (rec.unterminated_quote) return unterminated_quote(file, rec.line);
    const std::string_view t = trim_if(rec.text, csv::is_pad);
    if (t.empty() || t.front() == '#') continue;
    csv::split(rec, in.cells, in.scratch, cell_limits);
    if (rec.long_cell != csv::kNoCell) {
      return cell_too_long(
          file, rec, rec.long_cell < header.size() ? header[rec.long_cell] : fmt::format("col{}", rec.long_cell + 1),
          limits);
    }
    const RowReader row(file, header, layout, in.cells, rec.line);
    const std::string_view model = row.cell(layout.name);
    if (model.empty()) {
      bool any = false;
      for (auto c : in.cells) any = any || !c.empty();
      if (!any) continue;
      return make_error(ErrorKind::invalid_input, "missing_name",
                        fmt::format("{}: line {}: the row has no model name", file, rec.line), file, rec.line, "name");
    }
    Expectation e;
    e.line = rec.line;
    e.model.assign(model);
    e.suite = suite;
    e.mode = mode;
    e.config = axes.config;
    PT_TRY(row.add(std::move(e), out));
  }
  return out;
}

}  // namespace perftriage::ingest
