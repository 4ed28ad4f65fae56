#include "analyzers/trace/host_bound.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace perftriage::analyzers::trace {

namespace {

double median(std::vector<double>& v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  const double hi = *mid;
  const double lo = *std::max_element(v.begin(), mid);
  return (lo + hi) / 2;
}

double merged_busy(std::vector<std::pair<double, double>>& iv) {
  if (iv.empty()) return 0;
  std::sort(iv.begin(), iv.end());
  double busy = 0;
  double cs = iv[0].first;
  double ce = iv[0].second;
  for (std::size_t i = 1; i < iv.size(); ++i) {
    if (iv[i].first > ce) {
      busy += ce - cs;
      cs = iv[i].first;
      ce = iv[i].second;
    } else {
      ce = std::max(ce, iv[i].second);
    }
  }
  return busy + (ce - cs);
}

// Kernel busy time over the kernels' own span (first kernel start to last kernel end); 0 without kernels.
double kernel_busy_fraction(std::vector<std::pair<double, double>>& kernels_iv) {
  if (kernels_iv.empty()) return 0;
  double kfirst = kernels_iv.front().first;
  double klast = kernels_iv.front().second;
  for (const auto& [b, e] : kernels_iv) {
    kfirst = std::min(kfirst, b);
    klast = std::max(klast, e);
  }
  const double kbusy = merged_busy(kernels_iv);
  return klast > kfirst ? kbusy / (klast - kfirst) : 0;
}

// The launch call of a device activity, by correlation id.
class LaunchIndex {
 public:
  explicit LaunchIndex(const TraceModel& model) : model_(model) {
    by_corr_.reserve(model.launches.size());
    for (std::uint32_t i = 0; i < model.launches.size(); ++i) {
      if (model.launches[i].has_correlation) by_corr_.emplace(model.launches[i].correlation, i);
    }
  }
  const LaunchCall* of(const DeviceActivity& a) const {
    if (!a.has_correlation) return nullptr;
    auto it = by_corr_.find(a.correlation);
    return it == by_corr_.end() ? nullptr : &model_.launches[it->second];
  }

 private:
  const TraceModel& model_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_corr_;
};

// The device timeline walked in start order (`order`, not empty): busy time, span, idle gaps attributed to host
// waits / other / nothing (into `s`), and the launch durations and launch-to-start delays of joined kernels.
struct Timeline {
  double busy = 0;
  double span = 0;
  std::vector<double> launch_durs;
  std::vector<double> delays;
};

Timeline walk_timeline(const TraceModel& model, const std::vector<std::uint32_t>& order, HostStats& s) {
  const LaunchIndex launches(model);
  Timeline t;
  const double first = model.device[order.front()].ts;
  double cur_end = first;
  double last_end = first;
  double cur_start = first;
  for (const std::uint32_t idx : order) {
    const auto& a = model.device[idx];
    const double end = a.ts + a.dur;
    const LaunchCall* l = launches.of(a);
    if (l != nullptr && a.kind == ActivityKind::kernel) {
      ++s.joined_launches;
      t.launch_durs.push_back(l->dur);
      t.delays.push_back(a.ts - (l->ts + l->dur));
    }
    if (a.ts > cur_end) {
      t.busy += cur_end - cur_start;
      const double gap = a.ts - cur_end;
      ++s.gaps;
      if (l == nullptr) {
        s.unattributed_us += gap;
      } else if (l->ts >= cur_end) {
        s.host_wait_us += gap;
      } else {
        s.other_idle_us += gap;
      }
      cur_start = a.ts;
      cur_end = end;
    } else {
      cur_end = std::max(cur_end, end);
    }
    last_end = std::max(last_end, end);
  }
  t.busy += cur_end - cur_start;
  t.span = last_end - first;
  return t;
}

struct Verdict {
  std::string verdict;
  std::string why;
};

// yes / no / unknown with the reason, from the busy fraction first, then host waits and tiny kernels.
Verdict host_bound_verdict(const HostStats& s, const ClassifyOptions& o, bool have_launch, double share,
                           bool host_waits, bool tiny) {
  if (s.kernels < o.min_kernels || s.span_us <= 0)
    return {"unknown", fmt::format("{} device kernels: too few to judge (need {})", s.kernels, o.min_kernels)};
  if (s.busy_fraction >= o.not_bound_min_busy)
    return {"no", fmt::format("device busy {:.1f}% >= {:.0f}%", 100 * s.busy_fraction, 100 * o.not_bound_min_busy)};
  std::string why;
  if (host_waits) why += fmt::format("; {:.0f}% of attributed idle time waits for the host", 100 * share);
  if (tiny)
    why += fmt::format("; median kernel {:.1f} us <= median launch {:.1f} us", s.median_kernel_us, s.median_launch_us);
  if (s.busy_fraction < o.idle_device_max_busy) {
    return {"yes", fmt::format("device busy {:.1f}% < {:.0f}%: the device idles while the host works",
                               100 * s.busy_fraction, 100 * o.idle_device_max_busy) +
                       why};
  }
  if (s.busy_fraction < o.host_bound_max_busy) {
    if (!have_launch) {
      return {"unknown", fmt::format("device busy {:.1f}% but no launch calls in the trace to attribute the idle time",
                                     100 * s.busy_fraction)};
    }
    if (host_waits || tiny) {
      return {"yes",
              fmt::format("device busy {:.1f}% < {:.0f}%", 100 * s.busy_fraction, 100 * o.host_bound_max_busy) + why};
    }
    return {"no", fmt::format("device busy {:.1f}% but kernels were launched ahead of the idle gaps ({:.0f}% host "
                              "wait) and kernels outlast launches",
                              100 * s.busy_fraction, 100 * share)};
  }
  if (host_waits && tiny) {
    return {"yes", fmt::format("device busy {:.1f}%; {:.0f}% of idle time waits for the host; median kernel {:.1f} us "
                               "<= median launch {:.1f} us",
                               100 * s.busy_fraction, 100 * share, s.median_kernel_us, s.median_launch_us)};
  }
  return {"no", fmt::format("device busy {:.1f}% (between {:.0f}% and {:.0f}%) without both host waits and tiny "
                            "kernels",
                            100 * s.busy_fraction, 100 * o.host_bound_max_busy, 100 * o.not_bound_min_busy)};
}

}  // namespace

