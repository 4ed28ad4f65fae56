#include "analyzers/trace/host_bound.hpp"

#include <algorithm>
#include <cmath>
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
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return model.device[a].ts < model.device[b].ts;
  });

  std::unordered_map<std::uint64_t, std::uint32_t> launch_by_corr;
  launch_by_corr.reserve(model.launches.size());
  for (std::uint32_t i = 0; i < model.launches.size(); ++i) {
    if (model.launches[i].has_correlation) launch_by_corr.emplace(model.launches[i].correlation, i);
  }
  auto launch_of = [&](const DeviceActivity& a) -> const LaunchCall* {
    if (!a.has_correlation) return nullptr;
    auto it = launch_by_corr.find(a.correlation);
    return it == launch_by_corr.end() ? nullptr : &model.launches[it->second];
  };

  std::vector<double> launch_durs;
  std::vector<double> delays;
  const double first = model.device[order.front()].ts;
  double cur_end = first;
  double last_end = first;
  double busy = 0;
  double cur_start = first;
  for (const std::uint32_t idx : order) {
    const auto& a = model.device[idx];
    const double end = a.ts + a.dur;
    const LaunchCall* l = launch_of(a);
    if (l != nullptr && a.kind == ActivityKind::kernel) {
      ++s.joined_launches;
      launch_durs.push_back(l->dur);
      delays.push_back(a.ts - (l->ts + l->dur));
    }
    if (a.ts > cur_end) {
      busy += cur_end - cur_start;
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
  busy += cur_end - cur_start;
  if (launch_durs.empty()) {
    for (const auto& l : model.launches) launch_durs.push_back(l.dur);
  }
  s.span_us = last_end - first;
  s.busy_us = busy;
  s.busy_fraction = s.span_us > 0 ? busy / s.span_us : 0;
  s.idle_us = std::max(0.0, s.span_us - busy);
  if (!kernels_iv.empty()) {
    double kfirst = kernels_iv.front().first;
    double klast = kernels_iv.front().second;
    for (const auto& [b, e] : kernels_iv) {
      kfirst = std::min(kfirst, b);
      klast = std::max(klast, e);
    }
    const double kbusy = merged_busy(kernels_iv);
    s.kernel_busy_fraction = klast > kfirst ? kbusy / (klast - kfirst) : 0;
  }
  s.median_kernel_us = median(kernel_durs);
  s.median_launch_us = median(launch_durs);
  s.median_launch_delay_us = median(delays);
  return s;
}

nlohmann::json host_bound_finding(const HostStats& s, const TraceModel& model, const ClassifyOptions& o) {
  const double attributed = s.host_wait_us + s.other_idle_us;
  const bool have_share = attributed > 0;
  const double share = have_share ? s.host_wait_us / attributed : 0;
  const bool have_launch = !model.launches.empty();
  const bool tiny = have_launch && s.kernels > 0 && s.median_kernel_us <= s.median_launch_us;
  const bool host_waits = have_share && share >= o.host_wait_min_share;

  std::string verdict;
  std::string why;
  if (s.kernels < o.min_kernels || s.span_us <= 0) {
    verdict = "unknown";
    why = fmt::format("{} device kernels: too few to judge (need {})", s.kernels, o.min_kernels);
  } else if (s.busy_fraction >= o.not_bound_min_busy) {
    verdict = "no";
    why = fmt::format("device busy {:.1f}% >= {:.0f}%", 100 * s.busy_fraction, 100 * o.not_bound_min_busy);
  } else if (s.busy_fraction < o.idle_device_max_busy) {
    verdict = "yes";
    why = fmt::format("device busy {:.1f}% < {:.0f}%: the device idles while the host works", 100 * s.busy_fraction,
                      100 * o.idle_device_max_busy);
    if (host_waits) why += fmt::format("; {:.0f}% of attributed idle time waits for the host", 100 * share);
    if (tiny) {
      why += fmt::format("; median kernel {:.1f} us <= median launch {:.1f} us", s.median_kernel_us, s.median_launch_us);
    }
  } else if (s.busy_fraction < o.host_bound_max_busy) {
    if (!have_launch) {
      verdict = "unknown";
      why = fmt::format("device busy {:.1f}% but no launch calls in the trace to attribute the idle time",
                        100 * s.busy_fraction);
    } else if (host_waits || tiny) {
      verdict = "yes";
      why = fmt::format("device busy {:.1f}% < {:.0f}%", 100 * s.busy_fraction, 100 * o.host_bound_max_busy);
      if (host_waits) why += fmt::format("; {:.0f}% of attributed idle time waits for the host", 100 * share);
      if (tiny) {
        why += fmt::format("; median kernel {:.1f} us <= median launch {:.1f} us", s.median_kernel_us,
                           s.median_launch_us);
      }
    } else {
      verdict = "no";
      why = fmt::format("device busy {:.1f}% but kernels were launched ahead of the idle gaps ({:.0f}% host wait) "
                        "and kernels outlast launches",
                        100 * s.busy_fraction, 100 * share);
    }
  } else if (host_waits && tiny) {
    verdict = "yes";
    why = fmt::format("device busy {:.1f}%; {:.0f}% of idle time waits for the host; median kernel {:.1f} us <= "
                      "median launch {:.1f} us",
                      100 * s.busy_fraction, 100 * share, s.median_kernel_us, s.median_launch_us);
  } else {
    verdict = "no";
    why = fmt::format("device busy {:.1f}% (between {:.0f}% and {:.0f}%) without both host waits and tiny kernels",
                      100 * s.busy_fraction, 100 * o.host_bound_max_busy, 100 * o.not_bound_min_busy);
  }
  nlohmann::json f;
  f["classifier"] = "host_bound";
  f["verdict"] = verdict;
  f["evidence"] = fmt::format(
      "{} (busy {:.3f} over {:.0f} us, idle {:.0f} us: host wait {:.0f} / other {:.0f} / unattributed {:.0f}; "
      "median kernel {:.1f} us vs launch {:.1f} us; median launch delay {:.1f} us; thresholds: host-bound below "
      "{:.2f} busy (always below {:.2f}), not host-bound from {:.2f}, host-wait share {:.2f})",
      why, s.busy_fraction, s.span_us, s.idle_us, s.host_wait_us, s.other_idle_us, s.unattributed_us,
      s.median_kernel_us, s.median_launch_us, s.median_launch_delay_us, o.host_bound_max_busy, o.idle_device_max_busy,
      o.not_bound_min_busy,
      o.host_wait_min_share);
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
