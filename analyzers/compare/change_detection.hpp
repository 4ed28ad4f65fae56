#pragma once
// Step-change detection over a nightly series: windowed median with a minimum magnitude and persistence.
// A point is a change point when every one of the `persistence` points starting there differs from the median
// of the (up to) `window` points before it, in the same direction, by at least `min_magnitude`; the baseline
// never reaches back past the previous change point. One noisy point therefore never raises an alert, and a
// level shift that holds for `persistence` points does.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perftriage::analyzers::compare {

struct StepParams {
  std::size_t window = 5;        // baseline points (median) before a candidate
  std::size_t min_baseline = 2;  // fewer baseline points than this: no decision yet
  double min_magnitude = 0.05;   // relative change, 0.05 = 5%
  std::size_t persistence = 2;   // consecutive points that must all be shifted
};

// "windowed-median step (window 5, min magnitude 5%, persistence 2)": named in the API output.
std::string describe(const StepParams& params);

struct ChangePoint {
  std::size_t index = 0;       // index in the input series of the first shifted point
  double before = 0;           // median of the baseline window
  double after = 0;            // median of the persistence window
  double relative_change = 0;  // after / before - 1
};

double median(std::vector<double> values);  // of a non-empty set

// `values`: one entry per run in time order; nullopt (a failed or absent measurement) is skipped, never a step.
std::vector<ChangePoint> detect_steps(const std::vector<std::optional<double>>& values, const StepParams& params = {});

}  // namespace perftriage::analyzers::compare
