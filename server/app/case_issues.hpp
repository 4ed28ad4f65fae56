#pragma once
// The open tracker issues that name a case (schema/issue_case_store.hpp), as the Case page, the explain answer and
// the backlog show them: [{"repo", "number", "ref", "title", "platform", "speedup", "url"}], newest issue first.
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"
#include "schema/triage_store.hpp"

namespace perftriage::server {

// The open issues naming the case on its platform (config is not part of an issue's case name).
Result<nlohmann::json> case_issues_json(schema::Database& db, const schema::TriageKey& key);

// (suite, dtype, mode, model) -> the open issues naming it on `platform`: one read for a whole backlog.
using CaseIssueIndex = std::map<std::tuple<std::string, std::string, std::string, std::string>, nlohmann::json>;
Result<CaseIssueIndex> case_issue_index(schema::Database& db, const std::string& platform);

}  // namespace perftriage::server
