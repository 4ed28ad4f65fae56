#include "server/bot/tracking.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzers/compare/report.hpp"
#include "analyzers/flags/slow_table.hpp"
#include "analyzers/labeler/labeler.hpp"
#include "common/strings.hpp"
#include "schema/blob_codec.hpp"
#include "schema/bot_store.hpp"
#include "schema/store.hpp"
#include "schema/task_lock.hpp"
#include "schema/tracking_store.hpp"
#include "schema/triage_store.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/comparison.hpp"
#include "server/app/label_evidence.hpp"
#include "server/app/label_retrain.hpp"
#include "server/app/slow_report.hpp"
#include "server/bot/notify.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/bot/webhook.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;

// One case of the slow issue, as the release's runs (oldest first) left it.
struct Tracked {
  model::ResultRecord row;      // its newest slow row: the table's source, speedup
  std::string status = "open";  // open | fixed
  std::string fixed_run, fixed_speedup;
  std::string triage = "new", triage_reason;
};

std::string case_text(const model::ResultRecord& r) {
  return r.suite + " " + r.dtype + " " + r.mode + " " + r.model + (r.config.empty() ? "" : " [" + r.config + "]");
}
std::string case_id_text(const CaseKey& k) {
  return k.suite + "/" + k.dtype + "/" + k.mode + "/" + k.model + (k.config.empty() ? "" : "/" + k.config);
}

bool apart(const Tracked& t) { return t.triage == "expected" || t.triage == "wontfix"; }

// The runs of the platform that the policy tracks under `release`, oldest first: those with performance results
// (schema::RunsWith), so that the release's reference files, or a run whose files held no row, never become the
// issue's newest run (its title, environment and the run a comment names) nor the target of its regressions.
Result<std::vector<model::RunRecord>> release_runs(schema::Database& db, const TrackingPolicy& policy,
                                                   const std::string& platform, const std::string& release) {
  PT_ASSIGN(auto runs, schema::list_runs(db, platform, schema::RunsWith::performance));
  std::vector<model::RunRecord> out;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (tracked_release(policy, *it) == release) out.push_back(std::move(*it));
  }
  return out;
}

// Folds the release's runs into the tracked cases: slow in any run makes a case tracked; a later passing row fixes
// it (with that run), a later slow row opens it again. Failed rows change nothing.
Result<std::map<CaseKey, Tracked>> track_cases(schema::Store& store, const std::vector<model::RunRecord>& runs,
                                               double threshold) {
  std::map<CaseKey, Tracked> cases;
  for (const auto& run : runs) {
    schema::ResultFilter filter;
    filter.run_ids = {run.id};
    filter.kind = "performance";
    PT_ASSIGN(auto rows, schema::results(store.db(), filter));
    for (auto& row : rows) {
      if (row.failed || !row.speedup || *row.speedup <= 0) continue;
      const bool slow = *row.speedup < threshold;
      auto it = cases.find(case_key(row));
      if (slow) {
        auto& t = cases[case_key(row)];
        t.status = "open";
        t.fixed_run.clear();
        t.row = std::move(row);
      } else if (it != cases.end() && it->second.status == "open") {
        it->second.status = "fixed";
        it->second.fixed_run = run.meta.key;
        it->second.fixed_speedup = row.speedup_text;
      }
    }
  }
  for (auto& [key, t] : cases) {
    PT_ASSIGN(const auto triage,
              schema::find_triage(store.db(), {t.row.platform, key.suite, key.dtype, key.mode, key.model, key.config}));
    if (triage) {
      t.triage = triage->state;
      t.triage_reason = triage->reason;
    }
  }
  return cases;
}

