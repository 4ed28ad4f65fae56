#include "server/bot/upload_check.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "schema/bot_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/label_evidence.hpp"
#include "server/bot/github_names.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server {
namespace {

using analyzers::compare::CaseComparison;
using analyzers::compare::Change;
using analyzers::compare::Verdict;
using nlohmann::json;

Error bad(std::string field, std::string message) {
  return make_error(ErrorKind::invalid_input, "bad_check", std::move(message), "upload", 0, std::move(field));
}

bool newly_slower(const CaseComparison& c) {
  return std::find(c.changes.begin(), c.changes.end(), Change::newly_slower_than_eager) != c.changes.end();
}
bool fails_check(const CaseComparison& c) {
  return c.verdict == Verdict::regression || c.verdict == Verdict::new_failed;
}

std::string speedup_cell(const analyzers::compare::CaseSide& side) {
  if (!side.present) return "—";
  if (side.failed) return "failed";
  if (!side.speedup_text.empty()) return side.speedup_text;
  return side.speedup ? fmt::format("{:.6f}", *side.speedup) : "—";
}

std::string what_moved(const CaseComparison& c) {
  if (c.verdict == Verdict::new_failed) return "newly failing";
  std::string out;
  for (const auto& m : c.moved) out += (out.empty() ? "" : ", ") + m;
  if (!c.severity.empty()) out += " (" + c.severity + ")";
  return out;
}

// One markdown table of `rows`, the worst first (red before yellow, then by how far the speedup fell), cut at
// kMaxCheckRows with the number left out said.
std::string table(const std::string& heading, std::vector<const CaseComparison*> rows) {
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [](const CaseComparison* a, const CaseComparison* b) {
    if ((a->severity == "red") != (b->severity == "red")) return a->severity == "red";
    return a->speedup_ratio().value_or(0.0) < b->speedup_ratio().value_or(0.0);
  });
  std::string out = fmt::format(
      "\n### {} ({})\n\n| suite | dtype | mode | model | batch_size | base speedup | speedup | "
      "what moved |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
      heading, rows.size());
  for (std::size_t i = 0; i < rows.size() && i < kMaxCheckRows; ++i) {
    const auto& c = *rows[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", c.key.suite, c.key.dtype, c.key.mode, c.key.model,
                       c.target.batch_size, speedup_cell(c.base), speedup_cell(c.target), what_moved(c));
  }
  if (rows.size() > kMaxCheckRows) out += fmt::format("\n{} more not shown.\n", rows.size() - kMaxCheckRows);
  return out;
}

std::string plural(std::int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string compare_link(const std::string& public_url, const std::string& base, const std::string& target) {
  if (public_url.empty()) return "";
  std::string root = public_url;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root + "/#/compare?base=" + url_encode(base) + "&target=" + url_encode(target);
}

// A status's description is at most 140 characters.
std::string description_of(const std::string& title) {
  return title.size() <= 140 ? title : title.substr(0, 137) + "...";
}

}  // namespace

Result<std::optional<UploadCheckRequest>> upload_check_request(const UploadMeta& meta) {
  if (meta.repo.empty()) {
    if (!meta.pull_request.empty()) return bad("pr", "pr needs repo: the repository the pull request is in");
    return std::optional<UploadCheckRequest>{};
  }
  if (!is_github_repo(meta.repo)) return bad("repo", "repo must be a GitHub owner/name, got '" + meta.repo + "'");
  if (!is_commit_sha(meta.commit)) {
    return bad("commit", "repo needs commit: the SHA (7-40 lower-case hex digits) the verdict is posted on, got '" +
                             meta.commit + "'");
  }
  UploadCheckRequest r{meta.repo, meta.commit, 0, meta.baseline.empty() ? "previous" : meta.baseline, meta.platform};
  if (!meta.pull_request.empty()) {
    const auto* end = meta.pull_request.data() + meta.pull_request.size();
    const auto [ptr, ec] = std::from_chars(meta.pull_request.data(), end, r.pull_request);
    if (ec != std::errc() || ptr != end || !is_github_number(r.pull_request)) {
      return bad("pr", "pr must be a pull request number, got '" + meta.pull_request + "'");
    }
  }
  return std::optional<UploadCheckRequest>{std::move(r)};
}

