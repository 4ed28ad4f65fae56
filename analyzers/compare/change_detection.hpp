#pragma once
// Change points of a nightly series. Two detectors:
//
// detect_changes (the one the service uses): a window test scaled by the series' own noise. The noise is estimated
// from the whole series, robustly (MAD of successive log differences, scaled to a normal sigma), so that one rule
// works for a model whose nightlies vary by 0.5 % and for one that varies by 8 %. A candidate night splits the
// series into a back window (up to `back_window` values, never reaching past the previous change) and a fore
// window (up to `fore_window` values); in log space, with each value pulled to within `clip_sigmas` noise of its
// window's median (so that one spike moves a mean by little), the two means are compared with Welch's t as
// Perfherder does (treeherder perfalert: |mean diff| / sqrt(s1²/n1 + s2²/n2), t above a threshold, the highest t of
// a run of candidates), each variance floored at the series' noise so that three quiet nights cannot fake
// certainty. A change must then also be large in noise units (chromeperf's multiple of the std dev), large
// relatively (chromeperf's and Perfherder's minimum percentage), and a step rather than a slope: the two levels
// must fit the nights around it better than one straight line does (after chromeperf's steppiness filter), so that
// a gradual drift does not fire a cascade of change points. The night reported is the split of those nights with
// the least Huber loss within two nights of the highest t (robust changepoint costs, Fearnhead & Rigaill 2019), and
// it must leave `min_after` nights at the new level: a one-night spike is never a change.
//
// detect_steps (the previous one, kept to be compared with): windowed median with a minimum magnitude and
// persistence. A point is a change point when every one of the `persistence` points starting there differs from
// the median of the (up to) `window` points before it, in the same direction, by at least `min_magnitude`; the
// baseline never reaches back past the previous change point. It knows nothing of a series' noise.
//
// Both skip missing nights (nullopt) and values that are not positive and finite; indices refer to the input.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perftriage::analyzers::compare {

// The defaults were chosen on bench/changepoint_bench.cpp (docs/verdicts.md, "Change points").
struct NoiseParams {
  std::size_t back_window = 12;  // values before a candidate (Perfherder: min_back_window 12)
  std::size_t fore_window = 12;  // values from the candidate on (Perfherder: fore_window 12)
  std::size_t min_before = 6;    // fewer values back: no decision (chromeperf: MIN_SEGMENT_SIZE 6)
  std::size_t min_after = 3;     // a new level must hold three nightlies: a one-night spike is never a change
  double t_threshold = 4.5;      // Welch t on log values, variances floored at the noise (Perfherder: 7)
  double min_sigmas = 2;         // |log change| in units of the series' noise (chromeperf: 2.5 x std dev)
  double min_magnitude = 0.01;   // relative change, 0.01 = 1% (chromeperf: _MIN_RELATIVE_CHANGE)
  double clip_sigmas = 3;        // a value further than this from its window's median counts as this far
  double min_step_gain = 2;      // two levels must beat one straight line by this many noise² (drift is no step)
  double min_noise = 0.0025;     // the noise estimate never goes below 0.25% (a series printed to two decimals)
};

struct StepParams {
  std::size_t window = 5;        // baseline points (median) before a candidate
  std::size_t min_baseline = 2;  // fewer baseline points than this: no decision yet
  double min_magnitude = 0.05;   // relative change, 0.05 = 5%
  std::size_t persistence = 2;   // consecutive points that must all be shifted
};

// Named in the API output ("method"), with every threshold.
std::string describe(const NoiseParams& params);
// "windowed-median step (window 5, min magnitude 5%, persistence 2)".
std::string describe(const StepParams& params);

struct ChangePoint {
  std::size_t index = 0;       // index in the input series of the first night at the new level
  double before = 0;           // median of the back (baseline) window
  double after = 0;            // median of the fore (persistence) window
  double relative_change = 0;  // after / before - 1
  // detect_changes only (0 from detect_steps):
  double t = 0;       // Welch t of the log means, signed like the change
  double noise = 0;   // the series' noise, a relative sigma (0.02 = 2% night to night)
  double sigmas = 0;  // |log change| of the clipped means in units of `noise`
};

double median(std::vector<double> values);  // of a non-empty set

// The series' night-to-night noise as a relative sigma: 1.4826 x MAD of successive log differences / sqrt(2), so
// that steps, spikes and slow drifts barely move it; 0 with fewer than three usable values.
double estimate_noise(const std::vector<std::optional<double>>& values);

// `values`: one entry per run in time order; nullopt (a failed or absent measurement) is skipped, never a change.
std::vector<ChangePoint> detect_changes(const std::vector<std::optional<double>>& values,
                                        const NoiseParams& params = {});
std::vector<ChangePoint> detect_steps(const std::vector<std::optional<double>>& values, const StepParams& params = {});

}  // namespace perftriage::analyzers::compare
