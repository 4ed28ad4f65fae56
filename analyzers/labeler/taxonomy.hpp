#pragma once
// A tracker's label taxonomy, loaded from data: the axes and the label spelling of each value, legacy spellings,
// title tags, hw / os aliases, module precedence + patterns, dependency patterns, colours. Built-in taxonomies are
// embedded from analyzers/taxonomies/*.json; a file path or a JSON text loads a new tracker without code.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage::analyzers::labeler {

struct LabelModel;  // analyzers/labeler/model.hpp

struct AxisSpec {
  std::string name;
  bool multi = false;    // cardinality many
  bool applied = true;   // false: a native field (type, priority on torch-xpu-ops), never a label
  std::string color;     // hex without '#', for creating missing labels
  std::string fallback;  // default key ("ut" for test, "Medium" for priority)
  std::vector<std::pair<std::string, std::string>> values;  // key -> label spelling, in file order; key "*" = any
  // Values a tracker labels as a question of their own inside a multi-valued axis (the benchmark mode, `inference` /
  // `training`, inside the symptom axis): whether the labeler's value is right is judged only on issues where the
  // tracker set a value of the same group, the ungrouped values forming one group of their own. A tracker that sets
  // `performance` and never a mode says nothing about the mode. Label spellings.
  std::vector<std::vector<std::string>> groups;

  // Whether the tracker's labels of this axis on an issue (`set`, canonical) judge `label`: one of them is in its
  // group.
  [[nodiscard]] bool judged(std::string_view label, const std::set<std::string>& set) const;
};

struct PatternRule {
  std::string key;
  std::vector<std::string> patterns;  // lower-case; a leading '=' means "whole word" (non-alphanumeric around)
  std::vector<std::string> tag_only;  // hw: spellings that count only inside a title tag ("arc")
  // modules: words that point at the module without deciding it ("torch.compile" is how any pt2 issue starts, not
  // a sign of inductor): matched only when no other pattern of any module matched, and then only suggested.
  std::vector<std::string> weak;
};

struct Implication {
  std::vector<std::string> when;  // any of these labels present ...
  std::string add;                // ... adds this one
  std::string color;
};

struct Taxonomy {
  std::string name, repo, description;
  std::vector<AxisSpec> axes;
  std::vector<std::pair<std::string, std::string>> legacy;                              // spelling -> canonical label
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> title_tags;  // tag -> (axis, key)
  std::vector<PatternRule> hw_aliases, os_words, modules, dependencies;                 // modules: precedence order
  std::vector<Implication> implies;
  // The learned layer (model.hpp): a built-in taxonomy carries its embedded model when it has one; null: rules only.
  std::shared_ptr<const LabelModel> model;

  [[nodiscard]] const AxisSpec* axis(std::string_view name) const;
  // The label this taxonomy spells for (axis, key); nullopt when the tracker has no such value.
  [[nodiscard]] std::optional<std::string> label_for(std::string_view axis, std::string_view key) const;
  // Reverse: a label as found on an issue (any case, legacy spellings, "hw : LNL") -> (axis, key).
  [[nodiscard]] std::optional<std::pair<std::string, std::string>> parse_label(std::string_view label) const;
  // Canonical spelling of a label found on an issue; nullopt when it is not part of this taxonomy.
  [[nodiscard]] std::optional<std::string> canonical_label(std::string_view label) const;
  [[nodiscard]] std::string color_for(std::string_view label) const;
  [[nodiscard]] std::optional<std::pair<std::string, std::string>> title_tag(std::string_view tag) const;
};

// Names of the embedded taxonomies ("pytorch", "torch-xpu-ops").
std::vector<std::string> builtin_taxonomies();
// `name_or_json`: a built-in name (empty -> "torch-xpu-ops"), a JSON text (starts with '{'), or a path to a JSON file.
Result<Taxonomy> load_taxonomy(std::string_view name_or_json);
Result<Taxonomy> parse_taxonomy(const nlohmann::json& j);
nlohmann::json to_json(const Taxonomy& t);

}  // namespace perftriage::analyzers::labeler
