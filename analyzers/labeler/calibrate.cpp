// The held-out folds the gates and the calibration are fitted on, and the calibration itself (model.hpp Calibration).
// Held out because a model scores the issues it was trained on far too well: a label's threshold must be chosen on
// issues its model never saw, as it will meet them on the tracker.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "analyzers/labeler/model.hpp"

namespace perftriage::analyzers::labeler {
namespace {

struct Sample {
  double p = 1;
  bool kept = false;
};

using SampleKey = std::pair<std::string, Origin>;  // (label, source)
// By label, then by the source's name ("model" before "rules"): the order of a model file's calibration.
struct ByName {
  bool operator()(const SampleKey& a, const SampleKey& b) const {
    return std::pair(std::string_view(a.first), to_string(a.second)) <
           std::pair(std::string_view(b.first), to_string(b.second));
  }
};

// The samples of each (label, source), and the pool each belongs to: its axis and group (AxisSpec::groups) and source.
struct Samples {
  std::map<SampleKey, std::vector<Sample>, ByName> by_label;
  std::map<SampleKey, std::string, ByName> pool;
};

// "symptom/inference+training/rules": the values whose held-out record a label with few of its own borrows.
std::string pool_of(const Taxonomy& taxonomy, const std::string& axis, const std::string& label, Origin source) {
  std::string key = axis + "/";
  if (const auto* spec = taxonomy.axis(axis))
    for (const auto& g : spec->groups)
      if (std::find(g.begin(), g.end(), label) != g.end())
        for (const auto& l : g) key += l + "+";
  return key + "/" + std::string(to_string(source));
}

void add_sample(Samples& out, const Taxonomy& taxonomy, const std::string& axis, const std::string& label,
                Origin source, Sample s) {
  out.by_label[{label, source}].push_back(s);
  out.pool.emplace(SampleKey{label, source}, pool_of(taxonomy, axis, label, source));
}

double round4(double v) { return std::round(v * 1e4) / 1e4; }

// The tracker's labels of each axis on one issue ("implied" for the labels the taxonomy implies).
std::map<std::string, std::set<std::string>> by_axis(const Taxonomy& taxonomy, const std::set<std::string>& labels) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& l : labels)
    if (auto k = tracker_label(taxonomy, l)) out[k->first].insert(k->second);
  return out;
}

// Whether the tracker's labels judge `label` of `axis` (AxisSpec::judged); an implied label is always judged.
bool judged(const Taxonomy& taxonomy, const std::string& axis, const std::string& label,
            const std::map<std::string, std::set<std::string>>& set) {
  if (axis == "implied") return true;
  const auto* spec = taxonomy.axis(axis);
  const auto it = set.find(axis);
  return spec && it != set.end() && spec->judged(label, it->second);
}

// One held-out issue's samples: each value the rules gave, then each label the model alone proposed at or above
// suggest_from (on a single-valued axis only where the rules gave nothing or only the default, as when labeling).
void sample_run(const HeldOut& run, const Taxonomy& taxonomy, double suggest_from, Samples& out) {
  const auto set = by_axis(taxonomy, run.expected);
  std::map<std::string, double> p;
  for (const auto& v : run.votes) p[v.label] = v.p;
  std::set<std::string> given, decided_axes;
  for (const auto& row : run.rules.axes) {
    const auto* spec = taxonomy.axis(row.axis);
    if (!spec || !spec->applied || (row.layer != Origin::rules && row.layer != Origin::fallback)) continue;
    given.insert(row.value);
    if (row.layer == Origin::rules) decided_axes.insert(row.axis);
    if (!run.corrected.count(row.value) && !judged(taxonomy, row.axis, row.value, set)) continue;
    const auto it = p.find(row.value);
    add_sample(out, taxonomy, row.axis, row.value, Origin::rules,
               {it == p.end() ? 1.0 : it->second, run.expected.count(row.value) > 0});
  }
  for (const auto& v : run.votes) {
    if (v.p < suggest_from) break;  // highest first
    if (given.count(v.label)) continue;
    const auto* spec = taxonomy.axis(v.axis);
    if (v.axis != "implied" && (!spec || !spec->applied || (!spec->multi && decided_axes.count(v.axis)))) continue;
    if (!run.corrected.count(v.label) && !judged(taxonomy, v.axis, v.label, set)) continue;
    add_sample(out, taxonomy, v.axis, v.label, Origin::model, {v.p, run.expected.count(v.label) > 0});
  }
}

