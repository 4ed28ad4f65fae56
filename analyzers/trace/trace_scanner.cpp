#include "analyzers/trace/trace_scanner.hpp"

#include <simdjson.h>

#include <charconv>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/trace/kernel_names.hpp"

namespace perftriage::analyzers::trace {

namespace {

namespace od = simdjson::ondemand;

enum class Cat : std::uint8_t {
  none,
  kernel,
  memcpy,
  memset,
  cpu_op,
  runtime,
  user_annotation,
  gpu_user_annotation,
  python_function,
  other
};

struct CatInfo {
  Cat cat;
  bool legacy;
};

CatInfo category(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "kernel") return {Cat::kernel, false};
      if (c == "Kernel") return {Cat::kernel, true};
      if (c == "cpu_op") return {Cat::cpu_op, false};
      if (c == "Memcpy") return {Cat::memcpy, true};
      if (c == "Memset") return {Cat::memset, true};
      break;
    case 7:
      if (c == "Runtime") return {Cat::runtime, true};
      break;
    case 8:
      if (c == "Operator") return {Cat::cpu_op, true};
      break;
    case 10:
      if (c == "gpu_memcpy") return {Cat::memcpy, false};
      if (c == "gpu_memset") return {Cat::memset, false};
      break;
    default: break;
  }
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "xpu_runtime" || c == "xpu_driver" || c == "hip_runtime" ||
      c == "mtia_runtime" || c == "privateuse1_runtime" || c == "privateuse1_driver") {
    return {Cat::runtime, false};
  }
  if (c == "user_annotation") return {Cat::user_annotation, false};
  if (c == "gpu_user_annotation") return {Cat::gpu_user_annotation, false};
  if (c == "python_function") return {Cat::python_function, false};
  if (c.empty()) return {Cat::none, false};
  return {Cat::other, false};
}

bool is_launch_call(std::string_view name) {
  return name.find("aunch") != std::string_view::npos ||  // cudaLaunchKernel, cuLaunchKernel, hipModuleLaunchKernel,
                                                          // urEnqueueKernelLaunch, zeCommandListAppendLaunchKernel
         name.find("EnqueueKernel") != std::string_view::npos;
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

struct Event {
  std::string_view cat;
  std::string_view name;
  double ts = 0;
  double dur = 0;
  std::uint64_t correlation = 0;
  bool has_ts = false;
  bool has_correlation = false;
  char ph = 0;
};

simdjson::error_code read_number(od::value v, double& out) {
  od::json_type t{};
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::number) return v.get_double().get(out);
  if (t == od::json_type::string) {  // some writers quote timestamps
    std::string_view s;
    if (auto e = v.get_string().get(s)) return e;
    const auto* end = s.data() + s.size();
    auto r = std::from_chars(s.data(), end, out);
    return r.ec == std::errc{} ? simdjson::SUCCESS : simdjson::INCORRECT_TYPE;
  }
  return simdjson::SUCCESS;  // null or other: ignore
}

simdjson::error_code read_args(od::value v, Event& ev) {
  od::object args;
  if (auto e = v.get_object().get(args)) return e == simdjson::INCORRECT_TYPE ? simdjson::SUCCESS : e;
  for (auto field : args) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    if (key.unsafe_is_equal("correlation")) {
      od::value cv;
      if (auto e = field.value().get(cv)) return e;
      double d = 0;
      if (auto e = read_number(cv, d)) return e;
      if (d >= 0 && d < 0x1p64) {  // past 2^64 the cast is undefined: such an id links nothing
        ev.correlation = static_cast<std::uint64_t>(d);
        ev.has_correlation = true;
      }
    }
  }
  return simdjson::SUCCESS;
}

