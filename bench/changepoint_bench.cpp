// Change-point benchmark: the previous detector (windowed median, detect_steps) and the noise-scaled one
// (detect_changes) on the same generated nightly series (bench/changepoint_sim.hpp: noise 0.5 / 2 / 5 / 8 %,
// outliers, missing nights, one-night spikes, drifts, known steps of 1-6 noise sigmas either way), with a fixed
// seed. Prints markdown tables: per step-size bucket precision, recall and where the detection lands (a detection
// counts within 3 nightlies after the change), online recall and delay (the detector re-run as each nightly
// arrives), the >= 3 sigma bucket per noise level, and false alarms on spike-only, quiet and drift series.
// Targets (>= 3 sigma): precision >= 0.95, recall >= 0.95; spike-only series: <= 2 % with a false alarm.
//
//   changepoint_bench [--series N] [--seed S] [--no-online]     N series per cell (default 250)
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "analyzers/compare/change_detection.hpp"
#include "bench/changepoint_sim.hpp"

namespace cmp = perftriage::analyzers::compare;
namespace cp = perftriage::bench::changepoint;

namespace {

struct Options {
  std::size_t series = 250;
  std::uint64_t seed = 20260823;
  bool online = true;
};

std::vector<std::size_t> indices(const std::vector<cmp::ChangePoint>& changes) {
  std::vector<std::size_t> out;
  for (const auto& c : changes) out.push_back(c.index);
  return out;
}

struct Named {
  const char* name;
  cp::Detector detect;
};

const Named kDetectors[] = {
    {"old: windowed median", [](const cp::Values& v) { return indices(cmp::detect_steps(v)); }},
    {"new: noise-scaled t", [](const cp::Values& v) { return indices(cmp::detect_changes(v)); }},
};

struct Bucket {
  const char* name;
  double lo;
  double hi;
};
constexpr Bucket kBuckets[] = {{"1-2 sigma", 1, 2}, {"2-3 sigma", 2, 3}, {">= 3 sigma", 3, 6}};

// Every cell has a seed of its own, the same for both detectors: they see the same series.
std::uint64_t cell_seed(const Options& o, int kind, std::size_t noise, std::size_t bucket) {
  return o.seed * 1000003u + static_cast<std::uint64_t>(kind) * 10007u + noise * 101u + bucket;
}

cp::Tally run(const Named& d, const Options& o, cp::Kind kind, std::size_t noise, std::size_t bucket = 0) {
  const cp::Cell cell{kind, cp::kNoiseLevels[noise], kBuckets[bucket].lo, kBuckets[bucket].hi, o.series};
  const bool online = o.online && kind == cp::Kind::step;
  return cp::run_cell(d.detect, cell, cell_seed(o, static_cast<int>(kind), noise, bucket), online);
}

std::string pct(double noise) { return fmt::format("{:g}%", noise * 100); }

void step_table(const Options& o) {
  fmt::print("\n### Steps, all noise levels ({} series per bucket and noise level; 1 or 2 steps each)\n\n", o.series);
  fmt::print(
      "| detector | step | changes | detections | precision | recall | recall, a night early counts | "
      "mean offset | online <= 3 | mean online delay |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- "
      "| --- |\n");
  for (const auto& d : kDetectors) {
    for (std::size_t b = 0; b < std::size(kBuckets); ++b) {
      cp::Tally all;
      for (std::size_t n = 0; n < std::size(cp::kNoiseLevels); ++n) cp::add(all, run(d, o, cp::Kind::step, n, b));
      fmt::print("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.2f} | {:.3f} | {:.2f} |\n", d.name,
                 kBuckets[b].name, all.changes, all.detections, all.precision(), all.recall(),
                 all.recall_a_night_early(), all.mean_offset(), all.online_recall(), all.mean_online_delay());
    }
  }
}

void noise_table(const Options& o) {
  fmt::print("\n### Steps of >= 3 sigma, per noise level\n\n");
  fmt::print(
      "| detector | noise | changes | detections | precision | recall | online <= 3 |\n"
      "| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& d : kDetectors) {
    for (std::size_t n = 0; n < std::size(cp::kNoiseLevels); ++n) {
      const cp::Tally t = run(d, o, cp::Kind::step, n, 2);
      fmt::print("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", d.name, pct(cp::kNoiseLevels[n]), t.changes,
                 t.detections, t.precision(), t.recall(), t.online_recall());
    }
  }
}

// Series without a step: any detection on a spike-only or quiet series is a false alarm; a drift is a real change
// but no step, and two detections or more on it are a cascade.
void alarm_table(const Options& o) {
  fmt::print("\n### Series without a step ({} per noise level)\n\n", o.series);
  fmt::print(
      "| detector | noise | spike-only: series alarmed | quiet: series alarmed | drift: detections per "
      "series | drift: cascades (>= 2) |\n| --- | --- | --- | --- | --- | --- |\n");
  for (const auto& d : kDetectors) {
    cp::Tally spikes, quiet, drift;
    for (std::size_t n = 0; n <= std::size(cp::kNoiseLevels); ++n) {
      const bool total = n == std::size(cp::kNoiseLevels);
      const cp::Tally s = total ? spikes : run(d, o, cp::Kind::spike, n);
      const cp::Tally q = total ? quiet : run(d, o, cp::Kind::quiet, n);
      const cp::Tally r = total ? drift : run(d, o, cp::Kind::drift, n);
      fmt::print("| {} | {} | {:.3f} ({}/{}) | {:.3f} | {:.2f} | {:.3f} |\n", d.name,
                 total ? "all" : pct(cp::kNoiseLevels[n]), s.false_alarm_rate(), s.alarmed_series, s.series,
                 q.false_alarm_rate(), r.series ? double(r.detections) / double(r.series) : 0.0,
                 r.series ? double(r.cascades) / double(r.series) : 0.0);
      if (total) break;
      cp::add(spikes, s);
      cp::add(quiet, q);
      cp::add(drift, r);
    }
  }
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--series" && i + 1 < argc) o.series = std::strtoull(argv[++i], nullptr, 10);
    if (a == "--seed" && i + 1 < argc) o.seed = std::strtoull(argv[++i], nullptr, 10);
    if (a == "--no-online") o.online = false;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  fmt::print("## Change-point benchmark (seed {}, {} nightlies per series)\n\nnew: {}\nold: {}\n", o.seed, cp::kLength,
             cmp::describe(cmp::NoiseParams{}), cmp::describe(cmp::StepParams{}));
  step_table(o);
  noise_table(o);
  alarm_table(o);
  return 0;
}
