// Orchestration: recognise the input, run the classifiers, assemble the JSON; plus diff.
#include "analyzers/trace/classify.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "analyzers/trace/attention.hpp"
#include "analyzers/trace/buffer.hpp"
#include "analyzers/trace/census.hpp"
#include "analyzers/trace/regions.hpp"
#include "analyzers/trace/compile_log.hpp"
#include "analyzers/trace/gzip_reader.hpp"
#include "analyzers/trace/host_bound.hpp"
#include "analyzers/trace/trace_scanner.hpp"

namespace perftriage::analyzers::trace {

nlohmann::json ClassifyOptions::to_json() const {
  return {{"idle_device_max_busy", idle_device_max_busy},
          {"host_bound_max_busy", host_bound_max_busy},
          {"not_bound_min_busy", not_bound_min_busy},
          {"host_wait_min_share", host_wait_min_share},
          {"min_kernels", min_kernels},
          {"max_decompressed_bytes", max_decompressed_bytes},
          {"max_gzip_ratio", max_gzip_ratio}};
}

namespace {

bool positive(const nlohmann::json& f) {
  const std::string v = f.value("verdict", "");
  return v == "yes" || v == "math_fallback" || v == "unfused" || v == "recompiles" || v == "compile_failure";
}

nlohmann::json summary(const nlohmann::json& findings, bool from_trace) {
  std::vector<std::string> causes;
  std::vector<std::string> unknown;
  for (const auto& f : findings) {
    const std::string c = f.value("classifier", "");
    const std::string v = f.value("verdict", "");
    // graph_breaks reports a compile failure or recompiles under their own names, not as "graph_breaks"
    if (positive(f))
      causes.push_back(c == "attention" ? "attention " + v : (c == "graph_breaks" && v != "yes") ? v : c);
    // a kernel trace cannot show graph breaks: that unknown does not make the trace inconclusive
    if (v == "unknown" && !(from_trace && c == "graph_breaks")) unknown.push_back(c);
  }
  nlohmann::json s;
  if (!causes.empty()) {
    s["verdict"] = "explained";
    s["causes"] = causes;
  } else if (!unknown.empty()) {
    s["verdict"] = "inconclusive";
    s["unknown"] = unknown;
  } else {
    s["verdict"] = "unexplained";
    s["note"] = from_trace ? "no attention fallback and not host-bound; graph breaks need a compile log"
                           : "no graph breaks, recompiles or compile failures";
  }
  return s;
}

Result<nlohmann::json> classify_trace(PaddedBuffer& buf, std::string_view file_name, bool compressed,
                                      const ClassifyOptions& options) {
  PT_ASSIGN(const TraceModel model, scan_trace(buf, file_name, options));
  const Census census = build_census(model);
  const HostStats hs = host_stats(model);
  nlohmann::json out;
  out["file"] = std::string(file_name);
  out["kind"] = model.kind;
  out["bytes"] = buf.size();
  out["compressed"] = compressed;
  nlohmann::json c = census_json(census, model);
  c["busy_fraction"] = hs.busy_fraction;
  c["kernel_busy_fraction"] = hs.kernel_busy_fraction;
  if (auto regions = region_census(census, model); !regions.empty()) c["regions"] = std::move(regions);
  out["census"] = std::move(c);
  nlohmann::json findings = nlohmann::json::array();
  findings.push_back(attention_finding(model, census));
  findings.push_back(host_bound_finding(hs, model, options));
  findings.push_back({{"classifier", "graph_breaks"},
                      {"verdict", "unknown"},
                      {"evidence", fmt::format("a kernel trace does not record graph breaks; {} compiled-graph calls "
                                               "and {} compiled regions seen; attach the TORCH_LOGS or TORCH_TRACE log",
                                               model.counters.compiled_graph_calls, model.counters.compiled_regions)},
                      {"compiled_graph_calls", model.counters.compiled_graph_calls}});
  out["summary"] = summary(findings, true);
  out["findings"] = std::move(findings);
  out["thresholds"] = options.to_json();
  return out;
}

Result<nlohmann::json> classify_log(std::string_view text, std::string_view file_name, bool compressed,
                                    const ClassifyOptions& options) {
  CompileLog log;
  log.kind = sniff_log(text);
  switch (log.kind) {
    case LogKind::torch_logs:
      parse_torch_logs(text, log);
      parse_explain(text, log);
      break;
    case LogKind::tlparse: parse_tlparse(text, log); break;
    case LogKind::explain: parse_explain(text, log); break;
    case LogKind::unknown:
      return make_error(ErrorKind::unprocessable, "unrecognised_input",
                        "not a profiler trace (JSON) nor a TORCH_LOGS / TORCH_TRACE / explain() log",
                        std::string(file_name));
  }
  nlohmann::json out;
  out["file"] = std::string(file_name);
  out["kind"] = std::string(to_string(log.kind));
  out["bytes"] = text.size();
  out["compressed"] = compressed;
  nlohmann::json findings = nlohmann::json::array();
  findings.push_back(graph_breaks_finding(log));
  out["summary"] = summary(findings, false);
  out["findings"] = std::move(findings);
  out["thresholds"] = options.to_json();
  return out;
}

Result<nlohmann::json> classify_buffer(PaddedBuffer& buf, std::string_view file_name, const ClassifyOptions& options) {
  bool compressed = false;
  PaddedBuffer inflated;
  PaddedBuffer* data = &buf;
  if (buf.size() == 0) {
    return make_error(ErrorKind::unprocessable, "empty", "the file is empty", std::string(file_name));
  }
  if (is_gzip(buf.view())) {
    PT_ASSIGN(inflated, gunzip(buf.view(), file_name, options));
    buf = PaddedBuffer{};  // release the compressed bytes before parsing
    data = &inflated;
    compressed = true;
  } else if (buf.size() >= 2 && static_cast<unsigned char>(buf.data()[0]) == 0x1f &&
             static_cast<unsigned char>(buf.data()[1]) == 0x8b) {
    return make_error(ErrorKind::unprocessable, "bad_gzip", "a truncated gzip file", std::string(file_name));
  }
  std::string_view v = data->view();
  if (v.substr(0, 3) == "\xEF\xBB\xBF") v.remove_prefix(3);
  const auto first = v.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return make_error(ErrorKind::unprocessable, "empty", "the file holds only whitespace", std::string(file_name));
  }
  if (v[first] == '{' || v[first] == '[') {
    if (v.data() != data->data()) {  // BOM: blank it so the scanner sees JSON
      std::memset(data->data(), ' ', 3);
    }
    return classify_trace(*data, file_name, compressed, options);
  }
  return classify_log(v, file_name, compressed, options);
}

}  // namespace

