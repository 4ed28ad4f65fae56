// TORCH_LOGS="graph_breaks,recompiles" console text.
#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "analyzers/trace/compile_log.hpp"
#include "common/strings.hpp"

namespace perftriage::analyzers::trace {

namespace {

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
  line = trim(line, " \t");
  if (!line.starts_with("File \"")) return {};
  const auto q = line.find('"', 6);
  if (q == std::string_view::npos) return {};
  const auto ln = line.find(", line ", q);
  if (ln == std::string_view::npos) return {};
  std::size_t e = ln + 7;
  while (e < line.size() && line[e] >= '0' && line[e] <= '9') ++e;
  return std::string(line.substr(6, q - 6)) + ":" + std::string(line.substr(ln + 7, e - ln - 7));
}

// Drops an artifact tag ("[__graph_breaks] ", "[__recompiles] ") from the front of `body`.
void strip_artifact_tag(std::string_view& body) {
  if (!body.starts_with("[__")) return;
  const auto close = body.find("] ");
  body = close != std::string_view::npos ? body.substr(close + 2) : std::string_view{};
}

using CompileId = std::pair<std::int64_t, std::int64_t>;

// Reads the log line by line into a CompileLog. A graph break is counted once per (compile id, location, reason);
// its reason and location may come on the lines after the one that opens it.
class TorchLogsReader {
 public:
  explicit TorchLogsReader(CompileLog& log) : log_(log) {}

  void line(std::string_view raw) {
    std::string_view body = strip_glog(raw);
    const bool glog = body.size() != raw.size();
    std::optional<CompileId> id;
    if (glog) id = take_compile_id(body);
    if (id) {
      log_.frames.insert(id->first);
      log_.has_dynamo = true;
      if (id->second > 0) recompile_ids_.insert(*id);
    }
    strip_artifact_tag(body);
    const std::string_view t = trim(body, " \t");
    if (graph_break(t, id.value_or(CompileId{-1, -1}))) return;
    if (pending_.open && pending_.want_location) {
      std::string loc = traceback_location(t);
      if (!loc.empty()) pending_.location = loc;  // keep the innermost (last) frame
      if (t.empty() || (!t.starts_with("File \"") && !glog)) {
        pending_.want_location = false;
      }
    }
    if (t.find("Graph break from `Tensor.item()`") != std::string_view::npos) {
      ++log_.item_warnings;
      return;
    }
    recompile(t);
  }

  void finish() {
    close_graph_break();
    log_.recompiles = std::max<std::int64_t>(recompiling_lines_, static_cast<std::int64_t>(recompile_ids_.size()));
    if (log_.graph_breaks == 0 && log_.item_warnings > 0) {
      log_.graph_breaks = log_.item_warnings;
      add_reason(log_, "Tensor.item() (capture_scalar_outputs=False)", "", log_.item_warnings);
    }
  }

 private:
  struct Pending {
    bool open = false;
    std::string location;
    std::string reason;
    CompileId id{-1, -1};
    bool want_location = false;  // old format: location on the traceback line that follows
  };

  void close_graph_break() {
    if (!pending_.open) return;
    const auto key = std::make_tuple(pending_.id.first, pending_.id.second, pending_.location, pending_.reason);
    if (seen_.insert(key).second) {
      ++log_.graph_breaks;
      add_reason(log_, pending_.reason.empty() ? "unknown reason" : pending_.reason, pending_.location);
    }
    pending_ = Pending{};
  }

  // A line that opens a graph break or gives its reason; false for any other line.
  bool graph_break(std::string_view t, CompileId id) {
    if (t.starts_with("Graph break in user code at ") ||
        t.starts_with("Graph break (details suppressed) in user code at ")) {
      close_graph_break();
      pending_.open = true;
      pending_.location = std::string(t.substr(t.find(" at ") + 4));
      pending_.id = id;
      return true;
    }
    if (t.starts_with("Graph Break Reason: ")) {
      if (!pending_.open) {
        pending_.open = true;
        pending_.id = id;
      }
      if (pending_.reason.empty()) pending_.reason = std::string(t.substr(20));
      return true;
    }
    if (t.starts_with("Graph break: ") && t.find(" from user code") != std::string_view::npos) {
      // torch 2.0-2.3: "Graph break: <reason> from user code at:" + traceback
      close_graph_break();
      pending_.open = true;
      pending_.reason = std::string(t.substr(13, t.find(" from user code") - 13));
      pending_.id = id;
      pending_.want_location = true;
      return true;
    }
    return false;
  }

