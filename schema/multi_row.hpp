#pragma once
// The parameter tuples of a multi-row INSERT, `($1,$2),($3,$4)`: `rows` tuples of `columns` parameters, numbered
// from 1. PostgreSQL answers each statement over the network, so the store sends rows in batches this way.
#include <cstddef>
#include <string>

namespace perftriage::schema {

inline std::string multi_row_values(std::size_t rows, std::size_t columns) {
  std::string out;
  std::size_t n = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    out += r == 0 ? "(" : ",(";
    for (std::size_t c = 0; c < columns; ++c) out += (c == 0 ? "$" : ",$") + std::to_string(++n);
    out += ')';
  }
  return out;
}

}  // namespace perftriage::schema
