#include "server/app/explain.hpp"

#include <set>

#include <fmt/format.h>

#include "analyzers/compare/change_detection.hpp"
#include "analyzers/trace/classify.hpp"
#include "schema/artifact_store.hpp"
#include "schema/dashboard_queries.hpp"
#include "schema/history_store.hpp"
#include "server/app/artifact_service.hpp"
#include "server/app/case_findings.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace cmp = analyzers::compare;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

// The speedup series of the case on the platform, oldest first, with its change points.
Result<json> history_of(schema::Database& db, const schema::TriageKey& key) {
  schema::HistoryQuery q{key.platform, key.suite, key.model, key.dtype, key.mode, key.config};
  PT_ASSIGN(const auto points, schema::case_history(db, q));
  json list = json::array();
  std::vector<std::optional<double>> values;
  for (const auto& p : points) {
    values.push_back(p.failed ? std::nullopt : p.speedup);
    list.push_back({{"run", p.run_key},
                    {"created_at", p.created_at},
                    {"speedup", opt(p.speedup)},
                    {"speedup_text", p.speedup_text},
                    {"failed", p.failed}});
  }
  json changes = json::array();
  for (const auto& c : cmp::detect_changes(values)) {
    changes.push_back({{"run", points[c.index].run_key},
                       {"before", c.before},
                       {"after", c.after},
                       {"relative_change", c.relative_change}});
  }
  return json{{"points", list}, {"change_points", changes}};
}

// Every finding about the case: its rows' graph-break counters in the newest run, and every artifact attached to
// it in any run of the platform.
Result<std::vector<SourcedFinding>> findings_of(schema::Store& store, const schema::TriageKey& key,
                                                const CaseLookup& found) {
  std::vector<SourcedFinding> all;
  for (const auto& row : found.rows) {
    PT_ASSIGN(auto gb,
              analyzers::trace::graph_breaks_from_counts(
                  row.graph_breaks.value_or(-1), row.unique_graph_breaks.value_or(-1), row.unique_graphs.value_or(-1)));
    all.push_back({row.kind + " row of " + row.run_key + " (" + row.source + ")", std::move(gb), row.run_key});
  }
  PT_ASSIGN(const auto artifacts, schema::model_artifact_findings(store.db(), key.platform, key.suite, key.model));
  for (const auto& a : artifacts) {
    if (a.case_ref.dtype != key.dtype || a.case_ref.mode != key.mode) continue;
    const json list = json::parse(a.findings_json, nullptr, false);
    if (!list.is_array()) continue;
    const std::string source =
        fmt::format("artifact {} {} of {}{}", a.id, a.name, a.run_key, a.role.empty() ? "" : " (" + a.role + ")");
    for (const auto& f : list) all.push_back({source, f, a.run_key});
  }
  return all;
}

bool has_classifier_from_artifact(const std::vector<SourcedFinding>& all, const char* classifier) {
  for (const auto& f : all) {
    if (f.source.rfind("artifact", 0) == 0 && f.finding.value("classifier", "") == classifier &&
        f.finding.value("verdict", "unknown") != "unknown")
      return true;
  }
  return false;
}

// The device the run measured on, for the commands suggested: the run's own `device` (xpu, cuda, ...), else xpu, the
// device this tracker's teams run.
std::string device_of(schema::Database& db, const std::string& run) {
  auto found = schema::dashboard::find_run(db, run);
  if (found && *found && !(*found)->device.empty()) return (*found)->device;
  return "xpu";
}

// What to attach next when the evidence is missing; the commands name the run's device.
json next_steps(const std::vector<SourcedFinding>& all, const schema::TriageKey& key, const std::string& run,
                const std::string& device) {
  json next = json::array();
  const std::string target = "/api/v1/runs/" + run + "/cases/" + key.suite + "/" + key.dtype + "/" + key.mode + "/" +
                             key.model + "/artifacts?name=FILE&role=compiled";
  if (!has_classifier_from_artifact(all, "attention") && !has_classifier_from_artifact(all, "host_bound")) {
    next.push_back(fmt::format(
        "no kernel trace attached: profile the case (`python benchmarks/dynamo/{}.py --performance --{} --{} "
        "--device {} --only {} --export-profiler-trace`; `scripts/capture_traces.py --device {} OUT` shows the "
        "expected shapes) and attach the trace: POST {}",
        key.suite, key.dtype, key.mode, device, key.model, device, target));
  }
  if (!has_classifier_from_artifact(all, "graph_breaks")) {
    next.push_back(fmt::format(
        "no compile log attached: run the case with TORCH_LOGS=graph_breaks,recompiles (or TORCH_TRACE=DIR) and attach "
        "the log: POST {}",
        target));
  }
  return next;
}

// Where the causes came from, when not from the newest run: a cause found in an older run's artifact may no longer
// hold, and the page must not present it as the newest run's.
std::string provenance(const json& explanation, const std::string& newest) {
  std::set<std::string> runs;
  for (const auto& c : explanation.value("causes", json::array())) runs.insert(c.value("run", ""));
  if (runs.empty() || runs.count(newest)) return "";
  std::string names;
  for (const auto& r : runs) names += (names.empty() ? "" : ", ") + (r.empty() ? std::string("an unknown run") : r);
  return " The cause was found in " + names + ", not in the newest run " + newest + ": attach a trace of " + newest +
         " to check it still holds.";
}

