#include "schema/triage_store.hpp"

#include <algorithm>

#include <map>
#include <set>
#include <tuple>

#include "schema/issue_case_store.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

// The backlog's status of a row b (as read_backlog says it): fixed when a passing measurement came after the last
// slow one and the newest one did not fail.
#define PT_BACKLOG_FIXED "(b.latest_failed = 0 AND b.latest_ord <> b.last_ord)"
// The derived state and the run it holds since.
#define PT_DERIVED_STATE \
  "CASE WHEN " PT_BACKLOG_FIXED " THEN 'fixed' WHEN b.regressed_run IS NOT NULL THEN 'regressed' ELSE 'new' END"
#define PT_DERIVED_SINCE                                                    \
  "CASE WHEN " PT_BACKLOG_FIXED                                             \
  " THEN b.fixed_run WHEN b.regressed_run IS NOT NULL THEN b.regressed_run" \
  " ELSE b.first_run END"

constexpr std::string_view kSelectTriage =
    "SELECT c.suite, c.dtype, c.mode, c.config, c.model, b.case_id, coalesce(t.state, " PT_DERIVED_STATE
    ") AS state,"
    " coalesce(t.issue, ''), coalesce(t.reason, ''), coalesce(s.key, ''), coalesce(t.updated_by, 'auto'),"
    " coalesce(t.updated_at, ''), l.key, b.latest_text, b.worst_speedup, b.latest_failed, b.platform "
    "FROM backlog b JOIN cases c ON c.id = b.case_id LEFT JOIN triage t ON t.platform = b.platform"
    " AND t.case_id = b.case_id LEFT JOIN runs s ON s.id = coalesce(t.since_run, " PT_DERIVED_SINCE
    ")"
    " JOIN runs l ON l.id = b.latest_run ";
constexpr std::string_view kFindCase =
    "SELECT id FROM cases WHERE suite = $1 AND dtype = $2 AND mode = $3 AND kind = 'performance' AND config = $4"
    " AND model = $5";
constexpr std::string_view kUpsertDecision =
    "INSERT INTO triage(platform, case_id, state, issue, reason, since_run, updated_at, updated_by)"
    " SELECT $1, $2, $3, $4, $5, latest_run, $6, $7 FROM backlog WHERE platform = $1 AND case_id = $2 "
    "ON CONFLICT(platform, case_id) DO UPDATE SET state = excluded.state, issue = excluded.issue, reason = "
    "excluded.reason,"
    " since_run = excluded.since_run, updated_at = excluded.updated_at, updated_by = excluded.updated_by";
constexpr std::string_view kDropDecision = "DELETE FROM triage WHERE platform = $1 AND case_id = $2";
constexpr std::string_view kInsertChange =
    "INSERT INTO triage_history(platform, case_id, from_state, state, issue, reason, run_id, who, at)"
    " SELECT $1, $2, $3, $4, $5, $6, latest_run, $7, $8 FROM backlog WHERE platform = $1 AND case_id = $2";
constexpr std::string_view kHistory =
    "SELECT h.from_state, h.state, h.issue, h.reason, coalesce(r.key, ''), h.who, h.at FROM triage_history h"
    " LEFT JOIN runs r ON r.id = h.run_id WHERE h.platform = $1 AND h.case_id = $2 ORDER BY h.id";

// The transitions of apply_auto_triage over the platform's decisions (a few rows: only decided cases have one).
#define PT_AUTO_NEXT                                                         \
  "CASE WHEN t.state IN ('acknowledged', 'regressed') AND " PT_BACKLOG_FIXED \
  " THEN 'fixed'"                                                            \
  " WHEN t.state = 'fixed' AND NOT " PT_BACKLOG_FIXED " AND b.latest_failed = 0 THEN 'regressed' END"
