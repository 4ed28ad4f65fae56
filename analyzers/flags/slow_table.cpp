#include "analyzers/flags/slow_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "common/text_cells.hpp"

namespace perftriage::analyzers {

std::string speedup_cell(const model::ResultRecord& r) {
  if (!r.speedup_text.empty()) return r.speedup_text;
  return r.speedup ? fmt::format("{:.6f}", *r.speedup) : std::string{};
}

void sort_slow_cases(std::vector<model::ResultRecord>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.suite, a.dtype, a.mode) < std::tie(b.suite, b.dtype, b.mode) ||
           (std::tie(a.suite, a.dtype, a.mode) == std::tie(b.suite, b.dtype, b.mode) &&
            std::make_tuple(a.speedup.value_or(0), a.model) < std::make_tuple(b.speedup.value_or(0), b.model));
  });
}

std::string slow_table_markdown(const std::vector<model::ResultRecord>& rows, const ExtraColumn* extra) {
  std::string out = "| suite | dtype | mode | model | batch_size | speedup | source csv |";
  out +=
      extra ? " " + extra->name + " |\n|---|---|---|---|---:|---:|---|---|\n" : "\n|---|---|---|---|---:|---:|---|\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out += "| " + md_cell(r.suite) + " | " + md_cell(r.dtype) + " | " + md_cell(r.mode) + " | " + md_cell(r.model) +
           " | " + std::to_string(r.batch_size) + " | " + speedup_cell(r) + " | " + md_cell(r.source) + " |";
    if (extra) {
      const std::string cell = i < extra->cells.size() ? extra->cells[i] : std::string();
      out += cell.empty() ? " |" : " " + cell + " |";
    }
    out += "\n";
  }
  return out;
}

std::string slow_table_csv(const std::vector<model::ResultRecord>& rows) {
  std::string out = "suite,dtype,mode,model,batch_size,speedup,source\n";
  for (const auto& r : rows) {
    out += csv_cell(r.suite) + "," + csv_cell(r.dtype) + "," + csv_cell(r.mode) + "," + csv_cell(r.model) + "," +
           std::to_string(r.batch_size) + "," + speedup_cell(r) + "," + csv_cell(r.source) + "\n";
  }
  return out;
}

nlohmann::json slow_table_json(const std::vector<model::ResultRecord>& rows) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    out.push_back({{"suite", r.suite},
                   {"dtype", r.dtype},
                   {"mode", r.mode},
                   {"model", r.model},
                   {"batch_size", r.batch_size},
                   {"speedup", r.speedup ? nlohmann::json(*r.speedup) : nlohmann::json()},
                   {"source", r.source}});
  }
  return out;
}

}  // namespace perftriage::analyzers
