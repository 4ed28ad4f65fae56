#pragma once
// The change-point benchmark's world, shared by bench/changepoint_bench.cpp (the full run, printed) and
// tests/analyzers/compare/change_detection_test.cpp (a small run on a fixed seed, asserting the targets).
//
// A series is 60 nightlies of one case, in log space a level plus normal noise of a relative sigma (0.5 %, 2 %,
// 5 % or 8 %), with what real nightlies carry: heavier-tailed outliers (2 % of nights, 3-6 sigma), missing nights
// (4 %, and now and then a gap of 2-3), and one-night spikes (4-20 sigma, either way). Step series add one or two
// known steps of a size drawn in one bucket (1-2, 2-3 or 3-6 sigma), either direction, each at least 12 nights
// from the ends and 15 from each other; spike series only spikes; drift series one linear drift of 4-10 sigma
// over 15-30 nights; quiet series nothing. Random numbers come from splitmix64 and Box-Muller written here, so a
// seed gives the same series with every compiler and standard library.
//
// Scoring: a detection matches a true change when its index is the change night or one of the 3 nightlies after
// it (each detection matches at most one change); the others are false alarms. "Online" re-runs the detector on
// the series cut after each nightly that follows a change: the delay is the number of nightlies after the change
// night that had to arrive before a matching detection was reported.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numbers>
#include <optional>
#include <utility>
#include <vector>

namespace perftriage::bench::changepoint {

using Values = std::vector<std::optional<double>>;
using Detector = std::function<std::vector<std::size_t>(const Values&)>;

inline constexpr std::size_t kLength = 60;
inline constexpr std::size_t kTolerance = 3;   // nightlies after the change that still count as finding it
inline constexpr std::size_t kMaxOnline = 12;  // online: give up after this many nightlies

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  std::size_t index(std::size_t lo, std::size_t hi) {  // [lo, hi)
    return lo + static_cast<std::size_t>(uniform() * static_cast<double>(hi - lo));
  }
  bool chance(double p) { return uniform() < p; }
  double sign() { return chance(0.5) ? 1.0 : -1.0; }
  // Either sign, a size in [lo, hi): two draws, in this order (the operands of * are unsequenced).
  double either_way(double lo, double hi) {
    const double s = sign();
    return s * uniform(lo, hi);
  }
  double normal() {
    const double u = 1 - uniform();  // (0, 1]
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * uniform());
  }

 private:
  std::uint64_t state_;
};

enum class Kind { step, spike, drift, quiet };

struct Series {
  Values values;
  std::vector<std::size_t> changes;  // the first night at each new level
};

// The level of every night in log units, before noise.
struct Plan {
  std::vector<double> level = std::vector<double>(kLength, 0.0);
  std::vector<std::size_t> changes;
};

inline void add_step(Plan& plan, std::size_t at, double log_step) {
  for (std::size_t i = at; i < kLength; ++i) plan.level[i] += log_step;
  plan.changes.push_back(at);
}

inline Plan step_plan(Rng& rng, double noise, double lo_sigmas, double hi_sigmas) {
  Plan plan;
  const std::size_t first = rng.index(12, 31);
  add_step(plan, first, rng.either_way(lo_sigmas, hi_sigmas) * noise);
  const std::size_t second = first + rng.index(15, 26);
  if (second + 12 <= kLength && rng.chance(0.5)) {
    add_step(plan, second, rng.either_way(lo_sigmas, hi_sigmas) * noise);
  }
  return plan;
}

inline Plan drift_plan(Rng& rng, double noise) {
  Plan plan;
  const std::size_t start = rng.index(10, 26);
  const std::size_t length = rng.index(15, 31);
  const double total = rng.either_way(4, 10) * noise;
  for (std::size_t i = start; i < kLength; ++i) {
    plan.level[i] += total * static_cast<double>(std::min(i - start + 1, length)) / static_cast<double>(length);
  }
  return plan;
}

// Noise, outliers, spikes and missing nights over a plan; the values are speedup-like (around 0.8-2.0).
inline Series realise(Rng& rng, const Plan& plan, double noise, std::size_t spikes) {
  const double base = std::log(rng.uniform(0.8, 2.0));
  std::vector<double> y(kLength);
  for (std::size_t i = 0; i < kLength; ++i) {
    y[i] = base + plan.level[i] + noise * rng.normal();
    if (rng.chance(0.02)) y[i] += rng.either_way(3, 6) * noise;
  }
  for (std::size_t k = 0; k < spikes; ++k) {
    const std::size_t at = rng.index(0, kLength);
    y[at] += rng.either_way(4, 20) * noise;
  }
  Series s{{}, plan.changes};
  for (const double v : y) s.values.emplace_back(std::exp(v));
  for (auto& v : s.values) {
    if (rng.chance(0.04)) v.reset();
  }
  if (rng.chance(0.2)) {
    const std::size_t gap = rng.index(0, kLength - 3);
    const std::size_t nights = rng.index(2, 4);
    for (std::size_t i = gap; i < gap + nights; ++i) s.values[i].reset();
  }
  return s;
}

