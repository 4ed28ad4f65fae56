// TORCH_TRACE structured logs (the format tlparse reads): glog prefix + one JSON envelope per line,
// payload lines after it with a leading TAB.
#include <set>
#include <string>

#include "analyzers/trace/compile_log.hpp"

namespace perftriage::analyzers::trace {

namespace {

std::int64_t int_or(const nlohmann::json& j, const char* key, std::int64_t fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

// A string member, or "" when it is absent or not a string (json::value throws type_error 302 on a number).
std::string str_or_empty(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

std::string first_line(const std::string& s, std::size_t max = 300) {
  std::string out = s.substr(0, s.find('\n'));
  if (out.size() > max) out = out.substr(0, max) + "...";
  return out;
}

// Reads the log line by line into a CompileLog: envelopes, and the payload of the artifacts it keeps.
class TlparseReader {
 public:
  explicit TlparseReader(CompileLog& log) : log_(log) {}

  void line(std::string_view line) {
    if (!line.empty() && line[0] == '\t') {
      if (!pending_artifact_.empty() && payload_.size() < (1 << 20)) {
        payload_.append(line.substr(1));
        payload_.push_back('\n');
      }
      return;
    }
    flush_payload();
    const std::string_view rest = strip_glog(line);
    if (rest.size() == line.size() || rest.empty() || rest.front() != '{') return;
    auto env = nlohmann::json::parse(rest, nullptr, false);
    if (!env.is_object()) return;
    ++log_.envelopes;
    const std::int64_t frame = int_or(env, "frame_id", -1);
    const std::int64_t compile = int_or(env, "frame_compile_id", -1);
    const std::string frame_label = frame >= 0 ? std::to_string(frame) + "/" + std::to_string(compile) : "";
    if (frame >= 0) {
      log_.frames.insert(frame);
      if (compile > 0) recompile_ids_.emplace(frame, compile);
    }
    if (env.contains("dynamo_start")) {
      log_.has_dynamo = true;
    } else if (auto it = env.find("compilation_metrics"); it != env.end() && it->is_object()) {
      compilation_metrics(*it, frame_label);
    } else if (auto a = env.find("artifact"); a != env.end() && a->is_object()) {
      const std::string name = str_or_empty(*a, "name");
      if (name == "recompile_reasons" || name == "dynamo_graph_break_reason" || name == "dynamo_error") {
        pending_artifact_ = name;
        pending_frame_ = frame_label;
      }
    }
  }

  void finish() {
    flush_payload();
    log_.recompiles = static_cast<std::int64_t>(recompile_ids_.size());
    log_.graph_breaks = have_metric_breaks_ ? metric_breaks_ : std::max(restart_breaks_, artifact_breaks_);
  }

 private:
  // The payload of the artifact that ended: recompile reasons, a graph break reason, a frame's error.
  void flush_payload() {
    if (pending_artifact_.empty()) return;
    if (pending_artifact_ == "recompile_reasons") {
      auto list = nlohmann::json::parse(payload_, nullptr, false);
      std::set<std::string> once;
      if (list.is_array()) {
        for (const auto& r : list) {
          if (r.is_string() && once.insert(normalise_reason(r.get<std::string>())).second) {
            ++log_.recompile_reasons[normalise_reason(r.get<std::string>())];
          }
        }
      }
    } else if (pending_artifact_ == "dynamo_graph_break_reason") {
      ++artifact_breaks_;
      std::string reason = first_line(payload_);
      const auto p = reason.find("Graph Break Reason: ");
      if (p != std::string::npos) reason = reason.substr(p + 20);
      add_reason(log_, reason, "");
    } else if (pending_artifact_ == "dynamo_error") {
      bool attached = false;
      for (auto& f : log_.failures) {
        if (f.value("frame", "") == pending_frame_ && !f.contains("error")) {
          f["error"] = first_line(payload_);
          attached = true;
        }
      }
      if (!attached) log_.failures.push_back({{"frame", pending_frame_}, {"error", first_line(payload_)}});
    }
    pending_artifact_.clear();
    payload_.clear();
  }

  // One frame's compile: graph breaks, restarts, a recompile reason, a failure.
  void compilation_metrics(const nlohmann::json& m, const std::string& frame_label) {
    log_.has_dynamo = true;
    ++log_.compiles;
    if (auto nb = m.find("num_graph_breaks"); nb != m.end() && nb->is_number_integer()) {
      have_metric_breaks_ = true;
      metric_breaks_ += nb->get<std::int64_t>();
    }
    std::string where = str_or_empty(m, "co_name");
    if (m.contains("co_filename") && m["co_filename"].is_string()) {
      where = m["co_filename"].get<std::string>() + ":" + std::to_string(int_or(m, "co_firstlineno", 0)) +
              (where.empty() ? "" : " (" + where + ")");
    }
    if (auto rr = m.find("restart_reasons"); rr != m.end() && rr->is_array() && !rr->empty()) {
      ++log_.restarts;
      ++restart_breaks_;
      for (const auto& r : *rr) {
        if (r.is_string()) add_reason(log_, r.get<std::string>(), where);
      }
    }
    if (auto rc = m.find("recompile_reason"); rc != m.end() && rc->is_string() && !rc->get<std::string>().empty()) {
      // counted from the recompile_reasons artifact when there is one; kept as a fallback
      if (log_.recompile_reasons.empty()) ++log_.recompile_reasons[normalise_reason(rc->get<std::string>())];
    }
    if (auto ft = m.find("fail_type"); ft != m.end() && ft->is_string()) failure(m, *ft, frame_label, where);
  }

  // A failed compile, merged into the frame's dynamo_error entry when there is one.
  void failure(const nlohmann::json& m, const nlohmann::json& fail_type, const std::string& frame_label,
               const std::string& where) {
    nlohmann::json f = {{"frame", frame_label}, {"fail_type", fail_type.get<std::string>()}, {"where", where}};
    if (auto fr = m.find("fail_reason"); fr != m.end() && fr->is_string()) {
      std::string reason = fr->get<std::string>();
      for (char& ch : reason) {
        if (ch == '\n') ch = ' ';
      }
      f["fail_reason"] = first_line(reason);
    }
    for (auto& existing : log_.failures) {
      if (existing.value("frame", "") == frame_label && !existing.contains("fail_type")) {
        existing.update(f);
        return;
      }
    }
    log_.failures.push_back(std::move(f));
  }

  CompileLog& log_;
  std::set<std::pair<std::int64_t, std::int64_t>> recompile_ids_;
  std::int64_t restart_breaks_ = 0;
  std::int64_t artifact_breaks_ = 0;
  std::int64_t metric_breaks_ = 0;
  bool have_metric_breaks_ = false;
  std::string pending_artifact_;  // artifact whose payload follows
  std::string payload_;
  std::string pending_frame_;
};

}  // namespace

void parse_tlparse(std::string_view text, CompileLog& log) {
  TlparseReader reader(log);
  for_each_line(text, [&](std::string_view line) { reader.line(line); });
  reader.finish();
}

}  // namespace perftriage::analyzers::trace