  // "Recompiling function", the guard failures listed after it, a recompile limit hit.
  void recompile(std::string_view t) {
    if (t.starts_with("Recompiling function ")) {
      close_graph_break();
      ++recompiling_lines_;
      in_guard_failures_ = false;
      guard_reasons_this_recompile_.clear();
      return;
    }
    if (t.starts_with("triggered by the following guard failure")) {
      in_guard_failures_ = true;
      return;
    }
    if (in_guard_failures_) {
      if (t.starts_with("- ")) {
        std::string r = normalise_reason(t.substr(2));
        if (guard_reasons_this_recompile_.insert(r).second) ++log_.recompile_reasons[r];
        return;
      }
      in_guard_failures_ = false;
    }
    if (t.find("recompile_limit") != std::string_view::npos || t.find("cache_size_limit") != std::string_view::npos) {
      if (t.find("hit config.") != std::string_view::npos || t.find("reached") != std::string_view::npos) {
        log_.recompile_limit_hit = true;
      }
    }
  }

  CompileLog& log_;
  Pending pending_;
  std::set<std::tuple<std::int64_t, std::int64_t, std::string, std::string>> seen_;
  std::set<CompileId> recompile_ids_;
  std::int64_t recompiling_lines_ = 0;
  bool in_guard_failures_ = false;
  std::set<std::string> guard_reasons_this_recompile_;
};

}  // namespace

void parse_torch_logs(std::string_view text, CompileLog& log) {
  TorchLogsReader reader(log);
  for_each_line(text, [&](std::string_view line) { reader.line(line); });
  reader.finish();
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
    s = trim(s, " \t");
    (void)std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  };
  for_each_line(text, [&](std::string_view raw) {
    const std::string_view t = trim(strip_glog(raw), " \t");
    if (t.starts_with("Graph Count: ")) {
      flush_reason();
      log.explains.push_back({number(t.substr(13)), -1, -1});
      in_block = true;
      in_reasons = false;
      return;
    }
    if (!in_block) return;
    if (t.starts_with("Graph Break Count: ")) {
      log.explains.back().graph_break_count = number(t.substr(19));
      log.explain_graph_breaks += std::max<std::int64_t>(0, log.explains.back().graph_break_count);
    } else if (t.starts_with("Op Count: ")) {
      log.explains.back().op_count = number(t.substr(10));
    } else if (t == "Break Reasons:") {
      in_reasons = true;
    } else if (in_reasons && t.starts_with("Break Reason ")) {
      flush_reason();
    } else if (in_reasons && t.starts_with("Reason: ")) {
      reason = std::string(t.substr(8));
    } else if (in_reasons && t.starts_with("<FrameSummary file ")) {
      // <FrameSummary file /root/graph_break.py, line 16 in f>  (innermost frame is the last one)
      const auto comma = t.find(", line ");
      if (comma != std::string_view::npos) {
        std::size_t e = comma + 7;
        while (e < t.size() && t[e] >= '0' && t[e] <= '9') ++e;
        location = std::string(t.substr(19, comma - 19)) + ":" + std::string(t.substr(comma + 7, e - comma - 7));
      }
    } else if (t.starts_with("Ops per Graph:") || t.starts_with("Out Guards:") || t.starts_with("Compile Times:")) {
      flush_reason();
      in_reasons = false;
      in_block = t.starts_with("Ops per Graph:") || t.starts_with("Out Guards:");
    }
  });
  flush_reason();
}

}  // namespace perftriage::analyzers::trace