#define PT_AUTO_SINCE "CASE WHEN " PT_BACKLOG_FIXED " THEN b.fixed_run ELSE b.last_run END"
constexpr std::string_view kAutoHistory =
    "INSERT INTO triage_history(platform, case_id, from_state, state, issue, reason, run_id, who, at)"
    " SELECT t.platform, t.case_id, t.state, " PT_AUTO_NEXT ", t.issue, '', " PT_AUTO_SINCE
    ", 'auto', $2"
    " FROM triage t JOIN backlog b ON b.platform = t.platform AND b.case_id = t.case_id"
    " WHERE t.platform = $1 AND (" PT_AUTO_NEXT ") IS NOT NULL";
constexpr std::string_view kAutoApply =
    "UPDATE triage AS t SET state = " PT_AUTO_NEXT ", since_run = " PT_AUTO_SINCE
    ", updated_at = $2,"
    " updated_by = 'auto' FROM backlog b WHERE b.platform = t.platform AND b.case_id = t.case_id"
    " AND t.platform = $1 AND (" PT_AUTO_NEXT ") IS NOT NULL";
#undef PT_AUTO_NEXT
#undef PT_AUTO_SINCE
#undef PT_DERIVED_STATE
#undef PT_DERIVED_SINCE
#undef PT_BACKLOG_FIXED

// The cases of the platform a person has decided on (any history line not by "auto" or "tracker"), even if they
// later set "new" again: the tracker's acknowledgement never overrides a person.
constexpr std::string_view kPersonDecided =
    "SELECT DISTINCT case_id FROM triage_history WHERE platform = $1 AND who NOT IN ('auto', 'tracker')";

using CaseKey = std::tuple<std::string, std::string, std::string, std::string>;

// What an open tracker issue says of the platform's cases: the newest issue naming each.
struct TrackerView {
  std::map<CaseKey, LinkedIssue> issue_of;
  std::set<std::int64_t> person_decided;
};

Result<TrackerView> tracker_view(Database& db, const std::string& platform) {
  TrackerView view;
  PT_ASSIGN(const auto links, open_issue_links(db, platform));
  for (const auto& l : links) {
    // Ordered newest issue first within a case: the first one stays.
    view.issue_of.try_emplace({l.name.suite, l.name.dtype, l.name.mode, l.name.model}, l.issue);
  }
  if (view.issue_of.empty()) return view;
  PT_ASSIGN(auto st, Statement::prepare(db, kPersonDecided));
  st.bind(1, platform);
  PT_ASSIGN(const auto ids, collect<std::int64_t>(st, [](const Statement& s) { return s.int64(0); }));
  view.person_decided.insert(ids.begin(), ids.end());
  return view;
}

// A case still slow (derived new or regressed, no decision row) that an open tracker issue names is acknowledged
// with that issue, derived like the backlog's states: nothing is written, so it follows the issue (closed: back to
// the backlog's state) and a person's decision, which writes a row, wins.
void apply_tracker(const TrackerView& view, TriageCase& c) {
  if (c.updated_by != "auto" || (c.state != "new" && c.state != "regressed")) return;
  if (view.person_decided.count(c.case_id)) return;
  const auto it = view.issue_of.find({c.suite, c.dtype, c.mode, c.model});
  if (it == view.issue_of.end()) return;
  const auto& issue = it->second;
  c.state = "acknowledged";
  c.issue = issue.repo + "#" + std::to_string(issue.number);
  c.reason = "named in the open tracker issue " + c.issue + (issue.title.empty() ? "" : ": " + issue.title);
  c.updated_by = "tracker";
}

TriageCase read_case(const Statement& s) {
  TriageCase c;
  c.suite = s.text(0);
  c.dtype = s.text(1);
  c.mode = s.text(2);
  c.config = s.text(3);
  c.model = s.text(4);
  c.case_id = s.int64(5);
  c.state = s.text(6);
  c.issue = s.text(7);
  c.reason = s.text(8);
  c.since_run = s.text(9);
  c.updated_by = s.text(10);
  c.updated_at = s.text(11);
  c.latest_run = s.text(12);
  c.latest_speedup = s.text(13);
  c.worst_speedup = s.opt_real(14);
  c.latest_failed = s.int64(15) != 0;
  c.platform = s.text(16);
  return c;
}

