#pragma once
// A whole database copied into another of the other dialect (`perftriage migrate --from sqlite:PATH --to
// postgresql://...`), and the proof that the copy is the same: per table, the rows and an order-independent checksum
// of their values read back from both sides.
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct TableCopy {
  std::string table;
  std::int64_t rows_from = 0, rows_to = 0;
  std::string checksum_from, checksum_to;  // hex; equal when every value arrived as it was
  [[nodiscard]] bool same() const { return rows_from == rows_to && checksum_from == checksum_to; }
};

// Copies every table of `from` (a SQLite database at the schema version of this binary) into `to` (migrated to the
// same version, holding no runs, tokens or bot state yet), in one transaction on `to`, its triggers off (the rows
// already carry what the triggers would write), its identity counters moved past the copied ids; then checks.
// A `to` already holding data is refused (conflict), and so is a source at another schema version.
Result<std::vector<TableCopy>> copy_database(Database& from, Database& to);

// The check alone: rows and checksum of each table, on both sides.
Result<std::vector<TableCopy>> compare_databases(Database& from, Database& to);

}  // namespace perftriage::schema
