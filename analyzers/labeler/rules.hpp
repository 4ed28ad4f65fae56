#pragma once
// Internal: what the axis rules read (the pre-processed issue) and what each rule decides.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/labeler/budget.hpp"
#include "analyzers/labeler/cases.hpp"
#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/text.hpp"
#include "analyzers/labeler/title.hpp"

namespace perftriage::analyzers::labeler {

struct Decision {
  std::string key;        // taxonomy key ("e2e", "BMG", "bfloat16", "performance")
  std::string reason;     // one line quoting the evidence
  bool fallback = false;  // the taxonomy's default value: no rule fired (the learned layer may decide instead)
  // Evidence too weak to apply on its own (a word in the body's prose, not in the title, a test id, an error or the
  // repro): the value is suggested in the comment with its reason, never applied.
  bool suggest = false;
  bool on_issue = false;  // a value a maintainer set on the issue already (set_on_issue): it stays, whatever the layers
};

// The decision for a value found among the issue's own labels, spelled as the issue spells it.
Decision set_on_issue(std::string key, std::string_view spelled);

struct Context {
  const IssueInput* issue = nullptr;
  const Taxonomy* tax = nullptr;
  Budget* budget = nullptr;  // null: unlimited
  Preprocessed pre;
  TitleInfo title;
  CaseScan scan;
  std::string title_lower;               // whole title, lower-case
  std::string claims_lower;              // title rest + non-env body lines, URLs dropped, lower-case
  std::vector<std::string> claim_lines;  // the same body lines, as written (URLs dropped)
  std::vector<std::string> error_lines;  // error text, as written (tracebacks, FAILED, crashes; never env)
  std::string error_lower;
  std::string code_lower;  // code fences (repro scripts), lower-case, benchmark paths removed
  std::vector<std::optional<CaseEvidence>> evidence;  // per case, when a lookup was given
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> existing;  // axis -> (key, label as written)

  // Filled by the symptom rule, read by the others.
  bool perf = false, accuracy = false, functionality = false, regression = false, hang = false, crash = false;
  std::string regression_pair;  // the before/after words that made it a regression
  double max_drop_pct = 0;      // largest "% drop" stated against a baseline
};

Context build_context(const IssueInput& issue, const Taxonomy& tax, const EvidenceLookup& lookup,
                      Budget* budget = nullptr);

std::optional<Decision> decide_type(const Context& c);
std::optional<Decision> decide_test(const Context& c);
std::optional<Decision> decide_hw(const Context& c);
std::optional<Decision> decide_os(const Context& c);
std::vector<Decision> decide_dtype(const Context& c);
std::vector<Decision> decide_symptoms(Context& c);  // sets the flags above
std::optional<Decision> decide_module(const Context& c);
std::optional<Decision> decide_dependency(const Context& c);
std::optional<Decision> decide_priority(const Context& c, const std::optional<Decision>& module);
std::optional<Decision> decide_need_split(const Context& c);
std::string root_cause(const Context& c, bool need_split);

bool feature_wording(const Context& c);
std::string quote(std::string_view s, std::size_t max = 80);  // `text` shortened for a reason

}  // namespace perftriage::analyzers::labeler
