#pragma once
// Scoring the labeler against the labels a tracker set: a JSONL set of real issues ({"repo","number","url","title",
// "labels","body"} per line) in, per-axis and per-label precision / recall, the confusions of the single-valued
// axes and the share of issues given a wrong single value out. The labeler reads title + body only (never the
// tracker's labels). The tracker's labels go through the taxonomy's legacy map; labels outside every axis are
// ignored and counted. Pure: no files, no database evidence.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "common/result.hpp"

namespace perftriage::analyzers::labeler {

struct LabelModel;  // model.hpp

struct EvalIssue {
  std::string repo, url, title, body;
  std::int64_t number = 0;
  std::vector<std::string> labels;  // as the tracker set them
};

// One issue per non-empty line; a bad line is invalid_input naming `file` and the line.
Result<std::vector<EvalIssue>> parse_eval_set(std::string_view text, const std::string& file = {});

// A time split of real issues, to evaluate on issues nothing was tuned on: per repository ("owner/name"), the number
// of the first issue of the newer part (a tracker's issue numbers grow with time). The file: {"owner/name": N, ...},
// keys starting with '_' (a comment) ignored.
using TimeSplit = std::map<std::string, std::int64_t>;
Result<TimeSplit> parse_split(std::string_view text, const std::string& file = {});
enum class SplitPart { older, newer };
std::optional<SplitPart> split_part_from_name(std::string_view name);  // "older", "newer"
// The issues of `set` in one part; an issue of a repository the split does not name is invalid_input.
Result<std::vector<EvalIssue>> split_part(std::vector<EvalIssue> set, const TimeSplit& split, SplitPart part);

// (axis, canonical label) of a label as a tracker set it, through the taxonomy's legacy map; axis "implied" for a
// label the taxonomy implies; nullopt when it is outside every applied axis (and so not scored or learned).
std::optional<std::pair<std::string, std::string>> tracker_label(const Taxonomy& t, std::string_view label);

// The built-in taxonomy whose "repo" is `repo` (intel/torch-xpu-ops -> torch-xpu-ops); not_found when none.
Result<Taxonomy> taxonomy_for_repo(std::string_view repo);

struct EvalScore {
  std::string name;  // the axis ("hw") or the label ("performance")
  std::string axis;  // the axis the label belongs to (rows of labels); "implied" for labels the taxonomy implies
  int tp = 0, fp = 0, fn = 0;
  // False positives on issues where the tracker set no value of the axis (or of the label's group, AxisSpec::groups).
  int fp_unset = 0;
  int fn_suggested = 0;  // of the false negatives, those the labeler suggested (LabelResult::suggested)
  [[nodiscard]] int support() const { return tp + fn; }
  [[nodiscard]] double precision() const;      // tp / (tp + fp); 1 when nothing was given
  [[nodiscard]] double recall() const;         // tp / (tp + fn); 1 when the tracker never set it
  [[nodiscard]] double precision_set() const;  // precision on the issues where the tracker set the axis
  // Recall of what was applied or suggested: how much of the tracker's labels a maintainer reading the comment sees.
  [[nodiscard]] double recall_with_suggested() const;
};

struct EvalConfusion {
  std::string axis, given, expected;
  std::vector<std::int64_t> issues;  // numbers
};

struct EvalIssueResult {
  std::int64_t number = 0;
  std::string title;
  std::vector<std::string> expected, given, missing, extra, ignored;
  bool wrong_single = false;  // a single-valued axis got a value the tracker does not have, where it has one
};

struct EvalReport {
  std::string taxonomy;
  Layers layers = Layers::rules;
  int issues = 0;
  int skipped_seen = 0;           // issues of the set the model was trained on: not scored
  std::vector<EvalScore> axes;    // one per applied axis of the taxonomy, micro-averaged over its values
  std::vector<EvalScore> labels;  // one per label given or expected at least once
  std::vector<EvalConfusion> confusions;
  int wrong_single = 0;                       // issues with a wrong value on a single-valued axis
  std::map<std::string, int> ignored;         // tracker labels outside every axis -> issues
  std::map<std::string, std::string> legacy;  // old spellings found -> the label they map to
  std::vector<EvalIssueResult> per_issue;
  [[nodiscard]] double wrong_single_share() const { return issues == 0 ? 0 : double(wrong_single) / issues; }
};

// Labels every issue with `taxonomy` (no existing labels, no evidence) and scores it against the tracker's labels.
// `model` (model/both) is the learned layer; issues it was trained on are not scored (counted in `skipped_seen`).
EvalReport evaluate_labeler(const std::vector<EvalIssue>& set, const Taxonomy& taxonomy, Layers layers = Layers::rules,
                            const LabelModel* model = nullptr);

nlohmann::json to_json(const EvalReport& report, bool with_issues = false);
// The tables: axes, labels, confusions, ignored labels (and each issue's differences with `with_issues`).
std::string render_text(const EvalReport& report, bool with_issues = false);

// The same set scored by several layers, side by side: per axis and per label, precision and recall of each report
// (all of one taxonomy, in the order given), and each one's wrong single-valued share.
std::string render_comparison(const std::vector<EvalReport>& reports);

// Floors: {"<taxonomy>": {"axes": {"hw": {"precision": x, "recall": y, "precision_set": z}}, "labels": {...},
// "max_wrong_single_share": s}}, keyed "<taxonomy>" for the rules layer and "<taxonomy>/model", "<taxonomy>/both"
// for the others. Returns one line per score below its floor (empty: all met). A floor naming a row the report lacks
// is a failure too (a renamed axis must not pass silently).
std::vector<std::string> check_floors(const EvalReport& report, const nlohmann::json& floors);

}  // namespace perftriage::analyzers::labeler
