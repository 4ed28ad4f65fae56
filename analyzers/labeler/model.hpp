#pragma once
// The learned layer of the labeler: one small logistic regression per label over an issue's title and body tokens
// and word pairs, fitted on a tracker's own history (issues with the labels it set) and stored as data next to the
// taxonomy (analyzers/taxonomies/models/<taxonomy>.json, embedded at build). The rules decide first; the model only
// fills an axis the rules left empty (or left at the taxonomy's default) when its probability is at or above the
// threshold, and its reason names the words that decided: "'b580', 'bmg' -> hw: BMG, 0.93".
//
// Why a linear model over token presence: a few hundred labeled issues per tracker is too little for anything
// larger, a weight per word is what a reviewer can read and check, and it needs no dependency. Why logistic
// regression rather than naive Bayes: it gives usable probabilities on correlated words (a table's tokens repeat one
// another), so one threshold means the same thing on every label. Training is full-batch gradient descent with
// AdaGrad steps and L2, in a fixed order with no randomness: the same history gives the same model, byte for byte.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/eval.hpp"
#include "analyzers/labeler/origin.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "common/result.hpp"

namespace perftriage::analyzers::labeler {

struct FeatureSettings {
  bool bigrams = true;                 // adjacent word pairs within a title or a body line
  std::size_t max_body_tokens = 3000;  // tokens read from the body (bounds the CPU a hostile body can take)
};

// The features of an issue: distinct lower-case tokens (letters, digits and . _ + - inside a word, at least two
// characters, not a bare number), "w1 w2" pairs, and every title token again as "title:w". Sorted, unique.
std::vector<std::string> issue_features(std::string_view title, std::string_view body, const FeatureSettings& fs);

struct LabelWeights {
  std::string label, axis;  // canonical label and the taxonomy axis it belongs to ("implied" for implied labels)
  int positives = 0;        // training issues carrying it
  double bias = 0;
  std::map<std::string, double> weights;  // feature -> weight (only the ones kept after pruning)
  // The tracker's habit: a value the rules give is withheld when the model's probability of it is below `gate` (the
  // tracker rarely sets it on issues like this one). 0: never withheld. Fitted on held-out folds (fit_gates).
  double gate = 0;
};

// A label's calibration (calibrate.cpp): the probability that the tracker keeps a value the labeler gives, as a step
// function of the model's raw probability of that label. Fitted on held-out folds of the history by isotonic regression
// (pool adjacent violators), each step of n values, k kept, valued (k + s * r) / (n + s): a prior of strength s
// (TrainSettings::prior_strength) at the rate r of its pool, the held-out values of the same source on the same axis
// (and group), so that a handful of issues can make a label neither certain nor hopeless, and a label seldom seen
// borrows the record of its axis (a hw the rules named is as reliable as the other hw values they name). r itself
// is (K + 1) / (N + 2) over the pool. Steps are then made non-decreasing from the top down (the lower value wins). Why
// isotonic rather than Platt: the rules' values have no score of their own (a label the model does not know is one
// step), and the model's probabilities are far from a sigmoid of themselves on a few hundred issues. Counted only on
// issues where the tracker set a value of the axis (of the value's group, AxisSpec::groups): the tracker under-labels.
struct Calibration {
  // A block of the isotonic fit: the raw probabilities it spans and its value. Between two blocks the value is
  // interpolated linearly (as scikit-learn's IsotonicRegression predicts), below the first and above the last it is
  // theirs: a raw probability the folds never produced is read from its neighbours, not from one side.
  struct Step {
    double lo = 0, hi = 0, value = 0;
    bool operator==(const Step&) const = default;
  };
  std::string label;
  Origin source = Origin::rules;  // rules: a value the rules gave; model: one the model alone proposed
  std::vector<Step> steps;        // ascending, values non-decreasing
  int judged = 0, kept = 0;       // held-out values on issues that judge them, and those the tracker had set

  [[nodiscard]] double at(double raw) const;  // 0 without steps
  // The lowest raw probability whose value is at least `target`: the label's threshold; nullopt when none reaches it.
  [[nodiscard]] std::optional<double> from(double target) const;
};

struct LabelModel {
  std::string taxonomy, repo;
  FeatureSettings features;
  double threshold = 0.6;  // fill a label only at or above this probability
  // Layers::tiered: a value is applied when its calibrated probability is at least apply_at, else suggested; the model
  // proposes (to calibrate) every label at or above suggest_from. No calibration of a label and source: suggested.
  double apply_at = 0.9, suggest_from = 0.3;
  std::vector<Calibration> calibration;  // by label, then source
  int trained_issues = 0;
  std::string source;                    // where the history came from (a file, "db:<repo>")
  std::vector<std::int64_t> trained_on;  // issue numbers of the training set: label-eval never scores them
  std::vector<LabelWeights> labels;      // in taxonomy order