Result<std::optional<std::int64_t>> case_id_of(Database& db, const TriageKey& key) {
  PT_ASSIGN(auto st, Statement::prepare(db, kFindCase));
  st.bind(1, key.suite).bind(2, key.dtype).bind(3, key.mode).bind(4, key.config).bind(5, key.model);
  return first(st, [](const Statement& s) { return s.int64(0); });
}

Result<std::optional<TriageCase>> read_one(Database& db, const std::string& platform, std::int64_t case_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectTriage) + "WHERE b.platform = $1 AND b.case_id = $2"));
  st.bind(1, platform).bind(2, case_id);
  PT_ASSIGN(auto found, first(st, read_case));
  if (found) {
    PT_ASSIGN(const auto view, tracker_view(db, platform));
    apply_tracker(view, *found);
  }
  return found;
}

// owner/repo#N, GitHub's grammar for the names (server/bot/github_client.hpp is_github_repo) loosely: what a link
// needs, nothing that could steer a URL.
bool is_issue_ref(std::string_view ref) {
  const auto slash = ref.find('/');
  const auto hash = ref.find('#');
  if (slash == std::string_view::npos || hash == std::string_view::npos || slash == 0 || hash < slash + 2 ||
      hash + 1 == ref.size() || ref.size() > 160 || ref[hash + 1] == '0')
    return false;
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  };
  for (std::size_t i = 0; i < hash; ++i) {
    const bool owner = i < slash;  // the owner: letters, digits and hyphens only
    if (i != slash && (!name_char(ref[i]) || (owner && (ref[i] == '.' || ref[i] == '_')))) return false;
  }
  const std::string_view name = ref.substr(slash + 1, hash - slash - 1);
  if (name == "." || name == "..") return false;
  for (std::size_t i = hash + 1; i < ref.size(); ++i) {
    if (ref[i] < '0' || ref[i] > '9') return false;
  }
  return ref.size() - hash - 1 <= 10;
}

std::string case_name(const TriageKey& k) {
  return k.suite + "/" + k.dtype + "/" + k.mode + "/" + k.model + (k.config.empty() ? "" : " [" + k.config + "]");
}

}  // namespace

nlohmann::json to_json(const TriageChange& h) {
  return {{"from", h.from_state}, {"state", h.state}, {"issue", h.issue}, {"reason", h.reason},
          {"run", h.run},         {"who", h.who},     {"at", h.at}};
}

bool is_triage_state(std::string_view state) noexcept {
  return std::find(std::begin(kTriageStates), std::end(kTriageStates), state) != std::end(kTriageStates);
}
bool is_decided_state(std::string_view state) noexcept {
  return state == "acknowledged" || state == "expected" || state == "wontfix";
}
bool keeps_issue_open(std::string_view state) noexcept {
  return state == "new" || state == "acknowledged" || state == "regressed";
}

Result<std::optional<TriageCase>> find_triage(Database& db, const TriageKey& key) {
  PT_ASSIGN(const std::string platform, stored_platform(db, key.platform));
  PT_ASSIGN(const auto id, case_id_of(db, key));
  if (!id) return std::optional<TriageCase>{};
  return read_one(db, platform, *id);
}

