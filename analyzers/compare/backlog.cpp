#include "analyzers/compare/backlog.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace perftriage::analyzers::compare {
namespace {

bool is_slow(const BacklogObservation& o, double threshold) {
  return !o.failed && o.speedup && *o.speedup > 0 && *o.speedup < threshold;
}

int status_rank(const std::string& s) { return s == "open" ? 0 : s == "failing" ? 1 : 2; }

std::optional<BacklogEntry> track(const CaseKey& key, const std::vector<const BacklogObservation*>& obs,
                                  double threshold) {
  BacklogEntry e;
  e.key = key;
  bool seen = false;
  for (const auto* o : obs) {
    if (!is_slow(*o, threshold)) continue;
    if (!seen) e.first_seen = o->run;
    seen = true;
    e.last_seen = o->run;
    ++e.runs_slow;
    if (!e.worst_speedup || *o->speedup < *e.worst_speedup) e.worst_speedup = o->speedup;
  }
  if (!seen) return std::nullopt;
  const auto* latest = obs.back();
  e.latest = latest->run;
  e.latest_speedup_text = latest->speedup_text;
  if (is_slow(*latest, threshold)) {
    e.status = "open";
  } else if (latest->failed || !latest->speedup || *latest->speedup <= 0) {
    e.status = "failing";
  } else {
    e.status = "fixed";
    for (const auto* o : obs) {
      if (o->run > e.last_seen && !o->failed && o->speedup && *o->speedup >= threshold) {
        e.fixed_in = o->run;
        break;
      }
    }
  }
  return e;
}

}  // namespace

std::vector<BacklogEntry> build_backlog(std::vector<BacklogObservation> observations, double threshold) {
  std::map<CaseKey, std::vector<const BacklogObservation*>> by_case;
  for (const auto& o : observations) by_case[o.key].push_back(&o);
  std::vector<BacklogEntry> out;
  for (auto& [key, obs] : by_case) {
    std::stable_sort(obs.begin(), obs.end(), [](const auto* a, const auto* b) { return a->run < b->run; });
    if (auto e = track(key, obs, threshold)) out.push_back(std::move(*e));
  }
  std::stable_sort(out.begin(), out.end(), [](const BacklogEntry& a, const BacklogEntry& b) {
    return std::make_tuple(status_rank(a.status), a.worst_speedup.value_or(0), std::cref(a.key)) <
           std::make_tuple(status_rank(b.status), b.worst_speedup.value_or(0), std::cref(b.key));
  });
  return out;
}

}  // namespace perftriage::analyzers::compare
