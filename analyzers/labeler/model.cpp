// The learned layer: features, training, prediction and the model's JSON (see model.hpp).
#include "analyzers/labeler/model.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/labeler/text.hpp"
#include "perftriage_embedded_taxonomies.hpp"

namespace perftriage::analyzers::labeler {
namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "perftriage-label-model/1";
constexpr std::string_view kTitle = "title:";
constexpr std::size_t kMaxTokenBytes = 40;
constexpr double kMaxWeight = 1000;  // |bias| and |weight| in a model file (trained ones stay under 10)

bool word_byte(unsigned char ch) {
  return std::isalnum(ch) != 0 || ch == '_' || ch == '.' || ch == '+' || ch == '-' || ch >= 0x80;
}

// A token as a feature, or empty: trimmed of . and - at its ends, lower-case, 2..40 bytes, with a letter, and not a
// commit hash (12+ hex digits): numbers, rules of underscores and hashes name no label.
std::string clean_token(std::string_view raw) {
  while (!raw.empty() && (raw.front() == '.' || raw.front() == '-')) raw.remove_prefix(1);
  while (!raw.empty() && (raw.back() == '.' || raw.back() == '-')) raw.remove_suffix(1);
  if (raw.size() < 2 || raw.size() > kMaxTokenBytes) return {};
  const auto byte = [](char ch) { return static_cast<unsigned char>(ch); };
  if (std::none_of(raw.begin(), raw.end(), [&](char ch) { return std::isalpha(byte(ch)) != 0; })) return {};
  if (raw.size() >= 12 && std::all_of(raw.begin(), raw.end(), [&](char ch) { return std::isxdigit(byte(ch)) != 0; }))
    return {};
  return lower(raw);
}

// Appends the tokens of `line` (and its word pairs) to `out`; stops after `budget` tokens (decremented).
void line_features(std::string_view line, std::string_view prefix, bool bigrams, std::size_t& budget,
                   std::vector<std::string>& out) {
  std::string prev;
  std::size_t i = 0;
  while (i < line.size() && budget > 0) {
    while (i < line.size() && !word_byte(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && word_byte(static_cast<unsigned char>(line[i]))) ++i;
    auto tok = clean_token(line.substr(start, i - start));
    if (tok.empty()) continue;
    --budget;
    if (!prefix.empty()) out.push_back(std::string(prefix) + tok);
    if (bigrams && !prev.empty()) out.push_back(prev + " " + tok);
    out.push_back(tok);
    prev = std::move(tok);
  }
}

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
double round4(double v) { return std::round(v * 1e4) / 1e4; }

// The training issues as feature-index lists over the kept vocabulary (df >= min_df).
struct Corpus {
  std::vector<std::string> vocab;
  std::vector<std::vector<int>> docs;
};

Corpus build_corpus(const std::vector<EvalIssue>& history, const TrainSettings& s) {
  std::vector<std::vector<std::string>> feats;
  std::map<std::string, int> df;
  for (const auto& is : history) {
    feats.push_back(issue_features(is.title, is.body, s.features));
    for (const auto& f : feats.back()) ++df[f];
  }
  Corpus c;
  std::unordered_map<std::string, int> index;
  for (const auto& [f, n] : df)
    if (n >= s.min_df) {
      index.emplace(f, static_cast<int>(c.vocab.size()));
      c.vocab.push_back(f);
    }
  for (const auto& fs : feats) {
    std::vector<int> d;
    for (const auto& f : fs)
      if (auto it = index.find(f); it != index.end()) d.push_back(it->second);
    c.docs.push_back(std::move(d));
  }
  return c;
}

// One binary logistic regression: full-batch gradient, AdaGrad steps, L2 on the weights (not the bias).
void fit(const Corpus& c, const std::vector<char>& y, const std::vector<double>& weight, const TrainSettings& s,
         double& bias, std::vector<double>& w) {
  const std::size_t n = c.docs.size();
  w.assign(c.vocab.size(), 0.0);
  std::vector<double> grad(w.size()), acc(w.size(), 0.0);
  double acc_b = 0;
  bias = 0;
  for (int it = 0; it < s.iterations; ++it) {
    std::fill(grad.begin(), grad.end(), 0.0);
    double grad_b = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double z = bias;
      for (int f : c.docs[i]) z += w[static_cast<std::size_t>(f)];
      const double g = weight[i] * (sigmoid(z) - (y[i] ? 1.0 : 0.0)) / static_cast<double>(n);
      grad_b += g;
      for (int f : c.docs[i]) grad[static_cast<std::size_t>(f)] += g;
    }
    for (std::size_t f = 0; f < w.size(); ++f) {
      const double g = grad[f] + s.l2 * w[f];
      acc[f] += g * g;
      if (acc[f] > 0) w[f] -= s.learning_rate * g / std::sqrt(acc[f] + 1e-12);
    }
    acc_b += grad_b * grad_b;
    if (acc_b > 0) bias -= s.learning_rate * grad_b / std::sqrt(acc_b + 1e-12);
  }
}

std::map<std::string, double> prune(const Corpus& c, const std::vector<double>& w, const TrainSettings& s) {
  std::vector<std::size_t> order;
  for (std::size_t f = 0; f < w.size(); ++f)
    if (std::abs(w[f]) >= s.min_weight) order.push_back(f);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::abs(w[a]) > std::abs(w[b]); });
  if (order.size() > s.max_weights) order.resize(s.max_weights);
  std::map<std::string, double> out;
  for (auto f : order) out[c.vocab[f]] = round4(w[f]);
  return out;
}

