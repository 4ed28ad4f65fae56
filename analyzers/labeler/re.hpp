#pragma once
// Internal: RE2 for the labeler's patterns. RE2 runs in time linear in the input and never recurses on it
// (std::regex backtracked recursively and overflowed the stack on a 30 KB line).
// Patterns are written in the ECMAScript dialect std::regex had; `re2_pattern` rewrites the few classes whose
// meaning differs in RE2 so the byte-for-byte behaviour stays the same:
//   \s -> [[:space:]] (std::regex's \s in the C locale includes \v, RE2's does not), \S -> [^[:space:]],
//   .  -> [^\n\r]    (ECMAScript's . stops at \r too, RE2's only at \n).
// Matching is on bytes (Latin-1 mode), as std::regex on std::string was: a UTF-8 sequence is several chars.
// RE2 has no backreferences and no lookaround: patterns that had them are rewritten at the call site.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include <re2/re2.h>

namespace perftriage::analyzers::labeler {

inline std::string re2_pattern(std::string_view ecma) {
  std::string out;
  out.reserve(ecma.size() + 32);
  bool in_class = false;
  for (std::size_t i = 0; i < ecma.size(); ++i) {
    const char c = ecma[i];
    if (c == '\\' && i + 1 < ecma.size()) {
      const char n = ecma[++i];
      if (n == 's')
        out += in_class ? "[:space:]" : "[[:space:]]";
      else if (n == 'S' && !in_class)
        out += "[^[:space:]]";
      else
        out += c, out += n;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < ecma.size() && ecma[i + 1] == '^') out += ecma[++i];
      if (i + 1 < ecma.size() && ecma[i + 1] == ']') out += ecma[++i];
      continue;
    }
    if (c == '.') {
      out += "[^\\n\\r]";
      continue;
    }
    out += c;
  }
  return out;
}

inline RE2::Options re2_options(bool icase) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive(!icase);
  o.set_log_errors(false);
  return o;
}

// One compiled pattern; declare as a function-local static so it compiles once.
class Regex {
 public:
  explicit Regex(std::string_view ecma, bool icase = false) : re_(re2_pattern(ecma), re2_options(icase)) {
    if (!re_.ok()) throw std::logic_error("labeler: bad pattern " + std::string(ecma) + ": " + re_.error());
  }
  [[nodiscard]] const RE2& re() const { return re_; }
  [[nodiscard]] int groups() const { return re_.NumberOfCapturingGroups(); }

 private:
  RE2 re_;
};

// A match: group 0 and each capturing group; an unmatched group has data() == nullptr.
struct Match {
  static constexpr int kMax = 8;
  re2::StringPiece g[kMax];
  [[nodiscard]] bool matched(int i) const { return g[i].data() != nullptr; }
  [[nodiscard]] std::string str(int i = 0) const { return matched(i) ? std::string(g[i].data(), g[i].size()) : ""; }
  // Offset of the match's end in the searched text.
  [[nodiscard]] std::size_t end(std::string_view text) const {
    return static_cast<std::size_t>(g[0].data() - text.data()) + g[0].size();
  }
  [[nodiscard]] std::size_t begin(std::string_view text) const {
    return static_cast<std::size_t>(g[0].data() - text.data());
  }
};

// std::regex_search: the leftmost match at or after `from` (the text before `from` is context for \b and ^).
inline bool re_search(std::string_view text, const Regex& r, Match& m, std::size_t from = 0) {
  if (from > text.size()) return false;
  return r.re().Match(re2::StringPiece(text.data(), text.size()), from, text.size(), RE2::UNANCHORED, m.g,
                      std::min(r.groups() + 1, Match::kMax));
}
inline bool re_search(std::string_view text, const Regex& r) {
  return r.re().Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, nullptr, 0);
}
// std::regex_match: the whole text.
inline bool re_full(std::string_view text, const Regex& r, Match& m) {
  return r.re().Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::ANCHOR_BOTH, m.g,
                      std::min(r.groups() + 1, Match::kMax));
}

// std::sregex_iterator: each non-overlapping match, left to right (the patterns never match empty).
template <class F>
void re_each(std::string_view text, const Regex& r, F&& f) {
  Match m;
  for (std::size_t from = 0; from <= text.size() && re_search(text, r, m, from);) {
    f(m);
    const auto e = m.end(text);
    from = e > m.begin(text) ? e : e + 1;
  }
}

}  // namespace perftriage::analyzers::labeler
