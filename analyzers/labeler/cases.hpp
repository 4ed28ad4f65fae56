#pragma once
// Test cases in an issue body. E2E: markdown / whitespace / Excel (`-- | --`) / CSV tables with suite-dtype-mode-model
// columns or combined cells, `Summary for <suite> <dtype> <mode> accuracy` logs, `benchmarks/dynamo/<suite>.py`
// commands. UT: `Cases:` rows `op_ut,<dotted.Class>,<test>`, pytest ids `file.py::Class::test`, `FAILED ...` lines.
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/labeler/budget.hpp"
#include "analyzers/labeler/labeler.hpp"

namespace perftriage::analyzers::labeler {

struct CaseScan {
  std::vector<ParsedCase> cases;  // in order of appearance, de-duplicated
  bool e2e_table = false;         // a table with suite / model columns or a speedup / ratio column
  bool e2e_command = false;       // a benchmarks/dynamo/*.py command
  bool e2e_log = false;           // a `Summary for ...` log
  std::string table_shape;        // for reasons: "markdown table", "Excel paste", "Summary log", ...
};

// `budget` (optional) is ticked per line; BudgetExceeded propagates.
CaseScan extract_cases(const std::vector<std::string>& lines, std::string_view title, Budget* budget = nullptr);

}  // namespace perftriage::analyzers::labeler