// Isotonic regression by pool adjacent violators over samples sorted by p (equal p pooled first), each block of n
// values, k kept, valued (k + strength * prior) / (n + strength), and the values then made non-decreasing by taking,
// from the top down, the lower one.
std::vector<Calibration::Step> isotonic_steps(std::vector<Sample> xs, double prior, double strength) {
  std::stable_sort(xs.begin(), xs.end(), [](const Sample& a, const Sample& b) { return a.p < b.p; });
  struct Block {
    double p_min, p_max;
    int n, k;
    [[nodiscard]] double mean() const { return double(k) / n; }
  };
  std::vector<Block> st;
  for (std::size_t i = 0; i < xs.size();) {
    Block b{xs[i].p, xs[i].p, 0, 0};
    for (; i < xs.size() && xs[i].p == b.p_min; ++i) ++b.n, b.k += xs[i].kept ? 1 : 0;
    st.push_back(b);
    while (st.size() >= 2 && st[st.size() - 2].mean() >= st.back().mean()) {
      const Block top = st.back();
      st.pop_back();
      st.back().p_max = top.p_max;
      st.back().n += top.n;
      st.back().k += top.k;
    }
  }
  std::vector<Calibration::Step> steps;
  for (const auto& b : st)
    steps.push_back({round4(b.p_min), round4(b.p_max), (b.k + strength * prior) / (b.n + strength)});
  for (std::size_t i = steps.size(); i-- > 1;) steps[i - 1].value = std::min(steps[i - 1].value, steps[i].value);
  for (auto& s : steps) s.value = round4(s.value);
  return steps;
}

}  // namespace

double Calibration::at(double raw) const {
  if (steps.empty()) return 0;
  if (raw <= steps.front().hi) return steps.front().value;
  for (std::size_t i = 1; i < steps.size(); ++i) {
    const auto& a = steps[i - 1];
    const auto& b = steps[i];
    if (raw < b.lo) return a.value + (b.value - a.value) * (raw - a.hi) / (b.lo - a.hi);
    if (raw <= b.hi) return b.value;
  }
  return steps.back().value;
}

std::optional<double> Calibration::from(double target) const {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& b = steps[i];
    if (b.value < target) continue;
    if (i == 0) return 0.0;  // the first block's value holds below it too
    const auto& a = steps[i - 1];
    return a.hi + (b.lo - a.hi) * (target - a.value) / (b.value - a.value);
  }
  return std::nullopt;
}

const Calibration* LabelModel::calibrated(std::string_view label, Origin origin) const {
  for (const auto& c : calibration)
    if (c.label == label && c.source == origin) return &c;
  return nullptr;
}

std::vector<HeldOut> held_out_runs(const std::vector<EvalIssue>& history, const Taxonomy& taxonomy,
                                   const TrainSettings& settings, const std::vector<Correction>& corrections) {
  const int folds = settings.gate_folds;
  std::vector<HeldOut> out;
  if (folds < 2 || history.size() < static_cast<std::size_t>(folds)) return out;
  TrainSettings fold_settings = settings;
  fold_settings.gate_folds = 0;
  std::map<std::int64_t, std::set<std::string>> corrected;  // issue -> its corrected labels, canonical
  for (const auto& c : corrections)
    if (auto t = tracker_label(taxonomy, c.label)) corrected[c.number].insert(t->second);
  for (int k = 0; k < folds; ++k) {
    std::vector<EvalIssue> train;
    std::vector<const EvalIssue*> held_out;
    for (std::size_t i = 0; i < history.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(folds)) == k)
        held_out.push_back(&history[i]);
      else
        train.push_back(history[i]);
    }
    auto fold_model = train_model(train, taxonomy, fold_settings, nullptr, corrections);
    if (!fold_model) continue;  // an empty training part (fewer issues than folds is refused above)
    for (const auto* is : held_out) {
      HeldOut run{is,
                  label_issue({is->title, is->body, {}, is->repo, is->number}, taxonomy, {}, Layers::rules),
                  predict(*fold_model, is->title, is->body),
                  {},
                  {}};
      for (const auto& l : is->labels)
        if (auto t = tracker_label(taxonomy, l)) run.expected.insert(t->second);
      if (const auto it = corrected.find(is->number); it != corrected.end()) run.corrected = it->second;
      out.push_back(std::move(run));
    }
  }
  return out;
}