// "attention: math_fallback" -> the open cases it explains (with the first evidence line), then "unexplained".
std::string root_causes_markdown(const std::map<CaseKey, Tracked>& cases,
                                 const std::map<CaseKey, std::vector<FindingSummary>>& findings,
                                 std::map<std::string, std::vector<std::string>>& groups) {
  std::map<std::string, std::string> evidence;
  for (const auto& [key, t] : cases) {
    if (t.status != "open" || apart(t)) continue;
    std::set<std::string> causes;
    if (auto f = findings.find(key); f != findings.end()) {
      for (const auto& s : f->second) {
        if (!is_cause(s.verdict)) continue;
        const std::string cause = s.classifier + ": " + s.verdict;
        if (causes.insert(cause).second) groups[cause].push_back(case_text(t.row));
        if (!s.evidence.empty() && !evidence.count(cause)) evidence[cause] = s.evidence;
      }
    }
    if (causes.empty()) groups["unexplained"].push_back(case_text(t.row));
  }
  if (groups.empty()) return {};
  std::string out = "\n## Likely root causes\n\n";
  for (const auto& [cause, members] : groups) {
    if (cause == "unexplained") continue;
    out += fmt::format("- **{}** ({} case{}): {}", cause, members.size(), members.size() == 1 ? "" : "s",
                       join(members, "; "));
    if (auto e = evidence.find(cause); e != evidence.end()) out += ". Evidence: " + e->second;
    out += "\n";
  }
  if (auto u = groups.find("unexplained"); u != groups.end()) {
    out += fmt::format(
        "- **unexplained** ({} case{}): {}. No finding yet: attach a kernel trace (`scripts/capture_traces.py`) and "
        "the compile log of the case (`POST /api/v1/runs/{{key}}/artifacts`).\n",
        u->second.size(), u->second.size() == 1 ? "" : "s", join(u->second, "; "));
  }
  return out;
}

std::string fixed_and_apart_markdown(const std::map<CaseKey, Tracked>& cases) {
  std::string fixed, known;
  for (const auto& [key, t] : cases) {
    if (apart(t)) {
      known += "- " + case_text(t.row) + ": " + t.triage +
               (t.triage_reason.empty() ? "" : " (" + t.triage_reason + ")") + "\n";
    } else if (t.status == "fixed") {
      fixed += "- ~~" + case_text(t.row) + "~~ fixed in `" + t.fixed_run + "` (speedup " + t.fixed_speedup + ")\n";
    }
  }
  std::string out;
  if (!fixed.empty()) out += "\n## Fixed\n\n" + fixed;
  if (!known.empty()) out += "\n## Known limitations (expected / wontfix, not tracked here)\n\n" + known;
  return out;
}

// The tracker's order (analyzers::sort_slow_cases: suite, dtype, mode, then speedup), except that within a suite and
// mode the dtype with the most cases comes first, as in the seed issue (five bfloat16 rows, then amp_bf16 and float16):
// the first row, which a reader and the labeler take as the issue's case 1, is then the common one.
void lead_with_the_main_dtype(std::vector<model::ResultRecord>& rows) {
  analyzers::sort_slow_cases(rows);
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> count;
  for (const auto& r : rows) ++count[{r.suite, r.mode, r.dtype}];
  std::stable_sort(rows.begin(), rows.end(), [&](const model::ResultRecord& a, const model::ResultRecord& b) {
    const std::size_t ca = count[{a.suite, a.mode, a.dtype}], cb = count[{b.suite, b.mode, b.dtype}];
    return std::tie(a.suite, a.mode) < std::tie(b.suite, b.mode) ||
           (std::tie(a.suite, a.mode) == std::tie(b.suite, b.mode) && (ca > cb || (ca == cb && a.dtype < b.dtype)));
  });
}

struct Built {
  std::string title, body, label_text;  // label_text: the seed-shaped part the labeler reads
  json published;                       // {"cases": {id: status}}
  bool keeps_open = false;
  std::vector<std::string> opened, fixed, again;  // changes against the published state, as case texts
  std::map<std::string, std::vector<std::string>> causes;
};

