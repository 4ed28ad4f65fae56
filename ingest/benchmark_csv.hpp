#pragma once
// Parser of the dynamo benchmark harness result CSVs, every dialect listed in
// shared/domain/benchmark-csv.md. Pure: bytes in, typed records or an Error naming file/line/column out.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "ingest/records.hpp"

namespace perftriage::ingest {

enum class CsvFlavor { results, reference, unknown };

// Recognises a CSV by its header (first non-blank, non-comment line), never by file name.
CsvFlavor sniff_csv(std::string_view bytes, const CsvLimits& limits = {});

// Parses a performance or accuracy result file. `file_name` is only used in error and warning messages.
Result<ParsedResults> parse_results_csv(std::string_view bytes, std::string_view file_name,
                                        const CsvLimits& limits = {});

// Where a record starts in the bytes (offset past a BOM), its line, and the header it is read with.
struct RecordLocation {
  std::uint64_t offset = 0;
  std::int64_t line = 0;
  std::uint32_t header = 0;  // index into ScannedResults::headers (rows only)
};

// A result file checked in full (every row parsed and validated, duplicates resolved), of which only the
// location of each kept row is kept: 24 bytes a row instead of a ResultRow (~400 bytes plus its strings).
// for_each_result_row() reads the kept rows again, one at a time, from the same bytes.
struct ScannedResults {
  ParsedResults summary;                // kind, header, content_axes, duplicates_dropped, warnings; rows empty
  std::vector<RecordLocation> headers;  // the header lines kept rows are read with
  std::vector<RecordLocation> rows;     // kept rows, in file order
  CsvLimits limits;
};

Result<ScannedResults> scan_results_csv(std::string_view bytes, std::string_view file_name,
                                        const CsvLimits& limits = {});

// Calls `fn` with every kept row of `scan`, in file order: one ResultRow object, refilled for each row (copy what
// must outlive the call). `bytes` must be the bytes that were scanned. `fn` returns false to stop early; the
// result is then ok too.
Result<void> for_each_result_row(const ScannedResults& scan, std::string_view bytes, std::string_view file_name,
                                 const std::function<bool(const ResultRow&)>& fn);

}  // namespace perftriage::ingest
