#include "analyzers/labeler/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace perftriage::analyzers::labeler {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

// Environment markers strong enough to call a <details> block or a line a device dump.
constexpr std::array<std::string_view, 14> kEnvMarkers{
    "collecting environment information", "pytorch version:", "gpu models and configuration", "os:",
    "driver version", "level_zero", "level zero", "arc(tm)", "sycl-ls", "clinfo", "is xpu available",
    "versions of relevant libraries", "python version:", "cpu:"};

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
std::string strip_html(std::string s, bool& had_html) {
  // HTML comments (<!--StartFragment-->, ...).
  for (std::size_t pos; (pos = s.find("<!--")) != std::string::npos;) {
    auto end = s.find("-->", pos + 4);
    s.erase(pos, end == std::string::npos ? std::string::npos : end + 3 - pos);
    had_html = true;
  }
  static constexpr std::array<std::string_view, 22> kTags{
      "table", "tbody", "thead", "tfoot", "tr", "td", "th", "col", "colgroup", "br", "span", "font", "p", "div",
      "b", "i", "strong", "em", "summary", "details", "style", "sup"};
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '<') {
      auto close = s.find('>', i);
      if (close != std::string::npos && close - i < 400) {
        std::string_view inner(s.data() + i + 1, close - i - 1);
        bool end_tag = !inner.empty() && inner.front() == '/';
        if (end_tag) inner.remove_prefix(1);
        std::size_t n = 0;
        while (n < inner.size() && std::isalpha(static_cast<unsigned char>(inner[n]))) ++n;
        auto name = lower(inner.substr(0, n));
        if (n > 0 && std::find(kTags.begin(), kTags.end(), name) != kTags.end()) {
          had_html = true;
          if (name == "tr" && !end_tag) out += '\n';
          else if ((name == "td" || name == "th") && end_tag) out += " | ";
          else if (name == "br" || name == "p" || name == "div") out += (name == "br" ? " " : "\n");
          i = close + 1;
          continue;
        }
      }
    }
    out += s[i++];
  }
  if (had_html) {
    out = replace_all(std::move(out), "&nbsp;", " ");
    out = replace_all(std::move(out), "&lt;", "<");
    out = replace_all(std::move(out), "&gt;", ">");
    out = replace_all(std::move(out), "&amp;", "&");
  }
  return out;
}

bool looks_like_case_row(std::string_view line) {
  return line.find('|') != std::string_view::npos || line.find("::") != std::string_view::npos ||
         std::count(line.begin(), line.end(), ',') >= 2 || line.find("benchmarks/dynamo") != std::string_view::npos;
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

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

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && lower(s.substr(0, prefix.size())) == lower(prefix);
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
    if (starts_with_ci(rest, "http://") || starts_with_ci(rest, "https://") || starts_with_ci(rest, "www.")) {
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
  while (i < s.size() && !(std::isdigit(static_cast<unsigned char>(s[i])) ||
                           ((s[i] == '-' || s[i] == '.') && i + 1 < s.size() &&
                            std::isdigit(static_cast<unsigned char>(s[i + 1])))))
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

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

Preprocessed preprocess(std::string_view body) {
  Preprocessed p;
  std::string text = replace_all(std::string(body), "\r\n", "\n");
  std::replace(text.begin(), text.end(), '\r', '\n');

  // <details> blocks holding a device dump go to the environment zone.
  for (std::size_t from = 0;;) {
    auto open = lower(text).find("<details", from);
    if (open == std::string::npos) break;
    auto close = lower(text).find("</details>", open);
    std::size_t end = close == std::string::npos ? text.size() : close + 10;
    auto block = text.substr(open, end - open);
    if (holds_env_dump(lower(block))) {
      p.env += block + "\n";
      text.erase(open, end - open);
      from = open;
    } else {
      from = open + 8;
    }
  }

  // Environment zone: from `### Versions`, `Collecting environment information` or `PyTorch version:` onward.
  auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_env_zone_start(lines[i])) {
      for (std::size_t j = i; j < lines.size(); ++j) p.env += lines[j] + "\n";
      lines.resize(i);
      break;
    }
  }
  std::string kept;
  for (auto& l : lines) {
    auto t = lower(trim(l));
    if (t.starts_with("cc @") || t.starts_with("cc: @") || t.starts_with("cc  @")) {
      ++p.cc_lines_dropped;
      continue;
    }
    kept += l;
    kept += '\n';
  }
  kept = strip_html(std::move(kept), p.had_html);

  for (auto& l : split_lines(kept)) {
    if (l.find("~~") != std::string::npos) {
      if (looks_like_case_row(l)) {
        p.struck.push_back(std::string(trim(l)));
        continue;
      }
      // Struck prose: the retracted words go, the rest stays.
      for (std::size_t a; (a = l.find("~~")) != std::string::npos;) {
        auto b = l.find("~~", a + 2);
        if (b == std::string::npos) {
          l.erase(a, 2);
          break;
        }
        l.erase(a, b + 2 - a);
      }
    }
    p.lines.push_back(std::move(l));
  }
  while (!p.lines.empty() && trim(p.lines.back()).empty()) p.lines.pop_back();
  return p;
}

bool is_env_line(std::string_view line) {
  auto t = trim(line);
  // Bullets of any kind ("-", "*", "•", "> ", "| ") before the statement.
  while (!t.empty() && !std::isalnum(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  auto l = lower(t);
  static constexpr std::array<std::string_view, 22> kPrefixes{
      "environment", "env:", "env ", "os:", "os version", "kernel", "driver", "gpu:", "gpu models", "device:",
      "cpu:", "python", "pytorch:", "torch:", "triton:", "intel-opencl", "libze", "oneapi", "dpc++", "level zero",
      "level_zero", "transformers:"};
  for (auto p : kPrefixes)
    if (l.starts_with(p)) return true;
  return l.find("arc(tm)") != std::string::npos || l.find("intel(r)") != std::string::npos;
}

bool is_error_line(std::string_view line) {
  auto l = lower(line);
  static constexpr std::array<std::string_view, 16> kMarks{
      "error", "exception", "traceback", "failed", "segmentation fault", "core dumped", "aborted", "assert",
      "file \"", "sigsegv", "sigabrt", "terminate called", "undefined reference", "not close", "mismatch",
      "timeout"};
  for (auto m : kMarks)
    if (l.find(m) != std::string::npos) return true;
  // Whole words only: "change" is not a hang.
  for (auto w : {"hang", "hangs", "hung", "crash", "crashes", "crashed", "fatal"})
    if (contains_word(l, w)) return true;
  return false;
}

}  // namespace perftriage::analyzers::labeler