Result<Built> build_slow_issue(schema::Store& store, const std::vector<model::RunRecord>& runs, double threshold,
                               const json& published, const std::string& fingerprint) {
  PT_ASSIGN(auto cases, track_cases(store, runs, threshold));
  std::map<CaseKey, std::vector<FindingSummary>> findings;
  for (const auto& run : runs) {
    PT_ASSIGN(auto of_run, findings_for_run(store.db(), run.id));
    for (auto& [key, list] : of_run) findings[key].insert(findings[key].end(), list.begin(), list.end());
  }
  Built b;
  std::vector<model::ResultRecord> open_rows;
  b.published = {{"cases", json::object()}};
  const json before = published.value("cases", json::object());
  for (const auto& [key, t] : cases) {
    const std::string status = apart(t) ? "apart" : t.status;
    const std::string id = case_id_text(key);
    b.published["cases"][id] = status;
    if (status == "open") open_rows.push_back(t.row);
    const std::string was = before.value(id, "");
    if (status == "open" && was.empty()) b.opened.push_back(case_text(t.row));
    if (status == "open" && was == "fixed") b.again.push_back(case_text(t.row));
    if (status == "fixed" && was == "open") b.fixed.push_back(case_text(t.row) + " in `" + t.fixed_run + "`");
  }
  lead_with_the_main_dtype(open_rows);
  b.keeps_open = !open_rows.empty();
  const auto& newest = runs.back();
  const std::string report = analyzers::compare::slow_report_markdown(newest, open_rows, threshold);
  const auto cut = report.find('\n');
  b.title = report.substr(0, cut);
  b.label_text = cut == std::string::npos ? std::string() : report.substr(cut + 1);
  b.body = b.label_text + fixed_and_apart_markdown(cases) + root_causes_markdown(cases, findings, b.causes);
  b.body += "\n" + tracking_marker(fingerprint) + "\n";
  return b;
}

std::string update_comment(const Built& b, const std::string& run_key, const std::string& fingerprint) {
  std::string out = "Update from run `" + run_key + "`:\n\n";
  auto list = [&](const char* what, const std::vector<std::string>& items) {
    if (!items.empty()) out += fmt::format("- {} ({}): {}\n", what, items.size(), join(items, "; "));
  };
  list("New slow cases", b.opened);
  list("Fixed", b.fixed);
  list("Slow again", b.again);
  const std::string digest = schema::sha256_hex(out).substr(0, 12);
  return "<!-- perftriage:tracking-update " + fingerprint + " " + digest + " -->\n" + out;
}

// The proposal of a split by cause, when the labeler says need_split and the open cases have several causes.
std::string split_markdown(const Built& b) {
  if (b.causes.size() < 2) return {};
  std::string out = "\n## Proposed split\n\nThe open cases have different causes; one issue each:\n\n";
  for (const auto& [cause, members] : b.causes) {
    out += fmt::format("- {}: {} case{}\n", cause, members.size(), members.size() == 1 ? "" : "s");
  }
  return out;
}

// The regressions issue: the release-regression report of the release's newest run against the newest run of the
// platform's previous release (an older run the policy tracks under another release), both with performance results.
// nullopt without such a run.
Result<std::optional<Built>> build_regression_issue(schema::Store& store, const TrackingPolicy& policy,
                                                    const std::vector<model::RunRecord>& runs,
                                                    const std::string& release, const json& published,
                                                    const std::string& fingerprint) {
  const auto& target = runs.back();
  PT_ASSIGN(const auto all,
            schema::list_runs(store.db(), target.meta.platform, schema::RunsWith::performance));  // newest first
  const model::RunRecord* base = nullptr;
  for (const auto& r : all) {
    const auto other = tracked_release(policy, r);
    if (other && *other != release && std::tie(r.meta.created_at, r.id) < std::tie(target.meta.created_at, target.id)) {
      base = &r;
      break;
    }
  }
  if (!base) return std::optional<Built>{};
  const analyzers::compare::Thresholds thresholds;
  PT_ASSIGN(const auto c, compare_runs(store, base->meta.key, target.meta.key, thresholds));
  Built b;
  b.published = {{"cases", json::object()}};
  const json before = published.value("cases", json::object());
  for (const auto& cc : c.cases) {
    if (cc.verdict != analyzers::compare::Verdict::regression) continue;
    const auto& k = cc.key;
    const std::string id =
        k.suite + "/" + k.dtype + "/" + k.mode + "/" + k.model + (k.config.empty() ? "" : "/" + k.config);
    b.published["cases"][id] = "open";
    if (!before.contains(id)) b.opened.push_back(k.suite + " " + k.dtype + " " + k.mode + " " + k.model);
  }
  for (const auto& [id, status] : before.items()) {
    if (status == "open" && !b.published["cases"].contains(id)) b.fixed.push_back(id + " in `" + target.meta.key + "`");
  }
  b.keeps_open = !b.published["cases"].empty();
  const std::string report =
      analyzers::compare::regression_report_markdown(c.base, c.target, c.cases, c.aggregates, thresholds);
  const auto cut = report.find('\n');
  b.title = report.substr(0, cut);
  b.label_text = cut == std::string::npos ? std::string() : report.substr(cut + 1);
  b.body = b.label_text + "\n" + tracking_marker(fingerprint) + "\n";
  return std::optional<Built>(std::move(b));
}

