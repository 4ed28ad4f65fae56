#include "server/app/label_evidence.hpp"

#include <algorithm>
#include <vector>

#include "analyzers/labeler/model.hpp"
#include "common/strings.hpp"
#include "schema/artifact_store.hpp"
#include "schema/history_store.hpp"

namespace perftriage::server {
namespace {

namespace lb = analyzers::labeler;
using nlohmann::json;

lb::CaseEvidence seed_evidence(const schema::CaseMeasurement& row) {
  lb::CaseEvidence ev;
  // Speedup 0 is a failed run, not a measurement of speed.
  if (row.speedup && *row.speedup > 0) ev.speedup = row.speedup;
  ev.source = row.platform + " run " + row.run_key + ": speedup " +
              (row.speedup_text.empty() ? std::string("absent") : row.speedup_text) + " in " + row.path;
  return ev;
}

// The latency ratios against the same case in the platform's run just before.
void add_ratios(schema::Database& db, const model::CaseRef& c, const schema::CaseMeasurement& cur,
                lb::CaseEvidence& ev) {
  if (!cur.abs_latency_ms || *cur.abs_latency_ms <= 0) return;
  auto base = schema::previous_case_measurement(db, c, cur);
  if (!base || !*base || !(*base)->abs_latency_ms) return;
  const schema::CaseMeasurement& b = **base;
  // target / baseline performance: above 1 is faster now, below 1 a regression.
  ev.inductor_ratio = *b.abs_latency_ms / *cur.abs_latency_ms;
  if (b.eager_latency_ms && cur.eager_latency_ms && *cur.eager_latency_ms > 0) {
    ev.eager_ratio = *b.eager_latency_ms / *cur.eager_latency_ms;
  }
  ev.source += ", baseline " + b.run_key;
}

// The trace classifier findings ({"classifier", "verdict", ...}) in the labeler's words.
void add_verdicts(const json& findings, std::vector<std::string>& out) {
  auto add = [&](std::string v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  };
  if (findings.is_object() && findings.contains("findings")) return add_verdicts(findings["findings"], out);
  if (!findings.is_array()) return;
  for (const auto& f : findings) {
    if (f.is_string()) {
      add(f.get<std::string>());
      continue;
    }
    if (!f.is_object()) continue;
    const std::string cls = f.value("classifier", "");
    const std::string verdict =
        f.contains("verdict") && f["verdict"].is_string() ? f["verdict"].get<std::string>() : "";
    if (cls == "attention" && verdict == "math_fallback")
      add("math fallback");
    else if (cls == "attention" && verdict == "unfused")
      add("unfused attention");
    else if (cls == "host_bound" && verdict == "yes")
      add("host-bound");
    else if (cls == "graph_breaks" && verdict == "yes")
      add("graph breaks");
    else if (cls == "graph_breaks" && verdict == "recompiles")
      add("recompiles");
    else if (cls == "graph_breaks" && verdict == "compile_failure")
      add("compile failure");
  }
}

// The trace classifiers' verdicts on the case's artifacts in the measured run (every config).
void add_artifact_verdicts(schema::Database& db, const model::CaseRef& c, const schema::CaseMeasurement& cur,
                           lb::CaseEvidence& ev) {
  auto artifacts = schema::case_artifacts(db, cur.run_id, c);
  if (!artifacts) return;
  for (const auto& a : *artifacts) add_verdicts(json::parse(a.result_json, nullptr, false), ev.verdicts);
}

}  // namespace

lb::EvidenceLookup make_evidence_lookup(schema::Store& store, std::string platform) {
  return [&store, platform = std::move(platform)](const lb::ParsedCase& c) -> std::optional<lb::CaseEvidence> {
    if (!c.e2e || c.suite.empty() || c.dtype.empty() || c.mode.empty() || c.model.empty()) return std::nullopt;
    auto& db = store.db();
    const model::CaseRef case_ref{c.suite, c.dtype, c.mode, c.model, ""};
    auto row = schema::latest_case_measurement(db, case_ref, platform);
    if (!row || !*row) return std::nullopt;
    lb::CaseEvidence ev = seed_evidence(**row);
    add_ratios(db, case_ref, **row, ev);
    add_artifact_verdicts(db, case_ref, **row, ev);
    if (!ev.speedup && !ev.inductor_ratio && ev.verdicts.empty()) return std::nullopt;
    return ev;
  };
}

std::string issue_platform(const lb::LabelResult& result, const lb::Taxonomy& taxonomy) {
  for (const auto& a : result.axes) {
    if (a.axis != "hw" || a.value.empty()) continue;
    if (auto parsed = taxonomy.parse_label(a.value); parsed && parsed->first == "hw") return parsed->second;
    return a.value;
  }
  return {};
}

Result<lb::LabelResult> label_with_evidence(schema::Store& store, const lb::IssueInput& issue,
                                            const lb::Taxonomy& taxonomy, const lb::LabelSettings& settings) {
  auto text_only = lb::label_issue_within(issue, taxonomy, {}, settings);
  if (!text_only || text_only->cases.empty()) return text_only;
  return lb::label_issue_within(issue, taxonomy, make_evidence_lookup(store, issue_platform(*text_only, taxonomy)),
                                settings);
}

lb::LabelResult label_with_evidence(schema::Store& store, const lb::IssueInput& issue, const lb::Taxonomy& taxonomy,
                                    lb::Layers layers) {
  lb::LabelSettings unlimited;
  unlimited.cpu_budget = std::chrono::microseconds::max();
  unlimited.layers = layers;
  return std::move(label_with_evidence(store, issue, taxonomy, unlimited)).value();
}

Result<lb::Taxonomy> bot_taxonomy(const std::string& name, const std::string& label_model) {
  PT_ASSIGN(auto taxonomy, lb::load_taxonomy(name));
  PT_ASSIGN(taxonomy.model, lb::model_option(label_model, taxonomy));
  return taxonomy;
}

const RepoSettings* find_repo(const std::vector<RepoSettings>& repos, std::string_view repo) {
  const auto it =
      std::find_if(repos.begin(), repos.end(), [&](const RepoSettings& r) { return lower(r.repo) == lower(repo); });
  return it == repos.end() ? nullptr : &*it;
}

RepoSettings github_defaults(const GitHubSettings& gh, std::string_view repo) {
  return RepoSettings{std::string(repo), gh.taxonomy, gh.label_layers, gh.label_model};
}

std::optional<RepoSettings> repo_settings(const GitHubSettings& gh, std::string_view repo) {
  RepoSettings out = github_defaults(gh, repo);
  if (gh.repos.empty()) return out;
  const RepoSettings* listed = find_repo(gh.repos, repo);
  if (!listed) return std::nullopt;
  out = *listed;
  if (out.taxonomy.empty()) out.taxonomy = gh.taxonomy;
  if (!out.label_layers) out.label_layers = gh.label_layers;
  if (out.label_model.empty()) out.label_model = gh.label_model;
  return out;
}

}  // namespace perftriage::server
