#include "server/app/case_issues.hpp"

#include "schema/issue_case_store.hpp"

namespace perftriage::server {

Result<nlohmann::json> case_issues_json(schema::Database& db, const schema::TriageKey& key) {
  PT_ASSIGN(const auto issues,
            schema::open_issues_for_case(db, {key.suite, key.dtype, key.mode, key.model}, key.platform));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : issues) out.push_back(schema::to_json(i));
  return out;
}

Result<CaseIssueIndex> case_issue_index(schema::Database& db, const std::string& platform) {
  PT_ASSIGN(const auto links, schema::open_issue_links(db, platform));
  CaseIssueIndex out;
  for (const auto& l : links) {
    auto& list = out[{l.name.suite, l.name.dtype, l.name.mode, l.name.model}];
    if (list.is_null()) list = nlohmann::json::array();
    list.push_back(schema::to_json(l.issue));
  }
  return out;
}

}  // namespace perftriage::server
