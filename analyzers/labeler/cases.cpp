#include "analyzers/labeler/cases.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "analyzers/labeler/re.hpp"
#include "analyzers/labeler/text.hpp"
#include "analyzers/labeler/vocab.hpp"

namespace perftriage::analyzers::labeler {
namespace {

enum class Split { pipe, tab, comma, space };

std::vector<std::string> cells_of(std::string_view line, Split how) {
  std::vector<std::string> out;
  auto t = trim(line);
  if (how == Split::pipe) {
    if (!t.empty() && t.front() == '|') t.remove_prefix(1);
    if (!t.empty() && t.back() == '|') t.remove_suffix(1);
    for (auto& c : split(t, '|')) out.emplace_back(trim(c));
  } else if (how == Split::tab) {
    for (auto& c : split(t, '\t')) out.emplace_back(trim(c));
  } else if (how == Split::comma) {
    for (auto& c : split(t, ',')) out.emplace_back(trim(c));
  } else {
    std::string cur;
    for (char c : t) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(std::move(cur));
  }
  return out;
}

Split split_mode(std::string_view line) {
  if (line.find('|') != std::string_view::npos) return Split::pipe;
  if (line.find('\t') != std::string_view::npos) return Split::tab;
  if (std::count(line.begin(), line.end(), ',') >= 2 && line.find(' ') == std::string_view::npos) return Split::comma;
  return Split::space;
}

bool is_separator_row(const std::vector<std::string>& cells) {
  if (cells.empty()) return false;
  for (const auto& c : cells) {
    if (c.empty()) continue;
    for (char ch : c)
      if (ch != '-' && ch != ':' && ch != ' ') return false;
  }
  return true;
}

bool is_model_name(std::string_view s) {
  if (s.empty() || s.size() > 80) return false;
  bool alpha = false;
  for (char c : s) {
    if (std::isalpha(static_cast<unsigned char>(c)))
      alpha = true;
    else if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/'))
      return false;
  }
  return alpha;
}

// The status of a row without a status column: the first E2E status other than `pass`; `pass` only when no cell
// says the row failed ("Inductor status | PASS | ... | Eager status | FAIL": the row is a failure).
std::string status_in_cells(const std::vector<std::string>& cells) {
  bool passed = false, failed = false;
  for (const auto& x : cells) {
    auto l = lower(trim(x));
    if (l == "fail" || l == "failed") failed = true;
    if (!is_e2e_status(l)) continue;
    if (l != "pass") return l;
    passed = true;
  }
  return passed && !failed ? "pass" : "";
}

struct Columns {
  int suite = -1, dtype = -1, mode = -1, model = -1, speedup = -1, inductor_ratio = -1, eager_ratio = -1, status = -1,
      error = -1;
  std::vector<int> combined;  // other cells that may hold suite/dtype/mode
  int known = 0;
};

std::optional<Columns> read_header(const std::vector<std::string>& cells) {
  Columns c;
  for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
    auto h = lower(cells[static_cast<std::size_t>(i)]);
    std::erase(h, '*');
    h = std::string(trim(h));
    if (h.empty()) continue;
    if ((h == "model" || h == "models" || h == "name" || h == "model name" || h == "model_name" || h == "modelname" ||
         h == "model id") &&
        c.model < 0) {
      c.model = i;
    } else if (h == "suite" || h == "suites" || h == "benchmark" || h == "test suite") {
      c.suite = i, ++c.known;
    } else if (h == "dtype" || h == "data type" || h == "datatype" || h == "data_type" || h == "precision") {
      c.dtype = i, ++c.known;
    } else if (h == "mode" || h == "phase" || h == "train/infer") {
      c.mode = i, ++c.known;
    } else if (h.find("speedup") != std::string::npos && c.speedup < 0) {
      c.speedup = i, ++c.known;
    } else if (h.find("ratio") != std::string::npos && h.find("eager") != std::string::npos) {
      c.eager_ratio = i, ++c.known;
    } else if (h.find("ratio") != std::string::npos && c.inductor_ratio < 0) {
      c.inductor_ratio = i, ++c.known;
    } else if (h == "accuracy" || h == "status" || h == "result" || h.find("accuracy") != std::string::npos) {
      c.status = i, ++c.known;
    } else if (h == "error" || h == "message" || h == "reason" || h == "failure" || h == "error message") {
      c.error = i;
    } else if (h == "batch_size" || h == "bs" || h == "batch size" || h == "dev" || h == "device") {
      ++c.known;
    } else if (h == "config" || h == "configuration" || h == "category" || h == "scenario" || h == "test" ||
               h == "type" || h == "testcase" || h == "test case" || h == "test_case") {
      c.combined.push_back(i), ++c.known;
    } else {
      c.combined.push_back(i);
    }
  }
  if (c.model < 0 || c.known == 0) return std::nullopt;
  return c;
}

const std::string& cell(const std::vector<std::string>& cells, int i) {
  static const std::string empty;
  return i >= 0 && static_cast<std::size_t>(i) < cells.size() ? cells[static_cast<std::size_t>(i)] : empty;
}

std::optional<double> number_in(const std::string& s) {
  double v = 0;
  if (s.empty() || !parse_number(s, v)) return std::nullopt;
  return v;
}

void fill(ParsedCase& c, const Combined& from) {
  if (c.suite.empty()) c.suite = from.suite;
  if (c.dtype.empty()) c.dtype = from.dtype;
  if (c.mode.empty()) c.mode = from.mode;
}

struct Found {
  ParsedCase c;
  std::size_t order = 0;
};

// ---- E2E tables -------------------------------------------------------------------------------------------------
void scan_tables(const std::vector<std::string>& lines, std::string_view title, std::vector<Found>& out, CaseScan& scan,
                 Budget* budget) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    auto mode = split_mode(lines[i]);
    auto header = read_header(cells_of(lines[i], mode));
    if (!header) continue;
    if (mode == Split::space && header->known < 2) continue;
    // Context for the fields the table lacks: the nearest heading-like line above, then the title.
    Combined context;
    for (std::size_t back = 1; back <= 3 && back <= i; ++back) {
      auto prev = trim(lines[i - back]);
      if (prev.empty()) continue;
      context = parse_combined(strip_urls(prev));
      if (context.any()) break;
    }
    auto from_title = parse_combined(title);
    bool excel = false;
    std::size_t j = i + 1;
    int rows = 0;
    for (; j < lines.size(); ++j) {
      tick(budget);
      auto t = trim(lines[j]);
      if (t.empty()) break;
      if (mode == Split::pipe && t.find('|') == std::string_view::npos) break;
      auto cells = cells_of(t, mode);
      if (is_separator_row(cells)) {
        if (t.find("-- |") != std::string_view::npos && t.find("---") == std::string_view::npos) excel = true;
        continue;
      }
      if (mode == Split::space && cells.size() < 2) break;
      ParsedCase c;
      c.e2e = true;
      c.text = std::string(t);
      c.line = j;
      c.model = cell(cells, header->model);
      std::erase(c.model, '`');
      if (!is_model_name(c.model) || normalize_suite(c.model) == c.model) continue;
      c.suite = normalize_suite(cell(cells, header->suite));
      c.dtype = normalize_dtype(cell(cells, header->dtype));
      if (c.dtype.empty() && header->dtype >= 0) c.dtype = parse_combined(cell(cells, header->dtype)).dtype;
      c.mode = normalize_mode(cell(cells, header->mode));
      if (c.mode.empty() && header->mode >= 0) c.mode = parse_combined(cell(cells, header->mode)).mode;
      c.speedup = number_in(cell(cells, header->speedup));
      c.inductor_ratio = number_in(cell(cells, header->inductor_ratio));
      c.eager_ratio = number_in(cell(cells, header->eager_ratio));
      c.status = lower(cell(cells, header->status));
      c.error = cell(cells, header->error);
      if (c.status.empty()) c.status = status_in_cells(cells);
      if (c.status == "pass") continue;
      for (int k : header->combined) fill(c, parse_combined(cell(cells, k)));
      fill(c, context);
      fill(c, from_title);
      out.push_back({std::move(c), 0});
      ++rows;
    }
    if (rows > 0) {
      scan.e2e_table = true;
      if (scan.table_shape.empty()) scan.table_shape = excel ? "Excel paste table" : "case table";
      i = j;
    }
  }
}