  [[nodiscard]] bool saw(std::int64_t number) const;
  // The calibration of `label` as `origin` (rules or model) gave it; null when it has none.
  [[nodiscard]] const Calibration* calibrated(std::string_view label, Origin origin) const;
};

struct TrainSettings {
  FeatureSettings features;
  double threshold = 0.6;
  int min_positives = 3;  // a label carried by fewer training issues gets no model
  int min_df = 2;         // a feature must occur in this many training issues
  int iterations = 300;
  double learning_rate = 0.5, l2 = 0.002;
  std::size_t max_weights = 300;  // per label, the largest |weight| kept
  double min_weight = 0.02;       // and none smaller than this
  // Gates (fit_gates): the history split in this many folds; 0 or 1 fits none. The gate of a label is the candidate
  // (or none) under which the rules' values of it, on the held-out folds, score the best F1 against the tracker.
  int gate_folds = 0;
  std::vector<double> gate_candidates{0.02, 0.05, 0.1, 0.2, 0.3};
  // A gate may withhold at most this share of the held-out values the tracker did set: it is there to drop what the
  // tracker leaves off, not to trade recall for precision (a gate that scores a better F1 by losing more is refused).
  double gate_max_lost = 0.1;
  // Calibration (fit_calibration) on the same folds; see LabelModel::apply_at / suggest_from.
  double apply_at = 0.9, suggest_from = 0.3;
  double prior_strength = 2;  // how many held-out values the pool's rate counts as, in each step of a label
  // A maintainer's correction (Correction) weighs this many plain history issues in the fit of its label.
  double correction_weight = 3;
  // Asked between labels and folds; true ends the training with `training_stopped` (a server shutting down does not
  // wait for a minute of fitting). Empty: never.
  std::function<bool()> stop;
};

// What a maintainer did to the bot's labels on one issue: removed a label the bot applied (added = false), or added a
// label of the taxonomy the bot did not apply (added = true). Training takes it as the truth for that issue and label,
// weighed above the tracker's plain history (TrainSettings::correction_weight).
struct Correction {
  std::int64_t number = 0;
  std::string label;
  bool added = false;
};

struct GateReport {
  std::string label;
  double gate = 0;             // 0: none
  int given = 0, correct = 0;  // on the held-out folds: the rules' values of the label, and those the tracker set
  int withheld = 0, lost = 0;  // of them, withheld by the gate, and withheld though the tracker set them
};

struct TrainReport {
  int issues = 0, features = 0;
  int corrections = 0;  // maintainers' corrections applied to the history (those naming an issue of it)
  std::vector<std::pair<std::string, int>> labels;  // trained label -> positives
  std::vector<std::string> skipped;                 // labels with too few positives
  std::vector<GateReport> gates;                    // one per trained label the rules gave on a held-out fold
  std::vector<Calibration> calibration;             // as set on the model
};

// Fits one model per label of `taxonomy` found (through its legacy map) on the history, then its gates and its
// calibration when settings.gate_folds >= 2. `corrections` (of issues in the history, by number) overrule the
// tracker's labels of those issues and weigh more. Pure.
Result<LabelModel> train_model(const std::vector<EvalIssue>& history, const Taxonomy& taxonomy,
                               const TrainSettings& settings, TrainReport* report = nullptr,
                               const std::vector<Correction>& corrections = {});

struct ModelVote {
  std::string label, axis;
  double p = 0;
  std::vector<std::string> words;  // the present features that pushed hardest towards the label, strongest first
  [[nodiscard]] std::string reason() const;  // "'b580', 'bmg' -> hw: BMG, 0.93"
};

// One issue of a held-out fold (calibrate.cpp): the rules' labels of it, the votes of the model trained without its
// fold, the tracker's labels (canonical), and the labels a maintainer corrected on it (judged whatever else is set).
struct HeldOut {
  const EvalIssue* issue = nullptr;
  LabelResult rules;
  std::vector<ModelVote> votes;
  std::set<std::string> expected, corrected;
};

// The history in settings.gate_folds folds (issue i in fold i % folds): each fold labeled by the rules and scored by a
// model trained on the other folds (with the corrections of their issues). Empty when gate_folds < 2 or the history
// has fewer issues than folds. `history` has the corrections applied already (train_model).
std::vector<HeldOut> held_out_runs(const std::vector<EvalIssue>& history, const Taxonomy& taxonomy,
                                   const TrainSettings& settings, const std::vector<Correction>& corrections = {});

// The gates of `model`'s labels (gates.cpp), on held_out_runs. A label's gate is the candidate with the best F1 of the
// rules' values against the tracker's labels among those that withhold at most gate_max_lost of the values the
// tracker set (ties: the lowest; none when no candidate beats labeling without one). The fitted gates are set on
// `model`; the report says what each cost.
std::vector<GateReport> fit_gates(const std::vector<HeldOut>& runs, const TrainSettings& settings, LabelModel& model);

// The calibration of every label the rules or the model proposed on held_out_runs (see Calibration), set on `model`
// with settings.apply_at and suggest_from.
void fit_calibration(const std::vector<HeldOut>& runs, const Taxonomy& taxonomy, const TrainSettings& settings,
                     LabelModel& model);
// A model file's "calibration": [{"label", "source", "steps": [[p, value], ...], "judged", "kept"}]. parse throws
// std::invalid_argument naming what is wrong (parse_model turns it into bad_model).
nlohmann::json calibration_json(const std::vector<Calibration>& calibration);
std::vector<Calibration> parse_calibration(const nlohmann::json& j);

// The probability of every modelled label for one issue, highest first.
std::vector<ModelVote> predict(const LabelModel& model, std::string_view title, std::string_view body);

nlohmann::json to_json(const LabelModel& model);
Result<LabelModel> parse_model(const nlohmann::json& j);
// `spec`: a built-in model name (the taxonomy's name), a JSON text, or a path to a JSON file.
Result<LabelModel> load_model(std::string_view spec);
// A --model option: empty -> the taxonomy's own model, "none" -> no model (null), else load_model(spec).
Result<std::shared_ptr<const LabelModel>> model_option(std::string_view spec, const Taxonomy& taxonomy);
// The embedded model of a built-in taxonomy; not_found when it has none.
Result<LabelModel> builtin_model(std::string_view taxonomy);
// The same, parsed once per process and shared (what load_taxonomy attaches); null when there is none.
std::shared_ptr<const LabelModel> builtin_model_shared(std::string_view taxonomy);

}  // namespace perftriage::analyzers::labeler
