// graph_breaks finding: from a parsed compile log, or from a stored result row's columns.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "analyzers/trace/classify.hpp"
#include "analyzers/trace/compile_log.hpp"

namespace perftriage::analyzers::trace {

namespace {

std::string recompile_text(const CompileLog& log) {
  std::string rc = fmt::format("{} recompile{}", log.recompiles, log.recompiles == 1 ? "" : "s");
  if (!log.recompile_reasons.empty()) rc += fmt::format(" ({})", log.recompile_reasons.begin()->first);
  if (log.recompile_limit_hit) rc += ", recompile limit hit";
  return rc;
}

}  // namespace

// one piece: the finding is read top to bottom (verdict, evidence parts, fields); split, it would pass the log around.
nlohmann::json graph_breaks_finding(const CompileLog& log) {
  const std::int64_t breaks = log.graph_breaks + log.explain_graph_breaks;
  nlohmann::json reasons = nlohmann::json::array();
  std::vector<std::pair<std::string, ReasonStat>> sorted(log.reasons.begin(), log.reasons.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::vector<std::string> reason_text;
  for (const auto& [r, st] : sorted) {
    reasons.push_back({{"reason", r}, {"count", st.count}, {"locations", st.locations}});
    std::string line = r;
    if (!st.locations.empty()) {
      line += fmt::format(" at {}", fmt::join(st.locations, ", "));
    }
    reason_text.push_back(line);
  }
  nlohmann::json recompile_reasons = nlohmann::json::array();
  for (const auto& [r, n] : log.recompile_reasons) recompile_reasons.push_back({{"reason", r}, {"count", n}});

  // The verdict names what was found, so that a compile failure or a recompile storm is not reported as "graph breaks:
  // yes ... 0 graph breaks": a failure first (the frame ran eagerly), then graph breaks, then recompiles.
  std::string verdict;
  if (!log.has_dynamo && breaks == 0 && log.recompiles == 0 && log.failures.empty() && log.explains.empty()) {
    verdict = "unknown";
  } else if (!log.failures.empty()) {
    verdict = "compile_failure";
  } else if (breaks > 0) {
    verdict = "yes";
  } else if (log.recompiles > 0 || log.recompile_limit_hit) {
    verdict = "recompiles";
  } else {
    verdict = "no";
  }

  std::vector<std::string> parts;
  if (verdict == "unknown") {
    parts.push_back(log.envelopes > 0 ? "no dynamo frame compiled in this log (torch.export or other artifacts only)"
                                      : "no dynamo activity in this log");
  } else {
    for (const auto& f : log.failures) {  // the finding's subject first
      parts.push_back(fmt::format("compile failure in {}: {} {}", f.value("frame", "?"), f.value("fail_type", "error"),
                                  f.value("fail_reason", f.value("error", ""))));
    }
    if (verdict == "recompiles") parts.push_back(recompile_text(log));
    std::string b = fmt::format("{} graph break{}", breaks, breaks == 1 ? "" : "s");
    if (log.explain_graph_breaks > 0 && log.graph_breaks > 0) {
      b += fmt::format(" ({} in the log, {} in {} explain() printouts)", log.graph_breaks, log.explain_graph_breaks,
                       log.explains.size());
    } else if (log.explain_graph_breaks > 0) {
      b += fmt::format(" (in {} explain() printouts)", log.explains.size());
    }
    parts.push_back(b);
    if (!reason_text.empty()) {
      parts.push_back(fmt::format("{} unique reason{}: {}", reason_text.size(), reason_text.size() == 1 ? "" : "s",
                                  fmt::join(reason_text, "; ")));
    }
    if (verdict != "recompiles") parts.push_back(recompile_text(log));
    parts.push_back(fmt::format("{} frame{}", log.frames.size(), log.frames.size() == 1 ? "" : "s"));
    if (log.compiles > 0) parts.push_back(fmt::format("{} compiles ({} restarts)", log.compiles, log.restarts));
  }
  nlohmann::json explains = nlohmann::json::array();
  for (const auto& e : log.explains) {
    explains.push_back(
        {{"graph_count", e.graph_count}, {"graph_break_count", e.graph_break_count}, {"op_count", e.op_count}});
  }
  nlohmann::json f;
  f["classifier"] = "graph_breaks";
  f["verdict"] = verdict;
  f["evidence"] = fmt::format("{}", fmt::join(parts, "; "));
  f["graph_breaks"] = breaks;
  f["log_graph_breaks"] = log.graph_breaks;
  f["explain_graph_breaks"] = log.explain_graph_breaks;
  f["unique_reasons"] = reasons;
  f["recompiles"] = log.recompiles;
  f["recompile_reasons"] = recompile_reasons;
  f["recompile_limit_hit"] = log.recompile_limit_hit;
  f["frames"] = log.frames.size();
  f["compiles"] = log.compiles;
  f["restarts"] = log.restarts;
  f["item_warnings"] = log.item_warnings;
  f["failures"] = log.failures;
  f["explain"] = explains;
  return f;
}

Result<nlohmann::json> graph_breaks_from_counts(std::int64_t graph_breaks, std::int64_t unique_graph_breaks,
                                                std::int64_t unique_graphs) {
  nlohmann::json f;
  f["classifier"] = "graph_breaks";
  f["source"] = "result_row";
  auto opt = [](std::int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  f["graph_breaks"] = opt(graph_breaks);
  f["unique_graph_breaks"] = opt(unique_graph_breaks);
  f["unique_graphs"] = opt(unique_graphs);
  if (graph_breaks < 0 && unique_graph_breaks < 0 && unique_graphs < 0) {
    f["verdict"] = "unknown";
    f["evidence"] = "the result row has no graph_breaks / unique_graph_breaks / unique_graphs columns";
    return f;
  }
  const bool breaks = graph_breaks > 0 || unique_graph_breaks > 0;
  if (breaks) {
    f["verdict"] = "yes";
  } else if (graph_breaks == 0 || unique_graph_breaks == 0) {
    f["verdict"] = "no";
  } else {
    f["verdict"] = "unknown";
  }
  std::vector<std::string> parts;
  if (graph_breaks >= 0) parts.push_back(fmt::format("graph_breaks={}", graph_breaks));
  if (unique_graph_breaks >= 0) parts.push_back(fmt::format("unique_graph_breaks={}", unique_graph_breaks));
  if (unique_graphs >= 0) parts.push_back(fmt::format("unique_graphs={}", unique_graphs));
  f["evidence"] = fmt::format("{} (from the benchmark result row)", fmt::join(parts, ", "));
  return f;
}

}  // namespace perftriage::analyzers::trace