CheckReport check_report(const Comparison* comparison, const std::string& baseline, const std::string& why,
                         const std::string& link) {
  CheckReport r;
  const std::string see = link.empty() ? "" : "\n[Compare the runs](" + link + ")\n";
  if (!comparison) {
    r.conclusion = "neutral";
    r.title = "No baseline to compare with (" + baseline + ")";
    r.summary = "Nothing to judge this run against: " + why + ".\n";
    return r;
  }
  std::vector<const CaseComparison*> failing, slower;
  for (const auto& c : comparison->cases) {
    r.cases += 1;
    if (c.verdict == Verdict::regression) ++r.regressions;
    if (c.verdict == Verdict::new_failed) ++r.new_failed;
    if (c.verdict == Verdict::improvement) ++r.improvements;
    if (fails_check(c)) failing.push_back(&c);
    if (newly_slower(c)) {
      ++r.newly_slower;
      slower.push_back(&c);
    }
  }
  const auto& base = comparison->base.meta;
  const auto& target = comparison->target.meta;
  r.conclusion = failing.empty() ? "success" : "failure";
  r.title = failing.empty() ? "No regression against " + base.key
                            : plural(r.regressions, "regression", "regressions") + ", " +
                                  plural(r.new_failed, "newly failing case", "newly failing cases") + ", " +
                                  plural(r.newly_slower, "newly slower than eager", "newly slower than eager") +
                                  " against " + base.key;
  r.summary = fmt::format(
      "**{}** run `{}` against `{}` ({}): {}, {}, {} newly slower than eager (speedup < 1), {}, {} compared.\n",
      target.platform, target.key, base.key, baseline, plural(r.regressions, "regression", "regressions"),
      plural(r.new_failed, "newly failing case", "newly failing cases"), r.newly_slower,
      plural(r.improvements, "improvement", "improvements"), plural(r.cases, "case", "cases"));
  r.summary += see;
  r.summary += table("Regressions and newly failing cases", failing);
  r.summary += table("Newly slower than eager", slower);
  return r;
}

std::string upload_comment_marker(const std::string& platform) { return "<!-- perftriage:upload " + platform + " -->"; }

nlohmann::json queue_upload_check(AppContext& app, schema::Store& store, const std::string& run_key,
                                  const UploadCheckRequest& request) {
  const auto& gh = app.settings().github;
  const auto repo = repo_settings(gh, request.repo);
  if (!repo || !repo->checks) {
    return {
        {"queued", false},
        {"reason", "repository " + request.repo + " is not configured for checks ([[github.repos]] checks = true)"}};
  }
  auto comparison = compare_runs(store, request.baseline, run_key, {});
  if (!comparison && comparison.error().kind != ErrorKind::not_found) {
    return {{"queued", false}, {"reason", "the comparison failed: " + comparison.error().message}};
  }
  const Comparison* c = comparison ? &*comparison : nullptr;
  const std::string link = c ? compare_link(app.settings().public_url, c->base.meta.key, run_key) : "";
  const auto report = check_report(c, request.baseline, c ? "" : comparison.error().message, link);
  // The stored run's spelling of its platform when there is a comparison; the upload's otherwise (a first run).
  const std::string platform = c ? c->target.meta.platform : request.platform.empty() ? run_key : request.platform;
  json check{{"sha", request.sha},
             {"name", "perftriage / " + platform},
             {"conclusion", report.conclusion},
             {"title", report.title},
             {"summary", report.summary},
             {"details_url", link},
             {"description", description_of(report.title)}};
  std::vector<schema::NewAction> actions{{request.repo, 0, schema::OutboxKind::commit_check, std::move(check)}};
  if (request.pull_request != 0 && repo->comment) {
    const std::string marker = upload_comment_marker(platform);
    const std::string body = marker + "\n### perftriage: " + report.title + "\n\n" + report.summary +
                             "\n_Edited by each upload of " + platform + " for this pull request; this one: commit `" +
                             request.sha + "`._\n";
    actions.push_back(
        {request.repo, request.pull_request, schema::OutboxKind::upsert_comment, {{"marker", marker}, {"body", body}}});
  }
  const bool dry_run = gh.dry_run();
  auto tx = schema::Transaction::begin(store.db());
  for (const auto& a : actions) {
    if (!tx || !schema::enqueue(store.db(), a, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending,
                                unix_ms())) {
      return {{"queued", false}, {"reason", "the outbox could not be written"}};
    }
  }
  if (!tx->commit()) return {{"queued", false}, {"reason", "the outbox could not be written"}};
  return {{"queued", true},        {"conclusion", report.conclusion},
          {"title", report.title}, {"actions", actions.size()},
          {"dry_run", dry_run},    {"details_url", link}};
}

}  // namespace perftriage::server
