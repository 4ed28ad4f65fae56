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
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/eval.hpp"
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
};

struct LabelModel {
  std::string taxonomy, repo;
  FeatureSettings features;
  double threshold = 0.6;  // fill a label only at or above this probability
  int trained_issues = 0;
  std::string source;                    // where the history came from (a file, "db:<repo>")
  std::vector<std::int64_t> trained_on;  // issue numbers of the training set: label-eval never scores them
  std::vector<LabelWeights> labels;      // in taxonomy order

  [[nodiscard]] bool saw(std::int64_t number) const;
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
};

struct TrainReport {
  int issues = 0, features = 0;
  std::vector<std::pair<std::string, int>> labels;  // trained label -> positives
  std::vector<std::string> skipped;                 // labels with too few positives
};

// Fits one model per label of `taxonomy` found (through its legacy map) on the history. Pure.
Result<LabelModel> train_model(const std::vector<EvalIssue>& history, const Taxonomy& taxonomy,
                               const TrainSettings& settings, TrainReport* report = nullptr);

struct ModelVote {
  std::string label, axis;
  double p = 0;
  std::vector<std::string> words;  // the present features that pushed hardest towards the label, strongest first
  [[nodiscard]] std::string reason() const;  // "'b580', 'bmg' -> hw: BMG, 0.93"
};

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
