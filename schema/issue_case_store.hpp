#pragma once
// The cases a labeled issue names (migration 017): written with the labeled issue, replaced when it is relabeled,
// read by the Case page, the backlog and the automatic acknowledgement of triage.
//
// A link is platform-agnostic (suite, dtype, mode, model); `platform` narrows it to the hardware the issue's hw axis
// gave ('' = every platform). An issue is open unless the store knows better: a `tracker sync` row saying closed that
// is not older than the labeling (a reopened issue is relabeled, which is newer), and a webhook `closed` event drops
// the issue's links (clear_issue_cases). Writes run inside the caller's transaction; reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct IssueCase {
  std::string suite, dtype, mode, model;
  std::string platform;  // lower case; "" = the issue names no hardware
  std::optional<double> speedup;
};

// A case's name, platform-agnostic.
struct CaseName {
  std::string suite, dtype, mode, model;
};

struct LinkedIssue {
  std::string repo;
  std::int64_t number = 0;
  std::string title;
  std::string platform;           // the link's hw narrowing ("" = any)
  std::optional<double> speedup;  // what the issue quoted
};

// A link of an open issue, with its case: what a whole platform's backlog is joined with.
struct CaseIssueLink {
  CaseName name;
  LinkedIssue issue;
};

// The links a labeling result names: its E2E cases with all four names (unit-test cases are no backlog case), once
// per value of the issue's hw axis (`axes`: [{"axis","value"}]) or once with platform "" when it has none.
std::vector<IssueCase> issue_cases_of(const nlohmann::json& result, const nlohmann::json& axes);

// Replaces the issue's links with `cases`.
Result<void> replace_issue_cases(Database& db, std::string_view repo, std::int64_t number,
                                 const std::vector<IssueCase>& cases);
// The issue was closed: it tracks nothing any more (until it is reopened, which relabels it).
Result<void> clear_issue_cases(Database& db, std::string_view repo, std::int64_t number);

// The open issues naming the case on `platform` (any spelling), newest issue first.
Result<std::vector<LinkedIssue>> open_issues_for_case(Database& db, const CaseName& name, std::string_view platform);
// Every link of an open issue that applies to `platform`, by case then newest issue first.
Result<std::vector<CaseIssueLink>> open_issue_links(Database& db, std::string_view platform);

nlohmann::json to_json(const LinkedIssue& issue);

}  // namespace perftriage::schema