// The history with each correction applied to its issue (an added label put on, a removed one taken off), and
// (issue index, label) -> the correction's weight. Corrections naming no issue of the history are skipped.
std::vector<EvalIssue> corrected(const std::vector<EvalIssue>& history, const Taxonomy& t,
                                 const std::vector<Correction>& corrections, double weight,
                                 std::map<std::pair<std::size_t, std::string>, double>& weights) {
  std::vector<EvalIssue> out = history;
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < out.size(); ++i) index.emplace(out[i].number, i);
  for (const auto& c : corrections) {
    const auto it = index.find(c.number);
    const auto k = tracker_label(t, c.label);
    if (it == index.end() || !k) continue;
    auto& labels = out[it->second].labels;
    std::erase_if(labels, [&](const std::string& l) {
      auto m = tracker_label(t, l);
      return m && m->second == k->second;
    });
    if (c.added) labels.push_back(k->second);
    weights[{it->second, k->second}] = weight;
  }
  return out;
}

// label -> (axis, issues carrying it), over the labels the taxonomy applies.
std::map<std::string, std::pair<std::string, std::set<std::size_t>>> history_labels(
    const std::vector<EvalIssue>& history, const Taxonomy& t) {
  std::map<std::string, std::pair<std::string, std::set<std::size_t>>> out;
  for (std::size_t i = 0; i < history.size(); ++i)
    for (const auto& l : history[i].labels)
      if (auto k = tracker_label(t, l)) {
        auto& e = out[k->second];
        e.first = k->first;
        e.second.insert(i);
      }
  return out;
}

Error stopped() { return make_error(ErrorKind::unavailable, "training_stopped", "the training was stopped"); }

std::string display_word(const std::string& f) {
  if (f.rfind(kTitle, 0) == 0) return f.substr(kTitle.size());
  return f;
}

}  // namespace

