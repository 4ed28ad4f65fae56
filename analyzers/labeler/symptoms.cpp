// Symptoms: performance, Accuracy, functionality (only when neither fires), regression (only with a before/after
// pair), random, and inference / training from case 1.
#include <regex>

#include "analyzers/labeler/rules.hpp"
#include "analyzers/labeler/vocab.hpp"

namespace perftriage::analyzers::labeler {
namespace {

// The first of `words` found as a whole word in `text`; empty when none.
std::string first_word(std::string_view text, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (contains_word(text, w)) return std::string(w);
  return "";
}
std::string first_sub(std::string_view text, std::initializer_list<std::string_view> subs) {
  for (auto w : subs)
    if (text.find(w) != std::string_view::npos) return std::string(w);
  return "";
}

// The line of the body holding `needle` (lower-case), as written.
std::string line_with(const Context& c, std::string_view needle) {
  if (lower(c.title.rest).find(needle) != std::string::npos) return c.title.rest;
  for (const auto& l : c.claim_lines)
    if (lower(l).find(needle) != std::string::npos) return l;
  return std::string(needle);
}

// Before/after pairs: "2.13 vs 2.12", "compared with 2.12", "last good / current", "passed ... fails".
std::string regression_pair(const Context& c) {
  static const std::regex kVersions(
      R"((?:torch|pytorch|release|nightly|v)?\s*\b\d+\.\d+(?:\.\d+)?\b\S*\s*(?:vs\.?|versus|->|→|against|compared (?:with|to))\s*(?:torch|pytorch|release|nightly|v)?\s*\d+\.\d+)");
  static const std::regex kPassedFails(
      R"(\b(?:pass(?:ed|es)?|work(?:ed|s)?|was fine|good)\b(?:[^.\n]|\.\d){0,100}\b(?:but\s+)?(?:fail(?:s|ed|ing)?|broken|breaks|regress\w*|crash\w*|slower|hangs?)\b)");
  static const std::regex kCompared(
      R"(\bcompared (?:with|to)\s+(?!eager\b|inductor\b|cpu\b|cuda\b|a100\b|h100\b|the eager\b|nvidia\b)\S+)");
  const auto& text = c.claims_lower;
  std::smatch m;
  if (std::regex_search(text, m, kVersions)) return m.str();
  if (auto w = first_sub(text, {"last good", "first bad", "good commit", "bad commit", "last known good",
                                "used to pass", "used to work", "previous release", "previous nightly",
                                "since commit", "git bisect", "bisected"});
      !w.empty())
    return w;
  if (std::regex_search(text, m, kCompared)) return m.str();
  if (std::regex_search(text, m, kPassedFails)) return m.str();
  // A before/after table: one header row naming two versions ("| 2.12 | 2.13 |").
  static const std::regex kVersion(R"(\b[1-9]\.\d{1,2}\b)");
  for (std::size_t i = 0; i + 1 < c.claim_lines.size(); ++i) {
    const auto& l = c.claim_lines[i];
    if (l.find('|') == std::string::npos || c.claim_lines[i + 1].find("--") == std::string::npos) continue;
    std::set<std::string> versions;
    for (auto it = std::sregex_iterator(l.begin(), l.end(), kVersion); it != std::sregex_iterator(); ++it)
      versions.insert(it->str());
    if (versions.size() >= 2) return std::string(trim(l));
  }
  return "";
}

double max_drop_percent(const std::string& text) {
  static const std::regex kPct1(R"((\d+(?:\.\d+)?)\s*%\s*(?:drop|regression|slower|decrease|lower|perf(?:ormance)? drop|worse))");
  static const std::regex kPct2(R"((?:drop(?:s|ped)?|regress(?:ed|ion)?|slower|decrease[sd]?|down)\s+(?:of\s+|by\s+|is\s+)?(?:~|about\s+)?(\d+(?:\.\d+)?)\s*%)");
  static const std::regex kPct3(R"(-\s?(\d+(?:\.\d+)?)\s*%)");
  double best = 0;
  for (const auto* re : {&kPct1, &kPct2, &kPct3})
    for (auto it = std::sregex_iterator(text.begin(), text.end(), *re); it != std::sregex_iterator(); ++it)
      best = std::max(best, std::stod((*it)[1].str()));
  return best;
}

std::string evidence_text(const CaseEvidence& ev) {
  std::vector<std::string> parts;
  if (ev.speedup) parts.push_back("measured speedup " + format_number(*ev.speedup));
  if (ev.inductor_ratio) parts.push_back("inductor ratio " + format_number(*ev.inductor_ratio));
  if (ev.eager_ratio) parts.push_back("eager ratio " + format_number(*ev.eager_ratio));
  if (!ev.verdicts.empty()) parts.push_back("classifier: " + join(ev.verdicts, ", "));
  auto s = join(parts, "; ");
  if (!ev.source.empty()) s += " (" + ev.source + ")";
  return s;
}

}  // namespace

std::vector<Decision> decide_symptoms(Context& c) {
  std::vector<Decision> out;
  const auto& text = c.claims_lower;
  const auto& cases = c.scan.cases;
  const CaseEvidence* ev1 = !c.evidence.empty() && c.evidence.front() ? &*c.evidence.front() : nullptr;

  // performance
  std::string perf;
  for (const auto& cs : cases) {
    if (cs.speedup) {
      perf = "speedup " + format_number(*cs.speedup) + (*cs.speedup < 1 ? " < 1: inductor slower than eager" : "") +
             " (" + cs.display() + ").";
      break;
    }
    if (cs.inductor_ratio || cs.eager_ratio) {
      perf = "ratio column in the case table (" + cs.display() + ").";
      break;
    }
  }
  for (const auto& h : c.title.hits)
    if (perf.empty() && h.axis == "symptom" && h.key == "performance") perf = "Title tag [" + h.tag + "].";
  if (perf.empty()) {
    if (auto w = first_word(text, {"speedup", "slower", "latency", "throughput", "ratio", "perf regression",
                                   "perf drop", "performance drop", "performance regression", "tflops",
                                   "tokens/s", "ms/iter", "it/s", "qps"});
        !w.empty())
      perf = quote(line_with(c, w), 90) + ".";
  }
  c.max_drop_pct = max_drop_percent(text);
  if (perf.empty() && c.max_drop_pct > 0) perf = "States a " + format_number(c.max_drop_pct, 1) + "% drop.";
  if (ev1 && ev1->speedup) {
    if (perf.empty() && *ev1->speedup < 1) perf = "Data:";
    if (!perf.empty()) perf += " Data: " + evidence_text(*ev1) + ".";
  }
  if (!perf.empty()) {
    c.perf = true;
    out.push_back({"performance", perf});
  }

  // Accuracy
  std::string acc;
  for (const auto& cs : cases)
    if (cs.status == "fail_accuracy") {
      acc = "fail_accuracy (" + cs.display() + ").";
      break;
    }
  for (const auto& h : c.title.hits)
    if (acc.empty() && h.axis == "symptom" && h.key == "Accuracy") acc = "Title tag [" + h.tag + "].";
  if (acc.empty()) {
    if (auto w = first_sub(text, {"fail_accuracy", "not close", "mismatch", "atol", "rtol", "rmse",
                                  "wrong result", "incorrect result", "accuracy check failed", "accuracy issue",
                                  "accuracy failure", "accuracy failed", "accuracy drop", "accuracy error"});
        !w.empty())
      acc = quote(line_with(c, w), 90) + ".";
  }
  if (!acc.empty()) {
    c.accuracy = true;
    out.push_back({"Accuracy", acc});
  }

  // hang / crash / error -> functionality, only when neither of the above fires
  auto hang = first_word(text, {"hang", "hangs", "hung", "hanging", "stuck", "deadlock", "freezes", "timed out",
                                "timeout"});
  auto crash = first_sub(text, {"segmentation fault", "segfault", "core dumped", "sigsegv", "sigabrt", "crash",
                                "device lost", "aborted"});
  for (const auto& cs : cases)
    if (hang.empty() && cs.status == "timeout") hang = "timeout";
  c.hang = !hang.empty();
  c.crash = !crash.empty();
  std::string func;
  if (!hang.empty()) func = "Hang: " + quote(line_with(c, hang), 90) + ".";
  else if (!crash.empty()) func = "Crash: " + quote(line_with(c, crash), 90) + ".";
  else {
    for (const auto& cs : cases)
      if (cs.status.find("fail_to_run") != std::string::npos || cs.status.find("run_fail") != std::string::npos ||
          cs.status == "model_fail_to_load") {
        func = cs.status + " (" + cs.display() + ").";
        break;
      }
    if (func.empty() && !c.error_lines.empty()) func = "Error: " + quote(c.error_lines.front(), 90) + ".";
    if (func.empty())
      if (auto w = first_word(text, {"not implemented", "not supported", "fails", "failed", "failure", "error"});
          !w.empty())
        func = quote(line_with(c, w), 90) + ".";
  }
  if (!func.empty() && !c.perf && !c.accuracy) {
    c.functionality = true;
    out.push_back({"functionality", func});
  }
  if (c.crash && !c.hang) out.push_back({"crash", "Crash: " + quote(line_with(c, crash), 90) + "."});

  // regression: only with a before/after pair
  c.regression_pair = regression_pair(c);
  if (!c.regression_pair.empty()) {
    c.regression = true;
    out.push_back({"regression", "Before/after pair " + quote(c.regression_pair, 90) + "."});
  } else if (ev1 && ((ev1->inductor_ratio && *ev1->inductor_ratio < 0.95) ||
                     (ev1->eager_ratio && *ev1->eager_ratio < 0.95))) {
    c.regression = true;
    out.push_back({"regression", "Data against the baseline: " + evidence_text(*ev1) + "."});
  }

  // random
  if (auto w = first_word(text, {"flaky", "flakiness", "intermittent", "intermittently", "randomly", "sometimes",
                                 "occasionally", "non-deterministic", "nondeterministic", "not always",
                                 "random failure", "sporadic", "sporadically"});
      !w.empty())
    out.push_back({"random", quote(line_with(c, w), 90) + "."});

  // inference / training: from case 1, else the title
  std::string mode;
  std::string why;
  if (!cases.empty() && !cases.front().mode.empty()) {
    mode = cases.front().mode;
    why = "Case 1 (" + cases.front().display() + ") is a" + (mode == "inference" ? "n " : " ") + mode + " run.";
  } else if (cases.empty() || !cases.front().e2e) {
    auto m = parse_combined(lower(c.title.rest)).mode;
    if (!m.empty()) mode = m, why = "Title says " + quote(m) + ".";
  }
  if (!mode.empty()) out.push_back({mode, why});
  return out;
}

}  // namespace perftriage::analyzers::labeler
