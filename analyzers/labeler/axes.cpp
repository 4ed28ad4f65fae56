// The single-source axes: type, test, hw, os, dtype, module, dependency.
#include <algorithm>
#include <cctype>
#include <set>

#include "analyzers/labeler/re.hpp"
#include "analyzers/labeler/rules.hpp"
#include "analyzers/labeler/vocab.hpp"

namespace perftriage::analyzers::labeler {
namespace {

std::optional<Decision> from_tags(const Context& c, std::string_view axis, std::string* conflict = nullptr) {
  std::set<std::string> keys;
  std::string tags;
  for (const auto& h : c.title.hits)
    if (h.axis == axis && keys.insert(h.key).second) tags += (tags.empty() ? "" : ", ") + ("[" + h.tag + "]");
  if (keys.size() == 1) return Decision{*keys.begin(), "Title tag " + tags + "."};
  if (keys.size() > 1 && conflict) *conflict = tags;
  return std::nullopt;
}

std::string set_str(const std::set<std::string>& s) { return join(std::vector<std::string>(s.begin(), s.end()), ", "); }

// The title without its tags, tokenised for dtype keywords.
std::vector<std::string> dtype_words(std::string_view text) {
  std::vector<std::string> out;
  std::vector<std::string> words;
  std::string cur;
  for (char ch : lower(text)) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-')
      cur += ch;
    else if (!cur.empty())
      words.push_back(cur), cur.clear();
  }
  if (!cur.empty()) words.push_back(cur);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i];
    std::string d;
    if (w == "amp" && i + 1 < words.size()) {
      d = normalize_dtype("amp_" + words[i + 1]);
      if (!d.empty()) ++i;
    }
    if (d.empty() && w != "int" && w != "float" && w != "long" && w != "half" && w != "double" && w != "complex")
      d = normalize_dtype(w);
    if (d.empty())  // amp_bf16 spelled inside a combined word
      d = parse_combined(w).dtype;
    if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

// The first word (letters, digits, '_') of lower-case text that `pred` accepts; "" when none.
template <typename Pred>
std::string first_word(std::string_view text, Pred pred) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) continue;
    if (i > start && pred(text.substr(start, i - start))) return std::string(text.substr(start, i - start));
    start = i + 1;
  }
  return "";
}

// The first failing E2E benchmark status named in lower-case text (vocab.hpp is_failing_e2e_status). On the real
// torch-xpu-ops issues (tests/fixtures/labeler/real, both files) every issue naming one that carries a test label
// carries `test: e2e`.
std::string failing_e2e_status(std::string_view text) { return first_word(text, is_failing_e2e_status); }

// An E2E benchmark issue said so by its title: a benchmark suite named ("timm_models 2 models up to 16% eager
// performance regression"), an E2E status ("hf_T5_generate inference accuracy fail_to_run"), the word E2E ("Most of
// E2E models failed with ..."), or models whose performance or accuracy is reported ("Some models performance on
// 1100 lower than ..."). "" when none.
std::string e2e_title(const Context& c) {
  const auto t = lower(c.title.rest);
  const auto suite = first_word(t, [](std::string_view w) { return w == "timm" || !normalize_suite(w).empty(); });
  if (!suite.empty()) return "Title names the benchmark suite `" + suite + "`.";
  if (auto status = failing_e2e_status(t); !status.empty()) return "Title names the E2E status `" + status + "`.";
  if (contains_word(t, "e2e")) return "Title says E2E.";
  const bool models = contains_word(t, "models") || contains_word(t, "model");
  if (models && (contains_word(t, "performance") || contains_word(t, "perf") || contains_word(t, "accuracy")))
    return "Title reports the performance or accuracy of models.";
  return "";
}

// A unit-test issue said so by its title: the word UT / UTs or "unit test", a test file or class it names
// ("test_linalg_xpu.py::TestLinalgXPU", "dynamo\\test_higher_order_ops_xpu.py"), or the tracker's "[Bug Skip]"
// template, which files skipped unit-test cases. On the real torch-xpu-ops issues (tests/fixtures/labeler/real) every
// issue titled so that carries a test label carries `test: ut`. "" when none.
std::string ut_title(const Context& c) {
  const std::string& t = c.title_lower;
  if (t.find("[bug skip]") != std::string::npos) return "Title tag [Bug Skip] (skipped unit-test cases).";
  if (contains_word(t, "ut") || contains_word(t, "uts") || t.find("unit test") != std::string::npos)
    return "Title names unit tests.";
  if (t.find("::test") != std::string::npos) return "Title names a test class.";
  static const Regex kTestFile(R"((?:^|[^\w])(test_\w*\.py))");
  if (Match m; re_search(t, kTestFile, m)) return "Title names the test file " + quote(m.str(1)) + ".";
  return "";
}