struct Plan {
  std::vector<schema::NewAction> actions;
  schema::TrackingState state;
  std::vector<std::pair<std::string, json>> notes;  // (event, body) for [notify] urls
};

// The note of one event of a tracking issue: what a chat hook or a pager needs to say it.
json note(const schema::TrackingState& state, const Built& b, const std::string& event, const std::string& run_key) {
  return {{"event", event},           {"fingerprint", state.fingerprint},
          {"repo", state.repo},       {"platform", state.platform},
          {"release", state.release}, {"kind", state.kind},
          {"title", b.title},         {"run", run_key},
          {"new_cases", b.opened},    {"fixed", b.fixed},
          {"slow_again", b.again}};
}

// What to send for one evaluated issue, against its published state.
Result<Plan> plan_issue(schema::Store& store, const TrackingPolicy& policy, const GitHubSettings& gh,
                        schema::TrackingState state, Built b, const std::string& run_key) {
  const std::string& fp = state.fingerprint;
  auto action = [&](schema::OutboxKind kind, json payload) {
    payload["tracking_fingerprint"] = fp;
    return schema::NewAction{policy.repo, 0, kind, std::move(payload)};
  };
  Plan plan;
  const bool first = state.published == "{}" || state.published.empty();
  PT_ASSIGN(const auto taxonomy, repo_taxonomy(store.db(), policy.repo, policy.taxonomy, gh.label_model));
  const lb::IssueInput input{b.title, b.label_text, {}, policy.repo, 0};
  const auto labeled = label_with_evidence(store, input, taxonomy, gh.label_layers);
  if (labeled.need_split) b.body += split_markdown(b);
  const std::string sha = schema::sha256_hex(b.title + "\n" + b.body);
  const bool reopen = !first && !state.is_open && b.keeps_open;
  const bool close = !first && state.is_open && !b.keeps_open;
  if (first && !b.keeps_open) return plan;  // nothing slow: no issue to open
  if (!first && (b.opened.size() + b.fixed.size() + b.again.size()) > 0) {
    plan.actions.push_back(action(schema::OutboxKind::upsert_comment,
                                  {{"body", update_comment(b, run_key, fp)}, {"marker", "tracking-update"}}));
  }
  if (close || reopen) {
    const std::string why =
        close ? "Every case is fixed, expected or wontfix: closing." : "A case is slow again: reopening.";
    plan.actions.push_back(
        action(schema::OutboxKind::upsert_comment,
               {{"body", "<!-- perftriage:tracking-state " + fp + " " + sha.substr(0, 12) + " -->\n" + why},
                {"marker", "tracking-state"}}));
  }
  if (first || sha != state.body_sha256 || close || reopen) {
    json issue{{"fingerprint", fp}, {"title", b.title}, {"body", b.body}};
    if (close || reopen) issue["state"] = close ? "closed" : "open";
    plan.actions.insert(plan.actions.begin(), action(schema::OutboxKind::upsert_tracking_issue, std::move(issue)));
  }
  if (first) {  // the labels with their reasons: the one bot comment, as on any labeled issue
    webhook::Event event;
    event.repo = policy.repo;
    event.title = b.title;
    // The issue's number is not known yet: the comment names it as {issue}, which the outbox worker fills in.
    std::string comment = lb::render_comment(input, labeled);
    const std::string unnumbered = policy.repo + "#0";
    for (auto at = comment.find(unnumbered); at != std::string::npos; at = comment.find(unnumbered, at)) {
      comment.replace(at, unnumbered.size(), policy.repo + "#{issue}");
    }
    for (auto a : webhook::plan_label_actions(event, labeled, taxonomy, {}, comment)) {
      a.payload["tracking_fingerprint"] = fp;
      plan.actions.push_back(std::move(a));
    }
  }
  const char* event = first               ? "opened"
                      : close             ? "closed"
                      : reopen            ? "reopened"
                      : !b.opened.empty() ? "cases_added"
                                          : "";
  if (*event) plan.notes.emplace_back(event, note(state, b, event, run_key));
  state.is_open = first ? true : (close ? false : (reopen ? true : state.is_open));
  state.published = b.published.dump();
  state.body_sha256 = sha;
  plan.state = std::move(state);
  return plan;
}

