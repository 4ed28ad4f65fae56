// Builds the rule context: pre-processing, title tags, cases, the claim / error / code views of the body.
#include <algorithm>

#include "analyzers/labeler/rules.hpp"

namespace perftriage::analyzers::labeler {
namespace {

std::string drop_benchmark_paths(std::string_view s) {
  // "benchmarks/dynamo/huggingface.py" names a script, not the dynamo module.
  return erase_all(s, "benchmarks/dynamo/");
}

}  // namespace

std::string quote(std::string_view s, std::size_t max) {
  std::string t(trim(s));
  std::replace(t.begin(), t.end(), '|', '/');
  std::replace(t.begin(), t.end(), '`', '\'');
  if (t.size() > max) t = t.substr(0, max - 3) + "...";
  return "`" + t + "`";
}

Decision set_on_issue(std::string key, std::string_view spelled) {
  return Decision{std::move(key), "Set on the issue (" + quote(spelled) + ").", false, false, true};
}

Context build_context(const IssueInput& issue, const Taxonomy& tax, const EvidenceLookup& lookup, Budget* budget) {
  Context c;
  c.issue = &issue;
  c.tax = &tax;
  c.budget = budget;
  c.pre = preprocess(issue.body, budget);
  c.title = parse_title(issue.title, tax);
  c.title_lower = lower(issue.title);
  check(budget);
  c.scan = extract_cases(c.pre.lines, issue.title, budget);

  c.claims_lower = lower(strip_urls(c.title.rest)) + "\n";
  bool in_code = false;
  for (const auto& line : c.pre.lines) {
    tick(budget);
    auto t = trim(line);
    if (t.starts_with("```")) {
      in_code = !in_code;
      continue;
    }
    if (is_env_line(line)) continue;
    auto no_url = strip_urls(line);
    auto l = lower(no_url);
    if (in_code) c.code_lower += drop_benchmark_paths(l) + "\n";
    if (is_error_line(line)) c.error_lines.push_back(std::string(trim(no_url)));
    c.claim_lines.push_back(no_url);
    c.claims_lower += l + "\n";
  }
  for (const auto& e : c.error_lines) c.error_lower += drop_benchmark_paths(lower(e)) + "\n";
  for (const auto& cs : c.scan.cases)
    if (!cs.error.empty()) c.error_lower += lower(cs.error) + "\n";

  check(budget);
  if (lookup) {
    for (const auto& cs : c.scan.cases) {
      check(budget);  // a lookup reads the database: worth a clock read each
      c.evidence.push_back(lookup(cs));
    }
  }
  for (const auto& label : issue.labels) {
    if (auto p = tax.parse_label(label)) c.existing[p->first].push_back({p->second, label});
  }
  return c;
}

}  // namespace perftriage::analyzers::labeler