Result<TriageCase> set_triage(Database& db, const TriageKey& key, std::string_view state, std::string_view issue,
                              std::string_view reason, std::string_view who) {
  if (state != "new" && !is_decided_state(state)) {
    return make_error(ErrorKind::invalid_input, "bad_state",
                      "state is new, acknowledged, expected or wontfix (fixed and regressed are set by ingest)", {}, 0,
                      "state");
  }
  if (!issue.empty() && !is_issue_ref(issue)) {
    return make_error(ErrorKind::invalid_input, "bad_issue", "the issue is a GitHub reference owner/repo#N", {}, 0,
                      "issue");
  }
  if (state == "expected" && reason.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_reason", "an expected case says why: the known limitation", {},
                      0, "reason");
  }
  if (reason.size() > 2000) {
    return make_error(ErrorKind::invalid_input, "too_long", "the reason is at most 2000 bytes", {}, 0, "reason");
  }
  PT_ASSIGN(const std::string platform, stored_platform(db, key.platform));
  PT_ASSIGN(const auto id, case_id_of(db, key));
  std::optional<TriageCase> before;
  if (id) {
    PT_ASSIGN(before, read_one(db, platform, *id));
  }
  if (!before) {
    return make_error(ErrorKind::not_found, "not_slow",
                      "case " + case_name(key) + " has never been slower than eager on " + key.platform);
  }
  const std::string at = now_iso8601();
  PT_ASSIGN(auto change, Statement::prepare(db, kInsertChange));
  change.bind(1, platform).bind(2, *id).bind(3, before->state).bind(4, state).bind(5, issue).bind(6, reason);
  change.bind(7, who).bind(8, at);
  PT_TRY(change.run());
  if (state == "new") {
    PT_ASSIGN(auto drop, Statement::prepare(db, kDropDecision));
    drop.bind(1, platform).bind(2, *id);
    PT_TRY(drop.run());
  } else {
    PT_ASSIGN(auto put, Statement::prepare(db, kUpsertDecision));
    put.bind(1, platform).bind(2, *id).bind(3, state).bind(4, issue).bind(5, reason).bind(6, at).bind(7, who);
    PT_TRY(put.run());
  }
  PT_ASSIGN(auto after, read_one(db, platform, *id));
  return std::move(*after);
}

Result<std::vector<TriageCase>> list_triage(Database& db, const std::string& platform, std::string_view state) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st,
            Statement::prepare(db, std::string(kSelectTriage) + "WHERE b.platform = $1 ORDER BY 1, 2, 3, 5, 4"));
  st.bind(1, stored);
  PT_ASSIGN(auto cases, collect<TriageCase>(st, read_case));
  // The state filter after the tracker's acknowledgements, which the SQL does not know.
  PT_ASSIGN(const auto view, tracker_view(db, stored));
  for (auto& c : cases) apply_tracker(view, c);
  if (!state.empty()) std::erase_if(cases, [&](const TriageCase& c) { return c.state != state; });
  return cases;
}

Result<std::vector<TriageChange>> triage_history(Database& db, const TriageKey& key) {
  PT_ASSIGN(const std::string platform, stored_platform(db, key.platform));
  PT_ASSIGN(const auto id, case_id_of(db, key));
  if (!id) return std::vector<TriageChange>{};
  PT_ASSIGN(auto st, Statement::prepare(db, kHistory));
  st.bind(1, platform).bind(2, *id);
  return collect<TriageChange>(st, [](const Statement& s) {
    return TriageChange{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6)};
  });
}

Result<std::int64_t> apply_auto_triage(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto run, Statement::prepare(db, "SELECT platform FROM runs WHERE id = $1"));
  run.bind(1, run_id);
  PT_ASSIGN(const auto platform, first(run, [](const Statement& s) { return s.text(0); }));
  if (!platform) return make_error(ErrorKind::not_found, "no_run", "no run " + std::to_string(run_id));
  const std::string at = now_iso8601();
  PT_ASSIGN(auto history, Statement::prepare(db, kAutoHistory));
  history.bind(1, *platform).bind(2, at);
  PT_TRY(history.run());
  const std::int64_t moved = db.changes();
  if (moved == 0) return moved;
  PT_ASSIGN(auto apply, Statement::prepare(db, kAutoApply));
  apply.bind(1, *platform).bind(2, at);
  PT_TRY(apply.run());
  return moved;
}

}  // namespace perftriage::schema
