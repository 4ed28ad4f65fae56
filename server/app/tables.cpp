#include "server/app/tables.hpp"

#include <algorithm>

#include "analyzers/compare/compare_render.hpp"
#include "analyzers/flags/slow_table.hpp"
#include "common/json_text.hpp"
#include "common/text_cells.hpp"
#include "server/app/queries.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

// A table of plain text cells: markdown, CSV or aligned columns from the same rows.
struct Column {
  std::string name;
  bool numeric = false;  // right-aligned
};
using Row = std::vector<std::string>;

std::string markdown_table(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  std::string out = "|", rule = "|";
  for (const auto& c : columns) {
    out += " " + md_cell(c.name) + " |";
    rule += c.numeric ? "---:|" : "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const auto& cell : row) out += " " + md_cell(cell) + " |";
    out += "\n";
  }
  return out;
}

std::string csv_table(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + csv_cell(columns[i].name);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_cell(row[i]);
    out += "\n";
  }
  return out;
}

// Each column as wide as its longest cell, two spaces between columns, numbers right-aligned.
std::string aligned_table(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  std::vector<std::size_t> width(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) width[i] = columns[i].name.size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string cell = cell_of(i);
      const std::string pad(width[i] - std::min(width[i], cell.size()), ' ');
      if (i) out += "  ";
      out += columns[i].numeric ? pad + cell : (i + 1 == columns.size() ? cell : cell + pad);
    }
    return out + "\n";
  };
  std::string out = line([&](std::size_t i) { return columns[i].name; });
  for (const auto& row : rows) out += line([&](std::size_t i) { return row[i]; });
  return out;
}

std::string table_text(Format format, const std::vector<Column>& columns, const std::vector<Row>& rows) {
  if (format == Format::csv) return csv_table(columns, rows);
  if (format == Format::text) return aligned_table(columns, rows);
  return markdown_table(columns, rows);
}

}  // namespace

std::string_view to_string(Format format) {
  switch (format) {
    case Format::json: return "json";
    case Format::md: return "md";
    case Format::csv: return "csv";
    case Format::text: return "text";
  }
  return "json";
}

Result<Format> parse_format(const std::string& text, Format fallback, std::initializer_list<Format> offered) {
  if (text.empty()) return fallback;
  std::string names;
  for (const Format f : offered) {
    if (text == to_string(f)) return f;
    names += (names.empty() ? "" : ", ") + std::string(to_string(f));
  }
  return make_error(ErrorKind::invalid_input, "bad_format", "format must be one of " + names + ", got '" + text + "'",
                    {}, 0, "format");
}

Rendered rendered_json(const json& document) { return {"application/json", dump_json(document) + "\n"}; }

Rendered rendered_text(Format format, std::string body) {
  switch (format) {
    case Format::md: return {"text/markdown; charset=utf-8", std::move(body)};
    case Format::csv: return {"text/csv; charset=utf-8", std::move(body)};
    case Format::json: return {"application/json", std::move(body)};
    case Format::text: return {"text/plain; charset=utf-8", std::move(body)};
  }
  return {"text/plain; charset=utf-8", std::move(body)};
}

Result<SlowCases> find_slow_cases(schema::Store& store, const std::string& run, const std::string& platform,
                                  double threshold) {
  SlowCases out;
  out.threshold = threshold;
  PT_ASSIGN(out.runs, resolve_runs(store, run, platform));
  if (!run.empty()) {  // asked for by key: an empty table must say when nothing was measured
    PT_ASSIGN(out.warning, no_results_warning(store, out.runs.front()));
  }
  PT_ASSIGN(out.rows, slow_cases(store, out.runs, threshold));
  PT_ASSIGN(out.findings, findings_for_rows(store.db(), out.runs, out.rows));
  return out;
}

