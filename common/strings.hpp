#pragma once
// ASCII string helpers for every layer. No locale: `lower` and the case-insensitive comparisons touch only A-Z, and
// `trim` strips the six characters std::isspace accepts in the "C" locale. Bytes >= 0x80 (UTF-8) pass unchanged.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perftriage {

constexpr char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// ' ', '\t', '\n', '\v', '\f', '\r'.
constexpr bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// "a, b or c": the names a message says are accepted.
inline std::string join_or(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// `s` without the leading and trailing characters for which `drop(c)` holds.
template <class Pred>
constexpr std::string_view trim_if(std::string_view s, Pred drop) {
  while (!s.empty() && drop(s.front())) s.remove_prefix(1);
  while (!s.empty() && drop(s.back())) s.remove_suffix(1);
  return s;
}

// Without leading and trailing whitespace (is_space).
constexpr std::string_view trim(std::string_view s) { return trim_if(s, is_space); }

// Without leading and trailing characters found in `chars`: trim(s, " \t") keeps a trailing '\n'.
constexpr std::string_view trim(std::string_view s, std::string_view chars) {
  return trim_if(s, [chars](char c) { return chars.find(c) != std::string_view::npos; });
}

constexpr bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

constexpr bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

constexpr bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

// The elements of `parts` (anything a std::string_view is made from) with `sep` between each two:
// join({"a", "", "b"}, ", ") == "a, , b"; join({}, ", ") == "".
template <class Range>
std::string join(const Range& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& p : parts) {
    if (!first) out += sep;
    out += std::string_view(p);
    first = false;
  }
  return out;
}

// Levenshtein distance (insertions, deletions, substitutions) between two short strings: the nearest known name to a
// typo. O(a.size() * b.size()) time.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

enum class EmptyParts { keep, skip };

// The pieces of `s` between the `sep` characters: split("a,,b", ',') == {"a", "", "b"}, split("", ',') == {""};
// with EmptyParts::skip, split("/a//b/", '/', EmptyParts::skip) == {"a", "b"} and split("", ...) == {}.
inline std::vector<std::string> split(std::string_view s, char sep, EmptyParts empty = EmptyParts::keep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      if (i > start || empty == EmptyParts::keep) out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace perftriage