// A unit-test issue said so by its traceback: a frame in a test file and test function ("File \".../test/test_ops.py\",
// line 393, in test_compare_cpu"). E2E benchmarks run from benchmarks/dynamo/*.py, never from a test_*.py file; on
// the real torch-xpu-ops issues every issue with such a frame that carries a test label carries `test: ut`. "" when
// none.
std::string ut_traceback(const Context& c) {
  static const Regex kFrame(R"re(File "(?:[^"]*[/\\])?(test_\w*\.py)", line \d+, in (test_\w+))re");
  for (const auto& line : c.error_lines)
    if (Match m; re_search(line, kFrame, m))
      return "Traceback frame in the test " + quote(m.str(1) + "::" + m.str(2)) + ".";
  return "";
}

// The execution path a performance title names: "eager performance regression" -> ops (the eager kernels);
// "eager and inductor performance regression" -> both paths, key "" (no single module). nullopt when the title
// names no path, or compares inductor against eager ("inductor slower than eager" is inductor's).
std::optional<Decision> title_path(const Context& c) {
  const auto t = lower(c.title.rest);
  const bool perf = contains_word(t, "performance") || contains_word(t, "perf") || contains_word(t, "regression") ||
                    contains_word(t, "regressions") || contains_word(t, "slower") || contains_word(t, "drop");
  if (!perf || !contains_word(t, "eager")) return std::nullopt;
  for (auto vs : {"than eager", "vs eager", "over eager", "to eager", "with eager", "torch.compile", "compile"})
    if (t.find(vs) != std::string::npos) return std::nullopt;
  if (contains_word(t, "inductor")) {
    for (auto both : {"eager and inductor", "eager & inductor", "eager/inductor", "inductor and eager"})
      if (t.find(both) != std::string::npos) return Decision{"", "Title names both the eager and the inductor path."};
    return std::nullopt;
  }
  if (!c.tax->label_for("module", "ops")) return std::nullopt;
  return Decision{"ops", "Title names the eager path only (" + quote(c.title.rest, 70) + "): the eager kernels."};
}

// E2E rules: inductor slower than eager / fail_accuracy -> inductor (`e2e_inductor` gets the reason); an eager-only
// regression -> ops (`e2e_eager`).
void e2e_paths(const Context& c, std::string& e2e_inductor, std::string& e2e_eager) {
  for (std::size_t i = 0; i < c.scan.cases.size(); ++i) {
    const auto& cs = c.scan.cases[i];
    if (!cs.e2e) continue;
    std::optional<double> speedup = cs.speedup, ind = cs.inductor_ratio, eag = cs.eager_ratio;
    if (i < c.evidence.size() && c.evidence[i]) {
      const auto& ev = *c.evidence[i];
      if (ev.speedup) speedup = ev.speedup;
      if (ev.inductor_ratio) ind = ev.inductor_ratio;
      if (ev.eager_ratio) eag = ev.eager_ratio;
    }
    bool eager_bad = is_eager_status(cs.status) || (eag && *eag < 0.95);
    bool inductor_bad =
        cs.status == "fail_accuracy" || (speedup && *speedup < 1.0) || (ind && *ind < 0.95 && !(eag && *eag < 0.95));
    if (eager_bad && e2e_eager.empty())
      e2e_eager = "E2E case " + cs.display() + " regressed on the eager path" +
                  (cs.status.empty() ? std::string{} : " (" + cs.status + ")") + ".";
    if (inductor_bad && e2e_inductor.empty()) {
      std::string why = cs.status == "fail_accuracy" ? "fail_accuracy"
                        : speedup && *speedup < 1.0
                            ? "speedup " + format_number(*speedup) + " < 1, inductor slower than eager"
                            : "inductor ratio " + format_number(ind.value_or(0)) + " with eager stable";
      e2e_inductor = "E2E " + why + " (" + cs.display() + ").";
    }
  }
  bool any_e2e = std::any_of(c.scan.cases.begin(), c.scan.cases.end(), [](const ParsedCase& x) { return x.e2e; });
  if (e2e_inductor.empty() && any_e2e && c.claims_lower.find("fail_accuracy") != std::string::npos)
    e2e_inductor = "E2E benchmark reports `fail_accuracy`.";
}

}  // namespace

bool feature_wording(const Context& c) {
  for (const auto& h : c.title.hits)
    if (h.axis == "type" && (h.key == "Feature" || h.key == "Epic")) return true;
  auto t = lower(c.title.rest);
  return t.starts_with("support ") || t.starts_with("add support") || t.starts_with("enable ") ||
         t.starts_with("request") || t.find("feature request") != std::string::npos ||
         t.find("please support") != std::string::npos || t.find("would be nice") != std::string::npos ||
         t.find("add support") != std::string::npos;
}

std::optional<Decision> decide_type(const Context& c) {
  if (auto it = c.existing.find("type"); it != c.existing.end())
    return set_on_issue(it->second.front().first, it->second.front().second);
  if (auto d = from_tags(c, "type")) return d;
  if (feature_wording(c)) return Decision{"Feature", "Feature wording in the title " + quote(c.title.rest) + "."};
  if (c.perf || c.accuracy || c.functionality)
    return Decision{"Bug", std::string("Reported ") +
                               (c.perf       ? "performance"
                                : c.accuracy ? "accuracy"
                                             : "functional") +
                               " defect."};
  return std::nullopt;
}

std::optional<Decision> decide_test(const Context& c) {
  if (auto it = c.existing.find("test"); it != c.existing.end())
    return set_on_issue(it->second.front().first, it->second.front().second);
  // OOB first: an OOB table full of model names is not an E2E benchmark.
  for (const auto& h : c.title.hits)
    if (h.axis == "test" && h.key == "oob") return Decision{"oob", "Title tag [" + h.tag + "]."};
  if (contains_word(c.claims_lower, "oob") || c.claims_lower.find("out-of-box") != std::string::npos ||
      c.claims_lower.find("out of box") != std::string::npos)
    return Decision{"oob", "OOB (out-of-box) models named in the issue."};
  if (auto d = from_tags(c, "test")) return d;
  const auto& s = c.scan;
  if (s.e2e_command)
    for (const auto& cs : s.cases)
      if (cs.e2e && cs.text.find("benchmarks/dynamo/") != std::string::npos)
        return Decision{"e2e", "Benchmark command " + quote(cs.text, 70) + "."};
  if (s.e2e_table || s.e2e_log) {
    std::set<std::string> suites;
    for (const auto& cs : s.cases)
      if (cs.e2e && !cs.suite.empty()) suites.insert(cs.suite);
    return Decision{"e2e", (suites.empty() ? std::string("benchmark") : set_str(suites)) + " " + s.table_shape + " (" +
                               std::to_string(s.cases.size()) + " cases)."};
  }
  if (auto status = failing_e2e_status(c.claims_lower); !status.empty())
    return Decision{"e2e", "Benchmark status `" + status + "`."};
  if (auto why = e2e_title(c); !why.empty()) return Decision{"e2e", why};
  if (auto why = ut_title(c); !why.empty()) return Decision{"ut", why};
  for (const auto& cs : s.cases)
    if (!cs.e2e) return Decision{"ut", "Unit-test case " + quote(cs.test_id, 90) + "."};
  if (auto why = ut_traceback(c); !why.empty()) return Decision{"ut", why};
  const auto* axis = c.tax->axis("test");
  if (axis && !axis->fallback.empty())
    return Decision{axis->fallback, "No E2E table, benchmark command or OOB model list: default.", true};
  return std::nullopt;
}

std::optional<Decision> decide_hw(const Context& c) {
  if (auto it = c.existing.find("hw"); it != c.existing.end())
    return set_on_issue(it->second.front().first, it->second.front().second);
  std::string conflict;
  std::set<std::string> from_title;
  std::string tags;
  for (const auto& h : c.title.hits)
    if (h.axis == "hw") {
      from_title.insert(h.key);
      tags += "[" + h.tag + "]";
    }
  // One platform tag is the reporter's filing, whatever the title compares it with ("[BMG] New failed test cases
  // ... but pvc passed"); two tags ([LNL][BMG], [BMG/LNL]) or two platforms named without a tag: no single value.
  if (from_title.size() == 1) return Decision{*from_title.begin(), "Title tag " + tags + "."};
  if (from_title.size() > 1) return std::nullopt;
  const auto title = lower(c.title.rest);
  auto rest = find_hw(title, *c.tax);
  if (rest.size() > 1) return std::nullopt;
  if (rest.size() == 1) {
    const auto& key = *rest.begin();
    return Decision{key, "Title names " + quote(hw_evidence(title, *c.tax, key)) + "."};
  }
  // The body outside the environment dump.
  std::string body;
  for (const auto& l : c.claim_lines) body += lower(l) + "\n";
  auto found = find_hw(body, *c.tax);
  if (found.size() == 1) {
    const auto& key = *found.begin();
    return Decision{key, "Body names " + quote(hw_evidence(body, *c.tax, key)) + " (outside the environment dump)."};
  }
  return std::nullopt;
}

std::optional<Decision> decide_os(const Context& c) {
  if (auto it = c.existing.find("os"); it != c.existing.end()) {
    std::set<std::string> keys;
    for (const auto& [k, spelled] : it->second) keys.insert(k);
    if (keys.size() == 1) return set_on_issue(*keys.begin(), it->second.front().second);
    return std::nullopt;  // both os labels on the issue: no single value
  }
  std::set<std::string> from_title;
  std::string tags;
  for (const auto& h : c.title.hits)
    if (h.axis == "os") {
      from_title.insert(h.key);
      tags += "[" + h.tag + "]";
    }
  auto rest = find_os(lower(c.title.rest), *c.tax);
  std::set<std::string> all = from_title;
  all.insert(rest.begin(), rest.end());
  // WSL runs a Linux guest on a Windows host: "[WSL] ... on WSL (Ubuntu 26.04) in Windows 11" is one value, WSL.
  if (all.size() > 1 && all.count("WSL") && c.tax->label_for("os", "WSL"))
    return Decision{"WSL", "Title names WSL (" + (tags.empty() ? std::string("in the text") : tags) +
                               "); the Windows host and the Linux guest are WSL's."};
  if (all.size() > 1) return std::nullopt;
  if (all.size() == 1)
    return Decision{*all.begin(),
                    from_title.empty() ? "Title names " + quote(*all.begin()) + "." : "Title tag " + tags + "."};
  std::string body;
  for (const auto& l : c.claim_lines) body += lower(l) + "\n";
  auto found = find_os(body, *c.tax);
  bool win_path = false;
  for (std::size_t p = body.find(":\\"); p != std::string::npos; p = body.find(":\\", p + 2))
    if (p > 0 && std::isalpha(static_cast<unsigned char>(body[p - 1])) &&
        (p < 2 || !std::isalpha(static_cast<unsigned char>(body[p - 2]))))
      win_path = true;
  if (win_path) found.insert("Windows");
  if (found.size() == 1)
    return Decision{*found.begin(), win_path && !contains_word(body, "windows")
                                        ? "Windows path (`C:\\...`) in the body."
                                        : "Body says " + quote(*found.begin()) + " (outside the environment dump)."};
  return std::nullopt;  // none, or Linux and Windows both: no single value
}

std::vector<Decision> decide_dtype(const Context& c) {
  std::vector<Decision> out;
  if (auto it = c.existing.find("dtype"); it != c.existing.end()) {
    for (const auto& [k, spelled] : it->second) out.push_back(set_on_issue(k, spelled));
    return out;
  }
  if (!c.scan.cases.empty()) {
    const auto& first = c.scan.cases.front();
    if (!first.dtype.empty()) {
      if (first.e2e && first.text.find("--amp") != std::string::npos)
        return {{first.dtype, "Case 1 command " + quote(first.text, 70) + " runs AMP only."}};
      return {{first.dtype, "Case 1 (" + first.display() + ") dtype " + first.dtype + "."}};
    }
    if (first.e2e) return out;  // case 1 says nothing about its dtype (`--amp` alone): no value
  }
  for (const auto& d : dtype_words(c.issue->title)) out.push_back({d, "Title keyword " + quote(d) + "."});
  return out;
}

std::optional<Decision> decide_module(const Context& c) {
  if (auto it = c.existing.find("module"); it != c.existing.end())
    return set_on_issue(it->second.front().first, it->second.front().second);
  if (auto path = title_path(c)) {
    if (path->key.empty()) return std::nullopt;
    return path;
  }
  // Tier 1: title, test paths / case ids, error text, repro code, E2E rules. First match in precedence order wins.
  struct Source {
    std::string what, text;
  };
  std::vector<Source> sources;
  sources.push_back({"title", lower(c.issue->title)});
  for (const auto& h : c.title.hits)
    if (h.axis == "module") sources.push_back({"title tag [" + h.tag + "]", "\x01" + h.key});
  for (const auto& cs : c.scan.cases)
    if (!cs.e2e) sources.push_back({"case " + quote(cs.test_id, 90), lower(cs.suite + " " + cs.test_id)});
  for (const auto& e : c.error_lines) {
    auto l = lower(e);
    l = erase_all(l, "benchmarks/dynamo/");
    sources.push_back({"error text " + quote(e, 70), l});
  }
  if (!c.code_lower.empty()) sources.push_back({"repro code", c.code_lower});

  std::string e2e_inductor, e2e_eager;
  e2e_paths(c, e2e_inductor, e2e_eager);
  // A module the title names as a tag ([TorchAO], [distributed]) is the reporter's own statement: it comes first.
  for (const auto& rule : c.tax->modules)
    for (const auto& h : c.title.hits)
      if (h.axis == "module" && h.key == rule.key) return Decision{rule.key, "Title tag [" + h.tag + "]."};
  for (const auto& rule : c.tax->modules) {
    if (rule.key == "inductor" && !e2e_inductor.empty()) return Decision{rule.key, e2e_inductor};
    if (rule.key == "ops" && !e2e_eager.empty() && e2e_inductor.empty()) return Decision{rule.key, e2e_eager};
  }
  // The title's words before the body's: "... when building PyTorch for XPU on Windows" is a build issue whatever
  // the log below it quotes.
  for (const auto& rule : c.tax->modules)
    for (const auto& p : rule.patterns)
      if (matches_pattern(sources.front().text, p))
        return Decision{rule.key, "`" + pattern_text(p) + "` in the title."};
  for (const auto& rule : c.tax->modules) {
    for (const auto& s : sources) {
      tick(c.budget);
      if (s.text == "\x01" + rule.key) return Decision{rule.key, "Title tag " + s.what.substr(10) + "."};
      for (const auto& p : rule.patterns)
        if (matches_pattern(s.text, p)) {
          return Decision{rule.key, "`" + pattern_text(p) + "` in the " + s.what + "."};
        }
    }
  }
  // Tier 2: the prose of the body, only suggested: a module named in passing ("the same happens on CUDA with
  // inductor") does not decide what the issue is about.
  for (const auto& rule : c.tax->modules)
    for (const auto& p : rule.patterns)
      if (matches_pattern(c.claims_lower, p)) {
        return Decision{rule.key, "`" + pattern_text(p) + "` in the description.", false, true};
      }
  // Weak words anywhere, only suggested (PatternRule::weak): "torch.compile" in a title gave module: inductor on 8
  // pytorch issues of the committed set that the tracker filed under oncall: pt2 without it.
  sources.push_back({"description", c.claims_lower});
  for (const auto& rule : c.tax->modules)
    for (const auto& s : sources)
      for (const auto& p : rule.weak)
        if (matches_pattern(s.text, p))
          return Decision{rule.key, "`" + pattern_text(p) + "` in the " + s.what + ".", false, true};
  return std::nullopt;
}

std::optional<Decision> decide_dependency(const Context& c) {
  if (auto it = c.existing.find("dependency"); it != c.existing.end())
    return set_on_issue(it->second.front().first, it->second.front().second);
  // A title tag naming the component ("[oneAPI DLE 2026.1]", "[Triton Acceptance Test]") is the reporter's own.
  for (const auto& tag : c.title.tags)
    for (const auto& rule : c.tax->dependencies)
      if (contains_word(lower(tag), lower(rule.key))) return Decision{rule.key, "Title tag [" + tag + "]."};
  std::vector<Decision> hits;
  for (const auto& rule : c.tax->dependencies)
    for (const auto& p : rule.patterns)
      if (matches_pattern(c.error_lower, p)) {
        // Quote the error line holding it.
        std::string line;
        for (const auto& e : c.error_lines)
          if (matches_pattern(lower(e), p)) {
            line = e;
            break;
          }
        hits.push_back({rule.key, "Error text " + (line.empty() ? quote(p) : quote(line, 90)) + "."});
        break;
      }
  if (hits.size() == 1) return hits.front();
  return std::nullopt;  // none, or two components blamed: no single value
}

}  // namespace perftriage::analyzers::labeler