// ---- Summary logs -----------------------------------------------------------------------------------------------
void scan_summaries(const std::vector<std::string>& lines, std::vector<Found>& out, CaseScan& scan, Budget* budget) {
  static const Regex kHeader(R"(summary\s+for\s+(\S+)\s+(\S+)\s+(\S+)\s+(accuracy|performance))", /*icase=*/true);
  static const Regex kPair(R"(\[\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]\s*\])");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    Match m;
    if (!re_search(lines[i], kHeader, m)) continue;
    Combined ctx;
    ctx.suite = normalize_suite(m.str(1));
    ctx.dtype = normalize_dtype(m.str(2));
    ctx.mode = normalize_mode(m.str(3));
    scan.e2e_log = true;
    if (scan.table_shape.empty()) scan.table_shape = "Summary log";
    for (std::size_t j = i + 1; j < lines.size(); ++j) {
      tick(budget);
      const auto& l = lines[j];
      if (trim(l).empty() || re_search(l, kHeader)) break;
      auto add = [&](const std::string& model, const std::string& status) {
        if (lower(status) == "pass" || !is_model_name(model)) return;
        ParsedCase c;
        c.e2e = true;
        c.model = model;
        c.status = lower(status);
        c.text = std::string(trim(l));
        c.line = j;
        fill(c, ctx);
        out.push_back({std::move(c), 0});
      };
      bool any = false;
      re_each(l, kPair, [&](const Match& pm) {
        add(pm.str(1), pm.str(2));
        any = true;
      });
      if (any) continue;
      // "xpu  eval  hf_Longformer  fail_accuracy", "hf_Longformer,fail_accuracy", "hf_Longformer: fail_accuracy"
      std::string norm(l);
      for (auto& ch : norm)
        if (ch == ',' || ch == ':' || ch == '|') ch = ' ';
      auto toks = cells_of(norm, Split::space);
      if (toks.size() >= 2 && is_e2e_status(toks.back())) add(toks[toks.size() - 2], toks.back());
    }
  }
}