// The fields of one event the census reads: ph, cat, name, ts, dur, and the args (correlation) of device and runtime
// events; the other fields are skipped unparsed. Keys are told apart by their first byte before the full compare.
simdjson::error_code read_event(od::object& obj, Event& ev) {
  for (auto field : obj) {
    od::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    const char k0 = *key.raw();
    if (k0 == 'p') {
      if (key.unsafe_is_equal("ph")) {
        std::string_view v;
        if (auto e = field.value().get_string().get(v)) return e;
        ev.ph = v.empty() ? '?' : v[0];
      }
    } else if (k0 == 'c') {
      if (key.unsafe_is_equal("cat")) {
        if (auto e = field.value().get_string().get(ev.cat)) return e;
      }
    } else if (k0 == 'n') {
      if (key.unsafe_is_equal("name")) {
        od::value v;
        if (auto e = field.value().get(v)) return e;
        od::json_type t{};
        if (auto e = v.type().get(t)) return e;
        if (t == od::json_type::string) {
          if (auto e = v.get_string().get(ev.name)) return e;
        }
      }
    } else if (k0 == 't') {
      if (key.unsafe_is_equal("ts")) {
        od::value v;
        if (auto e = field.value().get(v)) return e;
        if (auto e = read_number(v, ev.ts)) return e;
        ev.has_ts = true;
      }
    } else if (k0 == 'd') {
      if (key.unsafe_is_equal("dur")) {
        od::value v;
        if (auto e = field.value().get(v)) return e;
        if (auto e = read_number(v, ev.dur)) return e;
      }
    } else if (k0 == 'a') {
      if (key.unsafe_is_equal("args")) {
        const Cat c = category(ev.cat).cat;
        if (ev.cat.empty() || c == Cat::kernel || c == Cat::memcpy || c == Cat::memset || c == Cat::runtime) {
          od::value v;
          if (auto e = field.value().get(v)) return e;
          if (auto e = read_args(v, ev)) return e;
        }
      }
    }
  }
  return simdjson::SUCCESS;
}

class Scanner {
 public:
  Scanner(PaddedBuffer& buf, std::string_view file, const ClassifyOptions& options)
      : data_(buf.data()), size_(buf.size()), file_(file), options_(options) {}

  Result<TraceModel> run();

 private:
  struct ChunkResult {
    bool ended = false;
    std::size_t tail = 0;  // absolute offset of the first token after the events array (size_ when none)
  };
  struct Snapshot {
    std::size_t device = 0;
    std::size_t launches = 0;
    std::size_t regions = 0;
    TraceCounters counters;
    std::map<std::string, std::int64_t, std::less<>> attention_ops;
    std::map<std::string, std::int64_t, std::less<>> categories;
  };

  Error refuse(std::string code, std::string message) const {
    return make_error(ErrorKind::unprocessable, std::move(code), std::move(message), file_);
  }
  std::size_t skip_ws(std::size_t p) const {
    while (p < size_ && (data_[p] == ' ' || data_[p] == '\n' || data_[p] == '\r' || data_[p] == '\t')) ++p;
    return p;
  }
  std::size_t find_cut(std::size_t from) const;
  std::size_t last_bracket(std::size_t from) const {
    const std::string_view rest(data_ + from, size_ - from);
    const auto p = rest.rfind(']');
    return p == std::string_view::npos ? std::string::npos : from + p;
  }
  Result<std::size_t> scan_events(std::size_t begin);
  simdjson::error_code parse_chunk(std::size_t pos, std::size_t cut, bool final, ChunkResult& out);
  void take(const Event& ev);
  std::uint32_t intern(std::string_view name);
  Result<void> read_envelope(const std::string& json_text, bool head);
  Snapshot snapshot() const {
    return {model_.device.size(), model_.launches.size(), model_.regions.size(),
            model_.counters,      model_.attention_ops,   model_.categories};
  }
  void restore(Snapshot s) {
    model_.device.resize(s.device);
    model_.launches.resize(s.launches);
    model_.regions.resize(s.regions);
    model_.counters = s.counters;
    model_.attention_ops = std::move(s.attention_ops);
    model_.categories = std::move(s.categories);
  }

