#include "server/app/label_evidence.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace perftriage::server {
namespace {

namespace lb = analyzers::labeler;
using nlohmann::json;

// The latest run (of the platform, when given) holding a live performance row of the case.
constexpr std::string_view kCaseRow =
    "SELECT r.speedup, r.speedup_text, r.abs_latency_ms, r.eager_latency_ms, runs.id, runs.key, runs.platform, "
    "runs.created_at, f.path "
    "FROM results r JOIN runs ON runs.id = r.run_id JOIN result_files f ON f.id = r.file_id "
    "WHERE r.kind = 'performance' AND r.suite = ?1 AND r.dtype = ?2 AND r.mode = ?3 AND r.model = ?4 "
    "AND (?5 = '' OR runs.platform = ?5 COLLATE NOCASE) AND f.superseded_by IS NULL "
    "ORDER BY runs.created_at DESC, runs.id DESC LIMIT 1";
// The same case in the run of that platform just before it: the baseline of the latency ratios.
constexpr std::string_view kBaselineRow =
    "SELECT r.abs_latency_ms, r.eager_latency_ms, runs.key "
    "FROM results r JOIN runs ON runs.id = r.run_id JOIN result_files f ON f.id = r.file_id "
    "WHERE r.kind = 'performance' AND r.suite = ?1 AND r.dtype = ?2 AND r.mode = ?3 AND r.model = ?4 "
    "AND runs.platform = ?5 AND (runs.created_at < ?6 OR (runs.created_at = ?6 AND runs.id < ?7)) "
    "AND f.superseded_by IS NULL AND r.abs_latency_ms > 0 "
    "ORDER BY runs.created_at DESC, runs.id DESC LIMIT 1";
constexpr std::string_view kArtifactsTable =
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'artifacts'";
constexpr std::string_view kArtifactsColumns = "SELECT name FROM pragma_table_info('artifacts')";

struct CaseRow {
  std::optional<double> speedup, abs_latency, eager_latency;
  std::string speedup_text, run_key, platform, created_at, path;
  std::int64_t run_id = 0;
};

std::optional<CaseRow> find_case(schema::Database& db, const lb::ParsedCase& c, const std::string& platform) {
  auto st = schema::Statement::prepare(db, kCaseRow);
  if (!st) return std::nullopt;
  st->bind(1, c.suite).bind(2, c.dtype).bind(3, c.mode).bind(4, c.model).bind(5, platform);
  auto row = st->step();
  if (!row || !*row) return std::nullopt;
  CaseRow r;
  r.speedup = st->opt_real(0);
  r.speedup_text = st->text(1);
  r.abs_latency = st->opt_real(2);
  r.eager_latency = st->opt_real(3);
  r.run_id = st->int64(4);
  r.run_key = st->text(5);
  r.platform = st->text(6);
  r.created_at = st->text(7);
  r.path = st->text(8);
  return r;
}

void add_ratios(schema::Database& db, const lb::ParsedCase& c, const CaseRow& cur, lb::CaseEvidence& ev) {
  if (!cur.abs_latency || *cur.abs_latency <= 0) return;
  auto st = schema::Statement::prepare(db, kBaselineRow);
  if (!st) return;
  st->bind(1, c.suite).bind(2, c.dtype).bind(3, c.mode).bind(4, c.model).bind(5, cur.platform);
  st->bind(6, cur.created_at).bind(7, cur.run_id);
  auto row = st->step();
  if (!row || !*row) return;
  // target / baseline performance: above 1 is faster now, below 1 a regression.
  ev.inductor_ratio = st->real(0) / *cur.abs_latency;
  if (auto base_eager = st->opt_real(1); base_eager && cur.eager_latency && *cur.eager_latency > 0) {
    ev.eager_ratio = *base_eager / *cur.eager_latency;
  }
  ev.source += ", baseline " + st->text(2);
}

// The classifier findings of issue 4 ({"classifier", "verdict", ...}) in the labeler's words.
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
    if (cls == "attention" && verdict == "math_fallback") add("math fallback");
    else if (cls == "attention" && verdict == "unfused") add("unfused attention");
    else if (cls == "host_bound" && verdict == "yes") add("host-bound");
    else if (cls == "graph_breaks" && verdict == "yes") add("graph breaks");
  }
}

// The artifacts table belongs to another migration that may not exist yet: use it only if present, and only the
// columns it has.
void add_artifact_verdicts(schema::Database& db, const lb::ParsedCase& c, const CaseRow& cur, lb::CaseEvidence& ev) {
  auto exists = schema::Statement::prepare(db, kArtifactsTable);
  if (!exists) return;
  if (auto row = exists->step(); !row || !*row) return;
  std::set<std::string> columns;
  if (auto cols = schema::Statement::prepare(db, kArtifactsColumns)) {
    while (true) {
      auto row = cols->step();
      if (!row || !*row) break;
      columns.insert(cols->text(0));
    }
  }
  if (!columns.count("findings") || !columns.count("model")) return;
  std::string sql = "SELECT findings FROM artifacts WHERE model = ?1";
  if (columns.count("suite")) sql += " AND suite = ?2";
  if (columns.count("dtype")) sql += " AND dtype = ?3";
  if (columns.count("mode")) sql += " AND mode = ?4";
  if (columns.count("run_id")) sql += " AND run_id = ?5";
  auto st = schema::Statement::prepare(db, sql);
  if (!st) return;
  st->bind(1, c.model);
  if (columns.count("suite")) st->bind(2, c.suite);
  if (columns.count("dtype")) st->bind(3, c.dtype);
  if (columns.count("mode")) st->bind(4, c.mode);
  if (columns.count("run_id")) st->bind(5, cur.run_id);
  while (true) {
    auto row = st->step();
    if (!row || !*row) break;
    add_verdicts(json::parse(st->text_view(0), nullptr, false), ev.verdicts);
  }
}

}  // namespace

lb::EvidenceLookup make_evidence_lookup(schema::Store& store, std::string platform) {
  return [&store, platform = std::move(platform)](const lb::ParsedCase& c) -> std::optional<lb::CaseEvidence> {
    if (!c.e2e || c.suite.empty() || c.dtype.empty() || c.mode.empty() || c.model.empty()) return std::nullopt;
    auto& db = store.db();
    auto row = find_case(db, c, platform);
    if (!row) return std::nullopt;
    lb::CaseEvidence ev;
    // Speedup 0 is a failed run, not a measurement of speed.
    if (row->speedup && *row->speedup > 0) ev.speedup = row->speedup;
    ev.source = row->platform + " run " + row->run_key + ": speedup " +
                (row->speedup_text.empty() ? std::string("absent") : row->speedup_text) + " in " + row->path;
    add_ratios(db, c, *row, ev);
    add_artifact_verdicts(db, c, *row, ev);
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

lb::LabelResult label_with_evidence(schema::Store& store, const lb::IssueInput& issue, const lb::Taxonomy& taxonomy) {
  lb::LabelSettings unlimited;
  unlimited.cpu_budget = std::chrono::microseconds::max();
  return std::move(label_with_evidence(store, issue, taxonomy, unlimited)).value();
}

}  // namespace perftriage::server
