#pragma once
// Escaping of one table cell, shared by every markdown and CSV table the service prints.
#include <string>
#include <string_view>

namespace perftriage {

// A pipe or a line break inside a value must not break a markdown table row.
inline std::string md_cell(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// RFC 4180: quote when needed, double the quotes.
inline std::string csv_cell(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace perftriage