std::string verdict_text(const schema::TriageKey& key, const schema::CaseMeasurement& latest, double threshold,
                         const json& history, const json& triage, const json& explanation) {
  const std::string name = key.suite + " " + key.dtype + " " + key.mode + " " + key.model + " on " + latest.platform;
  const bool slow = latest.speedup && *latest.speedup > 0 && *latest.speedup < threshold;
  std::string out = fmt::format("{} is {} in its newest run {} (speedup {}, {}).", name,
                                slow ? "slower than eager" : "not slower than eager", latest.run_key,
                                latest.speedup_text, latest.path);
  const auto& changes = history["change_points"];
  if (!changes.empty()) {
    const auto& c = changes.back();
    out += fmt::format(" Its speedup moved from {:.3f} to {:.3f} ({:+.0f}%) at run {}.", c["before"].get<double>(),
                       c["after"].get<double>(), 100 * c["relative_change"].get<double>(), c["run"].get<std::string>());
  } else {
    out += fmt::format(" No change point over its {} runs.", history["points"].size());
  }
  if (triage.is_object()) {
    out += " Triage: " + triage["state"].get<std::string>() + " since " + triage["since_run"].get<std::string>();
    if (!triage["issue"].get<std::string>().empty()) out += ", tracked in " + triage["issue"].get<std::string>();
    if (!triage["reason"].get<std::string>().empty()) out += " (" + triage["reason"].get<std::string>() + ")";
    out += ".";
  }
  const std::string v = explanation.value("verdict", "");
  out += v == "explained" ? " Likely cause: " + explanation.value("text", "") + "."
                          : " Not explained yet: " + explanation.value("text", "") + ".";
  out += provenance(explanation, latest.run_key);
  return out;
}

json triage_json(const std::optional<schema::TriageCase>& c, const std::vector<schema::TriageChange>& history) {
  if (!c) return json();
  json changes = json::array();
  for (const auto& h : history) changes.push_back(schema::to_json(h));
  return {{"state", c->state},         {"issue", c->issue},           {"reason", c->reason},
          {"since_run", c->since_run}, {"updated_by", c->updated_by}, {"history", changes}};
}

}  // namespace

Result<json> explain(schema::Store& store, const schema::TriageKey& key, double threshold) {
  auto& db = store.db();
  const model::CaseRef ref{key.suite, key.dtype, key.mode, key.model, key.config};
  PT_ASSIGN(const auto latest, schema::latest_case_measurement(db, ref, key.platform));
  if (!latest) {
    return make_error(ErrorKind::not_found, "no_case",
                      "no performance row of " + key.suite + "/" + key.dtype + "/" + key.mode + "/" + key.model +
                          " on " + key.platform);
  }
  PT_ASSIGN(const json history, history_of(db, key));
  PT_ASSIGN(const auto found, find_case(store, latest->run_key, ref));
  PT_ASSIGN(const auto all, findings_of(store, key, found));
  PT_ASSIGN(const auto triage, schema::find_triage(db, key));
  PT_ASSIGN(const auto changes, schema::triage_history(db, key));
  const json explanation = explain_case(all);
  json findings = json::array();
  for (const auto& f : all) {
    json j = f.finding;
    j["source"] = f.source;
    j["run"] = f.run;
    j["newest_run"] = f.run == latest->run_key;
    findings.push_back(std::move(j));
  }
  const json t = triage_json(triage, changes);
  return json{{"case",
               {{"platform", latest->platform},
                {"suite", key.suite},
                {"dtype", key.dtype},
                {"mode", key.mode},
                {"model", key.model},
                {"config", found.case_ref.config}}},
              {"latest",
               {{"run", latest->run_key},
                {"created_at", latest->created_at},
                {"file", latest->path},
                {"speedup", opt(latest->speedup)},
                {"speedup_text", latest->speedup_text}}},
              {"history", history},
              {"triage", t},
              {"findings", findings},
              {"explanation", explanation},
              {"verdict", verdict_text(key, *latest, threshold, history, t, explanation)},
              {"next", next_steps(all, key, latest->run_key, device_of(db, latest->run_key))}};
}

std::string explain_markdown(const json& e) {
  const auto& c = e["case"];
  std::string out =
      fmt::format("# {} {} {} {} on {}\n\n{}\n", c["suite"].get<std::string>(), c["dtype"].get<std::string>(),
                  c["mode"].get<std::string>(), c["model"].get<std::string>(), c["platform"].get<std::string>(),
                  e["verdict"].get<std::string>());
  out += "\n## History\n\n";
  for (const auto& p : e["history"]["points"]) {
    out += "- " + p["run"].get<std::string>() + ": " +
           (p["failed"].get<bool>() ? std::string("failed") : p["speedup_text"].get<std::string>()) + "\n";
  }
  out += "\n## Findings\n\n";
  for (const auto& f : e["findings"]) {
    out += "- " + f.value("classifier", "") + ": " + f.value("verdict", "") + " (" + f.value("source", "") + ")" +
           (f.value("evidence", "").empty() ? "" : ": " + f.value("evidence", "")) + "\n";
  }
  if (!e["next"].empty()) {
    out += "\n## Next\n\n";
    for (const auto& n : e["next"]) out += "- " + n.get<std::string>() + "\n";
  }
  return out;
}

}  // namespace perftriage::server
