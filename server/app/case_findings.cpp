#include "server/app/case_findings.hpp"

#include <algorithm>
#include <set>

#include "analyzers/flags/slow_table.hpp"
#include "schema/artifact_store.hpp"

namespace perftriage::server {

using nlohmann::json;

CaseKey case_key(const model::ResultRecord& row) { return {row.suite, row.dtype, row.mode, row.model, row.config}; }

Result<std::map<CaseKey, std::vector<FindingSummary>>> findings_for_run(schema::Database& db, std::int64_t run_id) {
  PT_ASSIGN(const auto artifacts, schema::run_artifact_findings(db, run_id));
  std::map<CaseKey, std::vector<FindingSummary>> out;
  for (const auto& a : artifacts) {
    const json findings = json::parse(a.findings_json, nullptr, false);
    if (!findings.is_array()) continue;  // written by us as an array; anything else is not a finding
    auto& list = out[CaseKey{a.case_ref.suite, a.case_ref.dtype, a.case_ref.mode, a.case_ref.model, a.case_ref.config}];
    for (const auto& f : findings) {
      if (!f.is_object()) continue;
      list.push_back(
          {a.id, a.name, a.role, f.value("classifier", ""), f.value("verdict", ""), f.value("evidence", "")});
    }
  }
  return out;
}

Result<std::vector<std::vector<FindingSummary>>> findings_for_rows(schema::Database& db,
                                                                   const std::vector<model::RunRecord>& runs,
                                                                   const std::vector<model::ResultRecord>& rows) {
  std::map<std::string, std::map<CaseKey, std::vector<FindingSummary>>> by_run;  // run key -> case -> findings
  for (const auto& run : runs) {
    PT_ASSIGN(by_run[run.meta.key], findings_for_run(db, run.id));
  }
  std::vector<std::vector<FindingSummary>> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    auto run = by_run.find(row.run_key);
    if (run == by_run.end()) {
      out.emplace_back();
      continue;
    }
    auto c = run->second.find(case_key(row));
    out.push_back(c == run->second.end() ? std::vector<FindingSummary>{} : c->second);
  }
  return out;
}

json findings_json(const std::vector<FindingSummary>& findings) {
  json out = json::array();
  for (const auto& f : findings) {
    out.push_back({{"artifact_id", f.artifact_id},
                   {"artifact", f.artifact},
                   {"role", f.role},
                   {"classifier", f.classifier},
                   {"verdict", f.verdict},
                   {"evidence", f.evidence}});
  }
  return out;
}

std::string findings_cell(const std::vector<FindingSummary>& findings) {
  std::set<std::int64_t> artifacts;
  for (const auto& f : findings) artifacts.insert(f.artifact_id);
  const bool several = artifacts.size() > 1;
  std::string cell;
  std::int64_t current = -1;
  for (const auto& f : findings) {
    if (f.verdict == "unknown") continue;
    if (f.artifact_id != current) {
      if (!cell.empty()) cell += " / ";
      if (several) cell += "[" + (f.role.empty() ? f.artifact : f.role) + "] ";
      current = f.artifact_id;
    } else {
      cell += "; ";
    }
    cell += f.classifier + ": " + f.verdict;
  }
  // the same escaping as the table's other cells: a pipe or a newline must not break the row
  std::string escaped;
  for (char c : cell) {
    if (c == '|') {
      escaped += "\\|";
    } else if (c == '\n' || c == '\r') {
      escaped += ' ';
    } else {
      escaped += c;
    }
  }
  return escaped;
}

namespace {

bool definite(const std::string& verdict) { return verdict != "unknown" && !verdict.empty(); }
// "fused" is the attention classifier's healthy verdict: like no / none it explains nothing (as in classify's summary).
bool negative(const std::string& verdict) { return verdict == "no" || verdict == "none" || verdict == "fused"; }

}  // namespace

bool is_cause(const std::string& verdict) { return definite(verdict) && !negative(verdict); }

json explain_case(const std::vector<SourcedFinding>& findings) {
  json causes = json::array();
  std::vector<std::string> classifiers;  // in first-seen order
  std::set<std::string> decided;
  std::vector<std::string> parts;  // "classifier: verdict", each once
  for (const auto& sf : findings) {
    if (!sf.finding.is_object()) continue;
    const std::string classifier = sf.finding.value("classifier", "");
    const std::string verdict = sf.finding.value("verdict", "");
    if (std::find(classifiers.begin(), classifiers.end(), classifier) == classifiers.end()) {
      classifiers.push_back(classifier);
    }
    if (definite(verdict)) decided.insert(classifier);
    if (!definite(verdict) || negative(verdict)) continue;
    causes.push_back({{"source", sf.source},
                      {"run", sf.run},
                      {"classifier", classifier},
                      {"verdict", verdict},
                      {"evidence", sf.finding.value("evidence", "")}});
    const std::string part = classifier + ": " + verdict;
    if (std::find(parts.begin(), parts.end(), part) == parts.end()) parts.push_back(part);
  }
  json unknown = json::array();
  for (const auto& c : classifiers) {
    if (!decided.count(c)) unknown.push_back(c);
  }
  json out;
  std::string text;
  if (!causes.empty()) {
    out["verdict"] = "explained";
    for (const auto& p : parts) text += (text.empty() ? "" : "; ") + p;
  } else if (!unknown.empty() || findings.empty()) {
    out["verdict"] = "inconclusive";
    std::string names;
    for (const auto& c : unknown) names += (names.empty() ? "" : ", ") + c.get<std::string>();
    text = findings.empty() ? "no findings" : "inconclusive: no definite verdict for " + names;
  } else {
    out["verdict"] = "unexplained";
    text = "unexplained";
  }
  out["causes"] = causes;
  out["unknown"] = unknown;
  out["text"] = text;
  return out;
}

std::string findings_section_markdown(const std::vector<model::ResultRecord>& rows,
                                      const std::vector<std::vector<FindingSummary>>& findings) {
  std::string out;
  for (std::size_t i = 0; i < rows.size() && i < findings.size(); ++i) {
    if (findings[i].empty()) continue;
    const auto& r = rows[i];
    out += "- " + r.suite + " " + r.model + " " + r.dtype + " " + r.mode + ": " + findings_cell(findings[i]) + "\n";
    for (const auto& f : findings[i]) {
      if (f.verdict == "no" || f.verdict == "none" || f.verdict == "unknown" || f.evidence.empty()) continue;
      out += "  - " + f.classifier + " " + f.verdict + ": " + f.evidence + "\n";
    }
  }
  return out.empty() ? out : "\n## Classifier findings\n\n" + out;
}

}  // namespace perftriage::server
