#include "analyzers/labeler/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace perftriage::analyzers::labeler {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Into a new string: replacing in place moved the tail once per occurrence (quadratic).
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t start = 0;
  for (std::size_t pos; (pos = s.find(from, start)) != std::string_view::npos; start = pos + from.size()) {
    out.append(s, start, pos - start);
    out += to;
  }
  out.append(s, start);
  return out;
}

// Environment markers strong enough to call a <details> block or a line a device dump.
constexpr std::array<std::string_view, 14> kEnvMarkers{"collecting environment information",
                                                       "pytorch version:",
                                                       "gpu models and configuration",
                                                       "os:",
                                                       "driver version",
                                                       "level_zero",
                                                       "level zero",
                                                       "arc(tm)",
                                                       "sycl-ls",
                                                       "clinfo",
                                                       "is xpu available",
                                                       "versions of relevant libraries",
                                                       "python version:",
                                                       "cpu:"};

bool holds_env_dump(std::string_view block_lower) {
  int hits = 0;
  for (auto m : kEnvMarkers) hits += block_lower.find(m) != std::string_view::npos ? 1 : 0;
  return hits >= 2 || block_lower.find("collecting environment information") != std::string_view::npos;
}

bool is_env_zone_start(std::string_view line) {
  auto t = trim(line);
  auto l = lower(t);
  return l.starts_with("### versions") || l.starts_with("## versions") || l.starts_with("#### versions") ||
         l.find("collecting environment information") != std::string::npos || l.starts_with("pytorch version:");
}

// Removes HTML of a pasted Excel range: comments, <table>/<tr>/<td> become rows of " | " cells.
std::string strip_html(std::string_view in, bool& had_html, Budget* budget) {
  // HTML comments (<!--StartFragment-->, ...): each from "<!--" to the next "-->" (or the end) goes, and so does a
  // "<!--" the erasing forms. One pass: `s` is what is kept so far, never holding a whole "<!--".
  std::string s;
  s.reserve(in.size());
  for (std::size_t i = 0; i < in.size();) {
    tick(budget);
    s += in[i++];
    if (s.size() >= 4 && std::string_view(s).substr(s.size() - 4) == "<!--") {
      s.resize(s.size() - 4);
      had_html = true;
      const auto end = in.find("-->", i);
      if (end == std::string_view::npos) break;
      i = end + 3;
    }
  }
  static constexpr std::array<std::string_view, 22> kTags{
      "table", "tbody", "thead", "tfoot", "tr", "td",     "th", "col",     "colgroup", "br",    "span",
      "font",  "p",     "div",   "b",     "i",  "strong", "em", "summary", "details",  "style", "sup"};
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    tick(budget);
    if (s[i] == '<') {
      // Only a '>' within 400 chars closes a tag: look no further (a body of '<' was quadratic).
      auto close = std::string_view(s).substr(i, 400).find('>');
      if (close != std::string_view::npos) close += i;
      if (close != std::string::npos && close - i < 400) {
        std::string_view inner(s.data() + i + 1, close - i - 1);
        bool end_tag = !inner.empty() && inner.front() == '/';
        if (end_tag) inner.remove_prefix(1);
        std::size_t n = 0;
        while (n < inner.size() && std::isalpha(static_cast<unsigned char>(inner[n]))) ++n;
        auto name = lower(inner.substr(0, n));
        if (n > 0 && std::find(kTags.begin(), kTags.end(), name) != kTags.end()) {
          had_html = true;
          if (name == "tr" && !end_tag)
            out += '\n';
          else if ((name == "td" || name == "th") && end_tag)
            out += " | ";
          else if (name == "br" || name == "p" || name == "div")
            out += (name == "br" ? " " : "\n");
          i = close + 1;
          continue;
        }
      }
    }
    out += s[i++];
  }
  if (had_html) {
    out = replace_all(out, "&nbsp;", " ");
    out = replace_all(out, "&lt;", "<");
    out = replace_all(out, "&gt;", ">");
    out = replace_all(out, "&amp;", "&");
  }
  return out;
}