void fit_calibration(const std::vector<HeldOut>& runs, const Taxonomy& taxonomy, const TrainSettings& settings,
                     LabelModel& model) {
  model.apply_at = settings.apply_at;
  model.suggest_from = settings.suggest_from;
  model.calibration.clear();
  Samples samples;
  for (const auto& run : runs) sample_run(run, taxonomy, settings.suggest_from, samples);
  const auto kept_of = [](const std::vector<Sample>& xs) {
    return static_cast<int>(std::count_if(xs.begin(), xs.end(), [](const Sample& s) { return s.kept; }));
  };
  std::map<std::string, std::pair<int, int>> pools;  // pool -> (judged, kept)
  for (const auto& [key, xs] : samples.by_label) {
    auto& [n, k] = pools[samples.pool.at(key)];
    n += static_cast<int>(xs.size());
    k += kept_of(xs);
  }
  for (auto& [key, xs] : samples.by_label) {
    const auto [n, k] = pools.at(samples.pool.at(key));
    const double prior = (k + 1.0) / (n + 2.0);  // the pool's rate, itself with the Laplace prior
    model.calibration.push_back({key.first, key.second, {}, static_cast<int>(xs.size()), kept_of(xs)});
    model.calibration.back().steps = isotonic_steps(std::move(xs), prior, settings.prior_strength);
  }
}

nlohmann::json calibration_json(const std::vector<Calibration>& calibration) {
  auto out = nlohmann::json::array();
  for (const auto& c : calibration) {
    auto steps = nlohmann::json::array();
    for (const auto& s : c.steps) steps.push_back({s.lo, s.hi, s.value});
    out.push_back({{"label", c.label},
                   {"source", to_string(c.source)},
                   {"steps", steps},
                   {"judged", c.judged},
                   {"kept", c.kept}});
  }
  return out;
}

std::vector<Calibration> parse_calibration(const nlohmann::json& j) {
  if (!j.is_array()) throw std::invalid_argument("\"calibration\" must be an array");
  std::vector<Calibration> out;
  const auto unit = [](const nlohmann::json& v) {
    return v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1;
  };
  for (const auto& c : j) {
    if (!c.is_object() || !c.contains("label") || !c["label"].is_string())
      throw std::invalid_argument("each calibration needs a \"label\"");
    Calibration cal{c["label"].get<std::string>(), Origin::rules, {}, 0, 0};
    const auto source = origin_from_name(c.value("source", std::string{}));
    if (source != Origin::rules && source != Origin::model)
      throw std::invalid_argument("calibration of '" + cal.label + "': \"source\" must be rules or model");
    cal.source = *source;
    for (const auto& s : c.value("steps", nlohmann::json::array())) {
      if (!s.is_array() || s.size() != 3 || !unit(s[0]) || !unit(s[1]) || !unit(s[2]))
        throw std::invalid_argument("calibration of '" + cal.label + "': each step must be [lo, hi, value] in 0..1");
      const Calibration::Step step{s[0].get<double>(), s[1].get<double>(), s[2].get<double>()};
      if (step.hi < step.lo ||
          (!cal.steps.empty() && (step.lo < cal.steps.back().hi || step.value < cal.steps.back().value)))
        throw std::invalid_argument("calibration of '" + cal.label + "': steps must ascend, their values never fall");
      cal.steps.push_back(step);
    }
    const auto count = [&](const char* key) {
      const auto& v = c.value(key, nlohmann::json(0));
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1'000'000'000)
        throw std::invalid_argument("calibration of '" + cal.label + "': \"" + key + "\" must be a count");
      return static_cast<int>(v.get<std::int64_t>());
    };
    cal.judged = count("judged");
    cal.kept = count("kept");
    out.push_back(std::move(cal));
  }
  return out;
}

}  // namespace perftriage::analyzers::labeler