  char* data_;
  std::size_t size_;
  std::string file_;
  const ClassifyOptions& options_;
  od::parser parser_;
  TraceModel model_;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> name_ids_;
  std::string first_error_;
  bool non_object_element_ = false;
};

std::uint32_t Scanner::intern(std::string_view name) {
  if (auto it = name_ids_.find(name); it != name_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(model_.names.size());
  model_.names.emplace_back(name);
  name_ids_.emplace(std::string(name), id);
  return id;
}

void Scanner::take(const Event& ev) {
  auto& c = model_.counters;
  ++c.events;
  if (ev.ph != 0) ++c.events_with_ph;
  const CatInfo ci = category(ev.cat);
  if (ci.legacy) ++c.legacy_events;
  if (!ev.cat.empty()) {
    auto it = model_.categories.find(ev.cat);
    if (it == model_.categories.end()) {
      if (model_.categories.size() < 64) model_.categories.emplace(std::string(ev.cat), 1);
    } else {
      ++it->second;
    }
  }
  const bool complete = ev.ph == 'X' || ev.ph == 0;
  switch (ci.cat) {
    case Cat::kernel:
    case Cat::memcpy:
    case Cat::memset: {
      if (!complete || !ev.has_ts) return;
      DeviceActivity a;
      a.ts = ev.ts;
      a.dur = ev.dur > 0 ? ev.dur : 0;
      a.correlation = ev.correlation;
      a.has_correlation = ev.has_correlation;
      a.kind = ci.cat == Cat::kernel ? ActivityKind::kernel
                                     : (ci.cat == Cat::memcpy ? ActivityKind::memcpy : ActivityKind::memset);
      a.name_id = intern(ev.name);
      model_.device.push_back(a);
      return;
    }
    case Cat::runtime:
      ++c.runtime_calls;
      if (complete && ev.has_ts && is_launch_call(ev.name)) {
        model_.launches.push_back({ev.ts, ev.dur > 0 ? ev.dur : 0, ev.correlation, ev.has_correlation});
      }
      return;
    case Cat::cpu_op:
      ++c.cpu_ops;
      if (ev.name.size() > 6 && ev.name.substr(0, 6) == "aten::" &&
          (ev.name.find("attention") != std::string_view::npos || ev.name.find("softmax") != std::string_view::npos)) {
        if (classify_attention_op(ev.name) != AttentionOp::none) {
          auto it = model_.attention_ops.find(ev.name);
          if (it == model_.attention_ops.end()) {
            model_.attention_ops.emplace(std::string(ev.name), 1);
          } else {
            ++it->second;
          }
        }
      } else if (ev.name == "Torch-Compiled Region") {
        ++c.compiled_regions;
      }
      return;
    case Cat::user_annotation:
      ++c.user_annotations;
      if (ev.name.substr(0, 13) == "ProfilerStep#") ++c.profiler_steps;
      if (ev.name.substr(0, 24) == "## Call CompiledFxGraph ") ++c.compiled_graph_calls;
      if (complete && ev.has_ts && ev.dur > 0 && model_.regions.size() < kMaxRegions) {
        model_.regions.push_back({ev.ts, ev.dur, intern(ev.name)});
      }
      return;
    case Cat::python_function: ++c.python_functions; return;
    default: return;
  }
}

// Position just after a '}' that is followed by whitespace, ',', whitespace, '{' (a likely event boundary).
std::size_t Scanner::find_cut(std::size_t from) const {
  std::size_t p = from;
  while (p < size_) {
    const void* hit = std::memchr(data_ + p, '}', size_ - p);
    if (hit == nullptr) return std::string::npos;
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - data_);
    std::size_t q = skip_ws(at + 1);
    if (q < size_ && data_[q] == ',') {
      q = skip_ws(q + 1);
      if (q < size_ && data_[q] == '{') return at + 1;
    }
    p = at + 1;
  }
  return std::string::npos;
}