inline Series make_series(Rng& rng, Kind kind, double noise, double lo_sigmas = 0, double hi_sigmas = 0) {
  // One draw per statement: the order in which a call's arguments are evaluated is the compiler's choice.
  Plan plan;
  if (kind == Kind::step) plan = step_plan(rng, noise, lo_sigmas, hi_sigmas);
  if (kind == Kind::drift) plan = drift_plan(rng, noise);
  std::size_t spikes = 0;
  if (kind == Kind::step) spikes = rng.chance(0.5) ? 1 : 0;
  if (kind == Kind::spike) spikes = rng.index(1, 4);
  return realise(rng, plan, noise, spikes);
}

struct Tally {
  std::size_t series = 0;
  std::size_t changes = 0;
  std::size_t detections = 0;
  std::size_t matched = 0;
  std::size_t matched_a_night_early = 0;  // matched when a detection one night before the change also counts
  std::size_t alarmed_series = 0;         // series with at least one unmatched detection
  std::size_t cascades = 0;               // series with two or more detections and no true change
  double offset_sum = 0;                  // detection index - change index, over the matched
  std::size_t online_measured = 0;        // changes run online
  std::size_t online_within = 0;          // of those, found with at most kTolerance nightlies after the change night
  std::size_t online_found = 0;           // found at all within kMaxOnline
  double online_delay_sum = 0;            // over online_found

  [[nodiscard]] double precision() const { return detections ? double(matched) / double(detections) : 1.0; }
  [[nodiscard]] double recall() const { return changes ? double(matched) / double(changes) : 1.0; }
  [[nodiscard]] double recall_a_night_early() const {
    return changes ? double(matched_a_night_early) / double(changes) : 1.0;
  }
  [[nodiscard]] double false_alarm_rate() const { return series ? double(alarmed_series) / double(series) : 0.0; }
  [[nodiscard]] double mean_offset() const { return matched ? offset_sum / double(matched) : 0.0; }
  [[nodiscard]] double online_recall() const {
    return online_measured ? double(online_within) / double(online_measured) : 0.0;
  }
  [[nodiscard]] double mean_online_delay() const {
    return online_found ? online_delay_sum / double(online_found) : 0.0;
  }
};

// Greedy in time order: each change takes the first unmatched detection at or up to kTolerance nights after it.
// `early`: nights before the change that also count (0 for the targets; 1 shows what is found but placed a night
// early, where the night before the change happened to look like the new level).
inline std::size_t match(const std::vector<std::size_t>& changes, const std::vector<std::size_t>& found,
                         Tally* tally = nullptr, std::size_t early = 0) {
  std::vector<bool> used(found.size(), false);
  std::size_t matched = 0;
  for (const std::size_t c : changes) {
    for (std::size_t k = 0; k < found.size(); ++k) {
      if (used[k] || found[k] + early < c || found[k] > c + kTolerance) continue;
      used[k] = true;
      ++matched;
      if (tally) tally->offset_sum += static_cast<double>(found[k] - c);
      break;
    }
  }
  return matched;
}

// Nightlies after `change` that had to arrive before the detector, seeing only those, reported it.
inline std::optional<std::size_t> online_delay(const Detector& detect, const Values& values, std::size_t change) {
  for (std::size_t d = 0; d <= kMaxOnline && change + d < values.size(); ++d) {
    const Values prefix(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(change + d + 1));
    if (match({change}, detect(prefix))) return d;
  }
  return std::nullopt;
}

inline void score_online(const Detector& detect, const Series& s, Tally& t) {
  for (const std::size_t c : s.changes) {
    ++t.online_measured;
    const auto d = online_delay(detect, s.values, c);
    if (!d) continue;
    ++t.online_found;
    t.online_delay_sum += static_cast<double>(*d);
    if (*d <= kTolerance) ++t.online_within;
  }
}

inline void score(const Detector& detect, const Series& s, Tally& t, bool online) {
  const auto found = detect(s.values);
  const std::size_t matched = match(s.changes, found, &t);
  ++t.series;
  t.changes += s.changes.size();
  t.detections += found.size();
  t.matched += matched;
  t.matched_a_night_early += match(s.changes, found, nullptr, 1);
  if (found.size() > matched) ++t.alarmed_series;
  if (s.changes.empty() && found.size() >= 2) ++t.cascades;
  if (online) score_online(detect, s, t);
}

// One cell of the benchmark: `count` series of a kind at one noise level, the same series for every detector
// (each detector's run starts from the same seed).
struct Cell {
  Kind kind = Kind::quiet;
  double noise = 0.02;
  double lo_sigmas = 0;
  double hi_sigmas = 0;
  std::size_t count = 100;
};

inline Tally run_cell(const Detector& detect, const Cell& cell, std::uint64_t seed, bool online) {
  Rng rng(seed);
  Tally t;
  for (std::size_t i = 0; i < cell.count; ++i) {
    score(detect, make_series(rng, cell.kind, cell.noise, cell.lo_sigmas, cell.hi_sigmas), t, online);
  }
  return t;
}

inline void add(Tally& into, const Tally& t) {
  into.series += t.series;
  into.changes += t.changes;
  into.detections += t.detections;
  into.matched += t.matched;
  into.matched_a_night_early += t.matched_a_night_early;
  into.alarmed_series += t.alarmed_series;
  into.cascades += t.cascades;
  into.offset_sum += t.offset_sum;
  into.online_measured += t.online_measured;
  into.online_within += t.online_within;
  into.online_found += t.online_found;
  into.online_delay_sum += t.online_delay_sum;
}

inline constexpr double kNoiseLevels[] = {0.005, 0.02, 0.05, 0.08};

}  // namespace perftriage::bench::changepoint
