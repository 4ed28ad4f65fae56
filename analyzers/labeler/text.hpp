#pragma once
// Labeler text helpers (lower, trim, join, split: common/strings.hpp) and the pre-processing pass: line endings,
// environment-zone cut, `cc @` lines, pasted-Excel HTML, struck (~~resolved~~) case rows.
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/labeler/budget.hpp"
#include "common/strings.hpp"

namespace perftriage::analyzers::labeler {

// Lines without their "\n" or "\r\n".
std::vector<std::string> split_lines(std::string_view s);
// `needle` (lower-case) in `hay_lower` with no letter/digit right before or after it.
bool contains_word(std::string_view hay_lower, std::string_view needle);
// A taxonomy pattern: plain substring, or "=word" for a whole-word match. `hay_lower` must be lower-case.
bool matches_pattern(std::string_view hay_lower, std::string_view pattern);
// A pattern as a reason quotes it: without the leading '=' of a whole-word pattern.
inline std::string pattern_text(std::string_view pattern) {
  return std::string(!pattern.empty() && pattern.front() == '=' ? pattern.substr(1) : pattern);
}
// Drops http(s):// and www. addresses (a suite name inside a URL is no evidence).
std::string strip_urls(std::string_view s);
// First number in s ("0.662", "12.5%", "1.2x"); nullopt when none.
bool parse_number(std::string_view s, double& out);
std::string format_number(double v, int digits = 3);
// Erases every `needle` as `for (pos; (pos = s.find(needle)) != npos;) s.erase(pos, n)` would (occurrences the
// erasing forms are erased too), in one linear pass.
std::string erase_all(std::string_view s, std::string_view needle);

struct Preprocessed {
  std::vector<std::string> lines;   // the body that rules read, one entry per line
  std::string env;                  // the environment zone that was cut (never a source of hw / os)
  std::vector<std::string> struck;  // case rows struck through (resolved)
  int cc_lines_dropped = 0;
  bool had_html = false;
};

// `budget` (optional) is ticked per line; BudgetExceeded propagates. Linear in the body.
Preprocessed preprocess(std::string_view body, Budget* budget = nullptr);

// A line stating the environment (OS:, Driver:, Environment: ..., "Intel(R) Arc(TM) ..."), not a claim.
bool is_env_line(std::string_view line);
// Lines that carry error text: exceptions, tracebacks, FAILED lines, crashes, compiler errors.
bool is_error_line(std::string_view line);

}  // namespace perftriage::analyzers::labeler
