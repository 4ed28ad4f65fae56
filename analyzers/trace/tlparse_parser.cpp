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

}  // namespace

void parse_tlparse(std::string_view text, CompileLog& log) {
  std::set<std::pair<std::int64_t, std::int64_t>> recompile_ids;
  std::int64_t restart_breaks = 0;
  std::int64_t artifact_breaks = 0;
  std::int64_t metric_breaks = 0;
  bool have_metric_breaks = false;
  std::string pending_artifact;  // artifact whose payload follows
  std::string payload;
  std::string pending_frame;

  auto flush_payload = [&] {
    if (pending_artifact.empty()) return;
    if (pending_artifact == "recompile_reasons") {
      auto list = nlohmann::json::parse(payload, nullptr, false);
      std::set<std::string> once;
      if (list.is_array()) {
        for (const auto& r : list) {
          if (r.is_string() && once.insert(normalise_reason(r.get<std::string>())).second) {
            ++log.recompile_reasons[normalise_reason(r.get<std::string>())];
          }
        }
      }
    } else if (pending_artifact == "dynamo_graph_break_reason") {
      ++artifact_breaks;
      std::string reason = first_line(payload);
      const auto p = reason.find("Graph Break Reason: ");
      if (p != std::string::npos) reason = reason.substr(p + 20);
      add_reason(log, reason, "");
    } else if (pending_artifact == "dynamo_error") {
      bool attached = false;
      for (auto& f : log.failures) {
        if (f.value("frame", "") == pending_frame && !f.contains("error")) {
          f["error"] = first_line(payload);
          attached = true;
        }
      }
      if (!attached) log.failures.push_back({{"frame", pending_frame}, {"error", first_line(payload)}});
    }
    pending_artifact.clear();
    payload.clear();
  };

  for_each_line(text, [&](std::string_view line) {
    if (!line.empty() && line[0] == '\t') {
      if (!pending_artifact.empty() && payload.size() < (1 << 20)) {
        payload.append(line.substr(1));
        payload.push_back('\n');
      }
      return;
    }
    flush_payload();
    const std::string_view rest = strip_glog(line);
    if (rest.size() == line.size() || rest.empty() || rest.front() != '{') return;
    auto env = nlohmann::json::parse(rest, nullptr, false);
    if (!env.is_object()) return;
    ++log.envelopes;
    const std::int64_t frame = int_or(env, "frame_id", -1);
    const std::int64_t compile = int_or(env, "frame_compile_id", -1);
    const std::string frame_label = frame >= 0 ? std::to_string(frame) + "/" + std::to_string(compile) : "";
    if (frame >= 0) {
      log.frames.insert(frame);
      if (compile > 0) recompile_ids.emplace(frame, compile);
    }
    if (env.contains("dynamo_start")) {
      log.has_dynamo = true;
    } else if (auto it = env.find("compilation_metrics"); it != env.end() && it->is_object()) {
      const auto& m = *it;
      log.has_dynamo = true;
      ++log.compiles;
      if (auto nb = m.find("num_graph_breaks"); nb != m.end() && nb->is_number_integer()) {
        have_metric_breaks = true;
        metric_breaks += nb->get<std::int64_t>();
      }
      std::string where = str_or_empty(m, "co_name");
      if (m.contains("co_filename") && m["co_filename"].is_string()) {
        where = m["co_filename"].get<std::string>() + ":" + std::to_string(int_or(m, "co_firstlineno", 0)) +
                (where.empty() ? "" : " (" + where + ")");
      }
      if (auto rr = m.find("restart_reasons"); rr != m.end() && rr->is_array() && !rr->empty()) {
        ++log.restarts;
        ++restart_breaks;
        for (const auto& r : *rr) {
          if (r.is_string()) add_reason(log, r.get<std::string>(), where);
        }
      }
      if (auto rc = m.find("recompile_reason"); rc != m.end() && rc->is_string() && !rc->get<std::string>().empty()) {
        // counted from the recompile_reasons artifact when there is one; kept as a fallback
        if (log.recompile_reasons.empty()) ++log.recompile_reasons[normalise_reason(rc->get<std::string>())];
      }
      if (auto ft = m.find("fail_type"); ft != m.end() && ft->is_string()) {
        nlohmann::json f = {{"frame", frame_label}, {"fail_type", ft->get<std::string>()}, {"where", where}};
        if (auto fr = m.find("fail_reason"); fr != m.end() && fr->is_string()) {
          std::string reason = fr->get<std::string>();
          for (char& ch : reason) {
            if (ch == '\n') ch = ' ';
          }
          f["fail_reason"] = first_line(reason);
        }
        bool merged = false;
        for (auto& existing : log.failures) {
          if (existing.value("frame", "") == frame_label && !existing.contains("fail_type")) {
            existing.update(f);
            merged = true;
            break;
          }
        }
        if (!merged) log.failures.push_back(std::move(f));
      }
    } else if (auto a = env.find("artifact"); a != env.end() && a->is_object()) {
      const std::string name = str_or_empty(*a, "name");
      if (name == "recompile_reasons" || name == "dynamo_graph_break_reason" || name == "dynamo_error") {
        pending_artifact = name;
        pending_frame = frame_label;
      }
    }
  });
  flush_payload();
  log.recompiles = static_cast<std::int64_t>(recompile_ids.size());
  log.graph_breaks = have_metric_breaks ? metric_breaks : std::max(restart_breaks, artifact_breaks);
}

}  // namespace perftriage::analyzers::trace