Result<nlohmann::json> classify_bytes(std::string_view bytes, std::string_view file_name,
                                      const ClassifyOptions& options) {
  PaddedBuffer buf;
  if (!buf.allocate(bytes.size())) {
    return make_error(ErrorKind::too_large, "out_of_memory", "cannot allocate a buffer for the input",
                      std::string(file_name));
  }
  if (!bytes.empty()) std::memcpy(buf.data(), bytes.data(), bytes.size());
  buf.set_size(bytes.size());
  return classify_buffer(buf, file_name, options);
}

Result<nlohmann::json> classify_file(const std::string& path, const ClassifyOptions& options) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    return make_error(ErrorKind::not_found, "cannot_open", fmt::format("cannot open: {}", std::strerror(errno)), path);
  }
  if (std::fseek(f.get(), 0, SEEK_END) != 0) {
    return make_error(ErrorKind::unprocessable, "not_a_file", "cannot seek (not a regular file?)", path);
  }
  const long size = std::ftell(f.get());
  if (size < 0) return make_error(ErrorKind::unprocessable, "not_a_file", "cannot tell the file size", path);
  std::rewind(f.get());
  PaddedBuffer buf;
  if (!buf.allocate(static_cast<std::size_t>(size))) {
    return make_error(ErrorKind::too_large, "out_of_memory", "cannot allocate a buffer for the file", path);
  }
  const std::size_t got = size > 0 ? std::fread(buf.data(), 1, static_cast<std::size_t>(size), f.get()) : 0;
  if (got != static_cast<std::size_t>(size)) {
    return make_error(ErrorKind::internal, "read_failed", "short read", path);
  }
  buf.set_size(got);
  f.reset();
  return classify_buffer(buf, path, options);
}

