// Symptoms: performance, Accuracy, functionality (only when neither fires), regression (only with a before/after
// pair), random, and inference / training from case 1.
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "analyzers/labeler/re.hpp"
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

// "compared with X" where X is not the eager / inductor / other-device baseline of one run. std::regex had this as a
// negative lookahead, which RE2 lacks: every "compared with|to <word>" is matched and the excluded words skipped.
std::string compared_with_baseline(std::string_view text) {
  static const Regex kCompared(R"(\bcompared (?:with|to)\s+(\S+))");
  static constexpr std::string_view kBaselines[] = {"eager", "inductor", "cpu",       "cuda",
                                                    "a100",  "h100",     "the eager", "nvidia"};
  auto is_word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  Match m;
  for (std::size_t from = 0; re_search(text, kCompared, m, from); from = m.begin(text) + 1) {
    // The lookahead looked at the text after the spaces, beyond the \S+ token ("the eager" spans two).
    const auto at = static_cast<std::size_t>(m.g[1].data() - text.data());
    const auto rest = text.substr(at);
    bool baseline = false;
    for (auto b : kBaselines)
      if (rest.starts_with(b) && (rest.size() == b.size() || !is_word(rest[b.size()]))) baseline = true;
    if (!baseline) return m.str();
  }
  return "";
}

// Before/after pairs: "2.13 vs 2.12", "compared with 2.12", "last good / current", "passed ... fails".
std::string regression_pair(const Context& c) {
  static const Regex kVersions(
      R"((?:torch|pytorch|release|nightly|v)?\s*\b\d+\.\d+(?:\.\d+)?\b\S*\s*(?:vs\.?|versus|->|→|against|compared (?:with|to))\s*(?:torch|pytorch|release|nightly|v)?\s*\d+\.\d+)");
  static const Regex kPassedFails(
      R"(\b(?:pass(?:ed|es)?|work(?:ed|s)?|was fine|good)\b(?:[^.\n]|\.\d){0,100}\b(?:but\s+)?(?:fail(?:s|ed|ing)?|broken|breaks|regress\w*|crash\w*|slower|hangs?)\b)");
  // "regression from PyTorch 2.0.1", "3x slower than PyTorch 1.11", "fails on latest nightly": the named version
  // (or the last build) was the good one.
  static const Regex kFrom(
      R"(\b(?:regress\w*|slower|worse|degradation)\s+(?:than|from|since)\s+(?:torch|pytorch|release|nightly|v)\s*\d+\.\d+)");
  static const Regex kLatest(
      R"(\b(?:fail\w*|broken|breaks|crash\w*|regress\w*|slower)\b[^.\n]{0,40}\b(?:on|with|in)\s+(?:the\s+)?latest\s+(?:nightly|release|build|wheel)\b)");
  const auto& text = c.claims_lower;
  Match m;
  if (re_search(text, kVersions, m)) return m.str();
  if (re_search(text, kFrom, m) || re_search(text, kLatest, m)) return m.str();
  if (auto w = first_sub(
          text, {"last good", "first bad", "good commit", "bad commit", "last known good", "used to pass",
                 "used to work", "previous release", "previous nightly", "since commit", "git bisect", "bisected"});
      !w.empty())
    return w;
  if (auto cmp = compared_with_baseline(text); !cmp.empty()) return cmp;
  check(c.budget);
  if (re_search(text, kPassedFails, m)) return m.str();
  // A before/after table: one header row naming two versions ("| 2.12 | 2.13 |").
  static const Regex kVersion(R"(\b[1-9]\.\d{1,2}\b)");
  for (std::size_t i = 0; i + 1 < c.claim_lines.size(); ++i) {
    tick(c.budget);
    const auto& l = c.claim_lines[i];
    if (l.find('|') == std::string::npos || c.claim_lines[i + 1].find("--") == std::string::npos) continue;
    std::set<std::string> versions;
    re_each(l, kVersion, [&](const Match& vm) { versions.insert(vm.str()); });
    if (versions.size() >= 2) return std::string(trim(l));
  }
  return "";
}