// Parses data_[pos-1 .. cut] as one array: data_[pos-1] is temporarily '[' and, unless final, data_[cut] ']'.
simdjson::error_code Scanner::parse_chunk(std::size_t pos, std::size_t cut, bool final, ChunkResult& out) {
  const std::size_t begin = pos - 1;
  const char saved_begin = data_[begin];
  // final: data_[cut] is the last ']' of the input (already there); otherwise it is replaced.
  const char saved_cut = data_[cut];
  data_[begin] = '[';
  if (!final) data_[cut] = ']';
  const std::size_t len = cut + 1 - begin;
  const std::size_t capacity = size_ + kPadding - begin;
  auto restore_bytes = [&] {
    data_[begin] = saved_begin;
    if (!final) data_[cut] = saved_cut;
  };

  simdjson::error_code err = simdjson::SUCCESS;
  [&] {
    od::document doc;
    if ((err = parser_.iterate(simdjson::padded_string_view(data_ + begin, len, capacity)).get(doc))) return;
    od::array arr;
    if ((err = doc.get_array().get(arr))) return;
    for (auto element : arr) {
      od::object obj;
      if ((err = element.get_object().get(obj))) {
        if (err == simdjson::INCORRECT_TYPE) non_object_element_ = true;
        return;
      }
      Event ev;
      if ((err = read_event(obj, ev))) return;
      take(ev);
    }
    const char* loc = nullptr;
    if (doc.current_location().get(loc) != simdjson::SUCCESS) {  // OUT_OF_BOUNDS: the array was the whole chunk
      out.ended = final;
      out.tail = cut + 1;
      return;
    }
    out.ended = true;
    out.tail = begin + static_cast<std::size_t>(loc - (data_ + begin));
  }();
  restore_bytes();
  return err;
}

Result<std::size_t> Scanner::scan_events(std::size_t begin) {
  std::size_t pos = begin;
  const std::size_t chunk = std::max<std::uint64_t>(options_.chunk_bytes, 4096);
  // Without any ']' after the array start the array cannot be closed: say so first, whatever the chunk size (a
  // chunk cut early could otherwise report what the garbage in it looks like, e.g. a non-object element).
  if (last_bracket(pos) == std::string::npos) {
    return refuse("invalid_json", "truncated JSON: the trace events array is not closed");
  }
  for (;;) {
    bool final = size_ - pos <= chunk;
    std::size_t cut = final ? std::string::npos : find_cut(pos + chunk);
    if (cut == std::string::npos) {
      final = true;
      cut = last_bracket(pos);
      if (cut == std::string::npos)
        return refuse("invalid_json", "truncated JSON: the trace events array is not closed");
    }
    ChunkResult result;
    for (;;) {
      Snapshot snap = snapshot();
      const auto err = parse_chunk(pos, cut, final, result);
      if (err == simdjson::SUCCESS) break;
      restore(std::move(snap));
      if (non_object_element_) {
        return refuse("not_trace_events",
                      "the event array holds values that are not event objects "
                      "(a memory timeline or another JSON dump, not a profiler trace)");
      }
      if (final) {
        return refuse("invalid_json", fmt::format("truncated or invalid JSON in the trace events after byte {} ({})",
                                                  pos, simdjson::error_message(err)));
      }
      cut = find_cut(cut + 1);
      if (cut == std::string::npos) {
        final = true;
        cut = last_bracket(pos);
        if (cut == std::string::npos)
          return refuse("invalid_json", "truncated JSON: the trace events array is not closed");
      }
    }
    if (result.ended) return result.tail;
    pos = skip_ws(cut);
    if (pos >= size_ || data_[pos] != ',') {
      return refuse("invalid_json", fmt::format("invalid JSON between trace events at byte {}", pos));
    }
    pos = pos + 1;
  }
}

