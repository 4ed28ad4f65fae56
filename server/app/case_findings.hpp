#pragma once
// What the classifiers found for the cases of a run, for the read sides that list cases (slow list, reports,
// history), and the combined explanation of one case.
#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// A case within one run: the axes that identify its result rows.
struct CaseKey {
  std::string suite, dtype, mode, model, config;
  auto operator<=>(const CaseKey&) const = default;
};

CaseKey case_key(const model::ResultRecord& row);

// One classifier verdict from one attached artifact.
struct FindingSummary {
  std::int64_t artifact_id = 0;
  std::string artifact;  // its file name
  std::string role;      // its free label, may be empty
  std::string classifier, verdict, evidence;
};

// Every finding of every artifact attached to a case of the run, artifacts oldest first.
Result<std::map<CaseKey, std::vector<FindingSummary>>> findings_for_run(schema::Database& db, std::int64_t run_id);

// The findings of each row (same order as `rows`); rows of runs not in `runs` get none.
Result<std::vector<std::vector<FindingSummary>>> findings_for_rows(schema::Database& db,
                                                                   const std::vector<model::RunRecord>& runs,
                                                                   const std::vector<model::ResultRecord>& rows);

// [{"artifact_id","artifact","role","classifier","verdict","evidence"}]
nlohmann::json findings_json(const std::vector<FindingSummary>& findings);

// One markdown cell: "attention: math_fallback; host_bound: no", one group per artifact ("[role] ..." when a
// case has several); unknown verdicts are left out (the JSON keeps them).
std::string findings_cell(const std::vector<FindingSummary>& findings);

// A "## Classifier findings" markdown section listing, for each row that has findings, its case and the
// verdicts with their evidence; "" when no row has any (the report keeps the seed issue's shape then).
std::string findings_section_markdown(const std::vector<model::ResultRecord>& rows,
                                      const std::vector<std::vector<FindingSummary>>& findings);

// Whether a verdict names a cause: definite (not "" or unknown) and not a healthy one (no, none, fused), the rule of
// explain_case below.
bool is_cause(const std::string& verdict);

// A finding with where it came from ("artifact 3 trace.json (compiled)", "performance row").
struct SourcedFinding {
  std::string source;
  nlohmann::json finding;  // {"classifier","verdict","evidence",...}
  std::string run = {};    // the run whose row or artifact it came from; "" when the caller did not say
};

// The combined explanation of a case, never a guess:
// {"verdict": "explained" | "inconclusive" | "unexplained", "causes": [{"source","classifier","verdict","evidence"}],
//  "unknown": [classifier...], "text": "attention: math_fallback; graph_breaks: yes" | "unexplained" | ...}.
// Causes are the verdicts that are not no / none / fused / unknown. A classifier is unknown only when no source gave it
// a definite verdict (a kernel trace's graph_breaks "unknown" does not hide the result row's "no").
nlohmann::json explain_case(const std::vector<SourcedFinding>& findings);

}  // namespace perftriage::server
