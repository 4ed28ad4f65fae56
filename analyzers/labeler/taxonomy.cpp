#include "analyzers/labeler/taxonomy.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "analyzers/labeler/model.hpp"
#include "analyzers/labeler/text.hpp"
#include "perftriage_embedded_taxonomies.hpp"

namespace perftriage::analyzers::labeler {
namespace {

using nlohmann::json;

// "hw : LNL", "HW: lnl" -> "hw:lnl": compare labels without case and without spaces around ':'.
std::string label_key(std::string_view label) {
  std::string out;
  for (char c : lower(trim(label))) {
    if (c == ' ' && (out.empty() || out.back() == ':')) continue;
    if (c == ':') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
    }
    out += c;
  }
  return out;
}

Error bad(std::string message) { return make_error(ErrorKind::invalid_input, "bad_taxonomy", std::move(message)); }

// An axis' "groups": arrays of its own label spellings, each in one group at most. Empty when right, else what is
// wrong.
std::string parse_groups(const json& a, AxisSpec& spec) {
  if (!a.contains("groups")) return {};
  const std::string where = "axis \"" + spec.name + "\": ";
  if (!a["groups"].is_array()) return where + "\"groups\" must be an array of arrays of its labels";
  std::set<std::string> seen;
  for (const auto& g : a["groups"]) {
    if (!g.is_array() || g.empty()) return where + "each of \"groups\" must be a non-empty array of its labels";
    auto& group = spec.groups.emplace_back();
    for (const auto& l : g) {
      const bool own = l.is_string() && std::any_of(spec.values.begin(), spec.values.end(),
                                                    [&](const auto& kv) { return kv.second == l.get<std::string>(); });
      if (!own) return where + "\"groups\" may list only the axis' own labels, found " + l.dump();
      if (!seen.insert(l.get<std::string>()).second) return where + l.dump() + " is in two groups";
      group.push_back(l.get<std::string>());
    }
  }
  return {};
}

Result<std::vector<PatternRule>> parse_rules(const json& arr, const char* what) {
  std::vector<PatternRule> out;
  if (!arr.is_array()) return bad(std::string(what) + " must be an array of {key, patterns}");
  for (const auto& r : arr) {
    if (!r.is_object() || !r.contains("key") || !r["key"].is_string())
      return bad(std::string(what) + ": every entry needs a string \"key\"");
    PatternRule rule;
    rule.key = r["key"].get<std::string>();
    for (const char* field : {"patterns", "aliases"}) {
      if (r.contains(field)) {
        if (!r[field].is_array()) return bad(std::string(what) + "." + field + " must be an array of strings");
        for (const auto& p : r[field]) {
          if (!p.is_string()) return bad(std::string(what) + "." + field + " must be an array of strings");
          rule.patterns.push_back(lower(p.get<std::string>()));
        }
      }
    }
    if (r.contains("weak")) {
      if (!r["weak"].is_array()) return bad(std::string(what) + ".weak must be an array of strings");
      for (const auto& p : r["weak"]) {
        if (!p.is_string()) return bad(std::string(what) + ".weak must be an array of strings");
        rule.weak.push_back(lower(p.get<std::string>()));
      }
    }
    if (r.contains("tag_aliases"))
      for (const auto& p : r["tag_aliases"])
        if (p.is_string()) rule.tag_only.push_back(lower(p.get<std::string>()));
    out.push_back(std::move(rule));
  }
  return out;
}

Result<Taxonomy> load_builtin(std::string_view name, int depth);

Result<Taxonomy> parse_impl(const json& j, int depth) {
  if (!j.is_object()) return bad("a taxonomy is a JSON object");
  Taxonomy t;
  if (j.contains("base")) {
    if (!j["base"].is_string()) return bad("\"base\" must name a built-in taxonomy");
    if (depth > 4) return bad("taxonomy \"base\" chain too deep");
    PT_ASSIGN(t, load_builtin(j["base"].get<std::string>(), depth + 1));
    t.model.reset();  // a model is learned from one tracker's history: never inherited
    t.legacy.clear();
    t.implies.clear();
  }
  if (!j.contains("name") || !j["name"].is_string()) return bad("a taxonomy needs a string \"name\"");
  t.name = j["name"].get<std::string>();
  t.repo = j.value("repo", std::string{});
  t.description = j.value("description", std::string{});
  if (j.contains("axes")) {
    if (!j["axes"].is_array()) return bad("\"axes\" must be an array");
    t.axes.clear();
    for (const auto& a : j["axes"]) {
      if (!a.is_object() || !a.contains("axis") || !a["axis"].is_string())
        return bad("every axis needs a string \"axis\"");
      AxisSpec spec;
      spec.name = a["axis"].get<std::string>();
      spec.multi = a.value("multi", false);
      spec.applied = a.value("applied", true);
      spec.color = a.value("color", std::string{});
      spec.fallback = a.value("default", std::string{});
      if (!a.contains("values") || !a["values"].is_object())
        return bad("axis \"" + spec.name + "\" needs an object \"values\" (key -> label)");
      for (const auto& [k, v] : a["values"].items()) {
        if (!v.is_string()) return bad("axis \"" + spec.name + "\": value \"" + k + "\" must map to a label string");
        spec.values.emplace_back(k, v.get<std::string>());
      }
      if (auto why = parse_groups(a, spec); !why.empty()) return bad(why);
      t.axes.push_back(std::move(spec));
    }
  } else if (!j.contains("base")) {
    return bad("a taxonomy needs \"axes\"");
  }
  if (j.contains("legacy")) {
    if (!j["legacy"].is_object()) return bad("\"legacy\" must map spellings to labels");
    for (const auto& [k, v] : j["legacy"].items())
      if (v.is_string()) t.legacy.emplace_back(k, v.get<std::string>());
  }
  if (j.contains("title_tags")) {
    if (!j["title_tags"].is_object()) return bad("\"title_tags\" must map a tag to [axis, key]");
    t.title_tags.clear();
    for (const auto& [k, v] : j["title_tags"].items()) {
      if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_string())
        return bad("title tag \"" + k + "\" must map to [axis, key]");
      t.title_tags.push_back({lower(k), {v[0].get<std::string>(), v[1].get<std::string>()}});
    }
  }
  struct RuleField {
    const char* name;
    std::vector<PatternRule>* dest;
  };
  for (auto [name, dest] : {RuleField{"hw_aliases", &t.hw_aliases}, RuleField{"os_words", &t.os_words},
                            RuleField{"modules", &t.modules}, RuleField{"dependencies", &t.dependencies}}) {
    if (!j.contains(name)) continue;
    PT_ASSIGN(*dest, parse_rules(j[name], name));
  }
  if (j.contains("implies")) {
    if (!j["implies"].is_array()) return bad("\"implies\" must be an array");
    for (const auto& r : j["implies"]) {
      if (!r.is_object() || !r.contains("add") || !r["add"].is_string() || !r.contains("when") || !r["when"].is_array())
        return bad("every \"implies\" entry needs \"when\" (labels) and \"add\" (a label)");
      Implication imp;
      for (const auto& w : r["when"])
        if (w.is_string()) imp.when.push_back(w.get<std::string>());
      imp.add = r["add"].get<std::string>();
      imp.color = r.value("color", std::string{});
      t.implies.push_back(std::move(imp));
    }
  }
  return t;
}

