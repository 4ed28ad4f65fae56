// Priority tree, need_split and the one-line root cause.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analyzers/labeler/rules.hpp"
#include "analyzers/labeler/vocab.hpp"

namespace perftriage::analyzers::labeler {
namespace {

// "RuntimeError: shape [3, 4] at 0x7f..." -> "runtimeerror: shape [#, #] at #": numbers, addresses, quoted
// names and paths do not make two causes.
std::string signature(std::string_view error) {
  std::string out;
  auto l = lower(trim(error));
  for (std::size_t i = 0; i < l.size(); ++i) {
    char ch = l[i];
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      while (i + 1 < l.size() &&
             (std::isxdigit(static_cast<unsigned char>(l[i + 1])) || l[i + 1] == '.' || l[i + 1] == 'x'))
        ++i;
      out += '#';
    } else if (ch == '\'' || ch == '"' || ch == '`') {
      auto close = l.find(ch, i + 1);
      if (close == std::string::npos) continue;
      out += "''";
      i = close;
    } else {
      out += ch;
    }
    if (out.size() >= 80) break;
  }
  return std::string(trim(out));
}

bool eager_path(const ParsedCase& cs, const std::optional<CaseEvidence>& ev) {
  auto eag = ev && ev->eager_ratio ? ev->eager_ratio : cs.eager_ratio;
  return is_eager_status(cs.status) || (eag && *eag < 0.95);
}

bool inductor_path(const ParsedCase& cs, const std::optional<CaseEvidence>& ev) {
  if (eager_path(cs, ev)) return false;
  auto ind = ev && ev->inductor_ratio ? ev->inductor_ratio : cs.inductor_ratio;
  auto sp = ev && ev->speedup ? ev->speedup : cs.speedup;
  return cs.status == "fail_accuracy" || cs.status == "fail_to_run" || (ind && *ind < 0.95) || (sp && *sp < 1.0);
}

}  // namespace

std::optional<Decision> decide_priority(const Context& c, const std::optional<Decision>& module) {
  if (auto it = c.existing.find("priority"); it != c.existing.end())
    return Decision{it->second.front().first,
                    "Set by a human (" + quote(it->second.front().second) + "); a human value always wins."};
  const auto n = c.scan.cases.size();
  // Urgent
  if (c.perf && c.regression && c.max_drop_pct > 7.0)
    return Decision{"Urgent", "Performance drop of " + format_number(c.max_drop_pct, 1) +
                                  "% (> 7%) against a baseline (" + quote(c.regression_pair, 60) + ")."};
  if (c.perf && c.regression)
    for (std::size_t i = 0; i < n; ++i) {
      const auto& cs = c.scan.cases[i];
      auto ev = i < c.evidence.size() ? c.evidence[i] : std::nullopt;
      auto ind = ev && ev->inductor_ratio ? ev->inductor_ratio : cs.inductor_ratio;
      auto eag = ev && ev->eager_ratio ? ev->eager_ratio : cs.eager_ratio;
      if (ind && *ind < 0.93)
        return Decision{"Urgent", "Inductor ratio " + format_number(*ind) + " against the baseline (> 7% drop) in " +
                                      cs.display() + "."};
      if (eag && *eag < 0.93)
        return Decision{"Urgent", "Eager ratio " + format_number(*eag) + " against the baseline (> 7% drop) in " +
                                      cs.display() + "."};
    }
  if (c.crash && module && module->key == "core") return Decision{"Urgent", "Crash in a core API."};
  if (module && module->key == "build" && (c.functionality || !c.error_lines.empty()))
    return Decision{"Urgent", "Build break."};
  // High
  if (n > 6) return Decision{"High", std::to_string(n) + " cases (> 6)."};
  if (c.regression && c.accuracy)
    return Decision{"High", "Accuracy regression (" + quote(c.regression_pair, 60) + ")."};
  if (c.regression) return Decision{"High", "Before/after regression (" + quote(c.regression_pair, 60) + ")."};
  if (c.hang) return Decision{"High", "Hang."};
  if (feature_wording(c)) return Decision{"Low", "Feature wording in the title."};
  const auto* axis = c.tax->axis("priority");
  if (axis && !axis->fallback.empty())
    return Decision{axis->fallback, "Default: no urgent or high-priority trigger.", true};
  return std::nullopt;
}

std::optional<Decision> decide_need_split(const Context& c) {
  const auto& cases = c.scan.cases;
  auto ev_of = [&](std::size_t i) { return i < c.evidence.size() ? c.evidence[i] : std::nullopt; };
  // 1. Classifier verdicts that differ between cases (data-backed).
  std::map<std::string, std::string> verdict_groups;  // verdict -> first case
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto ev = ev_of(i);
    if (ev && !ev->verdicts.empty()) verdict_groups.emplace(ev->verdicts.front(), cases[i].display());
  }
  if (verdict_groups.size() >= 2) {
    std::vector<std::string> parts;
    for (const auto& [v, cs] : verdict_groups) parts.push_back(cs + ": " + v);
    return Decision{"need_split", "Classifier verdicts differ: " + join(parts, "; ") + "."};
  }
  // 2. An E2E report mixing inductor-path and eager-path regressions.
  std::string ind, eag;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!cases[i].e2e) continue;
    if (eager_path(cases[i], ev_of(i)) && eag.empty()) eag = cases[i].display();
    if (inductor_path(cases[i], ev_of(i)) && ind.empty()) ind = cases[i].display();
  }
  if (!ind.empty() && !eag.empty())
    return Decision{"need_split", "Mixes an inductor-path case (" + ind + ") and an eager-path case (" + eag + ")."};
  // 3. Normalised error signatures of the cases.
  std::map<std::string, std::string> groups;
  for (const auto& cs : cases) {
    std::string sig = !cs.error.empty() ? signature(cs.error) : cs.status;
    if (!sig.empty()) groups.emplace(sig, cs.display());
  }
  if (groups.size() >= 2) {
    std::vector<std::string> parts;
    for (const auto& [sig, cs] : groups) parts.push_back(quote(sig, 50));
    return Decision{"need_split",
                    std::to_string(groups.size()) + " different error signatures: " + join(parts, ", ") + "."};
  }
  return std::nullopt;
}

std::string root_cause(const Context& c, bool need_split) {
  const auto& cases = c.scan.cases;
  std::string out;
  if (need_split) out = "Several causes in one issue (need_split); ";
  const CaseEvidence* ev1 = !c.evidence.empty() && c.evidence.front() ? &*c.evidence.front() : nullptr;
  if (!cases.empty()) {
    const auto& first = cases.front();
    if (first.error.size() > 0) {
      out += "case 1 fails with " + quote(first.error, 100);
    } else if (first.speedup && *first.speedup < 1) {
      out += "inductor slower than eager (speedup " + format_number(*first.speedup) + ") on " + first.display();
    } else if (!first.status.empty()) {
      out += first.status + " on " + first.display();
    } else if (!c.error_lines.empty()) {
      out += quote(c.error_lines.front(), 100) + " on " + first.display();
    } else {
      out += (c.perf ? "performance gap on " : "reported on ") + first.display();
    }
    if (cases.size() > 1) out += "; " + std::to_string(cases.size()) + " cases";
  } else if (!c.error_lines.empty()) {
    out += quote(c.error_lines.front(), 120);
  } else {
    out += c.title.rest.empty() ? std::string("no case or error text found") : quote(c.title.rest, 120);
  }
  if (ev1 && !ev1->verdicts.empty()) out += "; classifier: " + join(ev1->verdicts, ", ");
  return out + ".";
}

}  // namespace perftriage::analyzers::labeler
