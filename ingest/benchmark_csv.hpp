#pragma once
// Parser of the dynamo benchmark harness result CSVs, every dialect listed in
// shared/domain/benchmark-csv.md. Pure: bytes in, typed records or an Error naming file/line/column out.
#include <string_view>

#include "common/result.hpp"
#include "ingest/records.hpp"

namespace perftriage::ingest {

enum class CsvFlavor { results, reference, unknown };

// Recognises a CSV by its header (first non-blank, non-comment line), never by file name.
CsvFlavor sniff_csv(std::string_view bytes);

// Parses a performance or accuracy result file. `file_name` is only used in error messages.
Result<ParsedResults> parse_results_csv(std::string_view bytes, std::string_view file_name);

}  // namespace perftriage::ingest