Result<Taxonomy> load_builtin(std::string_view name, int depth) {
  for (const auto& e : embedded::kTaxonomies) {
    if (e.name != name) continue;
    auto j = json::parse(e.json, nullptr, false);
    if (j.is_discarded()) return make_error(ErrorKind::internal, "bad_taxonomy", "embedded taxonomy is not JSON");
    PT_ASSIGN(auto t, parse_impl(j, depth));
    if (depth == 0) t.model = builtin_model_shared(name);
    return t;
  }
  return make_error(ErrorKind::not_found, "unknown_taxonomy",
                    "no taxonomy named '" + std::string(name) + "' (built-in: " + join(builtin_taxonomies(), ", ") +
                        "; or give a path to a .json file)");
}

}  // namespace

bool AxisSpec::judged(std::string_view label, const std::set<std::string>& set) const {
  const auto group_of = [&](std::string_view l) -> const std::vector<std::string>* {
    for (const auto& g : groups)
      if (std::find(g.begin(), g.end(), l) != g.end()) return &g;
    return nullptr;
  };
  const auto* mine = group_of(label);
  return std::any_of(set.begin(), set.end(), [&](const std::string& s) { return group_of(s) == mine; });
}

const AxisSpec* Taxonomy::axis(std::string_view n) const {
  for (const auto& a : axes)
    if (a.name == n) return &a;
  return nullptr;
}

