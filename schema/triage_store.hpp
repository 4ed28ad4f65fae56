#pragma once
// Triage state per case (migration 013): derived from the backlog unless a decision was written, every change kept
// in a history, and the automatic transitions ingest applies after the backlog moved. Writes run inside the
// caller's transaction; reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// new, acknowledged, expected, wontfix: set by a person ("new" drops a decision, back to the derived state);
// fixed, regressed: set by ingest only.
inline constexpr std::string_view kTriageStates[] = {"new",     "acknowledged", "expected",
                                                     "wontfix", "fixed",        "regressed"};
bool is_triage_state(std::string_view state) noexcept;
bool is_decided_state(std::string_view state) noexcept;  // acknowledged, expected, wontfix: what a person may set
bool keeps_issue_open(std::string_view state) noexcept;  // new, acknowledged, regressed

// A performance case of a platform; config "" unless the file layout names one.
struct TriageKey {
  std::string platform, suite, dtype, mode, model, config;
};

struct TriageCase {
  std::string platform, suite, dtype, mode, config, model;
  std::int64_t case_id = 0;
  std::string state;  // effective: the decision, else derived from the backlog
  std::string issue;  // owner/repo#N or ""
  std::string reason;
  std::string since_run;                   // run key the state holds since
  std::string updated_by;                  // "auto" for a derived state
  std::string updated_at;                  // "" for a derived state
  std::string latest_run, latest_speedup;  // the backlog's newest measurement
  std::optional<double> worst_speedup;
  bool latest_failed = false;
};

struct TriageChange {
  std::string from_state, state, issue, reason, run, who, at;
};
// {"from", "state", "issue", "reason", "run", "who", "at"}
nlohmann::json to_json(const TriageChange& change);

// A person's decision (state: one of is_decided_state, or "new"). The case must have been slow on the platform.
// Returns the case as it now reads.
Result<TriageCase> set_triage(Database& db, const TriageKey& key, std::string_view state, std::string_view issue,
                              std::string_view reason, std::string_view who);

// Every case that has been slow on the platform (any spelling) with its state; `state` "" = all. Ordered by suite,
// dtype, mode, model.
Result<std::vector<TriageCase>> list_triage(Database& db, const std::string& platform, std::string_view state = {});
Result<std::optional<TriageCase>> find_triage(Database& db, const TriageKey& key);
// Oldest first.
Result<std::vector<TriageChange>> triage_history(Database& db, const TriageKey& key);

// After update_backlog for a run: decisions the backlog has overtaken move (acknowledged / regressed -> fixed when
// the case passes again, fixed -> regressed when it is slow again), each with a history line by "auto".
Result<std::int64_t> apply_auto_triage(Database& db, std::int64_t run_id);

}  // namespace perftriage::schema
