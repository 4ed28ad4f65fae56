#pragma once
// The pure issue labeler: title + body + existing labels + a taxonomy -> structured axes, each with a one-line
// reason, the labels to apply, the parsed test cases, need_split and a root-cause line. No I/O, no GitHub.
// Rules: shared/domain/issue-labels.md. The taxonomies are data (analyzers/taxonomies/*.json, embedded at build).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/layers.hpp"
#include "analyzers/labeler/origin.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "common/result.hpp"

namespace perftriage::analyzers::labeler {

struct IssueInput {
  std::string title;
  std::string body;
  std::vector<std::string> labels;  // labels already on the issue (legacy spellings allowed)
  std::string repo;                 // "owner/name"; empty: the taxonomy's repo
  std::int64_t number = 0;
};

// One test case found in the issue. E2E: suite/dtype/mode/model (+ speedup); UT: test_id (+ dtype from its suffix).
struct ParsedCase {
  std::string suite, dtype, mode, model, test_id;
  std::optional<double> speedup;
  std::string text;  // the line it came from, trimmed

  // Extra facts some shapes carry.
  std::optional<double> inductor_ratio, eager_ratio;  // target / baseline, when the table has them
  std::string status;                                 // fail_accuracy, eager_fail_to_run, ... (logs, tables)
  std::string error;                                  // error text on the case's line (FAILED ... - Error: ...)
  bool e2e = false;                                   // an E2E (benchmark) case rather than a unit test
  std::size_t line = 0;                               // 0-based line in the pre-processed body

  [[nodiscard]] std::string display()
      const;  // huggingface/ElectraForQuestionAnswering/inference/bfloat16 or the test id
};

// Data-backed facts about one case (the server plugs the database in).
struct CaseEvidence {
  std::optional<double> speedup, inductor_ratio, eager_ratio;
  std::vector<std::string> verdicts;  // trace classifier verdicts: "math fallback", "host-bound", "graph breaks", ...
  std::string source;                 // where it was measured: run key, platform, csv
};
using EvidenceLookup = std::function<std::optional<CaseEvidence>(const ParsedCase&)>;

struct AxisRow {
  std::string axis, value, reason;
  Origin layer = Origin::rules;
  // Layers::tiered: the calibrated probability that the tracker keeps it (model.hpp Calibration).
  std::optional<double> p;
};

// Which inputs were cut to the caps of LabelSettings before labeling.
struct Truncation {
  bool title = false;   // cut to max_title_chars
  bool body = false;    // cut to max_body_chars
  bool labels = false;  // labels past max_labels, or longer than max_label_chars, were dropped
  [[nodiscard]] bool any() const { return title || body || labels; }
};

struct LabelResult {
  std::vector<AxisRow> axes;
  std::vector<std::string> labels;  // exactly what would be applied (every applied axis' value, canonical spelling)
  std::vector<AxisRow> withheld;    // Layers::gated: values the rules gave and a gate withheld (layer "gate")
  // Values with evidence too weak to apply (layer "suggested"): the bot's comment lists them with their reasons for a
  // maintainer to apply by hand; never in `labels`.
  std::vector<AxisRow> suggested;
  std::vector<ParsedCase> cases;
  int analyzed_case = 0;  // 1-based index of the analysed case; 0 when there are no cases
  bool need_split = false;
  std::string root_cause;
  Truncation truncated;  // what of the input was not read (to_json: "truncated": {"title","body","labels"})
};

// What the labeler reads and how long it may take. The caps follow GitHub's own limits; lengths are counted in
// characters (UTF-8 code points) and a cut never splits a character.
struct LabelSettings {
  std::size_t max_title_chars = 256;   // GitHub: 256
  std::size_t max_body_chars = 65536;  // GitHub: 65,536
  std::size_t max_labels = 100;        // labels past the first 100 are ignored
  std::size_t max_label_chars = 50;    // GitHub: 50; a longer "label" cannot exist and is ignored
  // CPU time of the calling thread (evidence lookups included), checked between stages and inside the per-line
  // loops. std::chrono::microseconds::max() = no budget.
  std::chrono::microseconds cpu_budget{2'000'000};
  Layers layers = Layers::both;  // without a model on the taxonomy, both = rules
};

// The issue as the labeler reads it: title, body and labels cut to the settings' caps; `truncated` says what was cut.
IssueInput bound_input(const IssueInput& issue, const LabelSettings& settings, Truncation& truncated);

// The bounded entry point: caps the input, then labels within settings.cpu_budget. Over the budget it stops and
// returns Error{ErrorKind::unprocessable, "label_budget_exceeded", "labeling took more than its CPU budget of N ms"}.
Result<LabelResult> label_issue_within(const IssueInput& issue, const Taxonomy& taxonomy,
                                       const EvidenceLookup& evidence = {}, const LabelSettings& settings = {});

// Caps the input like label_issue_within with default settings (or `layers`), without a CPU budget (never fails).
LabelResult label_issue(const IssueInput& issue, const Taxonomy& taxonomy, const EvidenceLookup& evidence = {},
                        Layers layers = Layers::both);

nlohmann::json to_json(const ParsedCase& c);
nlohmann::json to_json(const LabelResult& result);

// The triage comment in the seed's shape, inside <details>, starting with kCommentMarker.
inline constexpr std::string_view kCommentMarker = "<!-- perftriage:label -->";
std::string render_comment(const IssueInput& issue, const LabelResult& result);

}  // namespace perftriage::analyzers::labeler