// Rebuilds one tracking issue from the database and plans what to send; reads only (compare_runs takes its own read
// transaction). nullopt when there is nothing to keep (no run, nothing slow yet, no earlier release).
Result<std::optional<Plan>> evaluate(AppContext& app, schema::Store& store, const TrackingPolicy& policy,
                                     const std::string& platform, const std::string& release, const std::string& kind) {
  auto& db = store.db();
  PT_ASSIGN(const auto runs, release_runs(db, policy, platform, release));
  if (runs.empty()) return std::optional<Plan>{};
  const std::string fp = tracking_fingerprint(policy, runs.back().meta.platform, release, kind);
  PT_ASSIGN(auto known, schema::tracking_state(db, fp));
  schema::TrackingState state = known.value_or(
      schema::TrackingState{fp, policy.repo, runs.back().meta.platform, release, kind, {}, true, "{}", "", ""});
  state.run_id = runs.back().id;
  state.updated_at.clear();
  const json published = json::parse(state.published, nullptr, false);
  const json last = published.is_object() ? published : json::object();
  Built built;
  if (kind == "regressions") {
    PT_ASSIGN(auto regressions, build_regression_issue(store, policy, runs, release, last, fp));
    if (!regressions) return std::optional<Plan>{};
    built = std::move(*regressions);
  } else {
    PT_ASSIGN(built, build_slow_issue(store, runs, app.settings().slow_threshold, last, fp));
  }
  PT_ASSIGN(auto plan,
            plan_issue(store, policy, app.settings().github, std::move(state), std::move(built), runs.back().meta.key));
  if (plan.state.fingerprint.empty()) return std::optional<Plan>{};
  return std::optional<Plan>(std::move(plan));
}

// The (policy, platform, release, kind) tuples one queue entry asks to rebuild.
struct Target {
  const TrackingPolicy* policy;
  std::string platform, release, kind;
};

