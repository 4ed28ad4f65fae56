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

#include "ingest/artifact_path.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

bool is_dtype_column(std::string_view c) {
  const std::string n = normalize_dtype(c);
  return n == "float32" || n == "bfloat16" || n == "float16" || n == "amp_bf16" || n == "amp_fp16" || n == "amp";
}

std::string_view strip_hash(std::string_view cell) {
  while (!cell.empty() && cell.front() == '#') cell.remove_prefix(1);
  return csv::trim(cell);
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

}  // namespace

Result<ParsedReference> parse_reference_csv(std::string_view bytes, std::string_view file_name, const Axes& axes,
                                            const CsvLimits& limits) {
  const std::string file(file_name);
  const csv::CellLimits cell_limits{limits.max_columns + 1, limits.max_cell_bytes};
  csv::RecordReader reader(bytes, cell_limits);
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
  std::vector<std::string> header;
  std::int64_t header_line = 0;

  // header: first non-blank line; '#' lines before it are comments unless they hold a "name" cell
  while (reader.next(rec)) {
    if (rec.unterminated_quote)
      return make_error(ErrorKind::invalid_input, "unterminated_quote",
                        fmt::format("{}: line {}: a quoted cell is never closed", file, rec.line), file, rec.line);
    const std::string_view t = csv::trim(rec.text);
    if (t.empty()) continue;
    csv::split(rec, cells, scratch, cell_limits);
    cells[0] = strip_hash(cells[0]);
    bool name = false;
    for (auto c : cells) name = name || c == "name";
    if (t.front() == '#' && !name) continue;
    if (rec.cells_total > limits.max_columns)
      return make_error(ErrorKind::invalid_input, "too_many_columns",
                        fmt::format("{}: line {}: the header has {} columns; at most {} are accepted", file, rec.line,
                                    rec.cells_total, limits.max_columns),
                        file, rec.line);
    if (rec.long_cell != csv::kNoCell) {
      const std::string column = fmt::format("col{}", rec.long_cell + 1);
      return make_error(ErrorKind::invalid_input, "cell_too_long",
                        fmt::format("{}: line {}: column '{}' holds {} bytes; a cell may hold at most {}", file,
                                    rec.line, column, rec.long_cell_bytes, limits.max_cell_bytes),
                        file, rec.line, column);
    }
    header.assign(cells.begin(), cells.end());
    header_line = rec.line;
    break;
  }
  if (header_line == 0)
    return make_error(ErrorKind::invalid_input, "no_header",
                      fmt::format("{}: no header line (the file is empty or only comments)", file), file, 0);

  const int name_i = index_of(header, "name");
  const int suite_i = index_of(header, "suite");
  const int acc_i = index_of(header, "accuracy");
  const int gb_i = index_of(header, "graph_breaks");
  const int dt_i = index_of(header, "data_type");

  ParsedReference out;
  std::vector<DtypeColumn> dcols;
  int target_i = -1;
  if (name_i >= 0 && dt_i >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i].rfind("perf_speedup_target", 0) == 0) target_i = static_cast<int>(i);
    if (target_i < 0 && header.size() > 1) target_i = static_cast<int>(header.size()) - 1;
    out.format = "speedup_targets";
  } else if (name_i >= 0 && suite_i >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      for (std::string_view mode : {"training_", "inference_"}) {
        if (header[i].size() > mode.size() && header[i].compare(0, mode.size(), mode) == 0) {
          std::string_view d = std::string_view(header[i]).substr(mode.size());
          dcols.push_back({i, std::string(mode.substr(0, mode.size() - 1)), normalize_dtype(d)});
        }
      }
    }
    if (!dcols.empty()) out.format = "xpu_combined";
  } else if (name_i >= 0 && acc_i >= 0) {
    out.format = "pytorch_accuracy";
  } else if (name_i >= 0 && gb_i >= 0) {
    out.format = "pytorch_graph_breaks";
  } else if (name_i >= 0) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (is_dtype_column(header[i])) dcols.push_back({i, {}, normalize_dtype(header[i])});
    if (!dcols.empty()) out.format = "xpu_wide";
  }
  if (out.format.empty())
    return make_error(ErrorKind::invalid_input, "unknown_reference_format",
                      fmt::format("{}: line {}: not a known reference header (name,accuracy,graph_breaks / "
                                  "name,<dtype>... / suite,name,<mode>_<dtype>... / #name,data_type,...)",
                                  file, header_line),
                      file, header_line);

  const std::string suite = normalize_suite(axes.suite);
  const std::string mode = normalize_mode(axes.mode);
  const bool needs_suite = out.format != "xpu_combined";
  const bool needs_mode = out.format == "pytorch_accuracy" || out.format == "pytorch_graph_breaks" ||
                          out.format == "xpu_wide";
  std::string missing;
  if (needs_suite && suite.empty()) missing = "suite";
  if (needs_mode && mode.empty()) missing += missing.empty() ? "mode" : " and mode";
  if (!missing.empty())
    return make_error(ErrorKind::invalid_input, "unknown_axes",
                      fmt::format("{}: {} reference file does not state its {}; give it explicitly or upload it under "
                                  "a name like inductor_<suite>_<mode>.csv",
                                  file, out.format, missing),
                      file, 0, missing);

  auto bad_number = [&](std::int64_t line, std::size_t col, std::string_view v) {
    return make_error(ErrorKind::invalid_input, "bad_number",
                      fmt::format("{}: line {}: column '{}' holds '{}', which is not a number", file, line,
                                  header[col], v.substr(0, 60)),
                      file, line, header[col]);
  };

  while (reader.next(rec)) {
    if (rec.unterminated_quote)
      return make_error(ErrorKind::invalid_input, "unterminated_quote",
                        fmt::format("{}: line {}: a quoted cell is never closed", file, rec.line), file, rec.line);
    const std::string_view t = csv::trim(rec.text);
    if (t.empty() || t.front() == '#') continue;
    csv::split(rec, cells, scratch, cell_limits);
    if (rec.long_cell != csv::kNoCell) {
      const std::string column =
          rec.long_cell < header.size() ? header[rec.long_cell] : fmt::format("col{}", rec.long_cell + 1);
      return make_error(ErrorKind::invalid_input, "cell_too_long",
                        fmt::format("{}: line {}: column '{}' holds {} bytes; a cell may hold at most {}", file,
                                    rec.line, column, rec.long_cell_bytes, limits.max_cell_bytes),
                        file, rec.line, column);
    }
    auto cell = [&](int i) -> std::string_view {
      return (i >= 0 && static_cast<std::size_t>(i) < cells.size()) ? cells[static_cast<std::size_t>(i)]
                                                                     : std::string_view();
    };
    const std::string_view model = cell(name_i);
    if (model.empty()) {
      bool any = false;
      for (auto c : cells) any = any || !c.empty();
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

    if (out.format == "pytorch_accuracy" || out.format == "pytorch_graph_breaks") {
      e.accuracy.assign(cell(acc_i));
      if (csv::parse_int(cell(gb_i), e.graph_breaks) != csv::NumStatus::ok)
        return bad_number(rec.line, static_cast<std::size_t>(gb_i), cell(gb_i));
      out.rows.push_back(std::move(e));
    } else if (out.format == "speedup_targets") {
      e.dtype = normalize_dtype(cell(dt_i));
      const std::string shape = csv::lower(cell(index_of(header, "shape")));
      const std::string wrapper = csv::lower(cell(index_of(header, "wrapper")));
      if (!shape.empty() || !wrapper.empty()) e.config = shape + "_" + wrapper;
      if (csv::parse_double(cell(target_i), e.speedup_target) != csv::NumStatus::ok)
        return bad_number(rec.line, static_cast<std::size_t>(target_i), cell(target_i));
      out.rows.push_back(std::move(e));
    } else {
      if (out.format == "xpu_combined") {
        e.suite = normalize_suite(cell(suite_i));
        if (e.suite.empty()) e.suite = suite;
        if (e.suite.empty())
          return make_error(ErrorKind::invalid_input, "unknown_axes",
                            fmt::format("{}: line {}: the row has no suite", file, rec.line), file, rec.line, "suite");
      }
      for (const auto& dc : dcols) {
        const std::string_view status = cell(static_cast<int>(dc.index));
        if (status.empty()) continue;
        Expectation x = e;
        if (!dc.mode.empty()) x.mode = dc.mode;
        x.dtype = dc.dtype;
        x.accuracy.assign(status);
        out.rows.push_back(std::move(x));
      }
    }
  }
  return out;
}

}  // namespace perftriage::ingest