std::optional<std::string> Taxonomy::label_for(std::string_view axis_name, std::string_view key) const {
  const auto* a = axis(axis_name);
  if (!a) return std::nullopt;
  for (const auto& [k, v] : a->values)
    if (k == key) return v;
  for (const auto& [k, v] : a->values)
    if (k == "*") return v;
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>> Taxonomy::parse_label(std::string_view label) const {
  auto key = label_key(label);
  for (const auto& [spelling, to] : legacy)
    if (label_key(spelling) == key) {
      key = label_key(to);
      break;
    }
  for (const auto& a : axes)
    for (const auto& [k, v] : a.values)
      if (k != "*" && label_key(v) == key) return std::pair{a.name, k};
  return std::nullopt;
}

std::optional<std::string> Taxonomy::canonical_label(std::string_view label) const {
  if (auto p = parse_label(label)) return label_for(p->first, p->second);
  for (const auto& imp : implies)
    if (label_key(imp.add) == label_key(label)) return imp.add;
  return std::nullopt;
}

std::string Taxonomy::color_for(std::string_view label) const {
  if (auto p = parse_label(label))
    if (const auto* a = axis(p->first)) return a->color.empty() ? "ededed" : a->color;
  for (const auto& a : axes)
    for (const auto& [k, v] : a.values)
      if (label_key(v) == label_key(label)) return a.color.empty() ? "ededed" : a.color;
  for (const auto& imp : implies)
    if (label_key(imp.add) == label_key(label)) return imp.color.empty() ? "ededed" : imp.color;
  return "ededed";
}

std::optional<std::pair<std::string, std::string>> Taxonomy::title_tag(std::string_view tag) const {
  auto l = lower(trim(tag));
  for (const auto& [k, v] : title_tags)
    if (k == l) return v;
  return std::nullopt;
}

std::vector<std::string> builtin_taxonomies() {
  std::vector<std::string> out;
  for (const auto& e : embedded::kTaxonomies) out.emplace_back(e.name);
  return out;
}

Result<Taxonomy> parse_taxonomy(const json& j) {
  // An inline taxonomy comes from a request: a field of the wrong type ("multi": "yes") is a 400 naming it, never an
  // exception out of nlohmann's typed accessors (found by fuzz/taxonomy_fuzz.cpp).
  try {
    return parse_impl(j, 0);
  } catch (const json::exception& e) {
    return bad(std::string("a taxonomy field has the wrong type: ") + e.what());
  }
}

Result<Taxonomy> load_taxonomy(std::string_view name_or_json) {
  auto spec = trim(name_or_json);
  if (spec.empty()) spec = "torch-xpu-ops";
  if (spec.front() == '{') {
    auto j = json::parse(spec, nullptr, false);
    if (j.is_discarded()) return bad("the taxonomy text is not valid JSON");
    return parse_taxonomy(j);
  }
  for (const auto& e : embedded::kTaxonomies)
    if (e.name == spec) return load_builtin(spec, 0);
  if (spec.find('/') != std::string_view::npos || spec.ends_with(".json")) {
    std::ifstream in{std::string(spec)};
    if (!in)
      return make_error(ErrorKind::not_found, "taxonomy_not_found", "cannot read taxonomy file " + std::string(spec),
                        std::string(spec));
    std::stringstream ss;
    ss << in.rdbuf();
    auto j = json::parse(ss.str(), nullptr, false);
    if (j.is_discarded()) {
      auto e = bad("taxonomy file is not valid JSON");
      e.file = std::string(spec);
      return e;
    }
    auto t = parse_taxonomy(j);
    if (!t) {
      auto e = std::move(t).error();
      e.file = std::string(spec);
      return e;
    }
    return t;
  }
  return load_builtin(spec, 0);
}

json to_json(const Taxonomy& t) {
  json axes = json::array();
  for (const auto& a : t.axes) {
    json values = json::object();
    for (const auto& [k, v] : a.values) values[k] = v;
    axes.push_back({{"axis", a.name},
                    {"multi", a.multi},
                    {"applied", a.applied},
                    {"color", a.color},
                    {"default", a.fallback},
                    {"values", values}});
    if (!a.groups.empty()) axes.back()["groups"] = a.groups;
  }
  return {{"name", t.name}, {"repo", t.repo}, {"axes", axes}};
}

}  // namespace perftriage::analyzers::labeler
