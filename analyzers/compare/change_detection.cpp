#include "analyzers/compare/change_detection.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace perftriage::analyzers::compare {

std::string describe(const StepParams& p) {
  return fmt::format("windowed-median step (window {}, min magnitude {:g}%, persistence {})", p.window,
                     p.min_magnitude * 100, p.persistence);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
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
