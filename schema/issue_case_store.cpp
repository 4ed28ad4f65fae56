#include "schema/issue_case_store.hpp"

#include "common/strings.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kDelete = "DELETE FROM issue_cases WHERE repo = $1 AND number = $2";
constexpr std::string_view kInsert =
    "INSERT INTO issue_cases(repo, number, suite, dtype, mode, model, platform, speedup) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING";
// Open: no tracker row says closed at or after the labeling. tracker_issues compares repositories case-insensitively
// (its NOCASE column); the explicit collation keeps PostgreSQL from having to choose between two implicit ones.
constexpr std::string_view kOpenFrom =
    "FROM issue_cases l JOIN labeled_issues i ON i.repo = l.repo AND i.number = l.number "
    "LEFT JOIN tracker_issues t ON t.repo = l.repo COLLATE NOCASE AND t.number = l.number "
    "WHERE NOT (COALESCE(t.state, 'open') = 'closed' AND t.updated_at >= i.updated_at) ";
constexpr std::string_view kColumns = "SELECT l.repo, l.number, i.title, l.platform, l.speedup, ";
constexpr std::string_view kForCase =
    "AND l.model = $4 AND l.suite = $1 AND l.dtype = $2 AND l.mode = $3 AND (l.platform = '' OR l.platform = $5) "
    "ORDER BY l.number DESC, l.repo";
constexpr std::string_view kForPlatform =
    "AND (l.platform = '' OR l.platform = $1) ORDER BY l.suite, l.dtype, l.mode, l.model, l.number DESC, l.repo";

// A link changes the derived triage state of its case on every platform (triage_store.cpp): it moves the global
// stamp and every platform's, as a triage write moves its platform's (migration 013), so that no cached answer keeps
// the state it had. Labeling is rare; a platform scope is one row per platform.
constexpr std::string_view kStampAll = "UPDATE data_stamps SET stamp = stamp + 1 WHERE scope = '*'";
constexpr std::string_view kStampPlatforms =
    "UPDATE data_stamps SET stamp = (SELECT stamp FROM data_stamps WHERE scope = '*') WHERE scope LIKE 'platform:%'";

Result<void> stamp_platforms(Database& db) {
  PT_ASSIGN(auto all, Statement::prepare(db, kStampAll));
  PT_TRY(all.run());
  PT_ASSIGN(auto platforms, Statement::prepare(db, kStampPlatforms));
  return platforms.run();
}

LinkedIssue read_issue(const Statement& s) { return {s.text(0), s.int64(1), s.text(2), s.text(3), s.opt_real(4)}; }

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// The platform an hw value names: the labeler's values are labels ("hw: BMG"), the platforms runs carry are bare.
std::string platform_of(std::string value) {
  if (lower(value.substr(0, 3)) == "hw:") value.erase(0, 3);
  const auto start = value.find_first_not_of(' ');
  const auto end = value.find_last_not_of(' ');
  return start == std::string::npos ? std::string{} : lower(value.substr(start, end - start + 1));
}

std::vector<std::string> platforms_of(const nlohmann::json& axes) {
  std::vector<std::string> out;
  if (axes.is_array()) {
    for (const auto& a : axes) {
      if (!a.is_object() || text_of(a, "axis") != "hw") continue;
      if (auto platform = platform_of(text_of(a, "value")); !platform.empty()) out.push_back(std::move(platform));
    }
  }
  if (out.empty()) out.emplace_back();
  return out;
}

std::optional<IssueCase> case_of(const nlohmann::json& c) {
  if (!c.is_object()) return std::nullopt;
  IssueCase out{text_of(c, "suite"), text_of(c, "dtype"), text_of(c, "mode"), text_of(c, "model"), "", std::nullopt};
  if (out.suite.empty() || out.dtype.empty() || out.mode.empty() || out.model.empty()) return std::nullopt;
  if (const auto it = c.find("speedup"); it != c.end() && it->is_number()) out.speedup = it->get<double>();
  return out;
}

}  // namespace

std::vector<IssueCase> issue_cases_of(const nlohmann::json& result, const nlohmann::json& axes) {
  std::vector<IssueCase> out;
  const auto cases = result.is_object() ? result.find("cases") : result.end();
  if (!result.is_object() || cases == result.end() || !cases->is_array()) return out;
  const auto platforms = platforms_of(axes);
  for (const auto& c : *cases) {
    auto one = case_of(c);
    if (!one) continue;
    for (const auto& p : platforms) {
      one->platform = p;
      out.push_back(*one);
    }
  }
  return out;
}

Result<void> replace_issue_cases(Database& db, std::string_view repo, std::int64_t number,
                                 const std::vector<IssueCase>& cases) {
  PT_ASSIGN(auto drop, Statement::prepare(db, kDelete));
  drop.bind(1, repo).bind(2, number);
  PT_TRY(drop.run());
  PT_ASSIGN(auto st, Statement::prepare(db, kInsert));
  for (const auto& c : cases) {
    st.bind(1, repo).bind(2, number).bind(3, c.suite).bind(4, c.dtype).bind(5, c.mode).bind(6, c.model);
    st.bind(7, c.platform).bind(8, c.speedup);
    PT_TRY(st.run());
    st.reset();
  }
  return stamp_platforms(db);
}

Result<void> clear_issue_cases(Database& db, std::string_view repo, std::int64_t number) {
  PT_ASSIGN(auto st, Statement::prepare(db, kDelete));
  st.bind(1, repo).bind(2, number);
  PT_TRY(st.run());
  return stamp_platforms(db);
}

Result<std::vector<LinkedIssue>> open_issues_for_case(Database& db, const CaseName& name, std::string_view platform) {
  PT_ASSIGN(auto st, Statement::prepare(
                         db, std::string(kColumns) + "l.model " + std::string(kOpenFrom) + std::string(kForCase)));
  st.bind(1, name.suite).bind(2, name.dtype).bind(3, name.mode).bind(4, name.model).bind(5, lower(platform));
  return collect<LinkedIssue>(st, read_issue);
}

Result<std::vector<CaseIssueLink>> open_issue_links(Database& db, std::string_view platform) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kColumns) + "l.suite, l.dtype, l.mode, l.model " +
                                                std::string(kOpenFrom) + std::string(kForPlatform)));
  st.bind(1, lower(platform));
  return collect<CaseIssueLink>(st, [](const Statement& s) {
    return CaseIssueLink{{s.text(5), s.text(6), s.text(7), s.text(8)}, read_issue(s)};
  });
}

nlohmann::json to_json(const LinkedIssue& issue) {
  nlohmann::json speedup = nullptr;
  if (issue.speedup) speedup = *issue.speedup;
  return {{"repo", issue.repo},
          {"number", issue.number},
          {"ref", issue.repo + "#" + std::to_string(issue.number)},
          {"title", issue.title},
          {"platform", issue.platform},
          {"speedup", speedup},
          {"url", "https://github.com/" + issue.repo + "/issues/" + std::to_string(issue.number)}};
}

}  // namespace perftriage::schema
