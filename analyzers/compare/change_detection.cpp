#include "analyzers/compare/change_detection.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace perftriage::analyzers::compare {

std::string describe(const NoiseParams& p) {
  return fmt::format(
      "noise-scaled Welch t (back {}, fore {}, >= {} before and >= {} after, t >= {:g}, >= {:g} noise sigmas and "
      ">= {:g}%, values clipped at {:g} sigmas, a step beating a line by >= {:g} sigma^2, noise >= {:g}%)",
      p.back_window, p.fore_window, p.min_before, p.min_after, p.t_threshold, p.min_sigmas, p.min_magnitude * 100,
      p.clip_sigmas, p.min_step_gain, p.min_noise * 100);
}

std::string describe(const StepParams& p) {
  return fmt::format("windowed-median step (window {}, min magnitude {:g}%, persistence {})", p.window,
                     p.min_magnitude * 100, p.persistence);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

// The usable values of a series: x as measured, y = log x (a relative change is a difference there), and where
// each one is in the input.
struct Clean {
  std::vector<double> x;
  std::vector<double> y;
  std::vector<std::size_t> at;
};

Clean clean(const std::vector<std::optional<double>>& values) {
  Clean c;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] && std::isfinite(*values[i]) && *values[i] > 0) {
      c.x.push_back(*values[i]);
      c.y.push_back(std::log(*values[i]));
      c.at.push_back(i);
    }
  }
  return c;
}

// A night-to-night difference has twice the variance of a night. The MAD (x 1.4826, a normal sigma) finds the
// scale without being moved by steps and spikes, but from 60 nights it is off by about 15 % (its efficiency is
// 37 %); the root mean square of the differences within 3 of those sigmas is as robust and off by about 9 % (the
// factor 0.98658 undoes the truncation of a normal at 3 sigma).
double noise_of(const std::vector<double>& y) {
  if (y.size() < 3) return 0;
  std::vector<double> d;
  for (std::size_t i = 1; i < y.size(); ++i) d.push_back(y[i] - y[i - 1]);
  const double mid = median(d);
  std::vector<double> dev;
  for (const double v : d) dev.push_back(std::abs(v - mid));
  const double mad_sigma = 1.4826 * median(dev);
  double sum = 0;
  std::size_t n = 0;
  for (const double v : dev) {
    if (v > 3 * mad_sigma) continue;
    sum += v * v;
    ++n;
  }
  return n ? std::sqrt(sum / static_cast<double>(n)) / 0.98658 / std::sqrt(2.0) : 0;
}

std::vector<double> slice(const std::vector<double>& v, std::size_t from, std::size_t to) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to)};
}

// One side of a candidate: its log values pulled to within `clip` of their median, their mean and variance, and
// the median of the measured values (what the API reports as before / after).
struct Window {
  std::vector<double> clipped;
  double mean = 0;
  double var = 0;
  double level = 0;
};

Window window_of(const Clean& c, std::size_t from, std::size_t to, double clip) {
  Window w;
  const double mid = median(slice(c.y, from, to));
  for (std::size_t i = from; i < to; ++i) w.clipped.push_back(std::clamp(c.y[i], mid - clip, mid + clip));
  const auto n = static_cast<double>(w.clipped.size());
  for (const double v : w.clipped) w.mean += v / n;
  for (const double v : w.clipped) w.var += n > 1 ? (v - w.mean) * (v - w.mean) / (n - 1) : 0;
  w.level = median(slice(c.x, from, to));
  return w;
}

double sum_of_squares(const std::vector<double>& v, double mean) {
  double s = 0;
  for (const double e : v) s += (e - mean) * (e - mean);
  return s;
}

// Residual sum of squares of the least-squares line through v (x = 0, 1, ...): what a steady drift leaves.
double line_residual(const std::vector<double>& v) {
  const auto n = static_cast<double>(v.size());
  double mean = 0;
  for (const double e : v) mean += e / n;
  const double x_mean = (n - 1) / 2;
  double sxy = 0;
  double sxx = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double dx = static_cast<double>(i) - x_mean;
    sxy += dx * (v[i] - mean);
    sxx += dx * dx;
  }
  return sum_of_squares(v, mean) - (sxx > 0 ? sxy * sxy / sxx : 0);
}