// ---- One case per line -------------------------------------------------------------------------------------------
// "huggingface bfloat16 inference ElectraForQuestionAnswering speedup 0.662224": a line (or list item) that starts
// with a suite, a dtype and a mode and names the model right after them. Prose that mentions the three ("in
// huggingface bfloat16 inference workloads") does not start with them, so it is no case line.
std::optional<ParsedCase> case_line(std::string_view line, std::size_t index) {
  auto t = trim(line);
  if (t.starts_with("- ") || t.starts_with("* ")) t = trim(t.substr(2));
  auto toks = cells_of(t, Split::space);
  if (toks.size() < 4) return std::nullopt;
  ParsedCase c;
  c.suite = normalize_suite(toks[0]);
  c.dtype = normalize_dtype(toks[1]);
  c.mode = normalize_mode(toks[2]);
  c.model = toks[3];
  std::erase(c.model, '`');
  if (c.suite.empty() || c.dtype.empty() || c.mode.empty()) return std::nullopt;
  if (!is_model_name(c.model) || !normalize_suite(c.model).empty()) return std::nullopt;
  // A speedup only where the line says so: a table row's next number is its batch size.
  for (std::size_t k = 4; k + 1 < toks.size(); ++k)
    if (lower(toks[k]).starts_with("speedup")) c.speedup = number_in(toks[k + 1]);
  c.e2e = true;
  c.text = std::string(t);
  c.line = index;
  return c;
}

void scan_case_lines(const std::vector<std::string>& lines, std::vector<Found>& out, CaseScan& scan, Budget* budget) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    auto c = case_line(lines[i], i);
    if (!c) continue;
    scan.e2e_table = true;
    if (scan.table_shape.empty()) scan.table_shape = "case lines";
    out.push_back({std::move(*c), 0});
  }
}

// ---- benchmarks/dynamo/<suite>.py commands ----------------------------------------------------------------------
void scan_commands(const std::vector<std::string>& lines, std::vector<Found>& out, CaseScan& scan, Budget* budget) {
  static const Regex kCmd(R"(benchmarks/dynamo/(huggingface|timm_models|torchbench)\.py)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    Match m;
    if (!re_search(lines[i], kCmd, m)) continue;
    std::string cmd = lines[i].substr(m.end(lines[i]));
    // Continuation lines ("\" at the end), at most kMaxContinuation of them: every command line re-reads the lines
    // after it, so a body of thousands of continued command lines was quadratic. Real commands span a few lines.
    constexpr std::size_t kMaxContinuation = 32;
    for (std::size_t j = i;
         j + 1 < lines.size() && j < i + kMaxContinuation && !trim(lines[j]).empty() && trim(lines[j]).back() == '\\';
         ++j) {
      tick(budget);
      cmd += " " + lines[j + 1];
    }
    std::replace(cmd.begin(), cmd.end(), '\\', ' ');
    auto toks = cells_of(cmd, Split::space);
    ParsedCase c;
    c.e2e = true;
    c.suite = normalize_suite(m.str(1));
    c.text = std::string(trim(lines[i]));
    c.line = i;
    bool amp = false;
    std::string amp_dtype;
    for (std::size_t k = 0; k < toks.size(); ++k) {
      auto t = toks[k];
      std::string value;
      if (auto eq = t.find('='); eq != std::string::npos) value = t.substr(eq + 1), t.resize(eq);
      auto next = [&]() -> std::string {
        if (!value.empty()) return value;
        return k + 1 < toks.size() ? toks[++k] : std::string{};
      };
      if (t == "--amp")
        amp = true;
      else if (t == "--amp-dtype" || t == "--amp_dtype")
        amp_dtype = normalize_dtype(next());
      else if (t == "--bfloat16")
        c.dtype = "bfloat16";
      else if (t == "--float16")
        c.dtype = "float16";
      else if (t == "--float32")
        c.dtype = "float32";
      else if (t == "--training")
        c.mode = "training";
      else if (t == "--inference")
        c.mode = "inference";
      else if (t == "--only" || t == "-k" || t == "--filter")
        c.model = next();
      else if (t.starts_with("--only"))
        c.model = t.substr(6);
    }
    if (amp) c.dtype = amp_dtype == "bfloat16" ? "amp_bf16" : amp_dtype == "float16" ? "amp_fp16" : "";
    scan.e2e_command = true;
    if (scan.table_shape.empty()) scan.table_shape = "benchmark command";
    out.push_back({std::move(c), 0});
  }
}

