// Compile logs: TORCH_LOGS console text, TORCH_TRACE (tlparse) structured logs, torch._dynamo.explain() printouts.
// Every parser on every input (not only the one sniff_log picks), the per-line helpers, then classify_bytes.
#include "analyzers/trace/classify.hpp"
#include "analyzers/trace/compile_log.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;
namespace tr = perftriage::analyzers::trace;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_view(data, size);
  (void)tr::sniff_log(text);
  {
    tr::CompileLog log;
    log.kind = tr::LogKind::torch_logs;
    tr::parse_torch_logs(text, log);
    (void)perftriage::dump_json(tr::graph_breaks_finding(log));
  }
  {
    tr::CompileLog log;
    log.kind = tr::LogKind::tlparse;
    tr::parse_tlparse(text, log);
    (void)perftriage::dump_json(tr::graph_breaks_finding(log));
  }
  {
    tr::CompileLog log;
    log.kind = tr::LogKind::explain;
    tr::parse_explain(text, log);
    (void)perftriage::dump_json(tr::graph_breaks_finding(log));
  }
  int lines = 0;
  tr::for_each_line(text, [&](std::string_view line) {
    if (++lines > 64) return;
    const std::string_view stripped = tr::strip_glog(line);
    FUZZ_CHECK(stripped.size() <= line.size(), "strip_glog grew the line");
    (void)tr::normalise_reason(stripped);
  });
  tr::ClassifyOptions options;
  options.max_decompressed_bytes = 64ull << 20;
  auto r = tr::classify_bytes(text, "fuzz.log", options);
  if (r) (void)perftriage::dump_json(*r);
  return 0;
}