HostStats host_stats(const TraceModel& model) {
  HostStats s;
  std::vector<std::uint32_t> order;
  order.reserve(model.device.size());
  std::vector<std::pair<double, double>> kernels_iv;
  std::vector<double> kernel_durs;
  for (std::uint32_t i = 0; i < model.device.size(); ++i) {
    order.push_back(i);
    const auto& a = model.device[i];
    if (a.kind == ActivityKind::kernel) {
      kernels_iv.emplace_back(a.ts, a.ts + a.dur);
      kernel_durs.push_back(a.dur);
    }
  }
  s.kernels = static_cast<std::int64_t>(kernel_durs.size());
  if (order.empty()) return s;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return model.device[a].ts < model.device[b].ts; });

  Timeline t = walk_timeline(model, order, s);
  if (t.launch_durs.empty()) {
    for (const auto& l : model.launches) t.launch_durs.push_back(l.dur);
  }
  s.span_us = t.span;
  s.busy_us = t.busy;
  s.busy_fraction = s.span_us > 0 ? t.busy / s.span_us : 0;
  s.idle_us = std::max(0.0, s.span_us - t.busy);
  if (!kernels_iv.empty()) s.kernel_busy_fraction = kernel_busy_fraction(kernels_iv);
  s.median_kernel_us = median(kernel_durs);
  s.median_launch_us = median(t.launch_durs);
  s.median_launch_delay_us = median(t.delays);
  return s;
}

nlohmann::json host_bound_finding(const HostStats& s, const TraceModel& model, const ClassifyOptions& o) {
  const double attributed = s.host_wait_us + s.other_idle_us;
  const bool have_share = attributed > 0;
  const double share = have_share ? s.host_wait_us / attributed : 0;
  const bool have_launch = !model.launches.empty();
  const bool tiny = have_launch && s.kernels > 0 && s.median_kernel_us <= s.median_launch_us;
  const bool host_waits = have_share && share >= o.host_wait_min_share;
  const Verdict v = host_bound_verdict(s, o, have_launch, share, host_waits, tiny);

  nlohmann::json f;
  f["classifier"] = "host_bound";
  f["verdict"] = v.verdict;
  f["evidence"] = fmt::format(
      "{} (busy {:.3f} over {:.0f} us, idle {:.0f} us: host wait {:.0f} / other {:.0f} / unattributed {:.0f}; "
      "median kernel {:.1f} us vs launch {:.1f} us; median launch delay {:.1f} us; thresholds: host-bound below "
      "{:.2f} busy (always below {:.2f}), not host-bound from {:.2f}, host-wait share {:.2f})",
      v.why, s.busy_fraction, s.span_us, s.idle_us, s.host_wait_us, s.other_idle_us, s.unattributed_us,
      s.median_kernel_us, s.median_launch_us, s.median_launch_delay_us, o.host_bound_max_busy, o.idle_device_max_busy,
      o.not_bound_min_busy, o.host_wait_min_share);
  f["busy_fraction"] = s.busy_fraction;
  f["kernel_busy_fraction"] = s.kernel_busy_fraction;
  f["span_us"] = s.span_us;
  f["busy_us"] = s.busy_us;
  f["idle"] = {{"total_us", s.idle_us},
               {"host_wait_us", s.host_wait_us},
               {"other_us", s.other_idle_us},
               {"unattributed_us", s.unattributed_us},
               {"gaps", s.gaps},
               {"host_wait_share", have_share ? nlohmann::json(share) : nlohmann::json(nullptr)}};
  f["median_kernel_us"] = s.median_kernel_us;
  f["median_launch_us"] = s.median_launch_us;
  f["median_launch_delay_us"] = s.median_launch_delay_us;
  f["joined_launches"] = s.joined_launches;
  f["thresholds"] = {{"idle_device_max_busy", o.idle_device_max_busy},
                     {"host_bound_max_busy", o.host_bound_max_busy},
                     {"not_bound_min_busy", o.not_bound_min_busy},
                     {"host_wait_min_share", o.host_wait_min_share},
                     {"min_kernels", o.min_kernels}};
  return f;
}

}  // namespace perftriage::analyzers::trace
