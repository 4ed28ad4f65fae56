#pragma once
// Parser of reference ("expected") files: PyTorch ci_expected_accuracy, torch-xpu-ops wide and combined
// per-dtype files, CPU speedup-target files. `axes` carries suite/mode/config taken from the path
// (needed by the formats that do not state them in their rows).
#include <string_view>

#include "common/result.hpp"
#include "ingest/records.hpp"

namespace perftriage::ingest {

Result<ParsedReference> parse_reference_csv(std::string_view bytes, std::string_view file_name, const Axes& axes,
                                            const CsvLimits& limits = {});

}  // namespace perftriage::ingest