// ---- UT forms ---------------------------------------------------------------------------------------------------
ParsedCase ut_case(std::string suite, std::string cls, std::string test, std::string id, std::size_t line,
                   std::string_view text) {
  ParsedCase c;
  c.suite = std::move(suite);
  c.model = std::move(cls);
  c.test_id = std::move(id);
  c.dtype = dtype_from_test_name(test);
  c.line = line;
  c.text = std::string(trim(text));
  return c;
}

void scan_ut(const std::vector<std::string>& lines, std::vector<Found>& out, Budget* budget) {
  static const Regex kRow(R"(^\s*[-*]?\s*`?(\w+),([\w.-]+),(test\w*)`?\s*$)");
  static const Regex kPytest(R"(([\w./\\-]*\w\.py)::(\w+)(?:::(\w+))?(\[[^\]\s]*\])?)");
  static const Regex kFailed(R"(^\s*(?:FAILED|ERROR)\s+(\S+::\S+)(?:\s+-\s+(.*))?$)");
  static const Regex kDashK(R"(([\w./-]*\w\.py)\b[^|]*?\s-k\s+['"]?(test\w+))");
  bool in_cases = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    const auto& l = lines[i];
    auto t = lower(trim(l));
    if (t.starts_with("cases:") || t.starts_with("**cases:**") || t.starts_with("### cases") ||
        t.starts_with("failed cases:")) {
      in_cases = true;
      continue;
    }
    Match m;
    if (re_full(l, kRow, m) && (in_cases || lower(m.str(1)).ends_with("ut"))) {
      out.push_back({ut_case(m.str(1), m.str(2), m.str(3), m.str(2) + "::" + m.str(3), i, l), 0});
      continue;
    }
    if (t.empty()) in_cases = false;
    std::string error;
    std::string searched = l;
    if (re_full(l, kFailed, m)) {
      error = m.matched(2) ? std::string(trim(m.str(2))) : std::string{};
      searched = m.str(1);
    }
    std::size_t order = 0;
    re_each(searched, kPytest, [&](const Match& pm) {
      std::string file = pm.str(1), cls = pm.str(2);
      std::string test = pm.matched(3) ? pm.str(3) : (cls.starts_with("test") ? cls : std::string{});
      if (!pm.matched(3) && cls.starts_with("test")) cls.clear();
      auto c = ut_case(file, cls, test, pm.str(0), i, l);
      c.error = error;
      out.push_back({std::move(c), order++});
    });
    if (order == 0 && re_search(l, kDashK, m)) {
      out.push_back({ut_case(m.str(1), "", m.str(2), m.str(1) + "::" + m.str(2), i, l), 0});
    }
  }
}

std::string key_of(const ParsedCase& c) {
  return c.suite + "|" + c.dtype + "|" + c.mode + "|" + c.model + "|" + c.test_id;
}

}  // namespace

std::string ParsedCase::display() const {
  if (!test_id.empty()) return test_id;
  std::vector<std::string> parts;
  for (const auto* p : {&suite, &model, &mode, &dtype})
    if (!p->empty()) parts.push_back(*p);
  return join(parts, "/");
}

CaseScan extract_cases(const std::vector<std::string>& lines, std::string_view title, Budget* budget) {
  CaseScan scan;
  std::vector<Found> found;
  scan_tables(lines, title, found, scan, budget);
  check(budget);
  // After the tables: a row a table read already keeps the table's reading (its columns), the duplicate is dropped.
  scan_case_lines(lines, found, scan, budget);
  check(budget);
  scan_summaries(lines, found, scan, budget);
  check(budget);
  scan_commands(lines, found, scan, budget);
  check(budget);
  scan_ut(lines, found, budget);
  check(budget);
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.c.line != b.c.line ? a.c.line < b.c.line : a.order < b.order;
  });
  std::set<std::string> seen;
  std::set<std::size_t> table_lines;
  for (auto& f : found) {
    // A line already read as a table row is not read again as a UT / command case.
    if (!f.c.e2e && table_lines.count(f.c.line)) continue;
    if (!seen.insert(key_of(f.c)).second) continue;
    // A command for a model already listed (same suite/model, less known) adds nothing.
    if (f.c.e2e) table_lines.insert(f.c.line);
    scan.cases.push_back(std::move(f.c));
  }
  return scan;
}

}  // namespace perftriage::analyzers::labeler