// How much better two levels fit the nights around a candidate than one straight line, in noise² units: about
// n/16 x (step/noise)² for a step in the middle of flat nights, below 0 for a steady drift.
double step_gain(const Window& back, const Window& fore, double noise) {
  std::vector<double> all = back.clipped;
  all.insert(all.end(), fore.clipped.begin(), fore.clipped.end());
  const double step = sum_of_squares(back.clipped, back.mean) + sum_of_squares(fore.clipped, fore.mean);
  return (line_residual(all) - step) / (noise * noise);
}

struct Candidate {
  std::size_t i = 0;  // index in the clean series
  Window back;
  Window fore;
  double t = 0;  // signed
};

Candidate candidate_at(const Clean& c, std::size_t segment, std::size_t i, double noise, const NoiseParams& p) {
  const std::size_t from = std::max(segment, i >= p.back_window ? i - p.back_window : 0);
  const std::size_t to = std::min(c.y.size(), i + p.fore_window);
  Candidate k{i, window_of(c, from, i, p.clip_sigmas * noise), window_of(c, i, to, p.clip_sigmas * noise), 0};
  const double var = std::max(k.back.var, noise * noise) / static_cast<double>(k.back.clipped.size()) +
                     std::max(k.fore.var, noise * noise) / static_cast<double>(k.fore.clipped.size());
  k.t = (k.fore.mean - k.back.mean) / std::sqrt(var);
  return k;
}

// Beyond statistical significance: large in noise units and relatively, and a step rather than a slope.
bool worth_reporting(const Candidate& k, double noise, const NoiseParams& p) {
  const double delta = k.fore.mean - k.back.mean;
  return std::abs(delta) >= p.min_sigmas * noise && std::abs(std::expm1(delta)) >= p.min_magnitude &&
         step_gain(k.back, k.fore, noise) >= p.min_step_gain;
}

ChangePoint change_of(const Clean& c, const Candidate& k, double noise) {
  const double delta = k.fore.mean - k.back.mean;
  return {c.at[k.i], k.back.level,      k.fore.level,           k.fore.level / k.back.level - 1,
          k.t,       std::expm1(noise), std::abs(delta) / noise};
}

constexpr std::size_t kRefine = 2;  // nights either side of the highest t where the split may move

// The scan state: where the current level began (the back window never reaches past it) and the next night to try.
struct Scan {
  std::size_t segment = 0;
  std::size_t i = 0;
};

// From the first night whose t passes, the run of nights that pass in the same direction; its highest t is the
// candidate (Perfherder keeps a t only where it is not below its neighbours').
Candidate best_of_run(const Clean& c, Scan& s, double noise, const NoiseParams& p) {
  Candidate best = candidate_at(c, s.segment, s.i, noise, p);
  for (++s.i; s.i + std::max<std::size_t>(p.min_after, 1) <= c.y.size(); ++s.i) {
    Candidate next = candidate_at(c, s.segment, s.i, noise, p);
    if (std::abs(next.t) < p.t_threshold || (next.t > 0) != (best.t > 0)) break;
    if (std::abs(next.t) > std::abs(best.t)) best = std::move(next);
  }
  return best;
}

// What a split of the nights costs: the Huber loss of each night's distance from its side's level, square within
// `clip` and linear beyond (robust changepoint costs: Fearnhead & Rigaill, "Changepoint detection in the presence
// of outliers", JASA 2019). One spike moves the split little, and a night on the wrong side of a large step still
// costs more the further it is from that side's level.
double split_cost(const Clean& c, std::size_t from, std::size_t at, std::size_t to, double clip) {
  double cost = 0;
  for (const auto& [lo, hi] : {std::pair{from, at}, std::pair{at, to}}) {
    const Window w = window_of(c, lo, hi, clip);
    for (std::size_t i = lo; i < hi; ++i) {
      const double r = std::abs(c.y[i] - w.mean);
      cost += r <= clip ? r * r : clip * (2 * r - clip);
    }
  }
  return cost;
}

