#include "analyzers/labeler/title.hpp"

#include <cctype>

#include "analyzers/labeler/text.hpp"

namespace perftriage::analyzers::labeler {
namespace {

// 0x0BDA -> "bda": hex device ids compare without the prefix and leading zeros.
std::string normalize_hex(std::string_view s) {
  auto t = lower(s);
  if (t.starts_with("0x")) t.erase(0, 2);
  while (t.size() > 1 && t.front() == '0') t.erase(0, 1);
  return t;
}

std::vector<std::string> hex_ids(std::string_view text_lower) {
  std::vector<std::string> out;
  for (std::size_t pos = text_lower.find("0x"); pos != std::string_view::npos; pos = text_lower.find("0x", pos + 2)) {
    if (pos > 0 && std::isalnum(static_cast<unsigned char>(text_lower[pos - 1]))) continue;
    std::size_t end = pos + 2;
    while (end < text_lower.size() && std::isxdigit(static_cast<unsigned char>(text_lower[end]))) ++end;
    if (end > pos + 2 && (end >= text_lower.size() || !std::isalnum(static_cast<unsigned char>(text_lower[end]))))
      out.push_back(normalize_hex(text_lower.substr(pos, end - pos)));
  }
  return out;
}

std::string alias_hit(std::string_view text_lower, const PatternRule& rule, bool tag_mode,
                      const std::vector<std::string>& ids) {
  for (const auto& a : rule.patterns) {
    if (a.starts_with("0x")) {
      auto n = normalize_hex(a);
      for (const auto& id : ids)
        if (id == n) return a;
      continue;
    }
    if (contains_word(text_lower, a)) {
      // "Arc(TM) B580": the product family word never names the hw; the alias after it does.
      return a;
    }
  }
  if (tag_mode)
    for (const auto& a : rule.tag_only)
      if (contains_word(text_lower, a)) return a;
  return "";
}

std::string spaced(std::string_view tag) {
  std::string s = lower(tag);
  for (auto& c : s)
    if (c == '-' || c == '+' || c == ',' || c == '/' || c == '_') c = ' ';
  return s;
}

}  // namespace

std::set<std::string> find_hw(std::string_view text_lower, const Taxonomy& taxonomy) {
  std::set<std::string> out;
  auto ids = hex_ids(text_lower);
  for (const auto& rule : taxonomy.hw_aliases)
    if (!alias_hit(text_lower, rule, false, ids).empty()) out.insert(rule.key);
  return out;
}

std::string hw_evidence(std::string_view text_lower, const Taxonomy& taxonomy, const std::string& key) {
  auto ids = hex_ids(text_lower);
  for (const auto& rule : taxonomy.hw_aliases)
    if (rule.key == key) return alias_hit(text_lower, rule, false, ids);
  return "";
}

std::set<std::string> find_hw_in_tag(std::string_view tag, const Taxonomy& taxonomy) {
  std::set<std::string> out;
  auto s = spaced(tag);
  auto ids = hex_ids(s);
  for (const auto& rule : taxonomy.hw_aliases)
    if (!alias_hit(s, rule, true, ids).empty()) out.insert(rule.key);
  return out;
}

std::set<std::string> find_os(std::string_view text_lower, const Taxonomy& taxonomy) {
  std::set<std::string> out;
  for (const auto& rule : taxonomy.os_words)
    for (const auto& a : rule.patterns)
      if (contains_word(text_lower, a)) {
        out.insert(rule.key);
        break;
      }
  return out;
}

TitleInfo parse_title(std::string_view title, const Taxonomy& taxonomy) {
  TitleInfo info;
  std::string rest;
  std::string t(trim(title));
  // Bracketed tags anywhere.
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '[') {
      auto close = t.find(']', i);
      if (close != std::string::npos && close - i <= 40) {
        info.tags.push_back(std::string(trim(std::string_view(t).substr(i + 1, close - i - 1))));
        i = close + 1;
        if (i < t.size() && t[i] == ':') ++i;
        rest += ' ';
        continue;
      }
    }
    rest += t[i++];
  }
  // Unbracketed leading tags: "ARC: FP64: ..." — short words before a colon that the taxonomy knows.
  for (;;) {
    auto r = trim(rest);
    auto colon = r.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 20) break;
    auto word = trim(r.substr(0, colon));
    bool simple = true;
    for (char c : word)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '_' || c == '-')) simple = false;
    if (!simple) break;
    bool known = taxonomy.title_tag(word).has_value() || !find_hw_in_tag(word, taxonomy).empty();
    bool upper = true;
    for (char c : word)
      if (std::islower(static_cast<unsigned char>(c))) upper = false;
    if (!known && !upper) break;
    info.tags.emplace_back(word);
    rest = std::string(r.substr(colon + 1));
  }
  info.rest = std::string(trim(rest));

  for (const auto& tag : info.tags) {
    if (auto hit = taxonomy.title_tag(tag)) {
      info.hits.push_back({hit->first, hit->second, tag});
      continue;
    }
    for (const auto& hw : find_hw_in_tag(tag, taxonomy)) info.hits.push_back({"hw", hw, tag});
    // Tokens: split on space , + - /.
    std::string tok;
    auto flush = [&] {
      if (tok.empty()) return;
      if (auto hit = taxonomy.title_tag(tok)) info.hits.push_back({hit->first, hit->second, tag});
      tok.clear();
    };
    for (char c : tag) {
      if (c == ' ' || c == ',' || c == '+' || c == '-' || c == '/')
        flush();
      else
        tok += c;
    }
    flush();
  }
  return info;
}

}  // namespace perftriage::analyzers::labeler
