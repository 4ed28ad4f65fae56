// TORCH_LOGS="graph_breaks,recompiles" console text.
#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "analyzers/trace/compile_log.hpp"

namespace perftriage::analyzers::trace {

namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "[0/0] ", "[0/0_1] ", "[1/2] " -> frame, compile id; strips it from `body`.
std::optional<std::pair<std::int64_t, std::int64_t>> take_compile_id(std::string_view& body) {
  if (body.size() < 5 || body[0] != '[') return std::nullopt;
  const auto close = body.find(']');
  if (close == std::string_view::npos || close > 24) return std::nullopt;
  std::string_view id = body.substr(1, close - 1);
  if (!id.empty() && id[0] == '!') id.remove_prefix(1);
  const auto slash = id.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::int64_t f = 0;
  std::int64_t c = 0;
  const auto r1 = std::from_chars(id.data(), id.data() + slash, f);
  const auto r2 = std::from_chars(id.data() + slash + 1, id.data() + id.size(), c);
  if (r1.ec != std::errc{} || r2.ec != std::errc{}) return std::nullopt;
  body.remove_prefix(close + 1);
  if (!body.empty() && body[0] == ' ') body.remove_prefix(1);
  return std::make_pair(f, c);
}

// `File "x.py", line 16, in f` -> "x.py:16"
std::string traceback_location(std::string_view line) {
  line = trim(line);
  if (!starts(line, "File \"")) return {};
  const auto q = line.find('"', 6);
  if (q == std::string_view::npos) return {};
  const auto ln = line.find(", line ", q);
  if (ln == std::string_view::npos) return {};
  std::size_t e = ln + 7;
  while (e < line.size() && line[e] >= '0' && line[e] <= '9') ++e;
  return std::string(line.substr(6, q - 6)) + ":" + std::string(line.substr(ln + 7, e - ln - 7));
}

}  // namespace

void parse_torch_logs(std::string_view text, CompileLog& log) {
  struct Pending {
    bool open = false;
    std::string location;
    std::string reason;
    std::pair<std::int64_t, std::int64_t> id{-1, -1};
    bool want_location = false;  // old format: location on the traceback line that follows
  } pending;
  std::set<std::tuple<std::int64_t, std::int64_t, std::string, std::string>> seen;
  std::set<std::pair<std::int64_t, std::int64_t>> recompile_ids;
  std::int64_t recompiling_lines = 0;
  bool in_guard_failures = false;
  std::set<std::string> guard_reasons_this_recompile;

  auto finish = [&] {
    if (!pending.open) return;
    const auto key = std::make_tuple(pending.id.first, pending.id.second, pending.location, pending.reason);
    if (seen.insert(key).second) {
      ++log.graph_breaks;
      add_reason(log, pending.reason.empty() ? "unknown reason" : pending.reason, pending.location);
    }
    pending = Pending{};
  };

  for_each_line(text, [&](std::string_view raw) {
    std::string_view body = strip_glog(raw);
    const bool glog = body.size() != raw.size();
    std::optional<std::pair<std::int64_t, std::int64_t>> id;
    if (glog) id = take_compile_id(body);
    if (id) {
      log.frames.insert(id->first);
      log.has_dynamo = true;
      if (id->second > 0) recompile_ids.insert(*id);
    }
    // artifact tag: [__graph_breaks], [__recompiles], ...
    std::string_view tag;
    if (starts(body, "[__")) {
      const auto close = body.find("] ");
      if (close != std::string_view::npos) {
        tag = body.substr(3, close - 3);
      } else if (body.back() == ']') {
        tag = body.substr(3, body.size() - 4);
      }
      body = close != std::string_view::npos ? body.substr(close + 2) : std::string_view{};
    }
    const std::string_view t = trim(body);

    if (starts(t, "Graph break in user code at ") || starts(t, "Graph break (details suppressed) in user code at ")) {
      finish();
      pending.open = true;
      pending.location = std::string(t.substr(t.find(" at ") + 4));
      pending.id = id.value_or(std::make_pair<std::int64_t, std::int64_t>(-1, -1));
      return;
    }
    if (starts(t, "Graph Break Reason: ")) {
      if (!pending.open) {
        pending.open = true;
        pending.id = id.value_or(std::make_pair<std::int64_t, std::int64_t>(-1, -1));
      }
      if (pending.reason.empty()) pending.reason = std::string(t.substr(20));
      return;
    }
    if (starts(t, "Graph break: ") && t.find(" from user code") != std::string_view::npos) {
      // torch 2.0-2.3: "Graph break: <reason> from user code at:" + traceback
      finish();
      pending.open = true;
      pending.reason = std::string(t.substr(13, t.find(" from user code") - 13));
      pending.id = id.value_or(std::make_pair<std::int64_t, std::int64_t>(-1, -1));
      pending.want_location = true;
      return;
    }
    if (pending.open && pending.want_location) {
      std::string loc = traceback_location(t);
      if (!loc.empty()) pending.location = loc;  // keep the innermost (last) frame
      if (t.empty() || (!starts(t, "File \"") && !glog)) {
        pending.want_location = false;
      }
    }
    if (t.find("Graph break from `Tensor.item()`") != std::string_view::npos) {
      ++log.item_warnings;
      return;
    }
    if (starts(t, "Recompiling function ")) {
      finish();
      ++recompiling_lines;
      in_guard_failures = false;
      guard_reasons_this_recompile.clear();
      return;
    }
    if (starts(t, "triggered by the following guard failure")) {
      in_guard_failures = true;
      return;
    }
    if (in_guard_failures) {
      if (starts(t, "- ")) {
        std::string r = normalise_reason(t.substr(2));
        if (guard_reasons_this_recompile.insert(r).second) ++log.recompile_reasons[r];
        return;
      }
      in_guard_failures = false;
    }
    if (t.find("recompile_limit") != std::string_view::npos || t.find("cache_size_limit") != std::string_view::npos) {
      if (t.find("hit config.") != std::string_view::npos || t.find("reached") != std::string_view::npos) {
        log.recompile_limit_hit = true;
      }
    }
    (void)tag;
  });
  finish();
  log.recompiles = std::max<std::int64_t>(recompiling_lines, static_cast<std::int64_t>(recompile_ids.size()));
  if (log.graph_breaks == 0 && log.item_warnings > 0) {
    log.graph_breaks = log.item_warnings;
    add_reason(log, "Tensor.item() (capture_scalar_outputs=False)", "", log.item_warnings);
  }
}