Result<std::vector<Target>> targets_of(schema::Database& db, const std::vector<TrackingPolicy>& policies,
                                       const schema::TrackingDue& due, std::int64_t now_ms, bool& settled) {
  std::vector<Target> out;
  settled = true;
  if (due.scope.rfind("run:", 0) == 0) {
    PT_ASSIGN(const auto key, schema::run_key_by_id(db, std::stoll(due.scope.substr(4))));
    if (!key) return out;
    PT_ASSIGN(const auto run, schema::find_run(db, *key));
    if (!run) return out;
    for (const auto& p : policies) {
      const auto release = tracked_release(p, *run);
      if (!release) continue;
      if (due.changed_ms > now_ms - p.settle_seconds * 1000) {
        settled = false;  // not quiet yet: the entry stays due
        continue;
      }
      for (const auto& k : p.kinds) out.push_back({&p, run->meta.platform, *release, k});
    }
    return out;
  }
  const std::string platform = due.scope.substr(due.scope.find(':') + 1);
  PT_ASSIGN(const auto states, schema::tracking_states(db, platform));
  for (const auto& s : states) {
    for (const auto& p : policies) {
      if (p.repo == s.repo && std::count(p.kinds.begin(), p.kinds.end(), s.kind) &&
          std::any_of(p.platforms.begin(), p.platforms.end(), [&](const auto& x) { return iequals(x, s.platform); }))
        out.push_back({&p, s.platform, s.release, s.kind});
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> tracked_release(const TrackingPolicy& policy, const model::RunRecord& run) {
  if (std::none_of(policy.platforms.begin(), policy.platforms.end(),
                   [&](const std::string& p) { return iequals(p, run.meta.platform); }))
    return std::nullopt;
  const std::string_view rule = policy.runs;
  const std::string glob(rule.substr(4));
  // fnmatch(3): '*', '?' and [sets], as a shell matches names; no flags, so '/' is an ordinary character
  auto matches = [&](const std::string& text) { return fnmatch(glob.c_str(), text.c_str(), 0) == 0; };
  if (rule.rfind("tag:", 0) == 0) {
    for (const auto& tag : run.meta.tags) {
      if (!matches(tag)) continue;
      const auto star = glob.find('*');
      if (star == std::string_view::npos) return tag;
      const std::string_view rest = std::string_view(glob).substr(star + 1);
      std::string release = tag.substr(star, tag.size() - star - std::min(rest.size(), tag.size() - star));
      return release.empty() ? tag : release;
    }
    return std::nullopt;
  }
  if (!matches(run.meta.key)) return std::nullopt;
  const std::string release = analyzers::compare::release_label(run.meta.torch_version);
  return release.empty() ? run.meta.key : release;
}

std::string tracking_fingerprint(const TrackingPolicy& policy, const std::string& platform, const std::string& release,
                                 std::string_view kind) {
  return policy.repo + "|" + platform + "|" + release + "|" + std::string(kind);
}

std::string tracking_marker(std::string_view fingerprint) {
  return "<!-- perftriage:tracking " + std::string(fingerprint) + " -->";
}

Result<TrackingPass> run_tracking_pass(AppContext& app, std::int64_t now_ms) {
  TrackingPass pass;
  const auto& policies = app.settings().tracking;
  if (policies.empty()) return pass;
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto due, schema::due_tracking(db, now_ms));
  const bool dry_run = app.settings().github.dry_run();
  for (const auto& d : due) {
    // Read and plan first; then one write transaction queues the actions, saves what the issues now say and marks the
    // change handled (unless a newer change came meanwhile: that one stays due and is planned again).
    bool settled = true;
    PT_ASSIGN(const auto targets, targets_of(db, policies, d, now_ms, settled));
    std::vector<Plan> plans;
    for (const auto& t : targets) {
      const auto repo = repo_settings(app.settings().github, t.policy->repo);
      if (!repo || !repo->tracking) continue;  // [[github.repos]] does not let the bot keep issues there
      PT_ASSIGN(auto plan, evaluate(app, *store, *t.policy, t.platform, t.release, t.kind));
      ++pass.evaluated;
      if (plan) plans.push_back(std::move(*plan));
    }
    PT_ASSIGN(auto tx, schema::Transaction::begin(db));
    for (const auto& plan : plans) {
      for (const auto& a : plan.actions) {
        PT_TRY(
            schema::enqueue(db, a, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending, unix_ms()));
      }
      PT_TRY(schema::save_tracking_state(db, plan.state));
      for (const auto& [event, body] : plan.notes) {
        for (const auto& url : app.settings().notify.urls) {
          PT_TRY(schema::enqueue_notification(db, url, event, body.dump()));
        }
      }
      pass.actions += static_cast<std::int64_t>(plan.actions.size());
    }
    if (settled) {
      PT_TRY(schema::mark_tracking_handled(db, d));
      ++pass.entries;
    }
    PT_TRY(tx.commit());
  }
  return pass;
}

TrackingTask::TrackingTask(AppContext& app, std::function<void(const std::string&)> log, std::int64_t poll_ms)
    : app_(app), log_(std::move(log)), poll_ms_(poll_ms) {}

TrackingTask::~TrackingTask() { stop(); }

void TrackingTask::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      run_once();
      lock.lock();
      wake_.wait_for(lock, std::chrono::milliseconds(poll_ms_), [this] { return stopping_.load(); });
    }
  });
}

void TrackingTask::run_once() {
  // One replica at a time on a shared PostgreSQL: two replicas planning the same due change would both queue its
  // actions, and both would post a due notification. The lock's connection is held for the pass (the pass leases its
  // own); the others skip this round.
  auto store = app_.store();
  if (!store) {
    log_("tracking: " + store.error().message);
    return;
  }
  auto turn = schema::TaskLock::try_take((*store)->db(), "tracking");
  if (!turn || !turn->held()) return;
  auto pass = run_tracking_pass(app_, unix_ms());
  if (!pass) {
    log_("tracking: " + pass.error().message);
  } else if (pass->actions > 0) {
    log_(fmt::format("tracking: {} issue(s) rebuilt, {} action(s) queued", pass->evaluated, pass->actions));
  }
  if (auto sent = send_notifications(app_, unix_ms()); !sent) log_("tracking: notify: " + sent.error().message);
}

void TrackingTask::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace perftriage::server