bool looks_like_case_row(std::string_view line) {
  return line.find('|') != std::string_view::npos || line.find("::") != std::string_view::npos ||
         std::count(line.begin(), line.end(), ',') >= 2 || line.find("benchmarks/dynamo") != std::string_view::npos;
}

}  // namespace

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '\n') {
      std::string line(s.substr(start, i - start));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      out.push_back(std::move(line));
      start = i + 1;
    }
  }
  return out;
}

bool contains_word(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return false;
  for (std::size_t pos = hay.find(needle); pos != std::string_view::npos; pos = hay.find(needle, pos + 1)) {
    bool left_ok = pos == 0 || !is_alnum(hay[pos - 1]);
    std::size_t end = pos + needle.size();
    bool right_ok = end >= hay.size() || !is_alnum(hay[end]);
    if (left_ok && right_ok) return true;
  }
  return false;
}

bool matches_pattern(std::string_view hay_lower, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (pattern.front() == '=') return contains_word(hay_lower, pattern.substr(1));
  return hay_lower.find(pattern) != std::string_view::npos;
}

std::string strip_urls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto rest = s.substr(i);
    if (istarts_with(rest, "http://") || istarts_with(rest, "https://") || istarts_with(rest, "www.")) {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ')' && s[i] != '>' &&
             s[i] != '"' && s[i] != '|')
        ++i;
      out += "<url>";
      continue;
    }
    out += s[i++];
  }
  return out;
}

bool parse_number(std::string_view s, double& out) {
  s = trim(s);
  std::size_t i = 0;
  while (i < s.size() &&
         !(std::isdigit(static_cast<unsigned char>(s[i])) ||
           ((s[i] == '-' || s[i] == '.') && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))))
    ++i;
  if (i >= s.size()) return false;
  auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), out);
  return ec == std::errc{} && ptr != s.data() + i;
}

std::string format_number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string erase_all(std::string_view s, std::string_view needle) {
  // All occurrences have one length, so the first one found from the start is the first to end: append char by
  // char and drop the needle whenever the kept text ends with it.
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    out += ch;
    if (!needle.empty() && out.size() >= needle.size() &&
        std::string_view(out).substr(out.size() - needle.size()) == needle)
      out.resize(out.size() - needle.size());
  }
  return out;
}

// Drops struck (~~...~~) prose as `for (a; (a = l.find("~~")) != npos;) { b = l.find("~~", a + 2); erase }` did, a
// lone "~~" included, in one pass (the erase loop was quadratic on a line of "~~a~~a...").
static std::string drop_struck(std::string_view l) {
  std::string out;
  out.reserve(l.size());
  for (std::size_t i = 0; i < l.size();) {
    out += l[i++];
    if (out.size() >= 2 && out[out.size() - 2] == '~' && out.back() == '~') {
      out.resize(out.size() - 2);
      const auto b = l.find("~~", i);
      if (b == std::string_view::npos) {  // a lone "~~": only it goes
        out.append(l, i);
        break;
      }
      i = b + 2;
    }
  }
  return out;
}

