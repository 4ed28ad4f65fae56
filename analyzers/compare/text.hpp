#pragma once
// Cell and number formatting shared by the compare tables and the reports.
#include <optional>
#include <string>
#include <vector>

namespace perftriage::analyzers::compare {

std::string md_cell(const std::string& s);   // escapes '|', newlines become spaces
std::string csv_cell(const std::string& s);  // RFC 4180 quoting when needed
std::string fixed(const std::optional<double>& v, int digits = 4);  // "" for nullopt
std::string percent(const std::optional<double>& v);                 // "97.5%", "" for nullopt
std::string join(const std::vector<std::string>& parts, const std::string& sep);

}  // namespace perftriage::analyzers::compare
