// The learned layer's gates (model.hpp fit_gates): when a tracker leaves a label off issues the rules would give it
// to. The rules say what an issue states (the dtype of its first case, the mode of an E2E run, "inference"), while a
// team sets only some labels on some issues: intel/torch-xpu-ops sets `inference` on 3 of 486 issues of its
// history, while the rules name the mode of every E2E issue. A gate is fitted per label on held-out folds, so it is
// measured on issues its model never saw, and kept only where it improves the F1 of the rules' values of that label.
#include <algorithm>
#include <map>
#include <set>

#include "analyzers/labeler/model.hpp"

namespace perftriage::analyzers::labeler {
namespace {

// One value the rules gave on a held-out issue: the fold model's probability of it, and whether the tracker set it.
struct Sample {
  double p = 1;
  bool correct = false;
};

struct LabelSamples {
  std::vector<Sample> given;
  int missed = 0;  // the tracker set it and the rules did not give it: lost whatever the gate
};

double f1(int tp, int fp, int fn) { return tp == 0 ? 0.0 : 2.0 * tp / (2.0 * tp + fp + fn); }

// The rules' values of the modelled labels on each held-out issue, with the fold model's probability of each.
std::map<std::string, LabelSamples> gate_samples(const std::vector<HeldOut>& runs,
                                                 const std::set<std::string>& modelled) {
  std::map<std::string, LabelSamples> out;
  for (const auto& run : runs) {
    std::map<std::string, double> p;
    for (const auto& v : run.votes) p[v.label] = v.p;
    std::set<std::string> given;
    for (const auto& row : run.rules.axes)
      if (row.layer == Origin::rules && modelled.count(row.value)) given.insert(row.value);
    for (const auto& label : given) {
      const auto it = p.find(label);  // a label the fold had too few issues of has no model there: kept
      out[label].given.push_back({it == p.end() ? 1.0 : it->second, run.expected.count(label) > 0});
    }
    for (const auto& label : run.expected)
      if (modelled.count(label) && !given.count(label)) ++out[label].missed;
  }
  return out;
}

GateReport choose_gate(const std::string& label, const LabelSamples& s, const TrainSettings& settings) {
  const int correct =
      static_cast<int>(std::count_if(s.given.begin(), s.given.end(), [](const Sample& x) { return x.correct; }));
  GateReport best{label, 0, static_cast<int>(s.given.size()), correct, 0, 0};
  double best_f1 = -1;
  std::vector<double> gates{0};
  gates.insert(gates.end(), settings.gate_candidates.begin(), settings.gate_candidates.end());
  std::sort(gates.begin(), gates.end());
  for (double g : gates) {
    int tp = 0, fp = 0, withheld = 0, lost = 0;
    for (const auto& x : s.given) {
      if (x.p < g) {
        ++withheld;
        lost += x.correct ? 1 : 0;
      } else {
        ++(x.correct ? tp : fp);
      }
    }
    if (lost > settings.gate_max_lost * correct) continue;
    const double score = f1(tp, fp, s.missed + lost);
    if (score > best_f1 + 1e-12) {  // ties keep the lower gate
      best_f1 = score;
      best.gate = g;
      best.withheld = withheld;
      best.lost = lost;
    }
  }
  return best;
}

}  // namespace

std::vector<GateReport> fit_gates(const std::vector<HeldOut>& runs, const TrainSettings& settings, LabelModel& model) {
  std::set<std::string> modelled;
  for (const auto& lw : model.labels) modelled.insert(lw.label);
  const auto samples = gate_samples(runs, modelled);
  std::vector<GateReport> out;
  for (auto& lw : model.labels) {
    lw.gate = 0;
    const auto it = samples.find(lw.label);
    if (it == samples.end() || it->second.given.empty()) continue;
    out.push_back(choose_gate(lw.label, it->second, settings));
    lw.gate = out.back().gate;
  }
  return out;
}

}  // namespace perftriage::analyzers::labeler