Rendered render_slow_cases(const SlowCases& slow, Format format, const SlowTableOptions& options) {
  if (format == Format::csv) return rendered_text(format, analyzers::slow_table_csv(slow.rows));
  if (format == Format::md || format == Format::text) {
    if (!options.findings_column) return rendered_text(Format::md, analyzers::slow_table_markdown(slow.rows));
    analyzers::ExtraColumn findings{"findings", {}};
    for (const auto& f : slow.findings) findings.cells.push_back(findings_cell(f));
    return rendered_text(Format::md, analyzers::slow_table_markdown(slow.rows, &findings));
  }
  json cases = analyzers::slow_table_json(slow.rows);
  for (std::size_t i = 0; i < cases.size() && i < slow.findings.size(); ++i) {
    cases[i]["findings"] = findings_json(slow.findings[i]);
  }
  if (!options.envelope) return rendered_json(cases);
  json keys = json::array();
  for (const auto& r : slow.runs) keys.push_back(r.meta.key);
  json out{{"runs", keys}, {"threshold", slow.threshold}, {"cases", cases}};
  if (slow.warning) out["warning"] = {{"code", slow.warning->code}, {"message", slow.warning->message}};
  return rendered_json(out);
}

Result<std::vector<RunRow>> list_runs_with_counts(schema::Store& store, const std::string& platform, double threshold) {
  PT_ASSIGN(auto runs, schema::list_runs(store.db(), platform));
  std::vector<RunRow> out;
  out.reserve(runs.size());
  for (auto& run : runs) {
    PT_ASSIGN(auto counts, schema::run_counts(store.db(), run.id, threshold));
    out.push_back({std::move(run), counts});
  }
  return out;
}

Result<RunRowsPage> list_runs_page_with_counts(schema::Store& store, const std::string& platform, double threshold,
                                               std::int64_t limit, const std::string& cursor) {
  PT_ASSIGN(auto page, schema::list_runs_page(store.db(), platform, limit, cursor));
  RunRowsPage out;
  out.next_cursor = std::move(page.next_cursor);
  out.rows.reserve(page.runs.size());
  for (auto& run : page.runs) {
    PT_ASSIGN(auto counts, schema::run_counts(store.db(), run.id, threshold));
    out.rows.push_back({std::move(run), counts});
  }
  return out;
}

Rendered render_runs(const std::vector<RunRow>& runs, Format format, bool envelope, const std::string* next_cursor) {
  if (format == Format::json) {
    json list = json::array();
    for (const auto& r : runs) list.push_back(run_json(r.run, r.counts));
    if (!envelope) return rendered_json(list);
    json out{{"runs", list}};
    if (next_cursor != nullptr) out["next_cursor"] = next_cursor->empty() ? json() : json(*next_cursor);
    return rendered_json(out);
  }
  const std::vector<Column> columns = {{"run"},        {"platform"},     {"torch"},
                                       {"created"},    {"files", true},  {"rows", true},
                                       {"slow", true}, {"failed", true}, {"acc_fail", true}};
  std::vector<Row> rows;
  for (const auto& [run, c] : runs) {
    rows.push_back({run.meta.key, run.meta.platform, run.meta.torch_version, run.meta.created_at,
                    std::to_string(c.files), std::to_string(c.rows), std::to_string(c.slow), std::to_string(c.failed),
                    std::to_string(c.accuracy_failed)});
  }
  return rendered_text(format, table_text(format, columns, rows));
}

Rendered render_comparison(const Comparison& c, const analyzers::compare::Thresholds& thresholds, Format format) {
  namespace cmp = analyzers::compare;
  const auto& base = c.base.meta.key;
  const auto& target = c.target.meta.key;
  if (format == Format::csv) return rendered_text(format, cmp::compare_csv(c.cases));
  if (format == Format::json) {
    return rendered_text(format, cmp::compare_json_text(base, target, thresholds, c.cases, c.aggregates) + "\n");
  }
  return rendered_text(Format::md, cmp::compare_markdown(base, target, thresholds, c.cases, c.aggregates));
}

Rendered render_report(std::string markdown) { return rendered_text(Format::md, std::move(markdown)); }

}  // namespace perftriage::server