namespace {

const nlohmann::json* finding(const nlohmann::json& result, std::string_view classifier) {
  if (!result.contains("findings") || !result["findings"].is_array()) return nullptr;
  for (const auto& f : result["findings"]) {
    if (f.value("classifier", "") == classifier) return &f;
  }
  return nullptr;
}

}  // namespace

Result<nlohmann::json> diff(const nlohmann::json& base, const nlohmann::json& target) {
  auto has_census = [](const nlohmann::json& r) {
    return r.is_object() && r.contains("census") && r["census"].is_object() && r["census"].contains("groups");
  };
  if (!has_census(base) || !has_census(target)) {
    return make_error(ErrorKind::unprocessable, "not_traces",
                      "a diff needs two kernel traces (classify results with a census)");
  }
  const auto& bg = base["census"]["groups"];
  const auto& tg = target["census"]["groups"];
  nlohmann::json groups = nlohmann::json::object();
  std::set<std::string> labels;
  for (const auto& [k, v] : bg.items()) labels.insert(k);
  for (const auto& [k, v] : tg.items()) labels.insert(k);
  for (const auto& l : labels) {
    const std::int64_t b = bg.contains(l) ? bg[l].value("count", std::int64_t{0}) : 0;
    const std::int64_t t = tg.contains(l) ? tg[l].value("count", std::int64_t{0}) : 0;
    const double bt = bg.contains(l) ? bg[l].value("time_us", 0.0) : 0.0;
    const double tt = tg.contains(l) ? tg[l].value("time_us", 0.0) : 0.0;
    const std::string cls = bg.contains(l) ? bg[l].value("class", "other") : tg[l].value("class", "other");
    groups[l] = {{"class", cls},   {"base", b},          {"target", t},
                 {"delta", t - b}, {"base_time_us", bt}, {"target_time_us", tt}};
  }
  nlohmann::json out;
  out["base"] = base.value("file", "");
  out["target"] = target.value("file", "");
  out["evidence"] = evidence_line(bg, true) + " -> " + evidence_line(tg, true);
  out["census_evidence"] = evidence_line(bg, false) + " -> " + evidence_line(tg, false);
  out["device_kernels"] = {{"base", base["census"].value("device_kernels", std::int64_t{0})},
                           {"target", target["census"].value("device_kernels", std::int64_t{0})}};
  out["kernel_time_us"] = {{"base", base["census"].value("kernel_time_us", 0.0)},
                           {"target", target["census"].value("kernel_time_us", 0.0)}};
  out["groups"] = groups;
  nlohmann::json verdicts = nlohmann::json::array();
  for (const char* c : {"attention", "host_bound", "graph_breaks"}) {
    const auto* fb = finding(base, c);
    const auto* ft = finding(target, c);
    const std::string vb = fb != nullptr ? fb->value("verdict", "") : "";
    const std::string vt = ft != nullptr ? ft->value("verdict", "") : "";
    verdicts.push_back({{"classifier", c}, {"base", vb}, {"target", vt}, {"changed", vb != vt}});
  }
  out["verdicts"] = verdicts;
  return out;
}

}  // namespace perftriage::analyzers::trace