double max_drop_percent(const std::string& text, Budget* budget) {
  static const Regex kPct1(
      R"((\d+(?:\.\d+)?)\s*%\s*(?:drop|regression|slower|slowdown|decrease|lower|perf(?:ormance)? drop|worse))");
  static const Regex kPct2(
      R"((?:drop(?:s|ped)?|regress(?:es|ed|ion)?|slower|decrease[sd]?|down)\s+(?:of\s+|by\s+|is\s+)?(?:~|about\s+)?(\d+(?:\.\d+)?)\s*%)");
  static const Regex kPct3(R"(-\s?(\d+(?:\.\d+)?)\s*%)");
  double best = 0;
  for (const auto* re : {&kPct1, &kPct2, &kPct3}) {
    re_each(text, *re, [&](const Match& pm) {
      tick(budget);
      // from_chars, not std::stod: a 60,000-digit number is out of range, not an exception.
      double v = 0;
      const auto g = pm.g[1];
      auto [ptr, ec] = std::from_chars(g.data(), g.data() + g.size(), v);
      if (ec == std::errc{} && std::isfinite(v)) best = std::max(best, v);
    });
    check(budget);
  }
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

// Why the issue is about performance ("" when it is not): case 1's speedup or ratio, a title tag, a performance word,
// a stated drop; with the data of case 1 added. Sets c.max_drop_pct.
std::string performance_reason(Context& c, const CaseEvidence* ev1) {
  const auto& text = c.claims_lower;
  std::string perf;
  for (const auto& cs : c.scan.cases) {
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
  // The title says it is about performance or speed ("Some models performance on 1100 lower than ..."), and the
  // body shows no error in its place ("Poor performance of ..." over a RuntimeError is a functional failure).
  if (auto w = first_word(lower(c.title.rest), {"performance", "perf", "slow", "slowdown", "speed"});
      perf.empty() && !w.empty() && c.error_lines.empty())
    perf = "Title says " + quote(w) + ".";
  if (perf.empty()) {
    if (auto w = first_word(
            text, {"speedup", "slower", "latency", "throughput", "ratio", "perf regression", "perf drop",
                   "performance drop", "performance regression", "tflops", "tokens/s", "ms/iter", "it/s", "qps",
                   "slowdown", "speed degradation", "performance degradation", "very slow", "worse performance"});
        !w.empty())
      perf = quote(line_with(c, w), 90) + ".";
  }
  c.max_drop_pct = max_drop_percent(text, c.budget);
  if (perf.empty() && c.max_drop_pct > 0) perf = "States a " + format_number(c.max_drop_pct, 1) + "% drop.";
  if (ev1 && ev1->speedup) {
    if (perf.empty() && *ev1->speedup < 1) perf = "Data:";
    if (!perf.empty()) perf += " Data: " + evidence_text(*ev1) + ".";
  }
  return perf;
}

// Why the issue is about accuracy ("" when it is not): a fail_accuracy case, a title tag, an accuracy phrase.
std::string accuracy_reason(const Context& c) {
  for (const auto& cs : c.scan.cases)
    if (cs.status == "fail_accuracy") return "fail_accuracy (" + cs.display() + ").";
  for (const auto& h : c.title.hits)
    if (h.axis == "symptom" && h.key == "Accuracy") return "Title tag [" + h.tag + "].";
  if (auto w = first_sub(c.claims_lower, {"fail_accuracy", "not close", "mismatch", "atol", "rtol", "rmse",
                                          "wrong result", "incorrect result", "accuracy check failed", "accuracy issue",
                                          "accuracy failure", "accuracy failed", "accuracy drop", "accuracy error"});
      !w.empty())
    return quote(line_with(c, w), 90) + ".";
  return {};
}

// Hang, crash, a failing case status, an error line or a failure word. Sets c.hang and c.crash; `crash` gets the
// crash phrase.
std::string functionality_reason(Context& c, std::string& crash) {
  const auto& text = c.claims_lower;
  auto hang =
      first_word(text, {"hang", "hangs", "hung", "hanging", "stuck", "deadlock", "freezes", "timed out", "timeout"});
  crash = first_sub(
      text, {"segmentation fault", "segfault", "core dumped", "sigsegv", "sigabrt", "crash", "device lost", "aborted"});
  for (const auto& cs : c.scan.cases)
    if (hang.empty() && cs.status == "timeout") hang = "timeout";
  c.hang = !hang.empty();
  c.crash = !crash.empty();
  if (!hang.empty()) return "Hang: " + quote(line_with(c, hang), 90) + ".";
  if (!crash.empty()) return "Crash: " + quote(line_with(c, crash), 90) + ".";
  for (const auto& cs : c.scan.cases)
    if (cs.status.find("fail_to_run") != std::string::npos || cs.status.find("run_fail") != std::string::npos ||
        cs.status == "model_fail_to_load")
      return cs.status + " (" + cs.display() + ").";
  if (!c.error_lines.empty()) return "Error: " + quote(c.error_lines.front(), 90) + ".";
  if (auto w = first_word(text, {"not implemented", "not supported", "fails", "failed", "failure", "error"});
      !w.empty())
    return quote(line_with(c, w), 90) + ".";
  return {};
}

// Regression only with a before/after pair, or data of case 1 below 0.95 of the baseline. Sets c.regression_pair.
std::optional<Decision> regression_decision(Context& c, const CaseEvidence* ev1) {
  c.regression_pair = regression_pair(c);
  if (!c.regression_pair.empty())
    return Decision{"regression", "Before/after pair " + quote(c.regression_pair, 90) + "."};
  if (ev1 && ((ev1->inductor_ratio && *ev1->inductor_ratio < 0.95) || (ev1->eager_ratio && *ev1->eager_ratio < 0.95)))
    return Decision{"regression", "Data against the baseline: " + evidence_text(*ev1) + "."};
  return std::nullopt;
}

// inference / training: from case 1, else the title.
std::optional<Decision> mode_decision(const Context& c) {
  const auto& cases = c.scan.cases;
  if (!cases.empty() && !cases.front().mode.empty()) {
    const std::string& mode = cases.front().mode;
    return Decision{
        mode, "Case 1 (" + cases.front().display() + ") is a" + (mode == "inference" ? "n " : " ") + mode + " run."};
  }
  if (cases.empty() || !cases.front().e2e) {
    auto m = parse_combined(lower(c.title.rest)).mode;
    if (!m.empty()) return Decision{m, "Title says " + quote(m) + "."};
  }
  return std::nullopt;
}

}  // namespace

std::vector<Decision> decide_symptoms(Context& c) {
  std::vector<Decision> out;
  const CaseEvidence* ev1 = !c.evidence.empty() && c.evidence.front() ? &*c.evidence.front() : nullptr;

  if (auto perf = performance_reason(c, ev1); !perf.empty()) {
    c.perf = true;
    out.push_back({"performance", perf});
  }
  if (auto acc = accuracy_reason(c); !acc.empty()) {
    c.accuracy = true;
    out.push_back({"Accuracy", acc});
  }
  // hang / crash / error -> functionality, only when neither of the above fires
  std::string crash;
  if (auto func = functionality_reason(c, crash); !func.empty() && !c.perf && !c.accuracy) {
    c.functionality = true;
    out.push_back({"functionality", func});
  }
  if (c.crash && !c.hang) out.push_back({"crash", "Crash: " + quote(line_with(c, crash), 90) + "."});
  if (auto d = regression_decision(c, ev1)) {
    c.regression = true;
    out.push_back(std::move(*d));
  }
  if (auto w = first_word(c.claims_lower, {"flaky", "flakiness", "intermittent", "intermittently", "randomly",
                                           "sometimes", "occasionally", "non-deterministic", "nondeterministic",
                                           "not always", "random failure", "sporadic", "sporadically"});
      !w.empty())
    out.push_back({"random", quote(line_with(c, w), 90) + "."});
  if (auto d = mode_decision(c)) out.push_back(std::move(*d));
  return out;
}

}  // namespace perftriage::analyzers::labeler