// Where in a run of nights the level changed: the split of one fixed stretch of nights that costs least, within
// kRefine nights of the highest t (the highest t is noisier than that: each sliding window also gains and loses a
// night at its far end). Empty when that split leaves fewer than min_before nights of the level before it or
// fewer than min_after of the new one: an old night and two new ones are no new level of three nights yet.
std::optional<std::size_t> best_split(const Clean& c, const Candidate& k, std::size_t segment, double noise,
                                      const NoiseParams& p) {
  const std::size_t from = std::max(segment, k.i >= p.back_window ? k.i - p.back_window : 0);
  const std::size_t to = std::min(c.y.size(), k.i + p.fore_window);
  std::size_t best = k.i;
  double best_cost = split_cost(c, from, k.i, to, p.clip_sigmas * noise);
  for (std::size_t i = std::max(from + 1, k.i >= kRefine ? k.i - kRefine : 0); i <= k.i + kRefine && i < to; ++i) {
    const double cost = split_cost(c, from, i, to, p.clip_sigmas * noise);
    if (cost < best_cost) best_cost = cost, best = i;
  }
  if (best < segment + p.min_before || best + std::max<std::size_t>(p.min_after, 1) > c.y.size()) return std::nullopt;
  return best;
}

}  // namespace

double estimate_noise(const std::vector<std::optional<double>>& values) {
  return std::expm1(noise_of(clean(values).y));
}

std::vector<ChangePoint> detect_changes(const std::vector<std::optional<double>>& values, const NoiseParams& p) {
  const Clean c = clean(values);
  const double noise = std::max(noise_of(c.y), std::log1p(p.min_noise));
  const std::size_t min_before = std::max<std::size_t>(p.min_before, 1);
  std::vector<ChangePoint> out;
  Scan s{0, min_before};
  while (s.i + std::max<std::size_t>(p.min_after, 1) <= c.y.size()) {
    if (std::abs(candidate_at(c, s.segment, s.i, noise, p).t) < p.t_threshold) {
      ++s.i;
      continue;
    }
    const auto split = best_split(c, best_of_run(c, s, noise, p), s.segment, noise, p);
    if (!split) continue;
    const Candidate best = candidate_at(c, s.segment, *split, noise, p);
    if (!worth_reporting(best, noise, p)) continue;
    out.push_back(change_of(c, best, noise));
    s = {best.i, best.i + min_before};
  }
  return out;
}

std::vector<ChangePoint> detect_steps(const std::vector<std::optional<double>>& values, const StepParams& params) {
  std::vector<double> x;
  std::vector<std::size_t> at;  // index in `values` of each entry of x
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] && std::isfinite(*values[i]) && *values[i] > 0) {
      x.push_back(*values[i]);
      at.push_back(i);
    }
  }
  std::vector<ChangePoint> out;
  const std::size_t persistence = std::max<std::size_t>(params.persistence, 1);
  std::size_t segment_start = 0;
  for (std::size_t i = 1; i + persistence <= x.size(); ++i) {
    const std::size_t from = std::max(segment_start, i >= params.window ? i - params.window : 0);
    if (i - from < std::max<std::size_t>(params.min_baseline, 1)) continue;
    const double before =
        median({x.begin() + static_cast<std::ptrdiff_t>(from), x.begin() + static_cast<std::ptrdiff_t>(i)});
    int direction = 0;
    bool shifted = true;
    for (std::size_t k = i; k < i + persistence && shifted; ++k) {
      const double rel = x[k] / before - 1;
      const int d = rel >= params.min_magnitude ? 1 : rel <= -params.min_magnitude ? -1 : 0;
      shifted = d != 0 && (direction == 0 || d == direction);
      direction = d;
    }
    if (!shifted) continue;
    const double after =
        median({x.begin() + static_cast<std::ptrdiff_t>(i), x.begin() + static_cast<std::ptrdiff_t>(i + persistence)});
    out.push_back({at[i], before, after, after / before - 1});
    segment_start = i;
  }
  return out;
}

}  // namespace perftriage::analyzers::compare
