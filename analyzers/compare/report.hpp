#pragma once
// Tracking-issue bodies: the slow-case report in the seed issue's shape (title line, summary, Representative
// Cases with source CSVs, notes on where the cases concentrate, ask) and the release-regression report grouped
// into categories. The first line of each is the issue title; the body follows after one blank line.
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "model/records.hpp"

namespace perftriage::analyzers::compare {

// "2.12.0+xpu" -> "2.12", "2.13.0.dev20260101+xpu" -> "2.13"; "" when the version has no major.minor.
std::string release_label(std::string_view torch_version);
// "Ubuntu 24.04 LTS, intel-opencl-icd 26.05.37020.3, ...": "os" first (value only), then "name value".
std::string environment_line(const std::string& environment_json);

// "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)"
std::string slow_report_title(const model::RunRecord& run, double threshold);
// `slow_rows`: the run's slow cases in the tracker's order (analyzers::sort_slow_cases).
std::string slow_report_markdown(const model::RunRecord& run, const std::vector<model::ResultRecord>& slow_rows,
                                 double threshold);

// "[BMG] 37 E2E inductor performance regressions: release 2.13 vs 2.12"
std::string regression_report_title(const model::RunRecord& base, const model::RunRecord& target,
                                    std::size_t regressions);
std::string regression_report_markdown(const model::RunRecord& base, const model::RunRecord& target,
                                       const std::vector<CaseComparison>& cases, const Aggregates& aggregates,
                                       const Thresholds& thresholds);

}  // namespace perftriage::analyzers::compare
