#include "analyzers/trace/compile_log.hpp"

#include <cctype>
#include <re2/re2.h>

namespace perftriage::analyzers::trace {

std::string_view to_string(LogKind k) {
  switch (k) {
    case LogKind::torch_logs: return "torch_logs";
    case LogKind::tlparse: return "tlparse";
    case LogKind::explain: return "explain";
    case LogKind::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view strip_glog(std::string_view line) {
  // [IWEVDF]MMDD HH:MM:SS.micros THREAD file:line] text
  if (line.size() < 20 || std::string_view("IWEVDF").find(line[0]) == std::string_view::npos) return line;
  for (int i = 1; i <= 4; ++i) {
    if (std::isdigit(static_cast<unsigned char>(line[static_cast<std::size_t>(i)])) == 0) return line;
  }
  if (line[5] != ' ' || line[8] != ':') return line;
  const auto close = line.find("] ", 6);
  if (close == std::string_view::npos || close > 400) {
    if (line.back() == ']' && line.size() < 400) return {};
    return line;
  }
  return line.substr(close + 2);
}

std::string normalise_reason(std::string_view reason) {
  std::string s(reason);
  // trim, drop surrounding quotes
  auto not_space = [](unsigned char c) { return std::isspace(c) == 0; };
  while (!s.empty() && !not_space(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && !not_space(static_cast<unsigned char>(s[b]))) ++b;
  s.erase(0, b);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  // "- 0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4" -> "tensor 'x' size mismatch at index 0.
  // expected N, actual N" RE2: linear time, no recursion on the input (std::regex overflowed the stack on long lines).
  // Byte semantics (Latin-1) as std::regex on std::string; [[:space:]] is std::regex's \s (RE2's lacks \v).
  static const auto kOptions = [] {
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    o.set_log_errors(false);
    return o;
  }();
  static const RE2 kLead(R"(^-?[[:space:]]*\d+/\d+:[[:space:]]*)", kOptions);
  static const RE2 kNums(R"(\b(expected|actual)[[:space:]]+-?\d+)", kOptions);
  static const RE2 kAddr(R"(0x[0-9a-fA-F]+)", kOptions);
  RE2::Replace(&s, kLead, "");
  RE2::GlobalReplace(&s, kNums, R"(\1 N)");
  RE2::GlobalReplace(&s, kAddr, "0x?");
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

void add_reason(CompileLog& log, std::string_view reason, std::string_view location, std::int64_t count) {
  std::string r = normalise_reason(reason);
  if (r.empty()) r = "unknown reason";
  auto& st = log.reasons[r];
  st.count += count;
  if (!location.empty() && st.locations.size() < 20) st.locations.emplace(location);
}

LogKind sniff_log(std::string_view text) {
  const std::string_view head = text.substr(0, 4 << 20);
  if (head.find('\0') != std::string_view::npos) return LogKind::unknown;
  if (head.find("[__graph_breaks]") != std::string_view::npos ||
      head.find("[__recompiles]") != std::string_view::npos ||
      head.find("Graph break in user code") != std::string_view::npos ||
      head.find("Graph break from `Tensor.item()`") != std::string_view::npos ||
      head.find("Recompiling function") != std::string_view::npos ||
      head.find("Graph break: ") != std::string_view::npos) {
    return LogKind::torch_logs;
  }
  std::int64_t envelopes = 0;
  std::int64_t lines = 0;
  for_each_line(head.substr(0, 1 << 20), [&](std::string_view line) {
    ++lines;
    const std::string_view rest = strip_glog(line);
    if (rest.size() != line.size() && !rest.empty() && rest.front() == '{') ++envelopes;
  });
  if (envelopes > 0) return LogKind::tlparse;
  if (head.find("Graph Count:") != std::string_view::npos &&
      head.find("Graph Break Count:") != std::string_view::npos) {
    return LogKind::explain;
  }
  return LogKind::unknown;
}

}  // namespace perftriage::analyzers::trace