Preprocessed preprocess(std::string_view body, Budget* budget) {
  Preprocessed p;
  std::string text = replace_all(body, "\r\n", "\n");
  std::replace(text.begin(), text.end(), '\r', '\n');
  // A benchmark command run on Windows ("python benchmarks\dynamo\huggingface.py --accuracy ...") is the same
  // command: every rule that reads benchmark commands reads them with forward slashes.
  text = replace_all(text, "benchmarks\\dynamo\\", "benchmarks/dynamo/");
  check(budget);

  // <details> blocks holding a device dump go to the environment zone. A block that does not is skipped whole: a
  // <details> inside it ends at the same </details> and holds no more markers (the search used to restart inside
  // it, and lower-case the whole text per block: quadratic).
  std::string text_lower = lower(text);
  for (std::size_t from = 0;;) {
    tick(budget);
    auto open = text_lower.find("<details", from);
    if (open == std::string::npos) break;
    auto close = text_lower.find("</details>", open);
    std::size_t end = close == std::string::npos ? text.size() : close + 10;
    if (holds_env_dump(std::string_view(text_lower).substr(open, end - open))) {
      p.env += text.substr(open, end - open) + "\n";
      text.erase(open, end - open);
      text_lower.erase(open, end - open);
      from = open;
    } else {
      from = end;
    }
  }
  check(budget);

  // Environment zone: from `### Versions`, `Collecting environment information` or `PyTorch version:` onward.
  auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    tick(budget);
    if (is_env_zone_start(lines[i])) {
      for (std::size_t j = i; j < lines.size(); ++j) p.env += lines[j] + "\n";
      lines.resize(i);
      break;
    }
  }
  std::string kept;
  for (auto& l : lines) {
    tick(budget);
    auto t = lower(trim(l));
    if (t.starts_with("cc @") || t.starts_with("cc: @") || t.starts_with("cc  @")) {
      ++p.cc_lines_dropped;
      continue;
    }
    kept += l;
    kept += '\n';
  }
  kept = strip_html(kept, p.had_html, budget);
  check(budget);

  for (auto& l : split_lines(kept)) {
    tick(budget);
    if (l.find("~~") != std::string::npos) {
      if (looks_like_case_row(l)) {
        p.struck.push_back(std::string(trim(l)));
        continue;
      }
      // Struck prose: the retracted words go, the rest stays.
      l = drop_struck(l);
    }
    p.lines.push_back(std::move(l));
  }
  while (!p.lines.empty() && trim(p.lines.back()).empty()) p.lines.pop_back();
  return p;
}

// "python benchmarks/dynamo/torchbench.py ...", "python3 -m pytest ...": a command, not "Python 3.10" or
// "Python version: 3.10".
static bool is_command_line(std::string_view l) {
  std::size_t i = 6;  // after "python"
  if (i < l.size() && l[i] == '3') ++i;
  if (i >= l.size() || l[i] != ' ') return false;
  auto rest = l.substr(i + 1);
  return !rest.empty() && !std::isdigit(static_cast<unsigned char>(rest.front())) && !rest.starts_with("version");
}

bool is_env_line(std::string_view line) {
  auto t = trim(line);
  // Bullets of any kind ("-", "*", "•", "> ", "| ") before the statement.
  while (!t.empty() && !std::isalnum(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  auto l = lower(t);
  static constexpr std::array<std::string_view, 22> kPrefixes{
      "environment", "env:",    "env ",  "os:",        "os version", "kernel",       "driver",  "gpu:",
      "gpu models",  "device:", "cpu:",  "python",     "pytorch:",   "torch:",       "triton:", "intel-opencl",
      "libze",       "oneapi",  "dpc++", "level zero", "level_zero", "transformers:"};
  for (auto p : kPrefixes)
    if (l.starts_with(p)) {
      // "python benchmarks/dynamo/torchbench.py --inductor" is a command, not the Python version.
      if (p == "python" && is_command_line(l)) continue;
      return true;
    }
  return l.find("arc(tm)") != std::string::npos || l.find("intel(r)") != std::string::npos;
}

bool is_error_line(std::string_view line) {
  auto l = lower(line);
  static constexpr std::array<std::string_view, 16> kMarks{
      "error",    "exception", "traceback", "failed",  "segmentation fault", "core dumped",         "aborted",
      "assert",   "file \"",   "sigsegv",   "sigabrt", "terminate called",   "undefined reference", "not close",
      "mismatch", "timeout"};
  for (auto m : kMarks)
    if (l.find(m) != std::string::npos) return true;
  // Whole words only: "change" is not a hang.
  for (auto w : {"hang", "hangs", "hung", "crash", "crashes", "crashed", "fatal"})
    if (contains_word(l, w)) return true;
  return false;
}

}  // namespace perftriage::analyzers::labeler