void parse_explain(std::string_view text, CompileLog& log) {
  bool in_block = false;
  bool in_reasons = false;
  std::string reason;
  std::string location;
  auto flush_reason = [&] {
    if (!reason.empty()) add_reason(log, reason, location);
    reason.clear();
    location.clear();
  };
  auto number = [](std::string_view s) {
    std::int64_t v = -1;
    s = trim(s);
    (void)std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  };
  for_each_line(text, [&](std::string_view raw) {
    const std::string_view t = trim(strip_glog(raw));
    if (starts(t, "Graph Count: ")) {
      flush_reason();
      log.explains.push_back({number(t.substr(13)), -1, -1});
      in_block = true;
      in_reasons = false;
      return;
    }
    if (!in_block) return;
    if (starts(t, "Graph Break Count: ")) {
      log.explains.back().graph_break_count = number(t.substr(19));
      log.explain_graph_breaks += std::max<std::int64_t>(0, log.explains.back().graph_break_count);
    } else if (starts(t, "Op Count: ")) {
      log.explains.back().op_count = number(t.substr(10));
    } else if (t == "Break Reasons:") {
      in_reasons = true;
    } else if (in_reasons && starts(t, "Break Reason ")) {
      flush_reason();
    } else if (in_reasons && starts(t, "Reason: ")) {
      reason = std::string(t.substr(8));
    } else if (in_reasons && starts(t, "<FrameSummary file ")) {
      // <FrameSummary file /root/graph_break.py, line 16 in f>  (innermost frame is the last one)
      const auto comma = t.find(", line ");
      if (comma != std::string_view::npos) {
        std::size_t e = comma + 7;
        while (e < t.size() && t[e] >= '0' && t[e] <= '9') ++e;
        location = std::string(t.substr(19, comma - 19)) + ":" + std::string(t.substr(comma + 7, e - comma - 7));
      }
    } else if (starts(t, "Ops per Graph:") || starts(t, "Out Guards:") || starts(t, "Compile Times:")) {
      flush_reason();
      in_reasons = false;
      in_block = starts(t, "Ops per Graph:") || starts(t, "Out Guards:");
    }
  });
  flush_reason();
}

}  // namespace perftriage::analyzers::trace