std::vector<std::string> issue_features(std::string_view title, std::string_view body, const FeatureSettings& fs) {
  std::vector<std::string> out;
  std::size_t budget = 256;
  line_features(title, kTitle, fs.bigrams, budget, out);
  budget = fs.max_body_tokens;
  std::size_t start = 0;
  while (start < body.size() && budget > 0) {
    auto end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    line_features(body.substr(start, end - start), {}, fs.bigrams, budget, out);
    start = end + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool LabelModel::saw(std::int64_t number) const {
  return std::binary_search(trained_on.begin(), trained_on.end(), number);
}

Result<LabelModel> train_model(const std::vector<EvalIssue>& raw_history, const Taxonomy& taxonomy,
                               const TrainSettings& settings, TrainReport* report,
                               const std::vector<Correction>& corrections) {
  if (raw_history.empty()) return make_error(ErrorKind::invalid_input, "empty_history", "no issues to learn from");
  std::map<std::pair<std::size_t, std::string>, double> weights;
  const auto history = corrected(raw_history, taxonomy, corrections, settings.correction_weight, weights);
  LabelModel m;
  m.taxonomy = taxonomy.name;
  m.repo = taxonomy.repo;
  m.features = settings.features;
  m.threshold = settings.threshold;
  m.trained_issues = static_cast<int>(history.size());
  for (const auto& is : history) m.trained_on.push_back(is.number);
  std::sort(m.trained_on.begin(), m.trained_on.end());
  m.trained_on.erase(std::unique(m.trained_on.begin(), m.trained_on.end()), m.trained_on.end());
  const auto corpus = build_corpus(history, settings);
  const auto found = history_labels(history, taxonomy);
  TrainReport rep;
  rep.issues = m.trained_issues;
  rep.features = static_cast<int>(corpus.vocab.size());
  rep.corrections = static_cast<int>(weights.size());
  std::vector<std::string> axes;  // taxonomy order, then the implied labels; label order within each
  for (const auto& a : taxonomy.axes) axes.push_back(a.name);
  axes.emplace_back("implied");
  for (const auto& axis : axes)
    for (const auto& [label, e] : found) {
      if (e.first != axis) continue;
      const int pos = static_cast<int>(e.second.size());
      if (pos < settings.min_positives) {
        rep.skipped.push_back(label);
        continue;
      }
      if (settings.stop && settings.stop()) return stopped();
      std::vector<char> y(history.size(), 0);
      for (auto i : e.second) y[i] = 1;
      std::vector<double> weight(history.size(), 1.0);
      for (const auto& [key, wt] : weights)
        if (key.second == label) weight[key.first] = wt;
      LabelWeights lw{label, e.first, pos, 0, {}, 0};
      std::vector<double> w;
      fit(corpus, y, weight, settings, lw.bias, w);
      lw.bias = round4(lw.bias);
      lw.weights = prune(corpus, w, settings);
      m.labels.push_back(std::move(lw));
      rep.labels.emplace_back(label, pos);
    }
  const auto runs = held_out_runs(history, taxonomy, settings, corrections);
  if (settings.stop && settings.stop()) return stopped();  // the folds' models were cut short
  rep.gates = fit_gates(runs, settings, m);
  if (!runs.empty()) fit_calibration(runs, taxonomy, settings, m);
  rep.calibration = m.calibration;
  if (report) *report = std::move(rep);
  return m;
}

std::string ModelVote::reason() const {
  std::string w;
  for (std::size_t i = 0; i < words.size(); ++i) w += (i ? ", '" : "'") + words[i] + "'";
  return fmt::format("{} -> {}, {:.2f}", w.empty() ? std::string("(no word)") : w, label, p);
}

std::vector<ModelVote> predict(const LabelModel& model, std::string_view title, std::string_view body) {
  const auto feats = issue_features(title, body, model.features);
  std::vector<ModelVote> out;
  for (const auto& lw : model.labels) {
    double z = lw.bias;
    std::vector<std::pair<double, std::string>> pushes;
    // Both sorted: one merge pass, linear in features + weights (a 64 KB body costs no more than its tokens).
    auto f = feats.begin();
    for (auto w = lw.weights.begin(); w != lw.weights.end() && f != feats.end();) {
      if (*f < w->first) {
        ++f;
      } else if (w->first < *f) {
        ++w;
      } else {
        z += w->second;
        if (w->second > 0) pushes.emplace_back(w->second, display_word(*f));
        ++f, ++w;
      }
    }
    std::stable_sort(pushes.begin(), pushes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    ModelVote v{lw.label, lw.axis, sigmoid(z), {}};
    for (const auto& [_, word] : pushes) {
      if (v.words.size() == 3) break;
      if (std::find(v.words.begin(), v.words.end(), word) == v.words.end()) v.words.push_back(word);
    }
    out.push_back(std::move(v));
  }
  std::stable_sort(out.begin(), out.end(), [](const ModelVote& a, const ModelVote& b) { return a.p > b.p; });
  return out;
}

json to_json(const LabelModel& m) {
  json labels = json::array();
  for (const auto& lw : m.labels) {
    labels.push_back({{"label", lw.label},
                      {"axis", lw.axis},
                      {"positives", lw.positives},
                      {"bias", lw.bias},
                      {"weights", lw.weights}});
    if (lw.gate > 0) labels.back()["gate"] = lw.gate;  // absent: none (the files written before gates)
  }
  return {{"format", kFormat},
          {"taxonomy", m.taxonomy},
          {"repo", m.repo},
          {"threshold", m.threshold},
          {"features", {{"bigrams", m.features.bigrams}, {"max_body_tokens", m.features.max_body_tokens}}},
          {"trained_issues", m.trained_issues},
          {"source", m.source},
          {"trained_on", m.trained_on},
          {"labels", labels},
          {"apply_at", m.apply_at},
          {"suggest_from", m.suggest_from},
          {"calibration", calibration_json(m.calibration)}};
}

namespace {

// An integer field of a model file, or `fallback` when absent. nlohmann's get<int> of 1e300 or of -1 into a size_t
// would be a cast out of range (undefined); a model file is input, so anything but an integer within
// [0, max] is an error.
std::int64_t count_field(const json& obj, const char* key, std::int64_t fallback, std::int64_t max) {
  const auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  if (!it->is_number_integer()) throw std::invalid_argument(std::string("\"") + key + "\" must be a whole number");
  if (it->is_number_unsigned() ? it->get<std::uint64_t>() > static_cast<std::uint64_t>(max)
                               : (it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > max))
    throw std::invalid_argument(fmt::format("\"{}\" must be within 0..{}", key, max));
  return it->get<std::int64_t>();
}

}  // namespace

Result<LabelModel> parse_model(const json& j) {
  const auto format = j.is_object() ? j.find("format") : j.end();
  if (!j.is_object() || format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != kFormat)
    return make_error(ErrorKind::invalid_input, "bad_model",
                      "not a label model (\"format\" must be \"" + std::string(kFormat) + "\")");
  LabelModel m;
  try {
    constexpr std::int64_t kMaxCount = 1'000'000'000;
    m.taxonomy = j.value("taxonomy", std::string{});
    m.repo = j.value("repo", std::string{});
    m.threshold = j.value("threshold", 0.6);
    m.trained_issues = static_cast<int>(count_field(j, "trained_issues", 0, kMaxCount));
    m.source = j.value("source", std::string{});
    if (j.contains("features")) {
      const json& f = j.at("features");
      if (!f.is_object()) throw std::invalid_argument("\"features\" must be an object");
      m.features.bigrams = f.value("bigrams", true);
      m.features.max_body_tokens = static_cast<std::size_t>(count_field(f, "max_body_tokens", 3000, kMaxCount));
    }
    if (j.contains("trained_on"))
      for (const auto& n : j.at("trained_on")) {  // issue numbers; get<int64_t> of 1e300 would be undefined
        if (!n.is_number_integer()) throw std::invalid_argument("\"trained_on\" must hold issue numbers");
        m.trained_on.push_back(n.get<std::int64_t>());
      }
    for (const auto& l : j.at("labels")) {
      if (!l.is_object()) throw std::invalid_argument("each of \"labels\" must be an object");
      m.labels.push_back({l.at("label").get<std::string>(), l.at("axis").get<std::string>(),
                          static_cast<int>(count_field(l, "positives", 0, kMaxCount)), l.value("bias", 0.0),
                          l.at("weights").get<std::map<std::string, double>>(), l.value("gate", 0.0)});
    }
    m.apply_at = j.value("apply_at", 0.9);
    m.suggest_from = j.value("suggest_from", 0.3);
    if (j.contains("calibration")) m.calibration = parse_calibration(j.at("calibration"));
  } catch (const std::invalid_argument& ex) {
    return make_error(ErrorKind::invalid_input, "bad_model", std::string("a model field is wrong: ") + ex.what());
  } catch (const json::exception& ex) {
    return make_error(ErrorKind::invalid_input, "bad_model", std::string("a model field is wrong: ") + ex.what());
  }
  if (!(m.threshold > 0 && m.threshold <= 1))
    return make_error(ErrorKind::invalid_input, "bad_model", "\"threshold\" must be in (0, 1]");
  if (!(m.apply_at > 0 && m.apply_at <= 1) || !(m.suggest_from > 0 && m.suggest_from <= 1))
    return make_error(ErrorKind::invalid_input, "bad_model", "\"apply_at\" and \"suggest_from\" must be in (0, 1]");
  // Bounded numbers keep every sum finite: a probability is never NaN, whatever the file says.
  const auto bad_number = [](double v) { return !(std::abs(v) <= kMaxWeight); };
  for (const auto& lw : m.labels) {
    if (!(lw.gate >= 0 && lw.gate < 1))
      return make_error(ErrorKind::invalid_input, "bad_model", "label '" + lw.label + "': \"gate\" must be in [0, 1)");
    if (bad_number(lw.bias) ||
        std::any_of(lw.weights.begin(), lw.weights.end(), [&](const auto& w) { return bad_number(w.second); }))
      return make_error(ErrorKind::invalid_input, "bad_model",
                        "label '" + lw.label + "': a bias or weight is not a number within +-1000");
  }
  std::sort(m.trained_on.begin(), m.trained_on.end());
  return m;
}

Result<LabelModel> builtin_model(std::string_view taxonomy) {
  for (const auto& e : embedded::kModels)
    if (e.name == taxonomy) {
      auto j = json::parse(e.json, nullptr, false);
      if (j.is_discarded()) return make_error(ErrorKind::internal, "bad_model", "embedded model is not JSON");
      return parse_model(j);
    }
  return make_error(ErrorKind::not_found, "no_model", "no built-in label model for '" + std::string(taxonomy) + "'");
}

Result<std::shared_ptr<const LabelModel>> model_option(std::string_view spec, const Taxonomy& taxonomy) {
  if (spec == "none") return std::shared_ptr<const LabelModel>{};
  if (spec.empty()) return taxonomy.model;
  // A model file is configuration: read and parsed once per process, not on every webhook or tracking plan.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const LabelModel>, std::less<>> loaded;
  const std::lock_guard lock(mutex);
  if (auto it = loaded.find(spec); it != loaded.end()) return it->second;
  PT_ASSIGN(auto m, load_model(spec));
  return loaded.emplace(std::string(spec), std::make_shared<const LabelModel>(std::move(m))).first->second;
}

std::shared_ptr<const LabelModel> builtin_model_shared(std::string_view taxonomy) {
  static const auto models = [] {  // thread-safe once: the embedded JSON is parsed on first use only
    std::map<std::string, std::shared_ptr<const LabelModel>, std::less<>> m;
    for (const auto& e : embedded::kModels)
      if (auto r = builtin_model(e.name))
        m.emplace(std::string(e.name), std::make_shared<const LabelModel>(std::move(*r)));
    return m;
  }();
  auto it = models.find(taxonomy);
  return it == models.end() ? nullptr : it->second;
}

Result<LabelModel> load_model(std::string_view spec) {
  if (!spec.empty() && spec.front() == '{') {
    auto j = json::parse(spec, nullptr, false);
    if (j.is_discarded()) return make_error(ErrorKind::invalid_input, "bad_model", "the model is not JSON");
    return parse_model(j);
  }
  for (const auto& e : embedded::kModels)
    if (e.name == spec) return builtin_model(spec);
  std::ifstream in{std::string(spec)};
  if (!in)
    return make_error(ErrorKind::not_found, "no_model", "no built-in model or file named '" + std::string(spec) + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded())
    return make_error(ErrorKind::invalid_input, "bad_model", "the model file is not JSON", std::string(spec));
  return parse_model(j);
}

}  // namespace perftriage::analyzers::labeler
