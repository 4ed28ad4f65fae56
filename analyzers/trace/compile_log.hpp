#pragma once
// What the compile-log parsers (TORCH_LOGS text, TORCH_TRACE / tlparse, explain() printouts) extract.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage::analyzers::trace {

enum class LogKind : std::uint8_t { unknown, torch_logs, tlparse, explain };
[[nodiscard]] std::string_view to_string(LogKind k);

struct ReasonStat {
  std::int64_t count = 0;
  std::set<std::string> locations;  // user code FILE:LINE
};

struct ExplainBlock {
  std::int64_t graph_count = -1;
  std::int64_t graph_break_count = -1;
  std::int64_t op_count = -1;
};

struct CompileLog {
  LogKind kind = LogKind::unknown;
  std::int64_t graph_breaks = 0;              // from log lines / tlparse envelopes
  std::int64_t explain_graph_breaks = 0;      // sum of explain() "Graph Break Count"
  std::map<std::string, ReasonStat> reasons;  // normalised graph-break reason -> count, locations
  std::int64_t recompiles = 0;
  std::map<std::string, std::int64_t> recompile_reasons;
  bool recompile_limit_hit = false;
  std::set<std::int64_t> frames;         // distinct frame ids
  std::int64_t compiles = 0;             // compilation_metrics entries (tlparse)
  std::int64_t restarts = 0;             // compiles restarted after a graph break (tlparse)
  std::int64_t item_warnings = 0;        // "Graph break from `Tensor.item()`" warnings
  std::vector<nlohmann::json> failures;  // compile failures: fail_type, fail_reason, frame
  std::vector<ExplainBlock> explains;
  bool has_dynamo = false;     // saw dynamo compile activity at all
  std::int64_t envelopes = 0;  // tlparse structured lines
};

// Strips a glog prefix ("V0820 01:43:43.388000 8 path.py:560] "); returns the line unchanged without one.
[[nodiscard]] std::string_view strip_glog(std::string_view line);
// Collapses the parts of a reason that differ between occurrences (guard numbers, compile ids, quotes).
[[nodiscard]] std::string normalise_reason(std::string_view reason);
void add_reason(CompileLog& log, std::string_view reason, std::string_view location, std::int64_t count = 1);

[[nodiscard]] LogKind sniff_log(std::string_view text);
void parse_torch_logs(std::string_view text, CompileLog& log);
void parse_explain(std::string_view text, CompileLog& log);
void parse_tlparse(std::string_view text, CompileLog& log);

[[nodiscard]] nlohmann::json graph_breaks_finding(const CompileLog& log);

// Splits on '\n' (dropping '\r'); calls fn(line) for each line.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
    pos = nl + 1;
  }
}

}  // namespace perftriage::analyzers::trace