Result<void> Scanner::read_envelope(const std::string& text, bool head) {
  simdjson::dom::parser p;
  simdjson::dom::element root;
  const simdjson::padded_string padded(text);
  if (auto err = p.parse(padded).get(root)) {
    return refuse("invalid_json", fmt::format("invalid JSON {} the traceEvents array ({})", head ? "before" : "after",
                                              simdjson::error_message(err)));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj)) return refuse("invalid_json", "the trace is not a JSON object");
  int64_t sv = 0;
  if (!obj["schemaVersion"].get_int64().get(sv)) model_.schema_version = sv;
  simdjson::dom::array props;
  if (!obj["deviceProperties"].get_array().get(props)) {
    for (auto d : props) {
      std::string_view name;
      if (!d["name"].get_string().get(name)) model_.device_names.emplace_back(name);
    }
  }
  return {};
}

Result<TraceModel> Scanner::run() {
  std::size_t p = skip_ws(0);
  if (p >= size_) return refuse("empty", "the file is empty");
  if (data_[p] == '[') {
    const std::size_t first = skip_ws(p + 1);
    if (first >= size_) return refuse("invalid_json", "truncated JSON array");
    if (data_[first] == ']') return refuse("no_events", "an empty JSON array: no trace events");
    if (data_[first] != '{') {
      return refuse("not_trace_events",
                    "a JSON array whose elements are not event objects (a memory timeline or "
                    "another JSON dump, not a profiler trace)");
    }
    PT_ASSIGN(const std::size_t end, scan_events(p + 1));
    if (skip_ws(end) != size_) return refuse("invalid_json", "content after the event array");
    if (model_.counters.events_with_ph == 0) {
      return refuse("not_trace_events", "a JSON array of objects without the trace-event field \"ph\"");
    }
    model_.kind = model_.counters.legacy_events > 0 ? "kineto_legacy" : "event_array";
    return std::move(model_);
  }
  if (data_[p] != '{') return refuse("not_json", "not a JSON trace");

  const std::string_view all(data_, size_);
  std::size_t search = p;
  for (;;) {
    const std::size_t key = all.find("\"traceEvents\"", search);
    if (key == std::string_view::npos) break;
    search = key + 1;
    std::size_t q = skip_ws(key + 13);
    if (q >= size_ || data_[q] != ':') continue;
    q = skip_ws(q + 1);
    if (q >= size_ || data_[q] != '[') continue;
    // The key must be a member of the top-level object: the head closed with an empty array must parse.
    std::string head(all.substr(0, key));
    head += "\"traceEvents\":[]}";
    if (!read_envelope(head, true)) continue;
    PT_ASSIGN(const std::size_t tail, scan_events(q + 1));
    if (tail >= size_) return refuse("invalid_json", "truncated JSON: the trace object is not closed");
    std::string rest = "{\"traceEvents\":[]";
    rest.append(all.substr(tail));
    PT_TRY(read_envelope(rest, false));
    model_.kind = model_.counters.legacy_events > 0 ? "kineto_legacy" : "kineto";
    return std::move(model_);
  }
  // Not a Kineto trace: say what it looks like.
  const std::string_view start = all.substr(0, 4096);
  if (start.find("\"nodes\"") != std::string_view::npos &&
      (start.find("\"schema\"") != std::string_view::npos || start.find("\"finish_ts\"") != std::string_view::npos)) {
    return refuse("execution_trace",
                  "a PyTorch execution trace (\"schema\"/\"nodes\"), not a Kineto profiler trace; export the "
                  "profiler's Chrome trace (prof.export_chrome_trace) instead");
  }
  // A valid object without traceEvents vs a broken file
  simdjson::dom::parser dp;
  simdjson::dom::element root;
  if (dp.parse(data_, size_, false).get(root)) {
    return refuse("invalid_json", "invalid or truncated JSON (no \"traceEvents\" array found)");
  }
  return refuse("no_trace_events", "a JSON object without a \"traceEvents\" array: not a profiler trace");
}

}  // namespace

Result<TraceModel> scan_trace(PaddedBuffer& json, std::string_view file_name, const ClassifyOptions& options) {
  Scanner s(json, file_name, options);
  return s.run();
}

}  // namespace perftriage::analyzers::trace
