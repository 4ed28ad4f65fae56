#pragma once
// Number formatting shared by the compare tables and the reports. Cells are escaped with md_cell / csv_cell
// (common/text_cells.hpp), lists joined with join (common/strings.hpp).
#include <optional>
#include <string>

#include "common/strings.hpp"
#include "common/text_cells.hpp"

namespace perftriage::analyzers::compare {

std::string fixed(const std::optional<double>& v, int digits = 4);  // "" for nullopt
std::string percent(const std::optional<double>& v);                // "97.5%", "" for nullopt

}  // namespace perftriage::analyzers::compare
