#include "analyzers/compare/text.hpp"

#include <fmt/format.h>

#include "common/text_cells.hpp"

namespace perftriage::analyzers::compare {

std::string md_cell(const std::string& s) { return perftriage::md_cell(s); }
std::string csv_cell(const std::string& s) { return perftriage::csv_cell(s); }

std::string fixed(const std::optional<double>& v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string{};
}

std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : std::string{}; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace perftriage::analyzers::compare
