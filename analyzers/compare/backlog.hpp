#pragma once
// The "slower than eager" backlog of a platform: every case that was ever slow (0 < speedup < threshold) in one
// of its runs, with the run it was first and last seen slow in, and whether it is still open, fixed (in which
// run) or failing now. "Now" is the newest run that measured the case: runs without the case say nothing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/compare/case_compare.hpp"

namespace perftriage::analyzers::compare {

struct BacklogObservation {
  std::size_t run = 0;  // index into the runs, oldest first
  CaseKey key;
  std::optional<double> speedup;
  std::string speedup_text;
  bool failed = false;
};

struct BacklogEntry {
  CaseKey key;
  std::string status;                         // open | fixed | failing
  std::size_t first_seen = 0, last_seen = 0;  // run indices of the first and last slow measurement
  std::optional<std::size_t> fixed_in;        // first run measuring it at >= threshold after last_seen
  std::size_t latest = 0;                     // run index of the newest measurement
  std::size_t runs_slow = 0;
  std::optional<double> worst_speedup;
  std::string latest_speedup_text;
};

// Observations in any order. Entries: open first (worst speedup first), then failing, then fixed; ties by key.
std::vector<BacklogEntry> build_backlog(std::vector<BacklogObservation> observations, double threshold = 1.0);

}  // namespace perftriage::analyzers::compare
